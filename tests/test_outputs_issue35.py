"""Issue 35's breaks, one test each: secrets, ownership, changed rows, crash classes, refusals, modes.

Every test here failed on 5fc9c66 (the commit the adversarial trial ran against). The scene-double
preset (a named test double; its scores mean nothing) keeps each command to seconds.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import sqlite3
import stat
import threading
from pathlib import Path

import pytest
from PIL import Image, PngImagePlugin

import autoalign.doubles.scene  # noqa: F401 - registers the scene-double backends
from autoalign.agents import runner
from autoalign.config import load_config
from autoalign.errors import InputError
from autoalign.files import directory_lock, read_jsonl

KEY = "sk-PLANTED-0123456789abcdef"
URL_TOKEN = "tok-PLANTED-fedcba9876543210"


def _secret_config(tmp_path: Path) -> Path:
    path = tmp_path / "secret.toml"
    path.write_text(
        "[llm]\n"
        f'api_key = "{KEY}"\n'
        f'base_url = "https://me:{URL_TOKEN}@llm.example/v1?api_key={URL_TOKEN}"\n'
        f'headers = {{ Authorization = "Bearer {KEY}" }}\n'
        "[loop]\ncandidates = 1\nmax_rounds = 1\n"
    )
    return path


def _leaks(root: Path) -> list[str]:
    """Every file under ``root`` holding the planted key or URL token (binary files too)."""
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if KEY.encode() in data or URL_TOKEN.encode() in data:
                found.append(str(path.relative_to(root)))
    return found


# --------------------------------------------------------------------------- 1. secrets


def test_a_planted_key_appears_in_no_output_of_run_batch_or_bench(tmp_path, cli):
    secret = _secret_config(tmp_path)
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("a red apple\ntwo blue cups\n")
    outputs = []
    code, out, err = cli("run", "a red apple", "--preset", "scene-double", "--config", str(secret),
                         "--out", str(tmp_path / "run"), "--json")
    assert code == 0, err
    outputs += [out, err]
    code, out, err = cli("batch", str(prompts), "--preset", "scene-double", "--config", str(secret),
                         "--out", str(tmp_path / "batch"), "--no-progress")
    assert code == 0, err
    outputs += [out, err]
    suite = tmp_path / "suite.csv"
    suite.write_text("prompt\na red apple\n")
    code, out, err = cli("bench", "run", "--suite", str(suite), "--preset", "scene-double",
                         "--config", str(secret), "--out", str(tmp_path / "bench"), "--no-progress")
    assert code == 0, err
    outputs += [out, err]
    for name in ("run", "batch", "bench"):
        assert _leaks(tmp_path / name) == [], name
    assert not any(KEY in text or URL_TOKEN in text for text in outputs)
    # that the key was set is recorded; the URL keeps its host
    llm = json.loads((tmp_path / "run" / "config.json").read_text())["config"]["llm"]["options"]
    assert llm["api_key"] == "<set; not written>" and llm["headers"] == "<set; not written>"
    assert llm["base_url"] == "https://me:REDACTED@llm.example/v1?api_key=REDACTED"


def test_resuming_a_run_made_with_a_key_asks_for_the_config_again(tmp_path, cli):
    secret = _secret_config(tmp_path)
    out = tmp_path / "run"
    cfg = load_config("scene-double", secret)
    steps = runner.stream("a red apple", cfg, out)
    next(steps)
    steps.close()  # stopped after one step, as a kill would
    code, _, err = cli("run", "--resume", str(out))
    assert code == 2 and "llm.options.api_key" in err and "--config" in err
    code, _, err = cli("run", "--resume", str(out), "--config", str(secret))
    assert code == 0, err
    assert _leaks(out) == []


def test_the_studio_writes_no_planted_key(tmp_path, caplog):
    """The studio's real runner (no double) with a server-side config file holding the key."""
    from gradio_client import Client

    from autoalign.ui.app import build_app, launch

    secret = _secret_config(tmp_path)
    runs = tmp_path / "runs"
    demo = build_app("scene-double", runs)
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    launch(demo, port=port, prevent_thread_lock=True, quiet=True)
    try:
        caplog.set_level(logging.INFO)
        client = Client(f"http://127.0.0.1:{port}/", verbose=False, download_files=False)
        job = client.submit("a red apple", None, "scene-double", 1, 1, 0.8, 0, 1.5, str(secret), "template",
                            api_name="/run")
        list(job)
        job.result()
    finally:
        demo.close()
    assert any(runs.rglob("config.json")), "the studio made no run"
    assert _leaks(runs) == []
    assert KEY not in caplog.text and URL_TOKEN not in caplog.text


