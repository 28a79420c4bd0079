"""The kill-and-resume script's auditor (benchmarks/kill_resume.py) counts what it claims to: a run
directory with a duplicated trace step, a torn line and a broken PNG is not reported as whole."""

from __future__ import annotations

import json

from PIL import Image

from autoalign.benchmarks.kill_resume import _audit_run_dir


def _run_dir(tmp_path, steps, tail=""):
    run = tmp_path / "run"
    (run / "candidates").mkdir(parents=True)
    Image.new("RGB", (8, 8)).save(run / "final.png")
    Image.new("RGB", (8, 8)).save(run / "candidates" / "cand_00.png")
    (run / "summary.json").write_text("{}")
    (run / "trace.jsonl").write_text("".join(json.dumps({"step": s}) + "\n" for s in steps) + tail)
    return run


def test_a_whole_run_dir_audits_clean(tmp_path):
    assert _audit_run_dir(_run_dir(tmp_path, [0, 1, 2])) == (0, 0, 0)


def test_duplicates_torn_lines_broken_images_and_a_missing_summary_are_counted(tmp_path):
    run = _run_dir(tmp_path, [0, 1, 1, 2], tail='{"step": 3, "no')
    (run / "candidates" / "cand_00.png").write_bytes(b"\x89PNG\r\n\x1a\nbroken")
    (run / "summary.json").unlink()
    lost, duplicated, corrupt = _audit_run_dir(run)
    assert lost == 1 and duplicated >= 1 and corrupt == 2  # the torn line and the broken PNG
