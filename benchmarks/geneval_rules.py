"""GenEval's rules with the project's grounder as the detector (Ghosh et al., 2023, ``evaluate_images.py``).

An image is right for a GenEval prompt when, for every ``include`` entry in order:

* at least ``count`` objects of the class are found (the best ``count`` of them are the entry's group);
* with a ``color``: at least ``count`` of those are of that colour (GenEval: CLIP zero-shot on each crop);
* with a ``position`` ``[relation, k]``: every object of the group stands in that relation (from box centres,
  :func:`autoalign.grounding.relative_position`, GenEval's 0.1 threshold) to every object of group ``k``, and
  group ``k`` itself matched;

and for every ``exclude`` entry fewer than ``count`` objects of the class are found (GenEval's counting prompts
exclude ``count + 1``: exactly ``count``). GenEval's detector thresholds (0.3; 0.9 for counting) belong to
its Mask2Former; here the grounder's own threshold applies. The six task scores are the shares of right
images per tag; overall is their mean.

One extension, where GenEval's metadata never go: a class named by **more than one** ``include`` entry (the
shapes world's "a yellow triangle and a purple triangle", whose class is the shape). GenEval's rule would
give both entries the same best box; here each such entry with a colour takes the best ``count`` boxes of
its colour that no earlier entry took. An entry whose class is named once is scored exactly as GenEval does.

Colours: the grounder's when it tells colours (the world's does: its ``colors()``), else CLIP on the crop
as GenEval reads it - the box cut from the image with the object's mask over a grey (#999) background when
the grounder gives a mask - among GenEval's ten colours with GenEval's three templates ("a photo of a
{colour} {class}", "a photo of a {colour}-colored {class}", "a photo of a {colour} object"; the mean of the
three cosines, where GenEval averages the three text embeddings). On the shapes world the metadata come
from the caption's spec (:func:`spec_metadata`) and the verdicts are compared with the oracle
(:mod:`autoalign.benchmarks.geneval_bench`).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Sequence

from autoalign.grounding import relative_position
from autoalign.types import Box

#: GenEval's colour classes.
COLORS = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "black", "white")
TAGS = ("single_object", "two_object", "counting", "colors", "position", "color_attr")
#: GenEval's relation names -> the grounding module's directions
DIRECTION = {"left of": "left", "right of": "right", "above": "above", "below": "below"}
#: GenEval's colour templates (``evaluate_images.py``)
COLOR_TEMPLATES = ("a photo of a {c} {name}", "a photo of a {c}-colored {name}", "a photo of a {c} object")
#: GenEval's crop background under a mask (its ``bgcolor`` default, #999)
CROP_BACKGROUND = (153, 153, 153)


def evaluate(objects: dict[str, list[Box]], metadata: dict[str, Any],
             colour_of: Callable[[Box, str], str] | None = None) -> tuple[bool, list[str]]:
    """GenEval's verdict for one image from its detections per class (best first); reasons when wrong."""
    correct = True
    reasons: list[str] = []
    groups: list[list[Box] | None] = []
    include = metadata.get("include", [])
    repeated = {c for c, k in Counter(r["class"] for r in include).items() if k > 1}
    taken: dict[str, set[int]] = {}
    for req in include:
        name, count = req["class"], int(req["count"])
        detections = objects.get(name, [])
        matched = True
        if name in repeated and "color" in req and colour_of is not None:  # the extension (module docstring)
            used = taken.setdefault(name, set())
            pool = [i for i, b in enumerate(detections) if i not in used and colour_of(b, name) == req["color"]][:count]
            found = [detections[i] for i in pool]
            if len(found) < count:
                correct = matched = False
                reasons.append(f"expected {req['color']} {name}>={count}, found {len(found)} not taken by another entry")
            used.update(pool)
        else:
            found = detections[:count]
            if len(found) < count:
                correct = matched = False
                reasons.append(f"expected {name}>={count}, found {len(found)}")
            elif "color" in req:
                colours = [colour_of(b, name) if colour_of else "" for b in found]
                if colours.count(req["color"]) < count:
                    correct = matched = False
                    reasons.append(f"expected {req['color']} {name}>={count}, found {colours}")
        if "position" in req and matched:
            relation, target = req["position"]
            targets = groups[target] if target < len(groups) else None
            if targets is None:
                correct = matched = False
                reasons.append(f"no target for {name} to be {relation}")
            elif not all(DIRECTION[relation] in relative_position(a, b) for a in found for b in targets):
                correct = matched = False
                reasons.append(f"expected {name} {relation} target")
        groups.append(found if matched else None)
    for req in metadata.get("exclude", []):
        name, count = req["class"], int(req["count"])
        if len(objects.get(name, [])) >= count:
            correct = False
            reasons.append(f"expected {name}<{count}, found {len(objects.get(name, []))}")
    return correct, reasons


def classes(metadata: dict[str, Any]) -> list[str]:
    return list(dict.fromkeys(r["class"] for key in ("include", "exclude") for r in metadata.get(key, [])))


