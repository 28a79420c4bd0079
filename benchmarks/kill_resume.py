"""Kill-and-resume trial of ``autoalign batch``, ``bench run`` and ``run`` (a script, not a test).

For each command it starts the real CLI in a child process, SIGKILLs it at a random moment, starts
it again (the documented way to resume: the same command; ``run --resume RUN`` for a run), several
times, then lets the last invocation finish and audits the output directory:

* **lost**: items (or, for ``run``, the run) without a finished, readable result;
* **duplicated**: items recorded more than once (manifest rows, results lines of one key, trace steps);
* **corrupt**: files that do not parse or verify (JSON/JSON-lines with bad lines or a torn tail,
  PNGs that fail ``verify()``), and temporary files left behind.

All three should be 0. ::

    python -m autoalign.benchmarks.kill_resume                         # 6 items, 4 kills per command
    python -m autoalign.benchmarks.kill_resume --items 4 --kills 3 --commands batch run --seed 1
    python -m autoalign.benchmarks.kill_resume --at-writes --kills 7    # kills at named writes instead

``--at-writes`` kills each child at a chosen write instead of a random moment: the N-th write to the
trace, the checkpoint database, the ledger or the results file (``AUTOALIGN_FAULT_KILL=NAME@N``, the
fault point of :mod:`autoalign.files`; N drawn from 1..``--max-write``), half-way through the line or
just before the SQLite statement.

The tiny preset (random weights) with one candidate keeps each child to seconds on a CPU; the first
child of a fresh ``AUTOALIGN_HOME`` also builds the tiny models.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from autoalign.benchmarks.records import BenchRecord
from autoalign.files import FAULT_ENV, read_jsonl
from autoalign.settings import DEFAULT_PRESET

PROMPT = "two red apples on a blue plate"
COLOURS = ["red", "blue", "green", "yellow", "purple", "white"]
THINGS = ["apple", "cube", "ball", "cup", "car", "dog"]
#: The files each command's children are killed at with --at-writes.
WRITES = {
    "batch": ("ledger.sqlite", "trace.jsonl", "checkpoint.sqlite"),
    "bench run": ("results.jsonl", "trace.jsonl", "checkpoint.sqlite"),
    "run": ("trace.jsonl", "checkpoint.sqlite"),
}


@dataclass
class Trial:
    command: str
    kills: int = 0
    killed_mid_work: int = 0  # kills that landed before the child finished on its own
    lost: int = 0
    duplicated: int = 0
    corrupt: int = 0
    notes: list[str] = field(default_factory=list)
    wall_s: float = 0.0


def _cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "autoalign", *args]


AT_WRITES: dict[str, int] = {}  # --at-writes: {"max": N} when on (set by main)


def _kill_and_resume(cmd_first: list[str], cmd_again: list[str], kills: int, rng: random.Random,
                     delays: tuple[float, float], trial: Trial, timeout: float) -> None:
    """Start, SIGKILL at a random moment (or a chosen write), restart ... ``kills`` times; then run to the end."""
    env = dict(os.environ, AUTOALIGN_LOG="ERROR")
    env.pop(FAULT_ENV, None)
    for k in range(kills):
        cmd = cmd_first if k == 0 else cmd_again
        child_env = env
        delay = rng.uniform(*delays)
        if AT_WRITES:
            names = WRITES[trial.command]
            point = f"{names[k % len(names)]}@{rng.randint(1, AT_WRITES['max'])}"
            child_env = dict(env, **{FAULT_ENV: point})
            delay = timeout
            trial.notes.append(f"kill {k} at {point}")
        proc = subprocess.Popen(cmd, env=child_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            proc.wait(timeout=delay)
            err = proc.stderr.read().decode(errors="replace").strip().splitlines()
            trial.notes.append(f"child {k} finished by itself after < {delay:.1f} s (exit {proc.returncode})"
                               + (f": {err[-1]}" if err and proc.returncode not in (0, 1) else ""))
            if proc.returncode == -signal.SIGKILL:  # a fault point fired
                trial.killed_mid_work += 1
                trial.notes[-1] = trial.notes[-1].replace("finished by itself", "killed at its write")
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            trial.killed_mid_work += 1
        proc.stderr.close()
        trial.kills += 1
    final = subprocess.run(cmd_again if kills else cmd_first, env=env, capture_output=True, text=True, timeout=timeout)
    if final.returncode not in (0,):
        trial.notes.append(f"final invocation exit {final.returncode}: {final.stderr.strip().splitlines()[-1:]}")


def _png_ok(path: Path) -> bool:
    from PIL import Image

    try:
        with Image.open(path) as im:
            im.verify()
        return True
    except Exception:  # noqa: BLE001 - any failure is a corrupt image
        return False


def _jsonl_corrupt(path: Path) -> int:
    if not path.exists():
        return 0
    got = read_jsonl(path)
    return len(got.bad_lines) + int(got.torn_tail)


def _json_corrupt(path: Path) -> int:
    try:
        json.loads(path.read_text(encoding="utf-8"))
        return 0
    except (OSError, ValueError):
        return 1


def _temporaries(root: Path) -> int:
    return sum(1 for p in root.rglob(".*.tmp") if p.is_file())


def _trace_problems(run_dir: Path) -> tuple[int, int]:
    """(duplicated steps, corrupt lines) of one run's trace."""
    trace = read_jsonl(run_dir / "trace.jsonl")
    steps = [r.get("step") for r in trace.values]
    dup = sum(c - 1 for c in Counter(steps).values() if c > 1)
    gaps = int(steps != list(range(len(steps))))
    return dup + gaps, len(trace.bad_lines) + int(trace.torn_tail)


