"""Batch throughput: items per minute for the local engine and the Ray engine with 1 and 2 workers.

    python -m autoalign.benchmarks.batch_throughput [--items 20] [--preset tiny] [--candidates N] [--max-rounds R]

Runs the same prompt file through each engine in fresh directories (tiny preset, CPU) and prints
items/minute and the ratio to the local engine, all measured in this one run. On a 2-core machine
two Ray workers compete for the same cores, so expect ratios near or below 1 there: the figure that
matters on a GPU box is the scaling with one worker per GPU.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path

from autoalign import settings
from autoalign.agents.batch import run_batch
from autoalign.config import load_config

SETTINGS = ("candidates", "max_rounds")  # run settings this script takes (autoalign.settings)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20)
    parser.add_argument("--preset", default=settings.DEFAULT_PRESET)
    settings.add_arguments(parser, SETTINGS)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)

    cfg = load_config(args.preset, overrides=settings.from_namespace(args, SETTINGS))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        prompts = tmp / "prompts.txt"
        prompts.write_text("".join(f"{1 + i % 4} red apples on a blue plate, take {i}\n" for i in range(args.items)))
        # Warm-up: build the tiny models once so no engine pays for it.
        run_batch(prompts, tmp / "warmup", cfg, limit=1, progress=False)

        results: list[tuple[str, float]] = []
        for label, kwargs in (
            ("local", {"engine": "local"}),
            ("ray, 1 worker", {"engine": "ray", "workers": 1}),
            ("ray, 2 workers", {"engine": "ray", "workers": 2}),
        ):
            try:
                t0 = time.perf_counter()
                report = run_batch(prompts, tmp / label.replace(" ", "_").replace(",", ""), cfg, progress=False, **kwargs)
                elapsed = time.perf_counter() - t0
            except Exception as exc:  # noqa: BLE001 - report and go on (e.g. Ray not installed)
                print(f"{label:16s} skipped: {exc}")
                continue
            results.append((label, report.succeeded / elapsed * 60.0))

    base = results[0][1] if results else float("nan")
    print(f"\nbatch throughput, preset {args.preset}, {args.items} items, candidates={cfg.loop.candidates}, "
          f"max_rounds={cfg.loop.max_rounds} (wall time includes Ray start-up)")
    print(f"{'engine':16s} {'items/min':>10s} {'vs local':>9s}")
    for label, ipm in results:
        print(f"{label:16s} {ipm:10.1f} {ipm / base:8.2f}x")


if __name__ == "__main__":
    main()
