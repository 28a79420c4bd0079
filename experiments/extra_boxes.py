"""What the grounder's disputed boxes are on validation images the oracle reads right but the loop refuses, and what
box rules would change (round 21, issue 36 follow-up; analysis only, no preset change).

``python -m experiments.extra_boxes --records /tmp/38-pe-records2.jsonl --work /tmp/38-pe-work --runs /tmp/val-TR``
reads :mod:`autoalign.benchmarks.pass_eval`'s records (validation images only: generated round-0 candidates, a
``shapes-val`` run's edited and final images), grounds each image again with the ``shapes`` preset's grounder
(the only model run; about 90 s on one thread) and, per distinct box, stores its geometry, score, labels, the
shape its own mask reads as (the oracle's fill / mass rule applied to the grounder's mask) and what the oracle's
pixel reading shows under the mask. Then:

* every triplet on a right-but-refused image (replayed with :meth:`LayoutDetector.mismatches`, which must give
  the recorded verdict on every image), each evidence box sorted into a kind: a whole oracle object read as another
  shape / colour; a faint blob whose pixels the oracle reads as background; off-palette or fragment pixels the
  oracle ignores;
* candidate remedies replayed on the stored boxes (no model run): false pass and missed per image against the
  preset, per source and per ``pass_eval`` half (choose / confirm), intervals by bootstrap over prompts
  (:func:`autoalign.benchmarks.pass_eval.rates`), image changes paired (:func:`pass_eval.paired`);
* a contact sheet of 24 typical disputed *extra* boxes and a results JSON.
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
from pathlib import Path
from typing import Any, Callable

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from autoalign.benchmarks.pass_eval import paired, rates
from autoalign.config import load_config
from autoalign.detection.layout import LayoutDetector, layout_queries
from autoalign.files import atomic_save_image, atomic_write_json, atomic_write_text
from autoalign.grounding import read_layout
from autoalign.types import Box
from autoalign.world import oracle
from autoalign.world.scene import colors

NOUNS = ["circle", "square", "triangle"]
KINDS = {"whole": "a whole object read as another shape / colour",
         "faint": "a faint blob the oracle reads as background",
         "offpal": "off-palette / fragment pixels the oracle ignores",
         "mixed": "mixed pixels, no object"}


def image_path(r: dict[str, Any], work: Path, runs: Path) -> Path:
    return work / r["id"] / f"cand_{r['image']:02d}.png" if r["source"] == "generated" else runs / r["image"]


def oracle_maps(im: Image.Image) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """The oracle's pixel labels, which object (component of >= MIN_AREA pixels) each pixel belongs to, and
    the fragment pixels, split as :func:`autoalign.world.oracle.read` splits them (same order of objects)."""
    label, names = oracle.palette_labels(np.asarray(im, dtype=np.float32))
    obj, frag, objs = np.full(label.shape, -1), np.zeros(label.shape, bool), []
    for name, cm in oracle.components(label, names):
        if cm.sum() < oracle.MIN_AREA:
            frag |= cm
            continue
        obj[cm] = len(objs)
        objs.append({"colour": name, "area": int(cm.sum())})
    return label, obj, frag, objs


def box_info(b: Box, label: np.ndarray, obj: np.ndarray, frag: np.ndarray, objs: list[dict[str, Any]]) -> dict[str, Any]:
    mask = np.asarray(b.mask_array, bool)
    ys, xs = np.nonzero(mask)
    h, w = ys.max() - ys.min() + 1, xs.max() - xs.min() + 1
    lab, names = label[mask], ["background", *colors()]
    o = obj[mask]
    ids, cnt = np.unique(o[o >= 0], return_counts=True)
    return {"xyxy": list(b.xyxy), "score": b.score, "area": int(mask.sum()),
            "fill": float(len(xs) / (h * w)), "drop": float((ys.mean() - (ys.min() + ys.max()) / 2) / h),
            "bg": float((lab == 0).mean()), "unknown": float((lab == -1).mean()), "frag": float(frag[mask].mean()),
            "cols": {names[k]: float((lab == k).mean()) for k in range(1, len(names)) if (lab == k).any()},
            "obj_share": {int(i): float(c / mask.sum()) for i, c in zip(ids, cnt)}}


def ground_all(records: list[dict[str, Any]], work: Path, runs: Path) -> list[dict[str, Any]]:
    """Per image: every distinct box the layout's queries and the 18 colour-noun phrases find, with its label."""
    config = load_config("shapes")
    from autoalign.models.cache import Models

    models = Models(config)
    det = LayoutDetector(models, config)
    combos = [f"{c} {n}" for c in colors() for n in NOUNS]
    out = []
    for r in records:
        path = image_path(r, work, runs)
        im = Image.open(path).convert("RGB")
        lay = read_layout(r["prompt"])
        rec: dict[str, Any] = {"path": str(path), "boxes": []}
        if lay.objects:
            label, obj, frag, objs = oracle_maps(im)
            reading = oracle.read(im)
            rec["oracle_objects"] = [o.describe() for o in reading.scene.objects] if reading.scene else None
            rec["objs"] = objs
            phrases: dict[tuple[float, ...], list[str]] = collections.defaultdict(list)
            for q, bl in det.ground_layout(im, lay).items():
                for b in bl:
                    phrases[tuple(b.xyxy)].append(q)
            for g in models.grounder.ground([im], combos)[0]:
                for b in g.boxes:
                    rec["boxes"].append({**box_info(b, label, obj, frag, objs), "label": g.phrase.split(),
                                         "phrases": phrases.get(tuple(b.xyxy), [])})
        out.append(rec)
    return out


