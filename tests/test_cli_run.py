"""``autoalign run`` end to end: the tiny preset's run directory, determinism, and bad input that
fails with one line, a non-zero exit and nothing half-written."""

from __future__ import annotations

import json

import pytest

PROMPT = "two red apples on a blue plate"


@pytest.mark.slow
def test_tiny_preset_run_writes_a_complete_run_directory(tmp_path, cli):
    out = tmp_path / "run"
    code, stdout, err = cli("run", PROMPT, "--preset", "tiny", "--out", str(out), "--candidates", "2", "--max-rounds", "1", "--json")
    assert code == 0
    summary = json.loads(stdout)  # stdout holds the JSON alone: progress and the warning are on stderr
    assert "Loading weights" not in err  # transformers' load bar is silenced
    assert err.count("random-weight") == 1 and "mean nothing" in err  # said once, plainly
    assert "\ufffd" not in stdout + err
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
def test_same_seed_gives_identical_tiny_images(tmp_path, cli):
    for name in ("a", "b"):
        code, _, _ = cli("run", PROMPT, "--preset", "tiny", "--out", str(tmp_path / name), "--seed", "7", "--candidates", "1", "--max-rounds", "0")
        assert code == 0
    a, b = (tmp_path / "a/candidates/cand_00.png").read_bytes(), (tmp_path / "b/candidates/cand_00.png").read_bytes()
    assert a == b


def test_table_output_names_scores_stop_reason_and_run_dir(tmp_path, cli):
    out = tmp_path / "run"
    code, stdout, _ = cli("run", "two red apples and a blue plate", "--preset", "scene-double", "--out", str(out), "--candidates", "1")
    assert code == 0
    for text in ("score before", "score after", "mismatches before", "stop reason", "aligned", "run dir"):
        assert text in stdout


def test_resume_flag_returns_the_finished_summary(tmp_path, cli):
    out = tmp_path / "run"
    assert cli("run", "two red apples and a blue plate", "--preset", "scene-double", "--out", str(out), "--json")[0] == 0
    code, stdout, _ = cli("run", "--resume", str(out), "--json")
    assert code == 0 and json.loads(stdout) == json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["   "], "prompt is empty"),
        ([PROMPT, "--candidates", "0"], "--candidates (loop.candidates) must be a whole number from 1 to 64"),
        (["apple " * 2000], "scoring.max_prompt_chars = 1000"),
        ([PROMPT, "--threshold", "2"], "threshold"),
        ([PROMPT, "--writer", "poet"], "writer"),
    ],
)
def test_bad_input_fails_with_one_line_and_writes_nothing(tmp_path, cli, args, message):
    out = tmp_path / "run"
    code, _, err = cli("run", *args, "--preset", "scene-double", "--out", str(out))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]
    assert not out.exists()


def test_unwritable_out_is_refused_before_any_model_loads(tmp_path, cli):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    code, _, err = cli("run", PROMPT, "--preset", "scene-double", "--out", str(blocker / "run"))
    assert code == 2 and "--out" in err and len(err.strip().splitlines()) == 1


def test_corrupt_checkpoint_on_resume_fails_with_one_line(tmp_path, cli):
    out = tmp_path / "run"
    assert cli("run", "two red apples and a blue plate", "--preset", "scene-double", "--out", str(out))[0] == 0
    (out / "summary.json").unlink()
    (out / "checkpoint.sqlite").write_bytes(b"garbage" * 500)
    code, _, err = cli("run", "--resume", str(out))
    assert code == 2 and "checkpoint" in err and len(err.strip().splitlines()) == 1
    assert not (out / "summary.json").exists()


def test_non_empty_out_without_resume_is_refused(tmp_path, cli):
    out = tmp_path / "run"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    code, _, err = cli("run", PROMPT, "--preset", "scene-double", "--out", str(out))
    assert code == 2 and "--resume" in err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]


def test_progress_shows_loading_candidates_scoring_and_each_round_on_stderr(tmp_path, cli):
    out = tmp_path / "run"
    code, stdout, err = cli("run", PROMPT, "--preset", "scene-double", "--out", str(out), "--candidates", "2", "--seed", "0")
    assert code == 0
    lines = [ln for ln in err.splitlines() if "✓" in ln]
    assert "models loaded; 2 candidate(s) ready" in lines[0]
    assert "scored the candidates; best" in lines[1]
    assert "mismatch(es) found" in lines[2]
    assert any("round 1/3: 1 instruction(s)" in ln for ln in lines)
    assert any("round 1/3: edit kept" in ln for ln in lines)
    assert "stopping: aligned" in lines[-1]
    assert "✓" not in stdout  # the result table alone on stdout
    assert err.count("test doubles") == 1  # the scene double's warning, once


def test_quiet_shows_no_progress_but_still_the_warning(tmp_path, cli):
    code, stdout, err = cli("run", PROMPT, "--preset", "scene-double", "--out", str(tmp_path / "run"), "--quiet")
    assert code == 0 and "✓" not in err and "stop reason" in stdout
    assert "judge nothing" in err


def test_mismatches_are_said_in_words_in_the_table(tmp_path, cli):
    # seed 0 of the scene double draws a wrong count: "two red apples" shows one
    code, stdout, _ = cli("run", PROMPT, "--preset", "scene-double", "--out", str(tmp_path / "run"), "--candidates", "1", "--seed", "0")
    assert code == 0
    flat = " ".join(stdout.split())
    assert "number: asked for two red apples, image shows" in flat
    assert "->" not in stdout


def test_run_writes_a_contact_sheet_of_candidates_rounds_and_final(tmp_path, cli):
    from PIL import Image

    from autoalign.agents.contact_sheet import NAME, TILE

    out = tmp_path / "run"
    code, stdout, _ = cli("run", PROMPT, "--preset", "scene-double", "--out", str(out), "--candidates", "2", "--seed", "0")
    assert code == 0 and NAME in "".join(ln.strip(" │") for ln in stdout.splitlines())
    summary = json.loads((out / "summary.json").read_text())
    rows = 1 + summary["rounds"] + 1  # candidates, each edit round, final
    with Image.open(out / NAME) as sheet:
        assert sheet.height >= rows * TILE
        widest = max(2, max(len(list(p.glob("*.png"))) for p in (out / "rounds").iterdir()))
        assert sheet.width >= widest * TILE
        # the final tile is the final image, enlarged (128 px scene -> one 128 px tile)
        with Image.open(out / "final.png") as final:
            assert final.size == (128, 128)


def test_offline_real_preset_stops_before_writing_anything(tmp_path, cli, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-hf-home"))  # no cached weights
    out = tmp_path / "run"
    code, _, err = cli("run", PROMPT, "--preset", "sd-turbo", "--out", str(out))
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "stabilityai/sd-turbo" in lines[0] and "Nothing was written" in lines[0]
    assert not out.exists()
