"""What the adversarial trial of batch / bench run / run found, one test per class:

* ids never name a path outside ``--out`` and distinct ids never share files;
* one writer per output directory, for every command that owns one (a second process is refused);
* the batch manifest lists every item the ledger knows after any subset rerun;
* a rerun with another configuration: a batch refuses it up front, a bench keeps both apart;
* a torn trace / results line does not end a run for good.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from bench_doubles import EvaluatorDouble, LoopRunnerDouble

from autoalign.agents import runner
from autoalign.benchmarks.bench_runner import bench_run, latest_results
from autoalign.benchmarks.suites import Suite, SuiteItem
from autoalign.config import load_config
from autoalign.files import read_jsonl

HOSTILE_IDS = ["../../escaped", "/tmp/absolute-escape", "sub/dir/name", "a" * 300, "a/b", "a_b", "~", "..", "CON",
               "\\windows\\path", "ｅｓｃ／ａｐｅ"]


def _files_outside(root: Path, base: Path) -> list[Path]:
    return [p for p in base.rglob("*") if p.is_file() and root not in p.parents]


def _batch(cli, prompts: Path, out: Path, *extra: str) -> tuple[int, str]:
    code, _, err = cli("batch", str(prompts), "--out", str(out), "--preset", "scene-double", "--candidates", "1",
                       "--no-progress", "--no-report", *extra)
    return code, err


def _manifest(out: Path) -> list[dict]:
    return [json.loads(ln) for ln in (out / "manifest.jsonl").read_text().splitlines()]


# --------------------------------------------------------------------------- ids -> paths


def test_batch_ids_stay_inside_out_keep_their_text_and_never_share_files(tmp_path, cli):
    work = tmp_path / "work"
    work.mkdir()
    prompts = work / "p.jsonl"
    prompts.write_text("".join(json.dumps({"id": i, "prompt": f"a red apple number {n}"}) + "\n"
                               for n, i in enumerate(HOSTILE_IDS)))
    out = work / "deep" / "out"
    code, err = _batch(cli, prompts, out)
    assert code == 0, err
    assert _files_outside(out, tmp_path) == [prompts]
    manifest = _manifest(out)
    assert [m["id"] for m in manifest] == HOSTILE_IDS  # the user's ids, unchanged
    images = [m["final_image"] for m in manifest]
    assert len(set(images)) == len(images) and all(Path(i).parent == Path("images") for i in images)
    assert len(list((out / "items").iterdir())) == len(HOSTILE_IDS)


def test_bench_ids_that_old_names_merged_get_their_own_folders(tmp_path):
    ids = ["a/b", "a_b", "x" * 120 + "1", "x" * 120 + "2", "../../up"]
    suite = Suite("hostile", [SuiteItem(i, f"prompt {n}", "c") for n, i in enumerate(ids)])
    out = tmp_path / "bench"
    records = bench_run(suite, load_config("tiny"), out, loop_runner=LoopRunnerDouble(), evaluator=EvaluatorDouble(),
                        progress=False)
    assert [r.id for r in records] == ids
    run_dirs = [r.run_dir for r in records]
    assert len(set(run_dirs)) == len(ids)
    for r in records:  # every record points at its own prompt's images, all inside --out
        for stage in r.stages.values():
            assert (out / stage.image).is_file() and stage.image.startswith(r.run_dir)
    assert _files_outside(out, tmp_path) == []


# --------------------------------------------------------------------------- one writer per directory

HOLDER = textwrap.dedent(
    """
    import sys, time
    from autoalign.files import directory_lock
    with directory_lock(sys.argv[1], sys.argv[2]):
        print("held", flush=True)
        time.sleep(120)
    """
)


@pytest.fixture()
def held():
    """Start a second process that holds a directory as a running command does (killed at the end)."""
    procs = []

    def hold(directory: Path, command: str) -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(directory), command], stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout.readline().strip() == "held"
        return proc

    yield hold
    for proc in procs:
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait()


def _bench_args(tmp_path: Path, out: Path, mode: str = "run") -> list[str]:
    suite = tmp_path / "suite.csv"
    suite.write_text("prompt\na red apple\n")
    return ["bench", mode, "--suite", str(suite), "--out", str(out), "--preset", "scene-double", "--candidates", "1",
            "--no-progress"]


@pytest.mark.parametrize("mode", ["run", "audit"])
def test_a_second_bench_on_the_same_out_is_refused_and_writes_nothing(tmp_path, cli, held, mode):
    out = tmp_path / "bench"
    holder = held(out, "bench run")
    code, _, err = cli(*_bench_args(tmp_path, out, mode))
    assert code == 2 and "another bench run" in err and "already running" in err and "Traceback" not in err
    assert sorted(p.name for p in out.iterdir()) == [".autoalign.lock"]
    os.kill(holder.pid, signal.SIGKILL)  # a holder killed hard leaves no stuck lock
    holder.wait()
    code, _, err = cli(*_bench_args(tmp_path, out, mode))
    assert code == 0, err
    assert len(read_jsonl(out / "results.jsonl").values) == 1


def test_a_second_batch_on_the_same_out_is_refused(tmp_path, cli, held):
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\n")
    out = tmp_path / "b"
    held(out, "batch")
    code, err = _batch(cli, prompts, out)
    assert code == 2 and "another batch" in err and "already running" in err
    assert not (out / "ledger.sqlite").exists() and not (out / "manifest.jsonl").exists()


def test_a_second_run_in_the_same_run_dir_is_refused(tmp_path, cli, held):
    out = tmp_path / "run"
    held(out, "run")
    code, _, err = cli("run", "a red apple", "--preset", "scene-double", "--out", str(out))
    assert code == 2 and "another run" in err and not (out / "config.json").exists()


def test_bench_report_and_compare_wait_for_no_one_but_refuse_a_busy_directory(tmp_path, cli, held):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        assert cli(*_bench_args(tmp_path, d))[0] == 0
    before = (b / "summary.json").read_bytes()
    held(b, "bench run")
    code, _, err = cli("bench", "report", str(b))
    assert code == 2 and "another bench run" in err
    code, _, err = cli("bench", "compare", str(a), str(b))
    assert code == 2 and "another bench run" in err and not (b / "compare.json").exists()
    assert (b / "summary.json").read_bytes() == before


def test_the_batch_report_runs_under_the_batch_lock(tmp_path, cli, held):
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\n")
    out = tmp_path / "b"
    assert _batch(cli, prompts, out)[0] == 0
    held(out, "batch")
    from autoalign.benchmarks.batch_report import write_batch_reports
    from autoalign.errors import InputError

    with pytest.raises(InputError, match="another batch"):
        write_batch_reports(out, load_config("scene-double", overrides={"loop": {"candidates": 1}}), progress=False)


# --------------------------------------------------------------------------- the manifest


def test_the_manifest_lists_every_item_after_shards_and_limits(tmp_path, cli):
    prompts = tmp_path / "p.txt"
    prompts.write_text("".join(f"a red apple number {i}\n" for i in range(8)))
    out = tmp_path / "b"
    assert _batch(cli, prompts, out, "--shard", "0/2")[0] in (0, 1)
    first = _manifest(out)
    assert _batch(cli, prompts, out, "--shard", "1/2")[0] in (0, 1)
    both = _manifest(out)
    assert len(both) == 8 and {m["status"] for m in both} == {"done"} and len(first) < 8
    assert _batch(cli, prompts, out, "--limit", "3")[0] == 0
    assert _manifest(out) == both
    csv_rows = (out / "manifest.csv").read_text().splitlines()
    assert len(csv_rows) == 1 + 8


# --------------------------------------------------------------------------- reruns with another configuration


def test_a_batch_rerun_with_another_config_is_refused_up_front_and_changes_nothing(tmp_path, cli):
    prompts = tmp_path / "p.txt"
    prompts.write_text("a red apple\na blue cube\n")
    out = tmp_path / "b"
    assert _batch(cli, prompts, out)[0] == 0
    manifest = (out / "manifest.jsonl").read_bytes()
    config = (out / "config.json").read_bytes()
    code, _, err = cli("batch", str(prompts), "--out", str(out), "--preset", "scene-double", "--candidates", "2",
                       "--no-progress", "--no-report")
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert code == 2 and len(lines) == 1 and "another configuration" in lines[0] and "choose another --out" in lines[0]
    assert (out / "manifest.jsonl").read_bytes() == manifest and (out / "config.json").read_bytes() == config
    assert {m["status"] for m in _manifest(out)} == {"done"}
    assert _batch(cli, prompts, tmp_path / "b2", "--candidates", "2")[0] == 0  # the way forward it names


def test_a_bench_rerun_with_another_config_keeps_the_first_configs_runs(tmp_path):
    suite = Suite("s", [SuiteItem("p0", "prompt 0", "c"), SuiteItem("p1", "prompt 1", "c")])
    out = tmp_path / "bench"
    first = bench_run(suite, load_config("tiny"), out, loop_runner=LoopRunnerDouble(), evaluator=EvaluatorDouble(),
                      progress=False)
    other = load_config("tiny", overrides={"loop": {"threshold": 0.5}})
    bench_run(suite, other, out, loop_runner=LoopRunnerDouble(), evaluator=EvaluatorDouble(), progress=False)
    for r in first:  # the first config's records still point at their own, existing images
        assert all((out / s.image).is_file() for s in r.stages.values())
    assert len(latest_results(out)) == 4
    assert len({r.run_dir for r in latest_results(out)}) == 4


# --------------------------------------------------------------------------- torn lines


def test_a_torn_trace_line_does_not_end_the_run(tmp_path):
    cfg = load_config("scene-double", overrides={"loop": {"candidates": 1}})
    out = tmp_path / "run"
    steps = runner.stream("two red apples and a blue plate", cfg, out)
    next(steps)
    next(steps)
    steps.close()  # stopped after two steps, as a kill would
    with open(out / "trace.jsonl", "a", encoding="utf-8") as fh:
        fh.write('{"step": 2, "node": "det')  # and killed mid-append
    summary = runner.run("two red apples and a blue plate", cfg, out, resume=True)
    trace = read_jsonl(out / "trace.jsonl")
    assert not trace.bad_lines and not trace.torn_tail
    assert [r["step"] for r in trace.values] == list(range(len(trace.values)))
    assert summary.graph_steps == len(trace.values) and summary.stop_reason
    again = runner.run("two red apples and a blue plate", cfg, out, resume=True)  # and resumes again cleanly
    assert again.run_id == summary.run_id