# --------------------------------------------------------------------------- 4. one owner


def _bench_args(tmp_path: Path, out: Path) -> list[str]:
    suite = tmp_path / "suite.csv"
    suite.write_text("prompt\na red apple\n")
    return ["bench", "run", "--suite", str(suite), "--out", str(out), "--preset", "scene-double", "--candidates", "1",
            "--max-rounds", "1", "--no-progress"]


def _another_command_tries(out: Path, command: str) -> str:
    """Another command trying to take ``out`` at this moment, from another thread: "taken" or "refused"."""
    result: list[str] = []

    def other():
        try:
            with directory_lock(out, command):
                result.append("taken")
        except InputError:
            result.append("refused")

    t = threading.Thread(target=other)
    t.start()
    t.join()
    return result[0]


def test_bench_reports_are_written_before_the_directory_is_let_go(tmp_path, monkeypatch, cli):
    """The trial's gap: a batch started between bench run's last prompt and its report took the directory."""
    import autoalign.benchmarks.report as report

    taken: list[str] = []
    original = report.write_reports

    def write_reports(out):
        taken.append(_another_command_tries(out, "batch"))
        return original(out)

    monkeypatch.setattr(report, "write_reports", write_reports)
    code, _, err = cli(*_bench_args(tmp_path, tmp_path / "bench"))
    assert code == 0, err
    assert taken == ["refused"]


def test_batch_reports_are_written_before_the_directory_is_let_go(tmp_path, monkeypatch, cli):
    import autoalign.benchmarks.batch_report as batch_report

    taken: list[str] = []
    original = batch_report.write_batch_reports

    def write_batch_reports(out, *args, **kwargs):
        taken.append(_another_command_tries(out, "bench run"))
        return original(out, *args, **kwargs)

    monkeypatch.setattr(batch_report, "write_batch_reports", write_batch_reports)
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\n")
    code, _, err = cli("batch", str(prompts), "--out", str(tmp_path / "b"), "--preset", "scene-double",
                       "--candidates", "1", "--max-rounds", "1", "--no-progress")
    assert code == 0, err
    assert taken == ["refused"]


def test_a_directory_refuses_the_other_command(tmp_path, cli):
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\n")
    bench, batch = tmp_path / "bench", tmp_path / "batch"
    assert cli(*_bench_args(tmp_path, bench))[0] == 0
    before = sorted(p.name for p in bench.iterdir())
    code, _, err = cli("batch", str(prompts), "--out", str(bench), "--preset", "scene-double",
                       "--candidates", "1", "--no-progress", "--no-report")
    assert code == 2 and "made by `autoalign bench" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in bench.iterdir()) == before and not (bench / "ledger.sqlite").exists()
    assert cli("batch", str(prompts), "--out", str(batch), "--preset", "scene-double", "--candidates", "1",
               "--max-rounds", "1", "--no-progress", "--no-report")[0] == 0
    code, _, err = cli(*_bench_args(tmp_path, batch))
    assert code == 2 and "made by `autoalign batch`" in err
    assert json.loads((batch / ".autoalign.json").read_text())["made_by"] == "batch"


# --------------------------------------------------------------------------- 5. changed rows


def test_a_row_whose_prompt_changed_under_the_same_id_runs_again(tmp_path, cli):
    prompts = tmp_path / "p.csv"
    prompts.write_text("id,prompt\ncat,a red apple\ndog,two blue cups\n")
    out = tmp_path / "b"
    args = ("batch", str(prompts), "--out", str(out), "--preset", "scene-double", "--candidates", "1",
            "--max-rounds", "1", "--no-progress", "--no-report")
    assert cli(*args)[0] == 0
    old_image = (out / "images" / "cat.png").read_bytes()
    prompts.write_text("id,prompt\ncat,a green cube\ndog,two blue cups\n")
    code, _, err = cli(*args)
    assert code == 0, err
    said = " ".join(err.split())  # rich wraps long lines at the terminal's width
    assert "line 2: id 'cat' changed since it ran (prompt, seed or negative prompt); ran again" in said
    rows = {r["id"]: r for r in read_jsonl(out / "manifest.jsonl").values}
    assert rows["cat"]["prompt"] == "a green cube" and rows["cat"]["status"] == "done"
    assert json.loads((out / "items" / "cat" / "config.json").read_text())["prompt"] == "a green cube"
    assert (out / "images" / "cat.png").read_bytes() != old_image
    report = json.loads((out / "batch_report.json").read_text())
    assert report["changed"] == [{"id": "cat", "line": 2}] and report["skipped"] == 1


