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

Colours: the grounder's when it tells colours (the world's does: its ``colors()``), else CLIP on the crop
among GenEval's ten colours ("a photo of a {colour} {class}"). On the shapes world the metadata come from the
caption's spec (:func:`spec_metadata`) and the result is compared with the oracle.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from autoalign.grounding import relative_position
from autoalign.types import Box

#: GenEval's colour classes.
COLORS = ("red", "orange", "yellow", "green", "blue", "purple", "pink", "brown", "black", "white")
TAGS = ("single_object", "two_object", "counting", "colors", "position", "color_attr")
#: GenEval's relation names -> the grounding module's directions
DIRECTION = {"left of": "left", "right of": "right", "above": "above", "below": "below"}


def evaluate(objects: dict[str, list[Box]], metadata: dict[str, Any],
             colour_of: Callable[[Box, str], str] | None = None) -> tuple[bool, list[str]]:
    """GenEval's verdict for one image from its detections per class (best first); reasons when wrong."""
    correct = True
    reasons: list[str] = []
    groups: list[list[Box] | None] = []
    for req in metadata.get("include", []):
        name, count = req["class"], int(req["count"])
        found = objects.get(name, [])[:count]
        matched = True
        if len(found) < count:
            correct = matched = False
            reasons.append(f"expected {name}>={count}, found {len(found)}")
        else:
            if "color" in req:
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
    found = {g.phrase: g.boxes for g in grounder.ground([image], phrases)[0]}
    objects = {n: found.get(n, []) for n in names}

    def colour_of(box: Box, name: str) -> str:
        if known:
            return next((c for c in known if any(b.xyxy == box.xyxy for b in found.get(f"{c} {name}", []))), "")
        if clip is None:
            return ""
        crop = image.crop(tuple(int(round(v)) for v in box.xyxy))
        scores = [clip.cosine([crop], f"a photo of a {c} {name}")[0] for c in COLORS]
        return COLORS[max(range(len(COLORS)), key=lambda i: scores[i])]

    return objects, colour_of


def spec_metadata(spec) -> dict[str, Any]:
    """GenEval-style metadata of a shapes-world caption spec (class = the shape, with its colour and count;
    the relation as a position; a counting caption excludes one more)."""
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
    exclude = [{"class": g.shape, "count": g.count + 1} for g in spec.groups] if spec.category == "counting" else []
    return {"tag": spec.category, "include": include, "exclude": exclude, "prompt": spec.caption()}


def task_scores(rows: Sequence[tuple[str, bool]]) -> dict[str, Any]:
    """Share right per tag, and overall = their mean (GenEval's summary)."""
    per: dict[str, list[bool]] = {}
    for tag, ok in rows:
        per.setdefault(tag, []).append(ok)
    scores = {t: sum(v) / len(v) for t, v in per.items()}
    return {"tasks": scores, "n": {t: len(v) for t, v in per.items()},
            "overall": sum(scores.values()) / len(scores) if scores else None}
