"""Does an autoencoder keep the world's shapes? Rendered scenes, encoded and decoded, read back by the oracle.

    python -m experiments.vae_roundtrip [DIR ...] [--n 300] [--split val]

Each DIR is an ``AutoencoderKL`` folder (default: the committed ``autoalign/world/weights/vae``; a variant
written by ``autoalign world train --only vae --out OUT`` is ``OUT/vae``). For the first N scenes of the split
(``scene_for(spec, i)``, as every world benchmark draws them) the rendered image goes through the VAE (the
posterior's mode, no sampling) and the oracle reads the result. Prints, per DIR, how many scenes read back as
the same objects (shape, colour and size), the unreadable ones, and each (colour, shape, size) whose objects
come back in fewer than 95 % of their scenes. The generator cannot draw finer than its decoder: round 23 found
the 800-step VAE turned small green triangles into blobs (1 of 29 kept; docs/lab-notes/round-23-vae.md).
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path


def roundtrip(vae_dir: Path, n: int, split: str) -> dict:
    import torch
    from diffusers import AutoencoderKL

    from autoalign.world import oracle, render, scene
    from autoalign.world.training.train_vae import round_trip

    vae = AutoencoderKL.from_pretrained(vae_dir, torch_dtype=torch.float32).eval()
    same_n = unreadable = 0
    kept, total = collections.Counter(), collections.Counter()
    for i, spec in enumerate(scene.specs(split, n)):
        drawn = render.scene_for(spec, i)
        reading = oracle.read(round_trip(vae, [render.draw(drawn)])[0])
        unreadable += not reading.readable
        key = sorted((o.color, o.shape, o.size) for o in drawn.objects)
        same = reading.readable and sorted((o.color, o.shape, o.size) for o in reading.scene.objects) == key
        same_n += same
        for k in key:
            total[k] += 1
            kept[k] += same
    weak = {" ".join(k): f"{kept[k]}/{total[k]}" for k in sorted(total) if kept[k] < 0.95 * total[k]}
    return {"vae": str(vae_dir), "scenes": n, "same": same_n, "unreadable": unreadable, "weak": weak}


def main(argv: list[str] | None = None) -> None:
    from autoalign.world import WEIGHTS_DIR

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="*", type=Path, help="AutoencoderKL folders (default: the committed VAE)")
    parser.add_argument("--n", type=int, default=300, help="scenes")
    parser.add_argument("--split", default="val", choices=("train", "val", "test"))
    args = parser.parse_args(argv)
    for vae_dir in args.dirs or [WEIGHTS_DIR / "vae"]:
        r = roundtrip(vae_dir, args.n, args.split)
        print(f"{r['vae']}: {r['same']}/{r['scenes']} scenes read back the same, {r['unreadable']} unreadable")
        for key, frac in r["weak"].items():
            print(f"  {key}: {frac}")


if __name__ == "__main__":
    main()