def checkpoint_steps(run_dir: Path) -> int | None:
    """How many graph steps the run's checkpoint holds as done (None without a checkpoint or config)."""
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    from autoalign.agents.graph import build_graph
    from autoalign.agents.runner import checkpointed_steps

    if not (run_dir / "checkpoint.sqlite").is_file() or not (run_dir / "config.json").is_file():
        return None
    run_id = json.loads((run_dir / "config.json").read_text(encoding="utf-8")).get("run_id")
    conn = sqlite3.connect(str(run_dir / "checkpoint.sqlite"))
    try:
        graph = build_graph().compile(checkpointer=SqliteSaver(conn))
        return len(checkpointed_steps(graph, {"configurable": {"thread_id": run_id}}))
    finally:
        conn.close()


def _audit_run_dir(run_dir: Path) -> tuple[int, int, int]:
    """(lost, duplicated, corrupt) of one run directory.

    Lost: the run itself when it has no summary or final image, plus every step its checkpoint
    holds that its trace lacks (and every trace step its summary does not count).
    """
    lost = int(not (run_dir / "summary.json").is_file() or not _png_ok(run_dir / "final.png"))
    traced = len(read_jsonl(run_dir / "trace.jsonl").values)
    held = checkpoint_steps(run_dir)
    if held is not None:
        lost += max(0, held - traced)
    try:
        counted = json.loads((run_dir / "summary.json").read_text(encoding="utf-8")).get("graph_steps")
        lost += max(0, traced - counted) if isinstance(counted, int) else 0
    except (OSError, ValueError):
        pass
    dup, corrupt = _trace_problems(run_dir)
    for name in ("summary.json", "config.json"):
        if (run_dir / name).exists():
            corrupt += _json_corrupt(run_dir / name)
    corrupt += sum(1 for p in run_dir.rglob("*.png") if not _png_ok(p))
    return lost, dup, corrupt


def trial_batch(work: Path, n: int, kills: int, rng: random.Random, delays: tuple[float, float], preset: str) -> Trial:
    from autoalign.agents.batch_inputs import read_prompts

    trial = Trial("batch")
    prompts = work / "prompts.txt"
    prompts.write_text("".join(f"{1 + i % 3} {COLOURS[i % 6]} {THINGS[i % 6]}s, picture {i}\n" for i in range(n)))
    out = work / "batch"
    cmd = _cli("batch", str(prompts), "--out", str(out), "--preset", preset, "--candidates", "1", "--max-rounds", "1",
               "--no-progress", "--no-report")
    t0 = time.perf_counter()
    _kill_and_resume(cmd, cmd, kills, rng, delays, trial, timeout=60 + 60 * n)
    trial.wall_s = time.perf_counter() - t0
    expected = {it.id for it in read_prompts(prompts).items}
    rows = read_jsonl(out / "manifest.jsonl").values if (out / "manifest.jsonl").exists() else []
    ids = [r["id"] for r in rows]
    trial.duplicated += len(ids) - len(set(ids))
    done = {r["id"] for r in rows if r.get("status") == "done" and r.get("final_image") and _png_ok(out / r["final_image"])}
    trial.lost += len(expected - done)
    trial.corrupt += _jsonl_corrupt(out / "manifest.jsonl") + _temporaries(out)
    trial.corrupt += sum(1 for r in rows if r.get("final_image") and not _png_ok(out / r["final_image"]))
    for item in (out / "items").iterdir() if (out / "items").is_dir() else []:
        _, dup, corrupt = _audit_run_dir(item)
        trial.duplicated += dup
        trial.corrupt += corrupt
    return trial


def trial_bench(work: Path, n: int, kills: int, rng: random.Random, delays: tuple[float, float], preset: str) -> Trial:
    trial = Trial("bench run")
    suite = work / "suite.csv"
    suite.write_text("prompt,category\n" + "".join(f"{1 + i % 3} {COLOURS[i % 6]} {THINGS[i % 6]}s,c{i % 2}\n" for i in range(n)))
    out = work / "bench"
    cmd = _cli("bench", "run", "--suite", str(suite), "--out", str(out), "--preset", preset, "--candidates", "1",
               "--max-rounds", "1", "--no-progress")
    t0 = time.perf_counter()
    _kill_and_resume(cmd, cmd, kills, rng, delays, trial, timeout=60 + 60 * n)
    trial.wall_s = time.perf_counter() - t0
    results = out / "results.jsonl"
    records = [BenchRecord.from_dict(v) for v in read_jsonl(results).values if isinstance(v, dict)]
    meta = json.loads((out / "bench.json").read_text()) if (out / "bench.json").exists() else {}
    ok = [r for r in records if r.ok and r.config_hash == meta.get("config_hash")]
    keys = Counter((r.id, r.seed) for r in ok)
    trial.duplicated += sum(c - 1 for c in keys.values() if c > 1)
    trial.lost += n - len(keys)
    trial.corrupt += _jsonl_corrupt(results) + _temporaries(out)
    for r in ok:
        trial.corrupt += sum(1 for s in r.stages.values() if not _png_ok(out / s.image))
    return trial


