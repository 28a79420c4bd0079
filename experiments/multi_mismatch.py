"""Sequential vs combined edit instructions for prompts with several mismatches, on the scene double.

    python -m experiments.multi_mismatch [--seeds 12]

``loop.multi_mismatch = "sequential"`` edits one mismatch at a time (most confident first);
``"combined"`` writes one instruction for all of them. This runs both over the same prompts and
seeds with the ``scene-double`` preset drawing two flaws per image (a wrong count and a wrong colour) (test doubles: the VQA double reads the known scene, so this
measures the loop's logic, not a model) and prints, per mode: share of runs that end aligned, mean
rounds, mean edits tried, and mean final score.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import tempfile
from pathlib import Path

from autoalign.agents.runner import run
from autoalign.config import load_config

PROMPTS = (
    "two red apples on a blue plate",
    "three green cubes and a yellow ball",
    "a red cup next to two blue books",
)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=12)
    parser.add_argument("--max-rounds", type=int, default=None, help="loop.max_rounds (default: the preset's)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)

    print(f"scene double (test doubles, not models): {len(PROMPTS)} prompts x {args.seeds} seeds, 1 candidate")
    print(f"{'mode':11s} {'runs':>5s} {'aligned':>8s} {'rounds':>7s} {'edits':>6s} {'final':>6s}")
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("sequential", "combined"):
            loop = {"multi_mismatch": mode, "candidates": 1}
            if args.max_rounds is not None:
                loop["max_rounds"] = args.max_rounds
            cfg = load_config(
                "scene-double",
                overrides={"loop": loop, "generator": {"flaw": "both"}},  # a wrong count and colour in every image
            )
            summaries = []
            for p_index, prompt in enumerate(PROMPTS):
                for seed in range(args.seeds):
                    cfg.loop.seed = seed
                    summaries.append(run(prompt, cfg, Path(tmp) / mode / f"{p_index}-{seed}"))
            aligned = sum(s.stop_reason == "aligned" for s in summaries) / len(summaries)
            rounds = statistics.mean(s.rounds for s in summaries)
            edits = statistics.mean(s.edits_accepted + s.edits_rejected for s in summaries)
            final = statistics.mean(s.scores.final for s in summaries)
            print(f"{mode:11s} {len(summaries):5d} {aligned:8.2f} {rounds:7.2f} {edits:6.2f} {final:6.3f}")


if __name__ == "__main__":
    main()