# --------------------------------------------------------------------------- 6. crash classes


def test_deep_json_and_lone_surrogates_cost_one_row_each_not_the_batch(tmp_path, cli):
    prompts = tmp_path / "p.jsonl"
    deep = "[" * 100_000 + "]" * 100_000
    prompts.write_text(
        '{"prompt": "a red apple"}\n'
        f'{{"prompt": "x", "extra": {deep}}}\n'
        '{"prompt": "a \\ud800 cup"}\n'
        '{"prompt": "a blue cup", "id": "\\udfff"}\n'
        '{"prompt": "two green cubes"}\n'
    )
    out = tmp_path / "b"
    code, _, err = cli("batch", str(prompts), "--out", str(out), "--preset", "scene-double", "--candidates", "1",
                       "--max-rounds", "1", "--no-progress", "--no-report")
    assert code == 1 and "Traceback" not in err  # 1: bad rows were reported
    bad = {b["line"]: b["error"] for b in json.loads((out / "bad_rows.json").read_text())}
    assert set(bad) == {2, 3, 4}
    assert "nested too deeply" in bad[2] and "surrogate" in bad[3] and "surrogate" in bad[4]
    assert sorted(r["prompt"] for r in read_jsonl(out / "manifest.jsonl").values) == ["a red apple", "two green cubes"]


def test_a_lone_surrogate_in_a_run_prompt_is_one_line_and_nothing_written(tmp_path, cli):
    out = tmp_path / "run"
    code, _, err = cli("run", "a red \udcff apple", "--preset", "scene-double", "--out", str(out))
    assert code == 2 and "not valid Unicode" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device", "summary.json")


def test_a_full_disk_ends_a_run_in_one_line(tmp_path, monkeypatch, cli):
    monkeypatch.setattr("autoalign.agents.runner._finish", _disk_full)
    code, _, err = cli("run", "a red apple", "--preset", "scene-double", "--candidates", "1", "--max-rounds", "1",
                       "--out", str(tmp_path / "run"))
    assert code == 2 and "Traceback" not in err
    assert [ln for ln in err.splitlines() if ln.startswith("error")] == [
        "error: cannot write (summary.json): the disk is full; free space or choose another --out, then rerun to resume"]


def test_a_full_database_ends_a_batch_in_one_line_and_the_rerun_finishes(tmp_path, monkeypatch, cli):
    from autoalign.agents.ledger import Ledger

    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\ntwo blue cups\n")
    out = tmp_path / "b"
    args = ("batch", str(prompts), "--out", str(out), "--preset", "scene-double", "--candidates", "1",
            "--max-rounds", "1", "--no-progress", "--no-report")

    def full(self, *a, **k):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(Ledger, "finish", full)
    code, _, err = cli(*args)
    assert code == 2 and "the disk is full" in err and "Traceback" not in err
    monkeypatch.undo()
    code, _, err = cli(*args)
    assert code == 0, err
    assert [r["status"] for r in read_jsonl(out / "manifest.jsonl").values] == ["done", "done"]


def test_a_full_disk_in_one_batch_item_stops_the_batch_with_the_item_kept_for_a_rerun(tmp_path, monkeypatch, cli):
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\ntwo blue cups\n")
    out = tmp_path / "b"
    monkeypatch.setattr("autoalign.agents.batch.process_item", _disk_full)
    code, _, err = cli("batch", str(prompts), "--out", str(out), "--preset", "scene-double",
                       "--candidates", "1", "--no-progress", "--no-report")
    assert code == 2 and "the disk is full" in err and "Traceback" not in err
    from autoalign.agents.ledger import Ledger

    ledger = Ledger(out / "ledger.sqlite")
    try:
        assert ledger.statuses() == {"pending": 2, "running": 0, "done": 0, "failed": 0}
    finally:
        ledger.close()


def test_a_png_text_chunk_past_pillows_limit_is_refused_in_one_line(tmp_path):
    from autoalign.images import check_image, open_image

    info = PngImagePlugin.PngInfo()
    info.add_text("comment", "a" * (PngImagePlugin.MAX_TEXT_CHUNK + 10), zip=True)
    path = tmp_path / "text.png"
    Image.new("RGB", (8, 8)).save(path, pnginfo=info)
    for opener in (open_image, check_image):
        with pytest.raises(InputError, match="text.png: the file is damaged"):
            opener(path)


class _Killed(BaseException):
    """Stands for a SIGKILL: nothing after it runs (not an Exception, so no handler catches it)."""


