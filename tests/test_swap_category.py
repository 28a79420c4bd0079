"""experiments.swap_category: one category's prompts taken from a candidate run, the rest from the base run, and the
identity check on the other prompts both runs hold. The figures themselves are shapes_bench's (tested there); here a
stand-in records which items it was given."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autoalign.benchmarks.records import BenchRecord
from experiments import swap_category


def _run(root: Path, outcomes: dict[str, tuple[str, bool, bool]]) -> Path:
    """A bench run folder: one ok record per prompt and its item analysis (final image right?, judge said aligned?)."""
    root.mkdir()
    lines = []
    for pid, (category, right, judged) in outcomes.items():
        (root / pid).mkdir()
        item = {"id": pid, "stages": {"corrected": {"aligned": right}}, "judge_aligned": judged, "loop_calls": {"n": 1}}
        (root / pid / "oracle.json").write_text(json.dumps(item))
        lines.append(json.dumps(BenchRecord(id=pid, seed=0, config_hash="h", status="ok", category=category,
                                            prompt=pid, run_dir=pid).to_dict()))
    (root / "results.jsonl").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture
def seen(monkeypatch):
    """Stand-ins for shapes_bench's figures and markdown: they record the merged items."""
    from autoalign.benchmarks import shapes_bench

    got: list = []
    monkeypatch.setattr(shapes_bench, "figures", lambda items, judge: got.extend(items) or {"n": len(items)})
    monkeypatch.setattr(shapes_bench, "markdown", lambda result: "stand-in")
    return got


def test_the_category_comes_from_the_candidate_and_the_rest_from_the_base(tmp_path, seen, capsys):
    base = _run(tmp_path / "base", {"a": ("u", True, False), "b": ("u", False, False), "c": ("x", True, True)})
    cand = _run(tmp_path / "cand", {"a": ("u", True, True), "b": ("u", False, True), "c": ("x", True, True)})
    assert swap_category.main([str(base), str(cand), "--category", "u", "--out", str(tmp_path / "m")]) == 0
    assert [it["id"] for it in seen] == ["a", "b", "c"]
    assert [it["judge_aligned"] for it in seen] == [True, True, True]  # a, b from the candidate; c from the base
    assert json.loads((tmp_path / "m" / "oracle.json").read_text()) == {"n": 3}
    out = capsys.readouterr().out
    assert "1 prompts of other categories in both runs, 0 end otherwise" in out


def test_a_prompt_of_another_category_that_ends_otherwise_fails_the_check(tmp_path, seen, capsys):
    base = _run(tmp_path / "base", {"a": ("u", True, False), "c": ("x", True, True)})
    cand = _run(tmp_path / "cand", {"a": ("u", True, True), "c": ("x", False, True)})
    assert swap_category.main([str(base), str(cand), "--category", "u", "--out", str(tmp_path / "m")]) == 1
    assert "1 end otherwise: ['c']" in capsys.readouterr().out


def test_a_candidate_run_missing_prompts_of_the_category_is_an_error(tmp_path, seen, capsys):
    base = _run(tmp_path / "base", {"a": ("u", True, False), "b": ("u", True, False)})
    cand = _run(tmp_path / "cand", {"a": ("u", True, True)})
    assert swap_category.main([str(base), str(cand), "--category", "u", "--out", str(tmp_path / "m")]) == 2
    assert "lacks 1 of the 2 u prompts" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()
