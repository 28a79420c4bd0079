"""How often the world's generator draws a caption right on its own, read by the oracle.

    python -m experiments.generated_right [DIR ...] [--n 150] [--per 2] [--split val]

Each DIR is a ``StableDiffusionPipeline`` folder (default: the committed ``autoalign/world/weights/generator``).
For the first N captions of the split, ``--per`` images each (one call, ``torch.Generator`` seeded with the
caption's index; the ``shapes`` preset's 20 steps and guidance 4, 64x64, float32 on the CPU), the oracle reads every
image. Prints images, readable, right, and the same for captions that name green (round 23: the old autoencoder
drew green shapes as blobs; docs/lab-notes/round-23-vae.md). No loop, no judge: the generator alone.
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path


def measure(generator_dir: Path, n: int, per: int, split: str) -> dict[str, int]:
    import torch
    from diffusers import StableDiffusionPipeline

    from autoalign.world import oracle, scene

    pipe = StableDiffusionPipeline.from_pretrained(generator_dir, torch_dtype=torch.float32)
    pipe.set_progress_bar_config(disable=True)
    counts: collections.Counter[str] = collections.Counter()
    for i, spec in enumerate(scene.specs(split, n)):
        images = pipe([spec.caption()] * per, num_inference_steps=20, guidance_scale=4.0, height=64, width=64,
                      generator=torch.Generator("cpu").manual_seed(i)).images
        green = any(g.color == "green" for g in spec.groups)
        for image in images:
            reading = oracle.read(image)
            right = bool(reading.readable and oracle.check(spec, reading.scene).aligned)
            counts["images"] += 1
            counts["readable"] += reading.readable
            counts["right"] += right
            if green:
                counts["green images"] += 1
                counts["green right"] += right
    return dict(counts)


def main(argv: list[str] | None = None) -> None:
    from autoalign.world import WEIGHTS_DIR

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", type=Path, help="generator folders (default: the committed one)")
    parser.add_argument("--n", type=int, default=150, help="captions")
    parser.add_argument("--per", type=int, default=2, help="images per caption")
    parser.add_argument("--split", default="val", choices=("train", "val", "test"))
    args = parser.parse_args(argv)
    for generator_dir in args.dirs or [WEIGHTS_DIR / "generator"]:
        print(generator_dir, measure(generator_dir, args.n, args.per, args.split))


if __name__ == "__main__":
    main()
