"""``autoalign run`` end to end: the tiny preset's run directory, determinism, and bad input that
fails with one line, a non-zero exit and nothing half-written."""

from __future__ import annotations

import json

import pytest

import autoalign.doubles.scene  # noqa: F401 - registers the scene-double backends
from autoalign.cli import main

PROMPT = "two red apples on a blue plate"


def cli(capsys, *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.slow
def test_tiny_preset_run_writes_a_complete_run_directory(tmp_path, capsys):
    out = tmp_path / "run"
    code, stdout, _ = cli(capsys, "run", PROMPT, "--preset", "tiny", "--out", str(out), "--candidates", "2", "--max-rounds", "1", "--json")
    assert code == 0
    summary = json.loads(stdout)
    assert summary == json.loads((out / "summary.json").read_text())
    assert summary["preset"] == "tiny" and summary["max_rounds"] == 1 and summary["rounds"] <= 1
    # the stop reason is the one the run's own numbers call for (patience 2 > 1 round: never no_improvement)
    threshold = json.loads((out / "config.json").read_text())["config"]["loop"]["threshold"]
    aligned = summary["scores"]["final"] >= threshold and not summary["mismatches_after"]
    assert summary["stop_reason"] == ("aligned" if aligned else "max_rounds")
    assert summary["rounds"] == 1 or aligned
    assert sorted(p.name for p in (out / "candidates").iterdir()) == ["cand_00.png", "cand_01.png"]
    assert (out / "final.png").is_file() and (out / "config.json").is_file()
    records = [json.loads(ln) for ln in (out / "trace.jsonl").read_text().splitlines()]
    assert len(records) == summary["graph_steps"] >= 3
    assert [r["node"] for r in records[:3]] == ["generate", "score", "detect"]
    assert summary["models"]["generator"] == "tiny:sd"
    assert summary["scores"]["final"] >= summary["scores"]["first_best"]


@pytest.mark.slow
def test_same_seed_gives_identical_tiny_images(tmp_path, capsys):
    for name in ("a", "b"):
        code, _, _ = cli(capsys, "run", PROMPT, "--preset", "tiny", "--out", str(tmp_path / name), "--seed", "7", "--candidates", "1", "--max-rounds", "0")
        assert code == 0
    a, b = (tmp_path / "a/candidates/cand_00.png").read_bytes(), (tmp_path / "b/candidates/cand_00.png").read_bytes()
    assert a == b


def test_table_output_names_scores_stop_reason_and_run_dir(tmp_path, capsys):
    out = tmp_path / "run"
    code, stdout, _ = cli(capsys, "run", "two red apples and a blue plate", "--preset", "scene-double", "--out", str(out), "--candidates", "1")
    assert code == 0
    for text in ("score before", "score after", "mismatches before", "stop reason", "aligned", "run dir"):
        assert text in stdout


def test_resume_flag_returns_the_finished_summary(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli(capsys, "run", "two red apples and a blue plate", "--preset", "scene-double", "--out", str(out), "--json")[0] == 0
    code, stdout, _ = cli(capsys, "run", "--resume", str(out), "--json")
    assert code == 0 and json.loads(stdout) == json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["   "], "prompt is empty"),
        ([PROMPT, "--candidates", "0"], "candidates must be >= 1"),
        (["apple " * 2000], "scoring.max_prompt_chars = 1000"),
        ([PROMPT, "--threshold", "2"], "threshold"),
        ([PROMPT, "--writer", "poet"], "writer"),
    ],
)
def test_bad_input_fails_with_one_line_and_writes_nothing(tmp_path, capsys, args, message):
    out = tmp_path / "run"
    code, _, err = cli(capsys, "run", *args, "--preset", "scene-double", "--out", str(out))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]
    assert not out.exists()


def test_unwritable_out_is_refused_before_any_model_loads(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    code, _, err = cli(capsys, "run", PROMPT, "--preset", "scene-double", "--out", str(blocker / "run"))
    assert code == 2 and "--out" in err and len(err.strip().splitlines()) == 1


def test_corrupt_checkpoint_on_resume_fails_with_one_line(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli(capsys, "run", "two red apples and a blue plate", "--preset", "scene-double", "--out", str(out))[0] == 0
    (out / "summary.json").unlink()
    (out / "checkpoint.sqlite").write_bytes(b"garbage" * 500)
    code, _, err = cli(capsys, "run", "--resume", str(out))
    assert code == 2 and "checkpoint" in err and len(err.strip().splitlines()) == 1
    assert not (out / "summary.json").exists()


def test_non_empty_out_without_resume_is_refused(tmp_path, capsys):
    out = tmp_path / "run"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    code, _, err = cli(capsys, "run", PROMPT, "--preset", "scene-double", "--out", str(out))
    assert code == 2 and "--resume" in err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
