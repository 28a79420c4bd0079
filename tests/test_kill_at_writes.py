"""A kill at any write loses no step and no item (issue 35, break 3 and the 'done when' line).

Each child process is the real runner (or batch) on the scene-double preset, run with
``AUTOALIGN_FAULT_KILL=NAME@N``: :mod:`autoalign.files` SIGKILLs it at the N-th write to the file
NAME, half-way through a JSON line or an atomic write's temporary file, or just before an SQLite
statement that writes (the checkpoint, the ledger). The next child resumes the same directory;
after the kills a last one runs to the end, and the directory must equal an uninterrupted run's:
the same trace steps (node by node), every item done once, nothing torn, no temporary file left.

Killing a child after a sequence of kills in one directory is what a user sees: each kill lands
on what the previous resume left. 20 kills in all: 11 in two runs, 9 in a batch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from autoalign.files import FAULT_ENV, read_jsonl

PROMPT = "two red apples and a blue plate"

RUN_CHILD = textwrap.dedent(
    """
    import sys
    import autoalign.doubles.scene  # noqa: F401 - registers the scene-double backends
    from autoalign.agents import runner
    from autoalign.config import load_config

    cfg = load_config("scene-double", overrides={"loop": {"candidates": 2, "max_rounds": 2}})
    runner.run(sys.argv[2], cfg, sys.argv[1], resume=True)
    """
)

BATCH_CHILD = textwrap.dedent(
    """
    import sys
    import autoalign.doubles.scene  # noqa: F401 - registers the scene-double backends
    from autoalign.agents.batch import run_batch
    from autoalign.config import load_config

    cfg = load_config("scene-double", overrides={"loop": {"candidates": 1, "max_rounds": 1}})
    run_batch(sys.argv[2], sys.argv[1], cfg, progress=False)
    """
)


def _child(script: str, *args: str, kill_at: str | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, AUTOALIGN_LOG="ERROR")
    env.pop(FAULT_ENV, None)
    if kill_at:
        env[FAULT_ENV] = kill_at
    return subprocess.run([sys.executable, "-c", script, *args], env=env, capture_output=True, text=True, timeout=300)


def _steps(run_dir: Path) -> list[tuple[int, str, int]]:
    trace = read_jsonl(run_dir / "trace.jsonl")
    assert not trace.bad_lines and not trace.torn_tail
    return [(r["step"], r["node"], r["round"]) for r in trace.values]


def _temporaries(root: Path) -> list[Path]:
    return [p for p in root.rglob("*.tmp") if p.is_file()]


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("reference") / "run"
    done = _child(RUN_CHILD, str(out), PROMPT)
    assert done.returncode == 0, done.stderr[-2000:]
    return out


RUN_KILLS = [
    # the first run: a kill at the first trace line, at checkpoint writes, at the config and the end
    ["config.json@1", "checkpoint.sqlite@3", "trace.jsonl@1", "checkpoint.sqlite@4", "trace.jsonl@2",
     "summary.json@1"],
    # the second: kills at later trace lines (a step written by a resumed process) and at final.png
    ["trace.jsonl@3", "checkpoint.sqlite@9", "trace.jsonl@2", "final.png@1", "trace.jsonl@1"],
]


@pytest.mark.parametrize("kills", RUN_KILLS, ids=["first", "second"])
def test_a_run_killed_at_its_writes_loses_no_step(tmp_path, reference_run, kills):
    out = tmp_path / "run"
    landed = 0
    for kill_at in kills:
        child = _child(RUN_CHILD, str(out), PROMPT, kill_at=kill_at)
        assert child.returncode in (0, -9), child.stderr[-2000:]
        landed += child.returncode == -9
    assert landed >= len(kills) - 1, f"only {landed} of {len(kills)} kills landed"
    done = _child(RUN_CHILD, str(out), PROMPT)
    assert done.returncode == 0, done.stderr[-2000:]

    assert _steps(out) == _steps(reference_run)  # no step lost, none twice, in the same order
    summary = json.loads((out / "summary.json").read_text())
    reference = json.loads((reference_run / "summary.json").read_text())
    assert summary["graph_steps"] == reference["graph_steps"] == len(_steps(out))
    assert summary["scores"] == reference["scores"] and summary["stop_reason"] == reference["stop_reason"]
    assert not _temporaries(out)


def test_a_trace_line_torn_by_a_kill_is_rebuilt_from_the_checkpoint(tmp_path, reference_run):
    """The trial's case: killed while writing a trace line, the step was checkpointed but never traced."""
    out = tmp_path / "run"
    child = _child(RUN_CHILD, str(out), PROMPT, kill_at="trace.jsonl@2")
    assert child.returncode == -9
    assert _child(RUN_CHILD, str(out), PROMPT).returncode == 0
    records = read_jsonl(out / "trace.jsonl").values
    assert [r["node"] for r in records] == [n for _, n, _ in _steps(reference_run)]
    assert [r.get("rebuilt", False) for r in records[:3]] == [False, True, False]


# Early writes, so that each child is killed before the batch runs out of work: 5 items, 9 kills.
BATCH_KILLS = ["ledger.sqlite@4", "trace.jsonl@2", "checkpoint.sqlite@5", "ledger.sqlite@9", "config.json@2",
               "trace.jsonl@7", "ledger.sqlite@3", "checkpoint.sqlite@2", "manifest.jsonl@1"]


def test_a_batch_killed_at_its_writes_loses_no_item_and_no_step(tmp_path, reference_run):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text(f"{PROMPT}\none green cube\nthree blue balls\na yellow cup\ntwo white dogs\n")
    out = tmp_path / "batch"
    landed = 0
    for kill_at in BATCH_KILLS:
        child = _child(BATCH_CHILD, str(out), str(prompts), kill_at=kill_at)
        assert child.returncode in (0, -9), child.stderr[-2000:]
        landed += child.returncode == -9
    assert landed >= len(BATCH_KILLS) - 1, f"only {landed} of {len(BATCH_KILLS)} kills landed"
    done = _child(BATCH_CHILD, str(out), str(prompts))
    assert done.returncode == 0, done.stderr[-2000:]

    rows = read_jsonl(out / "manifest.jsonl").values
    assert sorted(r["prompt"] for r in rows) == sorted(prompts.read_text().splitlines())
    assert all(r["status"] == "done" and (out / r["final_image"]).is_file() for r in rows)
    for item in (out / "items").iterdir():
        steps = _steps(item)
        assert [s for s, _, _ in steps] == list(range(len(steps)))
        assert json.loads((item / "summary.json").read_text())["graph_steps"] == len(steps)
    assert not _temporaries(out)


def test_the_kill_resume_auditor_counts_a_step_the_checkpoint_holds_but_the_trace_lost(tmp_path, reference_run):
    """What the trial saw: 8 trace lines, graph_steps 8, steps numbered 0..7 - and one step gone."""
    import shutil

    from autoalign.benchmarks.kill_resume import _audit_run_dir

    run = tmp_path / "run"
    shutil.copytree(reference_run, run)
    records = read_jsonl(run / "trace.jsonl").values
    kept = [dict(r, step=i) for i, r in enumerate(records[:2] + records[3:])]
    (run / "trace.jsonl").write_text("".join(json.dumps(r) + "\n" for r in kept))
    summary = json.loads((run / "summary.json").read_text())
    (run / "summary.json").write_text(json.dumps(dict(summary, graph_steps=len(kept))))
    assert _audit_run_dir(reference_run) == (0, 0, 0)
    lost, duplicated, corrupt = _audit_run_dir(run)
    assert lost == 1 and duplicated == 0 and corrupt == 0
