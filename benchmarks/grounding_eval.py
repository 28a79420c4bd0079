"""How well the world's grounder finds objects: ``python -m autoalign.benchmarks.grounding_eval``.

* **Rendered scenes** (``test`` and ``compositional`` splits, boxes from the scene graph): every
  (colour, shape) kind in the scene plus two kinds it does not hold are grounded. Box AP@0.5 pools
  every phrase's boxes (all-point interpolated precision-recall, a box right when IoU >= 0.5 with an
  unmatched true box of its phrase; 95 % interval by bootstrap over images), and the exact count per
  phrase (Wilson interval), on the kinds present and on all.
* **Generated images**: the world's generator draws one image per caption of a split (``test`` unless
  ``--split`` names others; ``--split val`` to choose settings on, the held-out ``test`` measured once);
  where the oracle reads it (:mod:`autoalign.world.oracle`: benchmarks only, never the loop), the
  grounder's count of each (colour, shape) kind the caption names or the oracle sees is compared with
  the oracle's.

``--grounder DIR`` measures the grounder saved in ``DIR`` (a ``save_pretrained`` directory, e.g. a recipe
variant written by ``autoalign world train --only grounder --out``) instead of the preset's ``world:grounder``;
``--records PATH`` writes each generated phrase's reading (image, phrase, grounder's count, oracle's count)
so two grounders on the same images can be compared phrase by phrase (fixed / broken, a sign test).

Writes ``docs/results/grounder.json`` (the generic results shape) with ``--out``. GenEval's rules on a bench
run's images, against the oracle on the ``shapes`` suite: ``autoalign bench geneval DIR``
(:mod:`autoalign.benchmarks.geneval_bench`).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path
from typing import Any, Sequence

from autoalign.benchmarks.metrics import Metric, wilson
from autoalign.grounding import box_iou
from autoalign.world import oracle
from autoalign.world.render import draw, scene_for
from autoalign.world.scene import Scene, colors, shapes, spec_for

COMMAND = "python -m autoalign.benchmarks.grounding_eval"


def kind_phrase(color: str, shape: str) -> str:
    return f"{color} {shape}"


def true_boxes(scene: Scene) -> dict[str, list[tuple[float, float, float, float]]]:
    """Pixel boxes (x1/y1 exclusive) of each (colour, shape) kind, from the drawn object map."""
    import numpy as np

    from autoalign.world.render import object_map

    ids = np.asarray(object_map(scene))
    out: dict[str, list[tuple[float, float, float, float]]] = {}
    for k, o in enumerate(scene.objects, start=1):
        ys, xs = np.nonzero(ids == k)
        out.setdefault(kind_phrase(o.color, o.shape), []).append(
            (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)))
    return out


def match(pred: list[tuple[float, Sequence[float]]], truth: list[Sequence[float]], thr: float = 0.5) -> list[tuple[float, bool]]:
    """Each predicted (score, box), best first, as true or false positive (greedy, COCO-style)."""
    used: set[int] = set()
    out = []
    for score, box in sorted(pred, key=lambda p: -p[0]):
        best, best_iou = None, thr
        for j, t in enumerate(truth):
            if j not in used and (v := box_iou(box, t)) >= best_iou:
                best, best_iou = j, v
        if best is not None:
            used.add(best)
        out.append((score, best is not None))
    return out


def average_precision(items: list[tuple[list[tuple[float, bool]], int]]) -> float | None:
    """All-point interpolated AP over images' (scored hits, number of true boxes)."""
    hits = sorted((h for preds, _ in items for h in preds), key=lambda h: -h[0])
    total = sum(n for _, n in items)
    if total == 0:
        return None
    tp = fp = 0
    precisions, recalls = [], []
    for _, ok in hits:
        tp += ok
        fp += not ok
        precisions.append(tp / (tp + fp))
        recalls.append(tp / total)
    ap, prev_r = 0.0, 0.0
    for i, r in enumerate(recalls):
        if r > prev_r:
            ap += (r - prev_r) * max(precisions[i:])
            prev_r = r
    return ap