def test_a_run_killed_between_config_and_checkpoint_resumes_by_its_directory(tmp_path, monkeypatch, cli):
    real = runner.sqlite_checkpointer

    def killed_after_the_checkpoint_exists(path):
        real(path)[0].close()  # the database file is made ...
        raise _Killed  # ... and the process dies before anything else

    monkeypatch.setattr(runner, "sqlite_checkpointer", killed_after_the_checkpoint_exists)
    out = tmp_path / "run"
    with pytest.raises(_Killed):
        cli("run", "a red apple", "--preset", "scene-double", "--candidates", "1", "--max-rounds", "1",
            "--out", str(out))
    monkeypatch.undo()
    code, _, err = cli("run", "--resume", str(out))  # by its directory alone, no prompt
    assert code == 0, err
    assert json.loads((out / "summary.json").read_text())["prompt"] == "a red apple"


# --------------------------------------------------------------------------- 7. smaller


def test_device_cuda_without_a_gpu_is_refused_before_anything_is_written(tmp_path, monkeypatch, cli):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    out = tmp_path / "run"
    code, _, err = cli("run", "a red apple", "--preset", "scene-double", "--device", "cuda", "--out", str(out))
    assert code == 2 and "no CUDA GPU" in err and not out.exists()
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\n")
    code, _, err = cli("batch", str(prompts), "--preset", "scene-double", "--device", "cuda:1",
                       "--out", str(tmp_path / "b"), "--no-progress")
    assert code == 2 and "no CUDA GPU" in err and not (tmp_path / "b").exists()


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n"])
def test_an_empty_prompt_file_is_an_error(tmp_path, text, cli):
    prompts = tmp_path / "p.txt"
    prompts.write_text(text)
    out = tmp_path / "b"
    code, _, err = cli("batch", str(prompts), "--preset", "scene-double", "--out", str(out), "--no-progress")
    assert code == 2 and "holds no usable prompt" in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_ray_with_zero_workers_is_refused_before_ray_starts(tmp_path, monkeypatch, cli):
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)  # importing Ray would fail: it must not be reached
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\n")
    out = tmp_path / "b"
    code, _, err = cli("batch", str(prompts), "--preset", "scene-double", "--out", str(out), "--engine", "ray",
                       "--workers", "0", "--no-progress")
    assert code == 2 and "--workers must be a whole number from 1 to 64" in err and not out.exists()


def test_stale_temporaries_from_a_kill_are_cleaned_when_the_run_resumes(tmp_path):
    out = tmp_path / "run"
    cfg = load_config("scene-double", overrides={"loop": {"candidates": 1, "max_rounds": 1}})
    steps = runner.stream("a red apple", cfg, out)
    next(steps)
    steps.close()
    stale = [out / ".summary.json.abc123.tmp", out / "candidates" / ".cand_00.png.xyz.tmp"]
    for path in stale:
        path.write_bytes(b"half")
    runner.run("a red apple", cfg, out, resume=True)
    assert not any(p.exists() for p in stale)


def test_output_files_follow_the_umask(tmp_path, cli):
    old = os.umask(0o022)
    try:
        out = tmp_path / "run"
        code, _, err = cli("run", "a red apple", "--preset", "scene-double", "--candidates", "1",
                           "--max-rounds", "1", "--out", str(out))
        assert code == 0, err
    finally:
        os.umask(old)
    modes = {p.relative_to(out).as_posix(): stat.S_IMODE(p.stat().st_mode) for p in out.rglob("*") if p.is_file()}
    assert modes["final.png"] == modes["config.json"] == modes["summary.json"] == 0o644
    assert all(mode == 0o644 for mode in modes.values()), modes


def test_a_studio_refusal_is_one_log_line_without_a_traceback(tmp_path, caplog, capfd):
    import socket

    from gradio_client import Client
    from gradio_client.exceptions import AppError

    from autoalign.doubles.stream import StreamDouble
    from autoalign.ui.app import build_app, launch

    demo = build_app("tiny", tmp_path / "runs", stream_fn=StreamDouble())
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    launch(demo, port=port, prevent_thread_lock=True, quiet=True)
    caplog.set_level(logging.WARNING)
    try:
        client = Client(f"http://127.0.0.1:{port}/", verbose=False, download_files=False)
        with pytest.raises(AppError, match="the prompt is empty"):
            client.predict("   ", None, "tiny", 2, 2, 0.8, 0, 1.5, "", "template", api_name="/run")
    finally:
        demo.close()
    assert "Traceback" not in capfd.readouterr().err
    lines = [r.getMessage() for r in caplog.records if r.name == "autoalign.ui.refusals"]
    assert lines == ["studio refused (Nothing to draw): prompt: describe the image you want; the prompt is empty"]
