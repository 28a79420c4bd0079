"""Loop overhead: per graph step, model time vs orchestration overhead; and a cold `--preset tiny` run.

    python -m autoalign.benchmarks.loop_overhead [--prompt "..."] [--preset tiny] [--skip-cold]

1. Cold: ``python -m autoalign run PROMPT --preset tiny`` in a subprocess with an empty
   ``AUTOALIGN_HOME``, so the tiny models are built from scratch; prints its total wall time
   (target: under 60 s on 2 CPU cores).
2. Warm: two runs of the loop in this process (the first loads the models); for the second, each
   graph step's wall time from ``trace.jsonl`` split into model time (generator, editor, scorer,
   detector, writer calls) and orchestration overhead (graph, checkpoint, trace, image I/O), in ms
   (target: overhead in the tens of ms per step).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autoalign.agents import runner
from autoalign.config import load_config
from autoalign.settings import DEFAULT_PRESET

PROMPT = "two red apples on a blue plate"


def cold_run(prompt: str, preset: str, tmp: Path) -> float:
    env = {**os.environ, "AUTOALIGN_HOME": str(tmp / "home"), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "autoalign", "run", prompt, "--preset", preset, "--out", str(tmp / "cold"), "--json"],
        env=env, check=True, stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def step_table(run_dir: Path) -> list[dict]:
    return [json.loads(ln) for ln in (run_dir / "trace.jsonl").read_text().splitlines() if ln.strip()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompt", default=PROMPT)
    parser.add_argument("--preset", default=DEFAULT_PRESET)
    parser.add_argument("--skip-cold", action="store_true", help="Skip the cold subprocess run.")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        cold = None if args.skip_cold else cold_run(args.prompt, args.preset, tmp)
        config = load_config(args.preset)
        start = time.perf_counter()
        runner.run(args.prompt, config, tmp / "warmup")
        first = time.perf_counter() - start
        start = time.perf_counter()
        result = runner.run(args.prompt, config, tmp / "warm")
        warm = time.perf_counter() - start
        steps = step_table(tmp / "warm")

    print(f"loop overhead ({args.preset} preset, {os.cpu_count()} CPUs), prompt {args.prompt!r}")
    print(f"rounds {result.rounds}, stop reason {result.stop_reason}, {len(steps)} graph steps")
    print(f"{'step':>4} {'node':<9} {'round':>5} {'wall ms':>9} {'model ms':>9} {'overhead ms':>12}")
    total_over = 0.0
    for r in steps:
        over = r["duration_ms"] - r["model_ms"]
        total_over += over
        print(f"{r['step']:>4} {r['node']:<9} {r['round']:>5} {r['duration_ms']:>9.1f} {r['model_ms']:>9.1f} {over:>12.1f}")
    kinds = {k: v for k, v in result.model_ms.items() if "." in k}
    print("model ms by call: " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(kinds.items())))
    print(f"overhead: total {total_over:.1f} ms, mean {total_over / max(1, len(steps)):.1f} ms per step")
    print(f"warm run (models loaded) wall time: {warm:.2f} s; first in-process run (loads models): {first:.2f} s")
    if cold is not None:
        print(f"cold `autoalign run --preset {args.preset}` incl. building tiny models from scratch: {cold:.2f} s (target < 60 s)")


if __name__ == "__main__":
    main()
