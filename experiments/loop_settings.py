"""Choose the ``shapes`` preset's judge and detector by what the loop ends with, on *validation* prompts.

``python -m experiments.loop_settings --n 80`` runs the whole loop (seed 0) on ``n`` distinct
captions of the world's ``val`` split under each setting in :data:`SETTINGS` and has the oracle read the
first candidate, the reranked one and the final image. It prints, per setting, how many final images
are right, and how often the judge passed an image the oracle reads as wrong (a false pass ends the
loop). The held-out figures come from ``autoalign bench run --suite shapes``, never from this.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from typing import Any

from autoalign.scoring.clipscore import reference_template

#: Each setting overrides the shapes preset (``autoalign.align`` keyword overrides). The thresholds of the
#: VNLI and VQ2 judges are the ones that best separate right from wrong generated candidates on validation
#: (``autoalign world eval --only rerank --validation --n 150``).
SETTINGS: dict[str, dict[str, Any]] = {
    "clip judge (2.2) + clip-probe (the preset)": {},
    # the preset's threshold until round 10
    "the same, threshold 2.0": {"threshold": 2.0},
    # before round 9: CLIPScore's "A photo depicts ..." text, which the world's CLIP never saw in training
    "the same, 'A photo depicts' prefix": {"clip": {"text_template": reference_template()}},
    "clip judge + vq2 detector": {"detection": {"detectors": ["vq2"]}},
    "vnli judge (0.838) + vq2 detector": {
        "scoring": {"primary": "vnli", "rerank": ["vnli", "vq2", "clip"]}, "detection": {"detectors": ["vq2"]}, "threshold": 0.838},
    "vq2 judge (0.966) + vq2 detector": {
        "scoring": {"primary": "vq2", "rerank": ["vq2", "vnli", "clip"]}, "detection": {"detectors": ["vq2"]}, "threshold": 0.966},
}


def captions(n: int) -> list[str]:
    from autoalign.world.scene import spec_for

    out: list[str] = []
    i = 0
    while len(out) < n:
        caption = spec_for("val", i).caption()
        i += 1
        if caption not in out:
            out.append(caption)
    return out


def run_setting(overrides: dict[str, Any], prompts: list[str]) -> dict[str, int]:
    from PIL import Image

    import autoalign
    from autoalign.world.oracle import shows
    from autoalign.world.scene import parse_caption

    counts = {"first candidate right": 0, "reranked right": 0, "final right": 0, "judge passed": 0, "false passes": 0}
    for caption in prompts:
        spec = parse_caption(caption)
        with tempfile.TemporaryDirectory() as tmp:
            result = autoalign.align(caption, preset="shapes", seed=0, out_dir=f"{tmp}/run", **overrides)
            with Image.open(f"{tmp}/run/candidates/cand_00.png") as first:
                counts["first candidate right"] += shows(first.convert("RGB"), spec)
            with Image.open(f"{tmp}/run/{result.first_best.path}") as reranked:
                counts["reranked right"] += shows(reranked.convert("RGB"), spec)
            final = shows(result.image, spec)
            passed = result.stop_reason == "aligned"
            counts["final right"] += final
            counts["judge passed"] += passed
            counts["false passes"] += passed and not final
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=80, help="validation captions per setting")
    parser.add_argument("--only", action="append", choices=list(SETTINGS), help="only these settings")
    args = parser.parse_args(argv)
    prompts = captions(args.n)
    for name in args.only or SETTINGS:
        print(json.dumps({"setting": name, "n": args.n, **run_setting(SETTINGS[name], prompts)}), flush=True)


if __name__ == "__main__":
    main()
