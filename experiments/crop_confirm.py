"""Does CLIP, shown one object alone, tell a right object from a wrong one where the grounder is unsure? (round 34,
issue 36; analysis only, no preset change.)

``python -m experiments.crop_confirm --records pe-base.jsonl --work /work/runs/pe-work [--runs RUN] --out X.json``

Reads :mod:`autoalign.benchmarks.pass_eval`'s records (validation images only) and, for each image whose prompt names
objects, grounds it again with the ``shapes`` preset's grounder (the loop's own :class:`LayoutDetector`). For every
box of the prompt's objects it cuts the object out by its mask (dilated by one pixel), pastes it where it stood on an
empty world canvas, and asks the world's CLIP which of ``"a COLOUR SHAPE"`` (every shape of the world, the object's
own colour from the prompt) fits best: the **crop margin** of a box = CLIP's cosine for the prompt's shape minus the
best other shape's. The image's crop margin is the smallest over its boxes (the weakest object).

Then, by ROC AUC of the image's crop margin (oracle right against wrong), on:

* images the pass refuses *only* for an unsure box (the grounded triplet ``unsure``, nothing else): can the crop
  rescue the right ones (missed) without passing the wrong ones?
* images the pass lets through (``pass``): could the crop refuse the wrong ones (false pass)?

per ``pass_eval`` half (``choose`` / ``confirm``), with the counts a margin cut-off would move. The crop is the world's
own CLIP on an in-distribution image (a lone object on the world's background), not the oracle.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np


def lone_object(image, mask: np.ndarray):
    """The object under ``mask`` (dilated by one pixel) pasted where it stood on an empty world canvas."""
    from PIL import Image
    from scipy.ndimage import binary_dilation

    from autoalign.world.scene import background

    arr = np.asarray(image.convert("RGB")).copy()
    keep = binary_dilation(mask, iterations=1)
    canvas = np.empty_like(arr)
    canvas[:] = np.asarray(background(), dtype=arr.dtype)
    canvas[keep] = arr[keep]
    return Image.fromarray(canvas)


def margins(image, prompt: str, models: Any, config: Any) -> list[dict[str, Any]]:
    """Per box of the prompt's objects: its score, its phrase and its crop margin."""
    from autoalign.detection.layout import LayoutDetector
    from autoalign.grounding import read_layout
    from autoalign.world.scene import shapes

    layout = read_layout(prompt)
    if not layout.objects:
        return []
    boxes = LayoutDetector(models, config).ground_layout(image, layout)
    out = []
    for o in layout.objects:
        colour = o.colors[0] + " " if o.colors else ""
        names = list(shapes())
        if o.noun not in names:
            continue
        texts = [f"a {colour}{s}" for s in names]
        for b in boxes.get(o.query, []):
            if b.mask_array is None:
                continue
            cos = models.clip.cosine_texts(lone_object(image, b.mask_array), texts)
            own = cos[names.index(o.noun)]
            other = max(c for s, c in zip(names, cos) if s != o.noun)
            out.append({"phrase": o.query, "score": b.score, "margin": float(own - other)})
    return out


def load_image(record: dict[str, Any], work: Path, runs: Path | None):
    from PIL import Image

    from experiments.pass_signals import image_path

    with Image.open(image_path(record, work, runs or Path("."))) as im:
        return im.convert("RGB")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--records", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--runs", type=Path, help="the shapes-val run the records' edited and final images are from")
    ap.add_argument("--cache", help="JSON lines of margins per image (written, then reused)")
    ap.add_argument("--out")
    args = ap.parse_args(argv)

    from tqdm.auto import tqdm

    from autoalign.config import load_config
    from autoalign.models.cache import Models
    from experiments.pass_signals import auc as pass_signals_auc

    records = [json.loads(line) for line in Path(args.records).read_text().splitlines() if line.strip()]
    cache = Path(args.cache) if args.cache else None
    done = {}
    if cache and cache.exists():
        done = {(d["id"], str(d["image"])): d["boxes"] for d in map(json.loads, cache.read_text().splitlines())}
    config = load_config("shapes")
    models = Models(config)
    for r in tqdm(records, desc="crops", unit="image"):
        key = (r["id"], str(r["image"]))
        if key not in done:
            done[key] = margins(load_image(r, Path(args.work), args.runs), r["prompt"], models, config)
            if cache:
                with cache.open("a") as f:
                    f.write(json.dumps({"id": r["id"], "image": r["image"], "boxes": done[key]}) + "\n")
        r["crop"] = min((b["margin"] for b in done[key]), default=None)

    def only_unsure(r):
        return (not r["pass"]) and r["grounded"] and all(g["unsure"] for g in r["grounded"]) and not r["probe"]

    report: dict[str, Any] = {}
    for part in ("choose", "confirm"):
        for name, keep in (("refused only as unsure", only_unsure), ("passed", lambda r: r["pass"])):
            rows = [r for r in records if r["part"] == part and keep(r) and r["crop"] is not None]
            right = [r["crop"] for r in rows if r["oracle"]["aligned"]]
            wrong = [r["crop"] for r in rows if not r["oracle"]["aligned"]]
            cut = {f"{c:g}": {"right >= cut": sum(m >= c for m in right), "wrong >= cut": sum(m >= c for m in wrong)}
                   for c in (-0.2, -0.1, 0.0, 0.05, 0.1, 0.2)}
            auc = pass_signals_auc([True] * len(right) + [False] * len(wrong), right + wrong)
            report[f"{part} / {name}"] = {"right": len(right), "wrong": len(wrong), "auc": auc, "cuts": cut}
    print(json.dumps(report, indent=1))
    if args.out:
        from autoalign.files import atomic_write_json

        atomic_write_json(args.out, {"command": "python -m experiments.crop_confirm", "report": report})


if __name__ == "__main__":
    main()
