"""experiments.pass_signals (round 33): which recorded images count as layout-clean, where their images live, and the
AUC helper's refusal of a one-class set. The figures it prints are analysis (docs/lab-notes/round-33-issue-36.md)."""

from __future__ import annotations

from pathlib import Path

from experiments.pass_signals import auc, image_path, layout_clean


def record(**kw):
    base = {"id": "shapes-val-counting-0001", "source": "generated", "image": 2, "grounded": [], "probe": [], "min_box": 0.95}
    return {**base, **kw}


def test_layout_clean_is_the_pass_decision_without_its_clip_gate():
    assert layout_clean(record(), 0.8)
    assert layout_clean(record(min_box=None), 0.8)  # no object boxes: nothing unsure
    assert layout_clean(record(grounded=[{"aspect": "attribute", "unsure": True}], min_box=0.9), 0.8)
    assert not layout_clean(record(grounded=[{"aspect": "number", "unsure": False}]), 0.8)
    assert not layout_clean(record(probe=[{"aspect": "attribute"}]), 0.8)
    assert not layout_clean(record(min_box=0.7), 0.8)


def test_image_path_reads_pass_eval_s_two_image_sources():
    work, runs = Path("/w"), Path("/r")
    assert image_path(record(), work, runs) == Path("/w/shapes-val-counting-0001/cand_02.png")
    assert image_path(record(source="edit", image="items/x/s0/rounds/r01/region_s0.png"), work, runs) == \
        Path("/r/items/x/s0/rounds/r01/region_s0.png")


def test_auc_is_none_for_one_class_and_orders_scores():
    assert auc([True, True], [0.1, 0.2]) is None
    assert auc([False, True], [0.1, 0.9]) == 1.0
    assert auc([True, False], [0.1, 0.9]) == 0.0
