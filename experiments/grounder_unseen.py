"""How sure the world grounder is of colour-shape pairs no model of the world was trained on (round 36, issue 36).

    python -m experiments.grounder_unseen [--n 300] [--run VAL_RUN] [--sure 0.8] [--out X.json]

Why: after round 35 every missed unseen-pair prompt of the validation draw was refused for an unsure box: the grounded
pass found the object, but its box scored under the layout's ``sure``. This measures, on **validation** data only,
each instance the preset's grounder reads (shape head naming, ``blob_score`` and ``drop_blobs`` as shipped), split by
whether the colour-shape pair it reads is one the world's models saw:

* **rendered**: ``val`` scenes and ``compositional`` scenes from the validation suite's range (``VAL_UNSEEN_START`` on),
  drawn clean: the mean colour probability and mean pixel probability of the shape, and the share of instances at or
  above ``sure`` by the box score (the pixels' shape x colour, shipped) and by the head score (the shape head's
  probability of the shape it names x colour, :attr:`autoalign.types.Box.head_score`);
* **generated** (``--run``, a ``bench run`` of ``shapes-val`` / ``shapes-val-300``): every image the run drew, each
  instance labelled right when the oracle reads the blob under it (:func:`autoalign.world.oracle.reading_under`) as
  the shape and colour the grounder names; per kind of pair, the share of right and of wrong instances at or above
  ``sure`` and the ROC AUC of right against wrong, by either score. An instance the head calls a blob has no head
  score and keeps its box score (``blob_score``), as the layout detector's ``unseen_score = "head"`` reads it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Iterable, Sequence

SCORES = ("box score", "head score")


def _pair_kind(instance: dict[str, Any], shapes: set[str], held: set[tuple[str, str]]) -> tuple[str, str, str]:
    shape = next(iter(instance["labels"] & shapes))
    colour = next(iter(instance["labels"] - shapes))
    return shape, colour, "unseen pairs" if (colour, shape) in held else "seen pairs"


def _scores(instance: dict[str, Any]) -> dict[str, float]:
    head = instance.get("head_score")
    return {"box score": instance["score"], "head score": instance["score"] if head is None else head}


def read_all(grounder: Any, images: Sequence[Any], batch: int = 32) -> Iterable[tuple[Any, list[dict[str, Any]]]]:
    for start in range(0, len(images), batch):
        chunk = list(images[start:start + batch])
        yield from zip(chunk, grounder.read_instances(chunk))


def rendered_figures(grounder: Any, n: int, sure: float) -> dict[str, Any]:
    from autoalign.benchmarks.metrics import wilson
    from autoalign.benchmarks.suites import VAL_UNSEEN_START
    from autoalign.world.render import draw
    from autoalign.world.scene import held_out_pairs, shapes
    from autoalign.world.training.data import world_scenes

    held, names = held_out_pairs(), set(shapes())
    rows: dict[str, list[dict[str, Any]]] = {"seen pairs": [], "unseen pairs": []}
    for split, start in (("val", 0), ("compositional", VAL_UNSEEN_START)):
        images = [draw(scene) for _, scene in world_scenes(split, n, start)]
        for _, instances in read_all(grounder, images):
            for f in instances:
                rows[_pair_kind(f, names, held)[2]].append(f)
    out = {}
    for kind, found in rows.items():
        m = len(found)
        out[kind] = {
            "instances": m,
            "mean colour probability": sum(f["p_color"] for f in found) / m if m else None,
            "mean pixel probability of the shape": sum(max(f["p_shape"]) for f in found) / m if m else None,
            **{f"{s} at or above sure {sure:g}": wilson(sum(_scores(f)[s] >= sure for f in found), m) for s in SCORES},
        }
    return out


def generated_figures(grounder: Any, rows: Sequence[dict[str, Any]], sure: float) -> dict[str, Any]:
    from PIL import Image

    from autoalign.benchmarks.metrics import wilson
    from autoalign.benchmarks.world_eval import auc_with_ci
    from autoalign.world import oracle
    from autoalign.world.scene import held_out_pairs, shapes

    held, names = held_out_pairs(), set(shapes())
    images = []
    for row in rows:
        with Image.open(row["path"]) as im:
            images.append(im.convert("RGB"))
    kept: dict[str, list[tuple[bool, dict[str, float]]]] = {"seen pairs": [], "unseen pairs": []}
    for image, instances in read_all(grounder, images):
        blobs = oracle.objects_of(image)
        for f in instances:
            shape, colour, kind = _pair_kind(f, names, held)
            kept[kind].append((oracle.reading_under(f["mask"], blobs) == (shape, colour), _scores(f)))
    out = {}
    for kind, found in kept.items():
        right = [s for ok, s in found if ok]
        wrong = [s for ok, s in found if not ok]
        entry: dict[str, Any] = {"right instances": len(right), "wrong instances": len(wrong)}
        for s in SCORES:
            entry[f"right at or above sure {sure:g}, {s}"] = wilson(sum(x[s] >= sure for x in right), len(right))
            entry[f"wrong at or above sure {sure:g}, {s}"] = wilson(sum(x[s] >= sure for x in wrong), len(wrong))
            entry[f"ROC AUC right vs wrong, {s}"] = auc_with_ci([1] * len(right) + [0] * len(wrong),
                                                                [x[s] for x in right] + [x[s] for x in wrong])
        out[kind] = entry
    return out


def as_tables(result: dict[str, Any], argv: Sequence[str]) -> dict[str, Any]:
    """The figures in the docs' generic results shape (title, command, measures, tables; scripts/make_results.py)."""
    from autoalign.benchmarks.metrics import Metric

    def fmt(v: Any) -> str:
        return Metric.from_dict(v).fmt() if isinstance(v, dict) else (f"{v:.3f}" if isinstance(v, float) else str(v))

    tables = []
    for part in ("rendered", "generated"):
        figures = result.get(part)
        if not figures:
            continue
        kinds = list(figures)
        measures = list(figures[kinds[0]])
        tables.append({"name": f"{part} images" + (f" ({result['run']})" if part == "generated" else ""),
                       "columns": ["measure", *kinds], "rows": [[m, *(fmt(figures[k][m]) for k in kinds)] for m in measures]})
    return {
        "title": "The world grounder's box scores on colour-shape pairs the world's models never saw (validation data)",
        "command": "python -m experiments.grounder_unseen " + " ".join(argv),
        "measures": (f"Instances the shapes preset's grounder reads, by whether the colour-shape pair it names was in the "
                     f"models' training. Box score: the pixels' mean probability of the shape x the colour's (shipped); "
                     f"head score: the shape head's probability of the shape it names x the colour's. Rendered: "
                     f"{result['n_rendered_per_split']} validation scenes a split; generated: the {result['n_run_images']} "
                     f"images of a validation bench run, each instance right when the oracle reads the blob under it as "
                     f"named. Shares against the layout's sure {result['sure']:g}; Wilson 95 % intervals for shares, "
                     "bootstrap for ROC AUC."),
        "tables": tables,
        "raw": result,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="rendered scenes per split")
    ap.add_argument("--run", type=Path, help="a shapes-val bench run: read its images too")
    ap.add_argument("--sure", type=float, default=0.8, help="the layout detector's sure (the shapes preset's)")
    ap.add_argument("--out", type=Path, help="write the figures here as JSON")
    args = ap.parse_args(argv)

    from autoalign.config import load_config
    from autoalign.models.cache import Models
    from experiments.clip_unseen import run_images

    grounder = Models(load_config("shapes")).grounder
    rows = run_images(args.run) if args.run else []
    result: dict[str, Any] = {"sure": args.sure, "n_rendered_per_split": args.n, "run": str(args.run or ""),
                              "n_run_images": len(rows), "rendered": rendered_figures(grounder, args.n, args.sure)}
    if rows:
        result["generated"] = generated_figures(grounder, rows, args.sure)
    data = as_tables(result, argv if argv is not None else sys.argv[1:])
    for table in data["tables"]:
        print(f"\n{table['name']}")
        for row in table["rows"]:
            print(f"  {row[0]:48s} " + "  ".join(f"{v:28s}" for v in row[1:]))
    if args.out:
        from autoalign.files import atomic_write_json

        atomic_write_json(args.out, data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
