"""When every edit fails, the loop can regenerate from a rewritten prompt (scene double: logic only)."""

from __future__ import annotations

import json

import pytest

from autoalign.agents.runner import run
from autoalign.config import load_config
from autoalign.doubles.scene import SceneEditorDouble

PROMPT = "two red apples on a blue plate"


@pytest.fixture
def useless_editor(monkeypatch):
    """The editor double returns the image unchanged, so every edit is rejected."""
    monkeypatch.setattr(SceneEditorDouble, "edit", lambda self, image, instruction, n, seed: [image.copy() for _ in range(n)])


def _config(regenerate: bool, **loop):
    # The scene generator double flaws seeds with seed % 3 in (0, 1). Seed 4 draws a wrong colour;
    # regeneration uses seed + 1000 * round + 500: round 1 -> 1504 (flawed again), round 2 -> 2504 (correct).
    settings = {"candidates": 1, "max_rounds": 2, "patience": 2, "seed": 4, "regenerate_on_stall": regenerate, **loop}
    return load_config("scene-double", overrides={"loop": settings})


def test_without_regeneration_failed_edits_end_in_no_improvement(tmp_path, useless_editor):
    summary = run(PROMPT, _config(False, max_rounds=3), tmp_path / "r")  # patience 2 ends it before round 3
    assert summary.stop_reason == "no_improvement" and summary.rounds == 2
    assert summary.edits_accepted == 0 and summary.edits_rejected >= 2
    assert summary.mismatches_after and summary.final.path == summary.first_best.path
    assert all(a.origin == "edit" for r in summary.round_records for a in r.attempts)  # never regenerated


def test_regeneration_from_a_rewritten_prompt_fixes_what_edits_could_not(tmp_path, useless_editor):
    summary = run(PROMPT, _config(True), tmp_path / "r")
    assert summary.stop_reason == "aligned", summary.stop_reason
    assert summary.final.origin == "regenerate"
    assert summary.scores.final > summary.scores.first_best
    assert summary.rounds == 2
    regens = [a for r in summary.round_records for a in r.attempts if a.origin == "regenerate"]
    assert [a.decision.accepted for a in regens] == [False, True]  # round 1 redraws a flaw, round 2 fixes it
    assert all("must clearly show" in a.instruction.text for a in regens)
    rounds = [json.loads(line) for line in (tmp_path / "r" / "trace.jsonl").read_text().splitlines()]
    assert any("regenerate:" in line and "must clearly show" in line for line in map(json.dumps, rounds))