def detect(grounder: Any, image, metadata: dict[str, Any], clip: Any = None) -> tuple[dict[str, list[Box]], Callable[[Box, str], str]]:
    """Detections per class, and how a box's colour is read (the grounder's colours, else CLIP on the crop)."""
    names = classes(metadata)
    known = grounder.colors() if callable(getattr(grounder, "colors", None)) else None
    phrases = list(names)
    if known:
        phrases += [f"{c} {n}" for n in names for c in known]
    found = {g.phrase: g.boxes for g in grounder.ground([image], phrases)[0]} if phrases else {}
    objects = {n: found.get(n, []) for n in names}
    cache: dict[tuple[tuple[float, ...], str], str] = {}

    def colour_of(box: Box, name: str) -> str:
        key = (tuple(box.xyxy), name)
        if key not in cache:
            if known:
                cache[key] = next((c for c in known if any(b.xyxy == box.xyxy for b in found.get(f"{c} {name}", []))), "")
            elif clip is None:
                cache[key] = ""
            else:
                cache[key] = clip_colour(clip, crop(image, box), name)
        return cache[key]

    return objects, colour_of


def crop(image, box: Box):
    """The box cut from the image as GenEval cuts it: with the object's mask (when the grounder gives one) over
    GenEval's grey background."""
    import numpy as np
    from PIL import Image

    image = image.convert("RGB")
    mask = box.mask_array
    if mask is not None and tuple(np.asarray(mask).shape) == (image.height, image.width):
        blank = Image.new("RGB", image.size, CROP_BACKGROUND)
        image = Image.composite(image, blank, Image.fromarray(np.asarray(mask, dtype=bool).astype("uint8") * 255))
    x0, y0, x1, y1 = (int(round(v)) for v in box.xyxy)
    return image.crop((x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)))


def clip_colour(clip: Any, image, name: str) -> str:
    """GenEval's colour of a crop: the colour whose three templates CLIP finds closest (mean cosine)."""
    texts = [t.format(c=c, name=name) for c in COLORS for t in COLOR_TEMPLATES]
    scores = clip.cosine_texts(image, texts)
    k = len(COLOR_TEMPLATES)
    means = [sum(scores[i * k:(i + 1) * k]) / k for i in range(len(COLORS))]
    return COLORS[max(range(len(COLORS)), key=lambda i: means[i])]


def score_image(grounder: Any, image, metadata: dict[str, Any], clip: Any = None) -> dict[str, Any]:
    """GenEval's verdict on one image: ``{"correct", "reasons", "found": {class: boxes as dicts}}``."""
    objects, colour_of = detect(grounder, image, metadata, clip)
    correct, reasons = evaluate(objects, metadata, colour_of)
    return {"correct": bool(correct), "reasons": reasons,
            "found": {name: [b.to_dict() for b in boxes] for name, boxes in objects.items()}}


def shapes_task(spec) -> str:
    """GenEval's task of a shapes-world caption, from its form: a relation is ``position``; a group of two or more
    is ``counting``; one coloured object ``colors``; two or more single coloured objects ``color_attr``; without
    colours ``single_object`` / ``two_object``. (Size words have no GenEval task and are not checked.)"""
    if spec.relation is not None:
        return "position"
    if any(g.count > 1 for g in spec.groups):
        return "counting"
    coloured = all(g.color for g in spec.groups)
    if len(spec.groups) == 1:
        return "colors" if coloured else "single_object"
    return "color_attr" if coloured else "two_object"


def spec_metadata(spec) -> dict[str, Any]:
    """GenEval-style metadata of a shapes-world caption spec (class = the shape, with its colour and count;
    the relation as a position; a ``counting`` caption excludes one more of each shape than it names, summed
    over the groups of that shape). The tag is GenEval's task (:func:`shapes_task`); the world's own category,
    when the spec has one, is ``shapes_category``."""
    rel_name = {"to the left of": "left of", "to the right of": "right of", "above": "above", "below": "below"}
    include: list[dict[str, Any]] = []
    order = list(range(len(spec.groups)))
    if spec.relation is not None:
        i, _, j = spec.relation
        order = [j, i] + [k for k in order if k not in (i, j)]
    for k in order:
        g = spec.groups[k]
        entry: dict[str, Any] = {"class": g.shape, "count": g.count}
        if g.color:
            entry["color"] = g.color
        if spec.relation is not None and k == spec.relation[0]:
            entry["position"] = [rel_name[spec.relation[1]], 0]
        include.append(entry)
    tag = shapes_task(spec)
    exclude = []
    if tag == "counting":
        per_shape = Counter()
        for g in spec.groups:
            per_shape[g.shape] += g.count
        exclude = [{"class": shape, "count": n + 1} for shape, n in per_shape.items()]
    meta = {"tag": tag, "include": include, "exclude": exclude, "prompt": spec.caption()}
    if getattr(spec, "category", ""):
        meta["shapes_category"] = spec.category
    return meta


def task_scores(rows: Sequence[tuple[str, bool]]) -> dict[str, Any]:
    """Share right per tag, and overall = their mean (GenEval's summary)."""
    per: dict[str, list[bool]] = {}
    for tag, ok in rows:
        per.setdefault(tag, []).append(ok)
    scores = {t: sum(v) / len(v) for t, v in per.items()}
    return {"tasks": scores, "n": {t: len(v) for t, v in per.items()},
            "overall": sum(scores.values()) / len(scores) if scores else None}
