"""Benchmark metrics: CIs bracket the mean, paired gains and tests are right, rates count per aspect."""

from __future__ import annotations

import math

import numpy as np
import pytest

from autoalign.benchmarks import metrics as M
from autoalign.benchmarks.records import BenchRecord


def _rec(id_, cat, base, rer, cor=None, base_mm=(), cor_mm=(), status="ok", **kw):
    def stage(score, mms):
        return {"overall": score, "vq2": score, "vnli": score / 2, "clip": 0.3,
                "mismatches": [{"aspect": a, "phrase": p} for a, p in mms]}

    stages = {"baseline": stage(base, base_mm), "reranked": stage(rer, base_mm)}
    if cor is not None:
        stages["corrected"] = stage(cor, cor_mm)
    return BenchRecord.from_dict({  # a results.jsonl line, read back
        "id": id_, "seed": 0, "config_hash": "h", "category": cat, "status": status, "stages": stages,
        "rounds": kw.get("rounds", 1), "edits_accepted": kw.get("acc", 1), "edits_rejected": kw.get("rej", 0),
        "stop_reason": kw.get("stop", "aligned"), "wall_time_s": 1.0, "model_calls": {"vqa": 3, "generator": 1}})


def test_bootstrap_ci_brackets_the_mean_and_is_reproducible():
    values = np.random.default_rng(3).normal(0.5, 0.1, 50)
    m = M.mean_metric("x", values)
    assert m.n == 50 and m.ci_low < m.value < m.ci_high
    assert math.isclose(m.value, float(values.mean()))
    # the CI half-width is about 1.96 standard errors
    se = values.std(ddof=1) / math.sqrt(50)
    assert 2.5 * se < m.ci_high - m.ci_low < 5.5 * se
    assert M.bootstrap_ci(values) == M.bootstrap_ci(values)


def test_mean_of_nothing_and_of_one_value_do_not_crash():
    empty = M.mean_metric("x", [None, None])
    assert empty.value is None and empty.n == 0 and empty.fmt() == "n/a (n=0)"
    one = M.mean_metric("x", [0.7])
    assert (one.value, one.ci_low, one.ci_high, one.n) == (0.7, 0.7, 0.7, 1)


def test_paired_gain_recovers_a_known_difference():
    rng = np.random.default_rng(0)
    before = rng.uniform(0.2, 0.6, 60)
    after = before + 0.15 + rng.normal(0, 0.01, 60)
    g = M.paired_gain("g", list(before), list(after))
    assert abs(g.value - 0.15) < 0.01 and g.ci_low < 0.15 < g.ci_high
    assert g.extra["wilcoxon"]["p"] < 1e-6 and g.extra["permutation"]["p"] < 1e-3
    assert g.extra["n_improved"] == 60


