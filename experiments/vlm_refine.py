"""Round 12's VLM experiment: train the committed VLM on, with count grounding, and measure it.

    python -m experiments.vlm_refine --out runs/vlm-refine [--per-number --steps 1500 --warmup 100]
    autoalign world eval --weights runs/vlm-refine --only vlm --only vq2 --validation --n 150

It starts from ``autoalign/world/weights/vlm`` and runs :func:`autoalign.world.training.train_vlm.refine`
(count-grounding heads; the closed-count questions of the question generator; with ``--per-number``
count questions balanced per number), resumable from ``$AUTOALIGN_HOME/world-train/vlm-refine``.
It writes ``OUT/vlm`` and links the committed generator, editor and CLIP beside it, so that
``world eval --weights OUT`` measures the new VLM with everything else as committed. Tune on the
validation split only. Neither variant was committed (README, round 12: what it measured).
"""

from __future__ import annotations

import argparse
import json
import logging
from dataclasses import replace
from pathlib import Path


def main(argv: list[str] | None = None) -> dict:
    from autoalign.world import WEIGHTS_DIR
    from autoalign.world.training import train_vlm

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="where to write OUT/vlm (and links to the other committed models)")
    parser.add_argument("--steps", type=int, default=train_vlm.REFINE.steps, help="steps of the cosine plan")
    parser.add_argument("--lr", type=float, default=None, help="peak learning rate (default: the plan's)")
    parser.add_argument("--warmup", type=int, default=None, help="warm-up steps (default: the plan's, at most half the steps)")
    parser.add_argument("--scenes", type=int, default=train_vlm.REFINE_SCENES, help="training scenes")
    parser.add_argument("--per-number", action="store_true", help="balance count questions per number they ask")
    parser.add_argument("--copies", type=float, default=0.0,
                        help="share of scenes whose twin holds a second copy of an 'a' object (the closed count's hard negative)")
    parser.add_argument("--no-closed-counts", action="store_true", help="leave out the closed-count questions")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    plan = train_vlm.REFINE.with_steps(args.steps)
    if args.warmup is not None:
        plan = replace(plan, warmup=args.warmup)
    if args.lr is not None:
        plan = replace(plan, lr=args.lr)
    stats = train_vlm.refine(WEIGHTS_DIR / "vlm", out / "vlm", plan=plan, n_scenes=args.scenes,
                             closed_counts=not args.no_closed_counts, per_number=args.per_number,
                             copies=args.copies)
    for name in ("generator", "editor", "clip"):
        link = out / name
        if not link.exists():
            link.symlink_to(WEIGHTS_DIR / name, target_is_directory=True)
    result = {"plan": plan.__dict__, "per_number": args.per_number, "copies": args.copies, "closed_counts": not args.no_closed_counts, **stats}
    (out / "vlm" / "MODEL_CARD.json").write_text(json.dumps({"name": "vlm-refine", "start": "world:vlm", **result}, indent=2), encoding="utf-8")
    print(json.dumps(result, indent=2))
    return result


if __name__ == "__main__":
    main()