# ---- replay ---------------------------------------------------------------------------------------------------

def answers(q: str, colour: str, shape: str) -> bool:
    words = q.split()
    return {w for w in words if w in NOUNS} == {shape} and {w for w in words if w in colors()} <= {colour}


Remedy = Callable[[dict[str, Any], bool], str | None]  # (box, claimed) -> the shape it counts as, None: drop it


def replay(r: dict[str, Any], g: dict[str, Any], det: LayoutDetector, gate: float, remedy: Remedy | None = None
           ) -> tuple[bool, list[Any]]:
    """The loop's verdict on the stored boxes (a remedy may drop or relabel boxes first)."""
    lay = read_layout(r["prompt"])
    if not lay.objects:
        return (not r["probe"] and r["clip"] >= gate), []
    own = {o.query for o in lay.objects}
    qs = layout_queries(lay, (NOUNS, list(colors())))
    boxes: dict[str, list[Box]] = collections.defaultdict(list)
    for i in g["boxes"]:
        colour, shape = i["label"]
        if remedy is not None:
            shape = remedy(i, bool(own & set(i["phrases"])))
            if shape is None:
                continue
        for q in qs:
            if answers(q, colour, shape):
                boxes[q].append(Box(tuple(i["xyxy"]), i["score"], q))
    mm = det.mismatches(lay, dict(boxes), closed=(NOUNS, list(colors())), image_size=(64, 64))
    return (not mm and not r["probe"] and r["clip"] >= gate), mm


def side(i: dict[str, Any]) -> float:
    x0, y0, x1, y1 = i["xyxy"]
    return max(x1 - x0, y1 - y0)


def mask_shape(i: dict[str, Any]) -> str | None:
    return oracle.classify(i["fill"], i["drop"])


def unclaimed(test: Callable[[dict[str, Any]], bool]) -> Remedy:
    """Drop a box no object phrase of the prompt grounded when ``test`` holds."""
    return lambda i, claimed: None if not claimed and test(i) else i["label"][1]


REMEDIES: dict[str, Remedy] = {
    "drop unclaimed box, long side < 8 px": unclaimed(lambda i: side(i) < 8),
    "drop unclaimed box, long side < 10 px": unclaimed(lambda i: side(i) < 10),
    "drop unclaimed box, mask < 40 px": unclaimed(lambda i: i["area"] < 40),
    "drop unclaimed box, score < 0.7": unclaimed(lambda i: i["score"] < 0.7),
    "drop unclaimed box, half its pixels background-near": unclaimed(lambda i: i["bg"] >= 0.5),
    "drop unclaimed box, half its pixels background / off-palette / fragment":
        unclaimed(lambda i: i["bg"] + i["unknown"] + i["frag"] >= 0.5),
    "mask shape relabels every box": lambda i, claimed: mask_shape(i) or i["label"][1],
    "mask shape relabels unclaimed boxes": lambda i, claimed: i["label"][1] if claimed else mask_shape(i) or i["label"][1],
    "mask shape relabels unclaimed boxes, drops one no shape fits":
        lambda i, claimed: i["label"][1] if claimed else mask_shape(i),
}


def kind(i: dict[str, Any], g: dict[str, Any]) -> str:
    if i["obj_share"] and max(i["obj_share"].values()) >= 0.5:
        return "whole"
    if i["bg"] >= 0.5:
        return "faint"
    return "offpal" if i["unknown"] + i["frag"] >= 0.5 else "mixed"


def triplet_type(m: Any) -> str:
    ev = m.evidence
    return ("extra" if ev.get("action") == "remove" else "missing" if ev.get("action") == "add" else
            "unsure" if ev.get("unsure") else "size" if ev.get("size") else m.aspect)