def trial_run(work: Path, kills: int, rng: random.Random, delays: tuple[float, float], preset: str) -> Trial:
    trial = Trial("run")
    out = work / "run"
    flags = ["--preset", preset, "--candidates", "2", "--max-rounds", "2"]
    cmd = _cli("run", PROMPT, "--resume", str(out), *flags)  # resumes, or starts when nothing is there yet
    t0 = time.perf_counter()
    _kill_and_resume(cmd, cmd, kills, rng, delays, trial, timeout=600)
    trial.wall_s = time.perf_counter() - t0
    lost, dup, corrupt = _audit_run_dir(out)
    trial.lost, trial.duplicated, trial.corrupt = lost, dup, corrupt + _temporaries(out)
    return trial


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--items", type=int, default=6, help="prompts for batch and bench run")
    parser.add_argument("--kills", type=int, default=4, help="SIGKILLs per command before the last, finishing invocation")
    parser.add_argument("--min-delay", type=float, default=2.0, help="earliest kill, seconds after a child starts")
    parser.add_argument("--max-delay", type=float, default=14.0, help="latest kill")
    parser.add_argument("--seed", type=int, default=0, help="seed of the kill moments")
    parser.add_argument("--preset", default=DEFAULT_PRESET)
    parser.add_argument("--commands", nargs="+", default=["batch", "bench", "run"], choices=["batch", "bench", "run"])
    parser.add_argument("--at-writes", action="store_true", help="kill at chosen writes (trace, checkpoint, ledger, results)")
    parser.add_argument("--max-write", type=int, default=6, help="with --at-writes: N of NAME@N is drawn from 1..this")
    parser.add_argument("--results", type=Path, help="also write the table as JSON here (docs/results/ shape)")
    args = parser.parse_args(argv)
    if args.at_writes:
        AT_WRITES["max"] = args.max_write
    rng = random.Random(args.seed)
    delays = (args.min_delay, args.max_delay)
    trials = []
    with tempfile.TemporaryDirectory(prefix="autoalign-kill-") as tmp:
        work = Path(tmp)
        for name in args.commands:
            if name == "batch":
                trials.append(trial_batch(work, args.items, args.kills, rng, delays, args.preset))
            elif name == "bench":
                trials.append(trial_bench(work, args.items, args.kills, rng, delays, args.preset))
            else:
                trials.append(trial_run(work, args.kills, rng, delays, args.preset))
            t = trials[-1]
            print(f"{t.command:10s} kills {t.kills} ({t.killed_mid_work} mid-work)  lost {t.lost}  duplicated {t.duplicated}  "
                  f"corrupt {t.corrupt}  wall {t.wall_s:.0f} s", flush=True)
            for note in t.notes:
                print(f"           note: {note}", flush=True)
    bad = sum(t.lost + t.duplicated + t.corrupt for t in trials)
    if args.results is not None:
        from autoalign.files import atomic_write_json

        how = (f"at chosen writes (NAME@N, N in 1..{args.max_write})" if args.at_writes
               else f"at random moments {args.min_delay:g}-{args.max_delay:g} s after each start")
        atomic_write_json(args.results, {
            "title": "Kill and resume: nothing lost, duplicated or corrupt",
            "command": "python -m autoalign.benchmarks.kill_resume " + " ".join(argv if argv is not None else sys.argv[1:]),
            "measures": (f"Each command is SIGKILLed {args.kills} times {how} on the {args.preset} preset, resumed "
                         "with the same command each time, then run to the end; the output directory is audited: "
                         "lost = items (or trace steps the checkpoint holds) without a finished result, duplicated = "
                         "items or steps recorded twice, corrupt = files that do not parse or verify and temporary "
                         "files left. Kills that landed mid-work are counted; a kill whose write never came let the "
                         "child finish. Counts, not rates: no interval applies."),
            "tables": [{"name": "per command", "columns": ["command", "kills", "landed mid-work", "lost", "duplicated",
                                                           "corrupt", "wall s"],
                        "rows": [[t.command, t.kills, t.killed_mid_work, t.lost, t.duplicated, t.corrupt,
                                  round(t.wall_s)] for t in trials]}],
        })
    print("all outputs whole" if bad == 0 else f"PROBLEMS: {bad} lost/duplicated/corrupt in total")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