def test_wilcoxon_on_a_known_case():
    # six positive differences of distinct size: exact two-sided p = 2 / 2**6
    res = M.wilcoxon_test([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    assert res["p"] == pytest.approx(2 / 64) and res["statistic"] == 0.0
    # exact sign-flip permutation test agrees on this case
    assert M.permutation_test([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])["p"] == pytest.approx(2 / 64)


def test_paired_tests_handle_tiny_and_all_zero_samples():
    for diffs in ([], [0.3]):
        assert M.wilcoxon_test(diffs)["p"] is None and "n >= 2" in M.wilcoxon_test(diffs)["note"]
        assert M.permutation_test(diffs)["p"] is None
    zero = M.paired_gain("g", [0.5, 0.5, 0.5], [0.5, 0.5, 0.5])
    assert zero.value == 0.0 and zero.extra["wilcoxon"]["note"] == "all differences are zero"


def test_paired_gain_drops_pairs_with_a_missing_side():
    g = M.paired_gain("g", [0.1, None, 0.3], [0.2, 0.9, None])
    assert g.n == 1 and g.value == pytest.approx(0.1)


def test_hallucination_rates_per_aspect_category_and_threshold_on_a_hand_example():
    records = [
        _rec("a", "colors", 0.4, 0.6, 0.9, base_mm=[("attribute", "red")], cor_mm=[]),
        _rec("b", "colors", 0.5, 0.5, 0.5, base_mm=[("number", "two"), ("entity", "cat")], cor_mm=[("number", "two")]),
        _rec("c", "count", 0.9, 0.9, 0.9),
        _rec("d", "count", 0.2, 0.3, 0.85, base_mm=[("relation", "on")], cor_mm=[]),
        _rec("e", "count", 0.0, 0.0, status="error"),
    ]
    m = M.compute_metrics(records, threshold=0.8)
    assert m["n_ok"] == 4 and m["n_errors"] == 1 and m["stages"] == ["baseline", "reranked", "corrected"]
    h = m["hallucination"]
    assert h["baseline"]["any_mismatch"].value == pytest.approx(3 / 4)
    assert h["corrected"]["any_mismatch"].value == pytest.approx(1 / 4)
    assert h["baseline"]["aspect:number"].value == pytest.approx(1 / 4)
    assert h["baseline"]["aspect:entity"].value == pytest.approx(1 / 4)
    assert h["baseline"]["aspect:attribute"].value == pytest.approx(1 / 4)
    assert h["corrected"]["aspect:attribute"].value == 0.0
    assert h["baseline"]["vq2_below_threshold"].value == pytest.approx(3 / 4)  # 0.4, 0.5, 0.2 < 0.8
    assert h["corrected"]["vq2_below_threshold"].value == pytest.approx(1 / 4)  # 0.5
    assert h["baseline"]["any_mismatch"].higher_is_better is False
    cat = m["per_category"]["colors"]
    assert cat["n"] == 2 and cat["hallucination"]["baseline"]["any_mismatch"].value == 1.0
    gain = m["gains"]["corrected-baseline"]["overall"]
    assert gain.value == pytest.approx(np.mean([0.5, 0.0, 0.0, 0.65])) and gain.n == 4
    assert m["process"]["stop_reasons"] == {"aligned": 4}
    assert m["process"]["model_calls"].value == 4.0


def test_audit_records_have_no_corrected_stage():
    records = [_rec(str(i), "x", 0.1 * i, 0.1 * i + 0.05) for i in range(5)]
    m = M.compute_metrics(records)
    assert m["stages"] == ["baseline", "reranked"]
    assert list(m["gains"]) == ["reranked-baseline"]
    assert m["gains"]["reranked-baseline"]["overall"].value == pytest.approx(0.05)


def test_every_metric_carries_its_direction_and_serialises():
    m = M.compute_metrics([_rec("a", "x", 0.2, 0.4, 0.6), _rec("b", "x", 0.3, 0.3, 0.5)], threshold=0.5)
    dirs = M.directions(m)
    assert dirs["vq2.baseline"] is True and dirs["hallucination.any_mismatch.corrected"] is False
    import json

    json.dumps(M.to_jsonable(m))


def test_compare_records_pairs_on_shared_ids():
    a = [_rec(str(i), "x", 0.2, 0.3, 0.4) for i in range(6)]
    b = [_rec(str(i), "x", 0.2, 0.3, 0.5) for i in range(1, 8)]
    res = M.compare_records(a, b)
    assert res["n_shared"] == 5 and res["n_only_a"] == 1 and res["n_only_b"] == 2
    assert res["diffs"]["corrected"]["overall"].value == pytest.approx(0.1)
    assert res["diffs"]["baseline"]["overall"].value == pytest.approx(0.0)


def test_one_metric_form_everywhere_and_the_old_world_eval_form_still_reads():
    from autoalign.benchmarks.metrics import wilson
    from autoalign.benchmarks.world_eval import auc_with_ci

    new = M.Metric("share", 0.5, 10, 0.2, 0.8, True)
    assert M.Metric.from_dict(new.to_dict()) == new
    assert set(wilson(3, 10)) == set(auc_with_ci([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8])) == set(new.to_dict())
    assert M.Metric.from_dict(wilson(3, 10)).n == 10
    old = {"value": 0.5, "n": 10, "ci": [0.2, 0.8]}  # what `world eval --json` wrote before
    assert M.Metric.from_dict(old).fmt() == "0.500 [0.200, 0.800] (n=10)"