def disputed(records: list[dict[str, Any]], grounded: list[dict[str, Any]], det: LayoutDetector, gate: float
             ) -> list[dict[str, Any]]:
    rows = []
    for r, g in zip(records, grounded):
        ok, mm = replay(r, g, det, gate)
        if ok or not r["oracle"]["aligned"]:
            continue
        by_box = {tuple(i["xyxy"]): i for i in g["boxes"]}
        for m in mm:
            for bx in m.evidence.get("boxes", []) or [None]:
                i = by_box.get(tuple(bx["xyxy"])) if bx else None
                row = {"source": r["source"], "id": r["id"], "image": r["image"], "prompt": r["prompt"],
                       "triplet": triplet_type(m), "correction": m.correction, "path": g["path"]}
                if i is not None:
                    oid = max(i["obj_share"], key=i["obj_share"].get) if i["obj_share"] else None
                    under = g["oracle_objects"][int(oid)] if oid is not None and g["oracle_objects"] else ""
                    row.update(kind=kind(i, g), side=side(i), area=i["area"], score=i["score"], xyxy=i["xyxy"],
                               label=i["label"], mask_shape=mask_shape(i), oracle_under=under,
                               claimed=[b["xyxy"] for b in g["boxes"]
                                        if set(b["phrases"]) & {o.query for o in read_layout(r["prompt"]).objects}])
                rows.append(row)
    return rows