def ap_with_ci(items: list[tuple[list[tuple[float, bool]], int]], n_boot: int = 300, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(seed)
    value = average_precision(items)
    boots = sorted(v for _ in range(n_boot) if (v := average_precision([rng.choice(items) for _ in items])) is not None)
    lo, hi = (boots[int(0.025 * len(boots))], boots[min(len(boots) - 1, int(0.975 * len(boots)))]) if boots else (None, None)
    return {"value": value, "n": len(items), "ci": [lo, hi]}


def rendered(grounder, split: str, n: int, seed: int = 0) -> dict[str, Any]:
    rng = random.Random(f"{seed}/{split}")
    kinds = [kind_phrase(c, s) for c in colors() for s in shapes()]
    items, exact_present, exact_all = [], [], []
    scenes = [scene_for(spec_for(split, i), i) for i in range(n)]
    for start in range(0, n, 32):
        batch = scenes[start:start + 32]
        phrase_sets = []
        for scene in batch:
            truth = true_boxes(scene)
            absent = rng.sample([k for k in kinds if k not in truth], 2)
            phrase_sets.append((truth, list(truth) + absent))
        union = sorted({p for _, ps in phrase_sets for p in ps})
        found = grounder.ground([draw(s) for s in batch], union)
        for (truth, ps), per_image in zip(phrase_sets, found):
            by_phrase = {g.phrase: g for g in per_image}
            hits, n_true = [], 0
            for p in ps:
                boxes = by_phrase[p].boxes
                t = truth.get(p, [])
                hits += match([(b.score, b.xyxy) for b in boxes], t)
                n_true += len(t)
                ok = len(boxes) == len(t)
                exact_all.append(ok)
                if t:
                    exact_present.append(ok)
            items.append((hits, n_true))
    return {
        "box AP@0.5": ap_with_ci(items),
        "exact count per (colour, shape) phrase, kinds in the scene": wilson(sum(exact_present), len(exact_present)),
        "exact count per (colour, shape) phrase, with two absent kinds per scene": wilson(sum(exact_all), len(exact_all)),
    }


def generated(grounder, generator, split: str, n: int) -> dict[str, Any]:
    """Count per (colour, shape) phrase, grounder against the oracle, on generated images it reads; and the
    GenEval-style verdict (:mod:`autoalign.benchmarks.geneval_rules`, the grounder as detector) against the oracle's."""
    import sys

    from autoalign.benchmarks.geneval_rules import detect as geneval_detect
    from autoalign.benchmarks.geneval_rules import evaluate as geneval_evaluate
    from autoalign.benchmarks.geneval_rules import spec_metadata

    agree, images_agree, readable = [], [], 0
    verdicts: list[bool] = []
    records: list[dict[str, Any]] = []
    for i in range(n):
        if i % 25 == 0:
            print(f"generated: {i}/{n}", file=sys.stderr, flush=True)
        spec = spec_for(split, i)
        image = generator.generate(spec.caption(), n=1, seed=i)[0]
        reading = oracle.read(image)
        if not reading.readable:
            continue
        readable += 1
        meta = spec_metadata(spec)
        objects, colour_of = geneval_detect(grounder, image, meta)
        verdicts.append(geneval_evaluate(objects, meta, colour_of)[0] == oracle.check(spec, reading.scene).aligned)
        seen = {kind_phrase(o.color, o.shape) for o in reading.scene.objects}
        named = {kind_phrase(g.color, g.shape) for g in spec.groups if g.color}
        phrases = sorted(seen | named)
        found = grounder.ground([image], phrases)[0]
        ok = []
        for g in found:
            color, shape = g.phrase.split()
            want = sum(o.color == color and o.shape == shape for o in reading.scene.objects)
            ok.append(len(g.boxes) == want)
        agree += ok
        images_agree.append(all(ok))
        records += [{"image": i, "phrase": g.phrase, "grounder": len(g.boxes),
                     "oracle": sum(o.color == g.phrase.split()[0] and o.shape == g.phrase.split()[1]
                                   for o in reading.scene.objects)} for g in found]
    return {
        "count per phrase agrees with the oracle": wilson(sum(agree), len(agree)),
        "every phrase of the image agrees": wilson(sum(images_agree), len(images_agree)),
        "GenEval-style verdict (grounder as detector) agrees with the oracle's": wilson(sum(verdicts), len(verdicts)),
        "images generated": n, "images the oracle reads": readable,
        "records": records,
    }


#: edit kinds of :func:`autoalign.world.training.edits.corrupt` -> what the fix needs (the issue's names)
EDIT_NAMES = {"drop": "addition (an object dropped)", "extra": "removal / count (an object copied)",
              "swap": "relation (two objects swapped)", "recolor": "attribute (recoloured)", "reshape": "entity (reshaped)"}


def _key(o) -> tuple:
    return (o.shape, o.color, o.size, o.x, o.y)


def names_edit(m, kind: str, scene: Scene, other: Scene) -> bool:
    """Whether a triplet names the edit that turned ``scene`` into ``other`` (its aspect, and the edited object's words)."""
    words = set(m.phrase.lower().replace("s ", " ").split()) | {w.rstrip("s") for w in m.phrase.lower().split()}
    if kind == "swap":
        return m.aspect == "relation"
    if kind in ("drop", "extra"):
        before, after = {_key(o) for o in scene.objects}, {_key(o) for o in other.objects}
        changed = [o for o in scene.objects if _key(o) not in after] if kind == "drop" else [o for o in other.objects if _key(o) not in before]
        o = changed[0]
        return m.aspect in ("entity", "number") and o.shape in words and o.color in words
    if kind == "recolor":
        return m.aspect == "attribute"
    return m.aspect == "entity"


def layout_edits(models, config, split: str, n: int, seed: int = 11) -> dict[str, Any]:
    """The layout detector on one-edit-away scenes (world eval's edit cases) and on each caption's own scene."""
    from autoalign.detection.layout import LayoutDetector
    from autoalign.world.training.edits import edit_away

    detector = LayoutDetector(models, config)
    rng = random.Random(f"{seed}/{split}")
    first: dict[str, list[bool]] = {}
    some: dict[str, list[bool]] = {}
    quiet: list[bool] = []
    for i in range(n):
        spec = spec_for(split, i)
        scene = scene_for(spec, i)
        caption = spec.caption()
        quiet.append(not detector.detect(draw(scene), caption, None))
        got = edit_away(spec, scene, rng)
        if got is None:
            continue
        other, kind = got
        found = detector.detect(draw(other), caption, None)
        first.setdefault(kind, []).append(bool(found) and names_edit(found[0], kind, scene, other))
        some.setdefault(kind, []).append(any(names_edit(m, kind, scene, other) for m in found))
    target = [v for k in ("drop", "extra", "swap") for v in first.get(k, [])]
    out = {"first triplet names the edit: count / addition / removal / relation": wilson(sum(target), len(target))}
    for kind in EDIT_NAMES:
        if kind in first:
            out[f"first triplet names the edit: {EDIT_NAMES[kind]}"] = wilson(sum(first[kind]), len(first[kind]))
            out[f"some triplet names the edit: {EDIT_NAMES[kind]}"] = wilson(sum(some[kind]), len(some[kind]))
    everything = [v for vs in first.values() for v in vs]
    out["first triplet names the edit: all edits"] = wilson(sum(everything), len(everything))
    out["quiet on the caption's own image"] = wilson(sum(quiet), len(quiet))
    return out


def _cell(m: dict[str, Any]) -> str:
    """A figure as a table cell, in either JSON form (Metric's, as ``wilson`` writes it, or ``{"ci": [lo, hi]}``)."""
    return "n/a" if m.get("value") is None else Metric.from_dict(m).fmt()


PARTS = ("rendered", "generated", "layout", "vq2")


def paired_final(bench_a: Path, bench_b: Path, n_boot: int = 2000) -> dict[str, Any]:
    """Per prompt of two shapes bench runs, the oracle's verdict on the final image: A - B with a bootstrap interval."""
    import json as _json

    from PIL import Image

    from autoalign.world.scene import parse_caption

    def verdicts(d: Path) -> dict[str, bool]:
        out = {}
        for line in (Path(d) / "results.jsonl").read_text(encoding="utf-8").splitlines():
            r = _json.loads(line)
            with Image.open(Path(d) / r["stages"]["corrected"]["image"]) as im:
                out[r["id"]] = oracle.shows(im.convert("RGB"), parse_caption(r["prompt"]))
        return out

    a, b = verdicts(bench_a), verdicts(bench_b)
    ids = sorted(set(a) & set(b))
    diff = [int(a[i]) - int(b[i]) for i in ids]
    rng = random.Random(0)
    boots = sorted(sum(rng.choice(diff) for _ in diff) / len(diff) for _ in range(n_boot))
    return {"n": len(ids), "a": sum(a[i] for i in ids) / len(ids), "b": sum(b[i] for i in ids) / len(ids),
            "a - b": sum(diff) / len(diff), "ci": [boots[int(0.025 * n_boot)], boots[int(0.975 * n_boot) - 1]],
            "a better": sum(d > 0 for d in diff), "a worse": sum(d < 0 for d in diff)}


def vq2_grounded(config, split: str, n: int) -> dict[str, Any]:
    """VQ2 ROC AUC, own image against one edit away (world eval's pairs), with closed counts, the VLM's answers
    alone and with count / place questions answered by the grounder (``scoring.grounded_answers``)."""
    from dataclasses import replace

    from autoalign.benchmarks.world_eval import auc_with_ci
    from autoalign.models.cache import Models
    from autoalign.scoring.scorer import Scorer
    from autoalign.world.training.edits import edit_away

    closed = replace(config, questions=replace(config.questions, options={**config.questions.options, "closed_counts": True}))
    setups = {"VLM answers": closed,
              "grounded count and place answers": replace(closed, scoring=replace(closed.scoring, grounded_answers=True))}
    scorers = {k: Scorer(Models(c), c, only={"vq2"}) for k, c in setups.items()}
    rng = random.Random(7)  # as world eval's vq2 part
    labels: list[int] = []
    scores: dict[str, list[float]] = {k: [] for k in setups}
    for i in range(n):
        spec = spec_for(split, i)
        scene = scene_for(spec, i)
        got = edit_away(spec, scene, rng)
        if got is None:
            continue
        pair = [draw(scene), draw(got[0])]
        labels += [1, 0]
        for k, scorer in scorers.items():
            scores[k] += [float(c.vq2) for c in scorer.score(pair, spec.caption())]
    return {f"VQ2 ROC AUC with closed counts, {k}": auc_with_ci(labels, v) for k, v in scores.items()}


def generated_splits(splits: Sequence[str]) -> list[str]:
    """The splits the generated part draws captions from: those asked for, ``test`` by default, never
    ``compositional`` (its unseen pairs are the rendered part's question)."""
    return [s for s in splits if s != "compositional"] or ["test"]


def with_grounder(config, grounder_dir: Path | None):
    """``config`` with its grounder read from ``grounder_dir`` (same backend), or unchanged when None."""
    from dataclasses import replace

    from autoalign.errors import InputError

    if grounder_dir is None:
        return config
    if not (Path(grounder_dir) / "config.json").is_file():
        raise InputError(f"--grounder {grounder_dir}: no saved model there (config.json missing)")
    return replace(config, grounder=replace(config.grounder, model=str(Path(grounder_dir).resolve())))


def run(n: int = 300, n_generated: int = 300, splits: Sequence[str] = ("test", "compositional"),
        parts: Sequence[str] = PARTS, grounder_dir: Path | None = None) -> dict[str, Any]:
    from autoalign.config import load_config
    from autoalign.models.cache import Models

    config = with_grounder(load_config("shapes"), grounder_dir)
    models = Models(config)
    grounder = models.grounder
    out: dict[str, Any] = {"rendered": {}, "generated": {}, "layout": {}, "vq2": {}}
    start = time.time()
    if "rendered" in parts:
        for split in splits:
            out["rendered"][split] = rendered(grounder, split, n)
    if "layout" in parts:
        for split in splits:
            out["layout"][split] = layout_edits(models, config, split, n)
    if "vq2" in parts:
        for split in splits:
            out["vq2"][split] = vq2_grounded(config, split, n)
    if n_generated and "generated" in parts:
        for split in generated_splits(splits):
            out["generated"][split] = generated(grounder, models.generator, split, n_generated)
    out["seconds"] = time.time() - start
    return out


def results_doc(result: dict[str, Any], command: str) -> dict[str, Any]:
    rows = []
    for split, table in result["rendered"].items():
        for key, m in table.items():
            rows.append([f"rendered {split}", key, _cell(m)])
    for split, table in result["generated"].items():
        for key, m in table.items():
            if key == "records":
                continue
            rows.append([f"generated {split}", key, _cell(m) if isinstance(m, dict) else m])
    for part in ("layout", "vq2"):
        for split, table in result.get(part, {}).items():
            for key, m in table.items():
                rows.append([f"{part} detector, {split}" if part == "layout" else f"VQ2, {split}", key, _cell(m)])
    return {
        "title": "The world's grounder (world:grounder, SegFormer read into instances) and the layout detector",
        "command": command,
        "measures": ("Rendered scenes: box AP@0.5 over every (colour, shape) phrase grounded (the kinds in the scene and two "
                     "absent kinds), 95 % interval by bootstrap over images; exact count per phrase with a Wilson interval. "
                     "The compositional split holds colour-shape pairs and counts the grounder never saw in training. "
                     "Generated: one image of the world's generator per test caption; where the oracle reads it, the "
                     "grounder's count of each kind the caption names or the oracle sees against the oracle's. Layout: "
                     "the layout detector on one-edit-away rendered scenes (world eval's edits): its first triplet names "
                     "the edit (aspect and edited object); quiet = no triplet on the caption's own scene. VQ2: ROC AUC of "
                     "own scene against one edit away, closed counts, the VLM's answers alone or with count and place "
                     "questions answered by the grounder."),
        "tables": [{"name": "world:grounder", "columns": ["images", "measure", "value [95 % CI] (n)"], "rows": rows}],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=300, help="rendered scenes per split")
    parser.add_argument("--generated", type=int, default=300, help="generated images per split (0: none)")
    parser.add_argument("--only", action="append", choices=PARTS, help="only these parts (repeatable)")
    parser.add_argument("--split", action="append", choices=("val", "test", "compositional"),
                        help="only these splits (repeatable; default: test and compositional, generated images: test; "
                             "val to choose settings on)")
    parser.add_argument("--compare", type=Path, nargs=2, default=None, metavar=("A", "B"),
                        help="two shapes bench runs of the same prompts: the oracle on their final images, paired (prints JSON)")
    parser.add_argument("--out", type=Path, default=None, help="write the results JSON here (docs/results/grounder.json)")
    parser.add_argument("--grounder", type=Path, default=None, metavar="DIR",
                        help="measure the grounder saved in DIR instead of the preset's world:grounder")
    parser.add_argument("--records", type=Path, default=None, metavar="PATH",
                        help="write each generated phrase's counts (grounder, oracle) here, to compare grounders paired")
    args = parser.parse_args(argv)
    if args.compare:
        print(json.dumps(paired_final(*args.compare)))
        return
    parts = tuple(args.only or PARTS)
    splits = tuple(args.split or ("test", "compositional"))
    result = run(args.n, args.generated, splits=splits, parts=parts, grounder_dir=args.grounder)
    command = (f"{COMMAND} --n {args.n} --generated {args.generated}" + "".join(f" --only {p}" for p in args.only or [])
               + "".join(f" --split {s}" for s in args.split or [])
               + (f" --grounder {args.grounder}" if args.grounder else "")
               + (f" --out {args.out}" if args.out else ""))
    doc = results_doc(result, command)
    for row in doc["tables"][0]["rows"]:
        print(" | ".join(str(c) for c in row))
    from autoalign.files import atomic_write_json

    if args.records:
        atomic_write_json(args.records, {"command": command, "generated": {
            split: table["records"] for split, table in result["generated"].items()}})
    if args.out:
        atomic_write_json(args.out, doc)


if __name__ == "__main__":
    import sys

    from autoalign.errors import AutoAlignError

    try:
        main()
    except AutoAlignError as exc:  # bad input: one line, exit 2, nothing written
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
