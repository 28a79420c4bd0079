"""Prompts with several mismatches, on the scene double (a test double: it shows loop logic only)."""

from __future__ import annotations

import pytest

from autoalign.agents.runner import run
from autoalign.config import load_config
from autoalign.doubles.scene import flawed, parse_scene

PROMPT = "two red apples on a blue plate"


def test_both_flaw_gives_a_wrong_count_and_a_wrong_colour():
    scene = parse_scene(PROMPT)
    bad = flawed(scene, 0, "both")
    counts = [(o.count, b.count) for o, b in zip(scene, bad) if o.count != b.count]
    colours = [(o.colour, b.colour) for o, b in zip(scene, bad) if o.colour != b.colour]
    assert len(counts) == 1 and len(colours) == 1


@pytest.mark.parametrize("mode, max_rounds_needed", [("sequential", 2), ("combined", 1)])
def test_both_mismatches_get_fixed_one_per_edit_or_together(tmp_path, mode, max_rounds_needed):
    cfg = load_config(
        "scene-double",
        overrides={"loop": {"multi_mismatch": mode, "candidates": 1, "max_rounds": 3}, "generator": {"flaw": "both"}},
    )
    summary = run(PROMPT, cfg, tmp_path / mode)
    assert len(summary.mismatches_before) == 2
    assert summary.stop_reason == "aligned"
    assert summary.mismatches_after == []
    assert 1 <= summary.rounds <= max_rounds_needed
    if mode == "combined":
        assert " and " in summary.instructions[0].text
