"""`autoalign batch` end to end on the tiny preset: resume after SIGKILL, failure isolation, Ray == local."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from autoalign.agents.batch import run_batch
from autoalign.config import load_config

FAST = {"loop": {"candidates": 1, "max_rounds": 1, "edit_samples": 1}}


def _prompts(tmp_path: Path, n: int) -> Path:
    colours = ["red", "blue", "green", "yellow", "purple"]
    objects = ["apple", "cube", "ball", "cup"]
    f = tmp_path / "prompts.txt"
    f.write_text("".join(f"{1 + i % 3} {colours[i % 5]} {objects[i % 4]}s on a table number {i}\n" for i in range(n)))
    return f


def _done_count(ledger: Path) -> int:
    if not ledger.exists():
        return 0
    try:
        with sqlite3.connect(ledger, timeout=5) as conn:
            return conn.execute("SELECT COUNT(*) FROM items WHERE status='done'").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _check_outputs(out: Path, expected_ids: set[str]) -> list[dict]:
    rows = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), "an item is duplicated in the manifest"
    assert set(ids) == expected_ids, "an item is lost"
    for r in rows:
        assert r["status"] == "done", r
        with Image.open(out / r["final_image"]) as im:
            im.verify()  # a corrupt or half-written PNG fails here
    assert not [p for p in (out / "images").iterdir() if p.name.startswith(".")], "temporary files left behind"
    return rows


def test_batch_resumes_after_sigkill_without_losing_or_duplicating_items(tmp_path):
    prompts = _prompts(tmp_path, 6)
    out = tmp_path / "batch"
    cfg_file = tmp_path / "fast.json"
    cfg_file.write_text(json.dumps(FAST))
    cmd = [sys.executable, "-m", "autoalign", "batch", str(prompts), "--out", str(out), "--preset", "tiny",
           "--config", str(cfg_file), "--no-progress"]
    env = dict(os.environ)
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 240
    while _done_count(out / "ledger.sqlite") < 2 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.2)
    assert proc.poll() is None, f"batch ended before it could be killed: {proc.stderr.read().decode()[-2000:]}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    done_before = _done_count(out / "ledger.sqlite")
    assert 2 <= done_before < 6

    result = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    from autoalign.agents.batch_inputs import read_prompts

    ids = {i.id for i in read_prompts(prompts).items}
    _check_outputs(out, ids)
    report = json.loads((out / "batch_report.json").read_text())
    assert report["skipped"] == done_before  # finished items were not redone
    assert report["succeeded"] == 6 - done_before


def test_a_failing_item_is_recorded_and_the_batch_goes_on(tmp_path, monkeypatch):
    import autoalign.agents.batch as batch_mod

    prompts = _prompts(tmp_path, 3)
    real = batch_mod.process_item
    bad_prompt = prompts.read_text().splitlines()[1]

    def flaky(row, config, out_dir, models=None):
        if row["prompt"] == bad_prompt:
            raise RuntimeError("CUDA out of memory (injected by the test)")
        return real(row, config, out_dir, models)

    monkeypatch.setattr(batch_mod, "process_item", flaky)
    cfg = load_config("tiny", overrides=FAST)
    report = run_batch(prompts, tmp_path / "b", cfg, retries=1, progress=False)
    assert (report.succeeded, report.failed) == (2, 1)
    assert report.exit_code == 1
    rows = [json.loads(x) for x in (tmp_path / "b" / "manifest.jsonl").read_text().splitlines()]
    failed = [r for r in rows if r["status"] == "failed"]
    assert len(failed) == 1 and "out of memory" in failed[0]["error"] and failed[0]["attempts"] == 2


def test_bad_rows_do_not_stop_the_good_ones(tmp_path):
    f = tmp_path / "mixed.csv"
    f.write_bytes(b"prompt,seed\na red cube,1\n,2\n\"broken,3\nbad \xff bytes,4\na blue ball,5\n")
    cfg = load_config("tiny", overrides=FAST)
    report = run_batch(f, tmp_path / "b", cfg, progress=False)
    assert report.succeeded == 2
    assert sorted(b["line"] for b in report.bad_rows) == [3, 4, 5]
    assert report.exit_code == 1  # bad rows are not silently successful


def test_ray_engine_gives_the_same_results_as_the_local_engine(tmp_path):
    pytest.importorskip("ray", reason="the Ray engine needs `pip install ray` (in the dev extra)")
    prompts = _prompts(tmp_path, 20)
    # Generation, scoring and detection only (no edit rounds): keeps 2 x 20 items quick on 2 cores.
    cfg = load_config("tiny", overrides={"loop": {"candidates": 1, "max_rounds": 0}})
    local = run_batch(prompts, tmp_path / "local", cfg, progress=False)
    ray_report = run_batch(prompts, tmp_path / "ray", cfg, engine="ray", workers=2, progress=False)
    assert local.succeeded == ray_report.succeeded == 20

    def by_id(out):
        return {json.loads(x)["id"]: json.loads(x) for x in (out / "manifest.jsonl").read_text().splitlines()}

    a, b = by_id(tmp_path / "local"), by_id(tmp_path / "ray")
    assert a.keys() == b.keys()
    for item_id in a:
        for key in ("score_before", "score_after", "rounds", "stop_reason", "seed"):
            va, vb = a[item_id][key], b[item_id][key]
            if isinstance(va, float):
                assert va == pytest.approx(vb, abs=1e-6), (item_id, key)
            else:
                assert va == vb, (item_id, key)
        img_a = Image.open(tmp_path / "local" / a[item_id]["final_image"])
        img_b = Image.open(tmp_path / "ray" / b[item_id]["final_image"])
        assert img_a.tobytes() == img_b.tobytes(), item_id