def sheet(rows: list[dict[str, Any]], out: Path, per_kind: dict[str, int]) -> list[dict[str, Any]]:
    """Typical disputed extra boxes (magenta; the prompt's own boxes cyan), one per prompt first."""
    pick: list[dict[str, Any]] = []
    for k, n in per_kind.items():
        cands = [x for x in rows if x["triplet"] == "extra" and x.get("kind") == k]
        firsts = list({x["id"]: x for x in reversed(cands)}.values())[::-1]
        rest = [x for x in cands if x not in firsts and (x["id"], tuple(x["xyxy"])) not in {(p["id"], tuple(p["xyxy"])) for p in firsts}]
        pick += (firsts + rest)[:n]
    s, cap, ncol = 3, 30, 6
    w = 64 * s
    img = Image.new("RGB", (ncol * w, -(-len(pick) // ncol) * (w + cap)), (255, 255, 255))
    pen, font = ImageDraw.Draw(img), ImageFont.load_default()
    short = {"whole": "whole object, other label", "faint": "faint blob (oracle: bg)", "offpal": "off-palette / fragment"}
    for k, x in enumerate(pick):
        tile = Image.open(x["path"]).convert("RGB").resize((w, w), Image.NEAREST)
        d = ImageDraw.Draw(tile)
        for c in x["claimed"]:
            d.rectangle([c[0] * s, c[1] * s, c[2] * s - 1, c[3] * s - 1], outline=(0, 255, 255))
        x0, y0, x1, y1 = x["xyxy"]
        d.rectangle([x0 * s - 1, y0 * s - 1, x1 * s, y1 * s], outline=(255, 0, 255), width=2)
        cx, cy = (k % ncol) * w, (k // ncol) * (w + cap)
        img.paste(tile, (cx, cy))
        pen.text((cx + 2, cy + w + 1), f"{x['correction'].removeprefix('an extra ')} {x['score']:.2f} {int(x['side'])}px",
                 fill=(0, 0, 0), font=font)
        pen.text((cx + 2, cy + w + 14), short[x["kind"]], fill=(90, 90, 90), font=font)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_save_image(out, img.quantize(64))
    return pick


def _cell(m: dict[str, Any]) -> str:
    return f"{m['value']:.3f} [{m['ci_low']:.3f}, {m['ci_high']:.3f}]"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=Path, required=True)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--runs", type=Path, required=True)
    ap.add_argument("--boxes", type=Path, default=Path("/tmp/extra-boxes.jsonl"), help="the grounded boxes (cache)")
    ap.add_argument("--sheet", type=Path, default=Path("docs/lab-notes/round-21-extra-boxes.png"))
    ap.add_argument("--out", type=Path, default=Path("docs/results/extra-boxes.json"))
    args = ap.parse_args(argv)
    records = [json.loads(line) for line in args.records.read_text().splitlines() if line.strip()]
    if args.boxes.exists():
        grounded = [json.loads(line) for line in args.boxes.read_text().splitlines()]
    else:
        grounded = ground_all(records, args.work, args.runs)
        atomic_write_text(args.boxes, "".join(json.dumps(g) + "\n" for g in grounded))
    config = load_config("shapes")
    det, gate = LayoutDetector(None, config), float(config.loop.threshold)
    base = [replay(r, g, det, gate)[0] for r, g in zip(records, grounded)]
    same = sum(b == r["pass"] for b, r in zip(base, records))
    print(f"replayed verdict = recorded verdict on {same} of {len(records)} images")

    rows = disputed(records, grounded, det, gate)
    boxed = [x for x in rows if "kind" in x]
    kinds = collections.Counter((x["triplet"], x["kind"]) for x in boxed)
    kind_rows = []
    for src in ("edit", "generated", "final"):
        for k in KINDS:
            xs = [x for x in boxed if x["source"] == src and x["triplet"] == "extra" and x["kind"] == k]
            if xs:
                ms = collections.Counter("none fits" if x["mask_shape"] is None else "its label" if x["mask_shape"] == x["label"][1]
                                         else "the oracle's shape" if x["oracle_under"].endswith(x["mask_shape"])
                                         else "another shape" for x in xs)
                kind_rows.append([src, KINDS[k], len(xs), len({(x["id"], str(x["image"])) for x in xs}), len({x["id"] for x in xs}),
                                  statistics.median(x["side"] for x in xs), statistics.median(x["area"] for x in xs),
                                  round(statistics.median(x["score"] for x in xs), 2),
                                  ", ".join(f"{v} {k2}" for k2, v in ms.most_common())])
    for t, k in sorted(kinds):
        print(f"  {t:10s} {KINDS[k]:50s} {kinds[(t, k)]}")
    for row in kind_rows:
        print("  ", row)
    pick = sheet(rows, args.sheet, {"whole": 12, "faint": 7, "offpal": 5})

    remedy_rows = []
    for name, fn in [("preset", None), *REMEDIES.items()]:
        new = base if fn is None else [replay(r, g, det, gate, fn)[0] for r, g in zip(records, grounded)]
        for src in ("generated", "edit", "final"):
            for part in ("choose", "confirm"):
                idx = [k for k, r in enumerate(records) if r["source"] == src and r["part"] == part]
                sub = [records[k] for k in idx]
                rt = rates(sub, [new[k] for k in idx])
                pr = paired(sub, [base[k] for k in idx], [new[k] for k in idx])
                row = [name, src, part, rt["n"], _cell(rt["false pass"]), _cell(rt["missed"]),
                       f"{pr['right now passed']} ({pr['right now passed (prompts)']})",
                       f"{pr['wrong now passed']} ({pr['wrong now passed (prompts)']})",
                       f"{pr['right now refused']} ({pr['right now refused (prompts)']})",
                       f"{pr['wrong now refused']} ({pr['wrong now refused (prompts)']})"]
                remedy_rows.append(row)
                print("  ", row)
    command = ("python -m experiments.extra_boxes --records /tmp/38-pe-records2.jsonl --work /tmp/38-pe-work "
               "--runs /tmp/val-TR")
    atomic_write_json(args.out, {
        "title": "Disputed grounder boxes on right-but-refused validation images, and box rules replayed (round 21)",
        "command": command,
        "measures": ("pass_eval's validation images (generated round-0 candidates, edited and final images of a "
                     "shapes-val run), grounded again with the shapes preset's grounder. 'kinds': every evidence box "
                     "of a triplet on an image the oracle reads right and the preset refuses, by what the oracle's "
                     "pixel reading shows under the box's mask, and which shape the mask itself reads as (the "
                     "oracle's fill rule on the grounder's mask). 'remedies': a rule over the boxes replayed on the "
                     "same stored boxes (no new model run), false pass and missed as shares of all images with 95 % "
                     "bootstrap intervals over prompts, per source and pass_eval half; changes against the preset "
                     f"in images (prompts). The replay gives the recorded verdict on {same} of {len(records)} images."),
        "tables": [
            {"name": "disputed extra boxes by kind",
             "columns": ["source", "kind", "boxes", "images", "prompts", "long side median (px)",
                         "mask area median (px)", "score median", "the mask's own shape"],
             "rows": kind_rows},
            {"name": "evidence boxes of every triplet type on right refused images",
             "columns": ["triplet", "kind", "boxes"],
             "rows": [[t, KINDS[k], kinds[(t, k)]] for t, k in sorted(kinds)]},
            {"name": "remedies replayed",
             "columns": ["rule", "source", "half", "n", "false pass", "missed", "right now passed (prompts)",
                         "wrong now passed (prompts)", "right now refused (prompts)", "wrong now refused (prompts)"],
             "rows": remedy_rows},
            {"name": "contact sheet cases", "columns": ["source", "prompt", "image", "triplet", "kind", "oracle reads"],
             "rows": [[x["source"], x["prompt"], str(x["image"]), x["correction"], KINDS[x["kind"]],
                       ", ".join(g for g in [x["oracle_under"]] if g) or "nothing"] for x in pick]},
        ]})


if __name__ == "__main__":
    main()
