"""The layout detector ("layout"): the prompt's objects grounded in the image, and what the boxes contradict.

It reads the prompt with the question generator's parse (:func:`autoalign.scoring.parse.parse_prompt`):
every noun with its colour words and count ("two red circles": 2, "a red circle": 1), and every
spatial relation between two nouns. It asks the preset's ``grounder`` role for each object phrase
("red circle") and, to tell a wrong colour from a missing object, for the bare noun and for the noun in
each other colour the grounder knows. Then, FineMatch triplets, each with its **evidence boxes**
(``evidence["boxes"]``: :meth:`autoalign.types.Box.to_dict`, pixels of the image):

* **entity, missing** - no box for the phrase nor for the noun in another colour: ``phrase`` = the
  noun chunk ("a red circle"), ``evidence["action"] = "add"``;
* **attribute** - no box for the phrase, but the noun is there in another colour: ``phrase`` = the colour
  word, ``correction`` = the colour seen, the boxes of the noun;
* **number** - boxes for the phrase, but not as many as the prompt counts (GenEval's counting rule: exactly
  that many): ``phrase`` = the chunk, ``correction`` = the chunk with the count seen;
* **entity, extra** - with a closed vocabulary (a grounder that lists its nouns, such as the world's), an
  object of a noun the prompt does not name: ``evidence["action"] = "remove"``;
* **attribute, size** (option ``sizes``) - boxes for the phrase, but one reads as the other size than the
  prompt's size word (:func:`autoalign.grounding.size_seen`): ``phrase`` = the size word, ``correction`` =
  the size seen, ``evidence["size"] = True``, the boxes of the wrong size;
* **relation** - both sides grounded, and no pair of their boxes stands as the prompt says, read from box
  centres as GenEval does (the offset less ``position_threshold`` x the two boxes' sizes, normalised; a
  direction holds beyond 0.5): ``phrase`` = the relation words, ``correction`` = where the subject is;
* **attribute, unsure** (option ``sure``) - nothing above, but the weakest box of the prompt's objects scores
  below ``sure``: the grounder found the object without being sure what it is (a blob between two shapes).
  ``phrase`` = ``correction`` = the object's phrase, ``evidence["unsure"] = True``, its box: the planner
  redraws it as the prompt says, and the grounded pass does not call the image aligned meanwhile.

Words: corrections use only the prompt's words and the grounder's own labels (for the world, its
vocabulary), never a colour or a thing the preset's models do not know.

Options (``[detection.options.layout]``): ``position_threshold`` (GenEval's 0.1), ``max_mismatches``,
``sizes`` (false: a box's size says little in a photograph; the ``shapes`` preset turns it on, where a size
word is a size in pixels), ``sure`` (0, off: the box score below which an object is not read for sure; a
grounder's scores mean different things, so it is chosen per preset on validation), ``unseen_sure`` (unset: ``sure``;
the same for an object whose colour or count the preset's vocabulary marks unseen, :func:`autoalign.vocabulary.unseen_object`),
``unseen_score`` (``"box"``, the default: such an object's box is held to ``sure`` by its score; ``"head"``: by its
``Box.head_score`` where the grounder gives one, the reading of the whole instance by the world grounder's shape head.
A SegFormer's pixels vote for the shape their colour came with in training, so a right drawing of a colour-shape pair
it never saw scores low by the pixels; the head, which reads the whole mask, scores it higher (round 36)).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PIL import Image

from autoalign.detection.base import detector_options
from autoalign.grounding import (
    POSITION_THRESHOLD,
    SAY,
    WORD_OF,
    Layout,
    LayoutObject,
    read_layout,
    relative_position,
    size_class,
    size_seen,
)
from autoalign.inflect import plural
from autoalign.types import Box, Mismatch, ScoreCard

if TYPE_CHECKING:
    from autoalign.config import Config
    from autoalign.models.cache import Models

logger = logging.getLogger(__name__)

def _with_count(obj: LayoutObject, n: int) -> str:
    """The object's words with another count: "two red circles" -> "three red circles", "a red circle" (n=1)."""
    words = [*obj.colors, obj.noun if n == 1 else plural(obj.noun)]
    return " ".join(["a" if n == 1 else WORD_OF.get(n, str(n)), *words])


def _boxes(boxes: list[Box]) -> list[dict[str, Any]]:
    return [b.to_dict() for b in boxes]


def layout_queries(layout: Layout, closed: tuple[list[str], list[str]] | None) -> list[str]:
    """The phrases :meth:`LayoutDetector.ground_layout` asks the grounder for, once each: every object phrase, its bare
    noun, its noun in each other known colour, and every known noun (``closed``: the grounder's (nouns, colours), for a
    closed vocabulary; None for open-vocabulary detectors)."""
    queries: list[str] = []
    for o in layout.objects:
        queries += [o.query, o.noun]
        if o.colors and closed:
            queries += [f"{c} {o.noun}" for c in closed[1] if c not in o.colors]
    if closed:
        queries += closed[0]
    return list(dict.fromkeys(queries))


class LayoutDetector:
    """Grounded objects against the prompt's counts, colours and relations -> triplets with boxes."""

    name = "layout"

    def __init__(self, models: "Models", config: "Config", **options: Any):
        from autoalign.config import ConfigError

        self.models = models
        self.config = config
        opts = {**detector_options(config, self.name), **options}
        unknown = sorted(set(opts) - {"position_threshold", "max_mismatches", "sizes", "sure", "unseen_sure", "unseen_score"})
        if unknown:
            raise ConfigError(f"[detection.options.layout] unknown option(s) {', '.join(unknown)}; "
                              "allowed: position_threshold, max_mismatches, sizes, sure, unseen_sure, unseen_score")
        for key in ("sure", "unseen_sure"):
            value = opts.get(key, 0.0)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ConfigError(f"[detection.options.layout] {key} must be a number in [0, 1] (got {value!r})")
        self.sure = float(opts.get("sure", 0.0))
        # the sure of an object whose colour / count pairing the vocabulary marks unseen (None: ``sure``)
        self.unseen_sure = float(opts["unseen_sure"]) if "unseen_sure" in opts else None
        self.unseen_score = opts.get("unseen_score", "box")
        if self.unseen_score not in ("box", "head"):
            raise ConfigError(f'[detection.options.layout] unseen_score must be "box" or "head" (got {self.unseen_score!r})')
        sizes = opts.get("sizes", False)
        if not isinstance(sizes, bool):
            raise ConfigError(f"[detection.options.layout] sizes must be true or false (got {sizes!r})")
        self.sizes = sizes
        value = opts.get("position_threshold", POSITION_THRESHOLD)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
            raise ConfigError(f"[detection.options.layout] position_threshold must be a number in [0, 1) (got {value!r})")
        self.position_threshold = float(value)
        limit = opts.get("max_mismatches", config.detection.max_mismatches)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ConfigError(f"[detection.options.layout] max_mismatches must be a positive integer (got {limit!r})")
        self.limit = limit

    def sure_for(self, obj: LayoutObject) -> float:
        """The box score below which ``obj`` is not read for sure: ``unseen_sure`` for an object whose colour or
        count the preset's vocabulary marks unseen (its models never saw the pair, so the grounder's score of a
        right drawing of it runs lower), else ``sure``."""
        if self.unseen_sure is not None and self._unseen(obj):
            return self.unseen_sure
        return self.sure

    def sure_score(self, box: Box, obj: LayoutObject) -> float:
        """The score of ``box`` that :meth:`sure_for` holds ``obj`` to: its ``head_score`` for an object the
        vocabulary marks unseen with ``unseen_score = "head"`` (where the grounder gives one), else its score."""
        if self.unseen_score == "head" and box.head_score is not None and self._unseen(obj):
            return box.head_score
        return box.score

    def _unseen(self, obj: LayoutObject) -> bool:
        from autoalign.vocabulary import unseen_object

        return unseen_object(obj, self.config)

    # the grounder's closed vocabulary, when it has one (the world's SegFormer); None for open-vocabulary detectors
    def _closed(self, grounder) -> tuple[list[str], list[str]] | None:
        nouns = getattr(grounder, "nouns", None)
        colours = getattr(grounder, "colors", None)
        if not callable(nouns) or not callable(colours):
            return None
        n, c = nouns(), colours()
        return (list(n), list(c)) if n is not None and c is not None else None

    def ground_layout(self, image: Image.Image, layout: Layout) -> dict[str, list[Box]]:
        """Boxes per query phrase: every object phrase, its bare noun, its noun in each other known colour,
        and (closed vocabulary) every known noun."""
        grounder = self.models.grounder
        found = grounder.ground([image], layout_queries(layout, self._closed(grounder)))[0]
        return {g.phrase: g.boxes for g in found}

    def detected_objects(self, image: Image.Image, prompt: str) -> list[Box]:
        """Every object found for the prompt's phrases, once each, labelled with the most specific phrase
        that found it ("red circle" over "circle"): the input of the rule and LLM layout planners."""
        found = self.ground_layout(image, read_layout(prompt))
        best: dict[tuple[float, ...], Box] = {}
        for phrase, boxes in sorted(found.items(), key=lambda kv: -len(kv[0].split())):
            for b in boxes:
                key = tuple(round(v, 1) for v in b.xyxy)
                if key not in best:
                    best[key] = Box(b.xyxy, b.score, label=phrase)
        return sorted(best.values(), key=lambda b: -b.score)

    def errors(self, image: Image.Image, prompt: str) -> int | None:
        """How many object errors the grounded layout shows (:func:`layout_errors`); None for a prompt without objects."""
        layout = read_layout(prompt)
        if not layout.objects:
            return None
        return layout_errors(layout, self.ground_layout(image, layout), self._closed(self.models.grounder),
                             self.position_threshold)

    def detect(self, image: Image.Image, prompt: str, card: ScoreCard | None) -> list[Mismatch]:
        layout = read_layout(prompt)
        if not layout.objects:
            return []
        boxes = self.ground_layout(image, layout)
        return self.mismatches(layout, boxes, closed=self._closed(self.models.grounder),
                               image_size=image.size if self.sizes else None)[: self.limit]

    def mismatches(self, layout: Layout, boxes: dict[str, list[Box]], closed: tuple[list[str], list[str]] | None = None,
                   image_size: tuple[int, int] | None = None) -> list[Mismatch]:
        """The triplets a layout and its grounded boxes give, most confident first (module docstring); size
        triplets only with ``image_size`` (the boxes' image, option ``sizes``)."""
        scored: list[tuple[float, Mismatch]] = []
        for o in layout.objects:
            own = boxes.get(o.query, [])
            if own and image_size is not None and o.size:
                asked = size_class(o.size)
                wrong = [b for b in own if size_seen(b, image_size) != asked]
                if wrong:
                    seen = "small" if asked == "big" else "big"
                    conf = max(b.score for b in wrong)
                    scored.append((conf, Mismatch(
                        "attribute", o.size, seen, round(conf, 6), self.name,
                        {"noun": o.query, "expected": o.size, "found": seen, "size": True, "boxes": _boxes(wrong)})))
            if own:
                if o.count is not None and len(own) != o.count:
                    conf = sum(b.score for b in own) / len(own)
                    scored.append((conf, Mismatch(
                        "number", o.chunk, _with_count(o, len(own)), round(conf, 6), self.name,
                        {"noun": " ".join([*o.colors, plural(o.noun) if o.count != 1 else o.noun]),
                         "expected": o.count, "found": len(own), "boxes": _boxes(own)})))
                continue
            others = []
            if o.colors and closed:
                for c in closed[1]:
                    if c not in o.colors and boxes.get(f"{c} {o.noun}"):
                        others.append((c, boxes[f"{c} {o.noun}"]))
            if others:
                colour, seen = max(others, key=lambda cb: max(b.score for b in cb[1]))
                conf = max(b.score for b in seen)
                scored.append((conf, Mismatch(
                    "attribute", o.colors[0], colour, round(conf, 6), self.name,
                    {"noun": o.noun, "expected": o.colors[0], "found": colour, "boxes": _boxes(seen)})))
                continue
            scored.append((0.9, Mismatch("entity", o.chunk, "", 0.9, self.name,
                                         {"action": "add", "expected": o.count or 1, "found": 0, "boxes": []})))
        if closed:
            named = {o.noun for o in layout.objects}
            for noun in closed[0]:
                extra = boxes.get(noun, [])
                if noun in named:
                    # objects of a named noun that no object phrase grounded (another colour), when every
                    # phrase of that noun names a colour
                    mine = [o for o in layout.objects if o.noun == noun]
                    if not all(o.colors for o in mine):
                        continue
                    taken = {b.xyxy for o in mine for b in boxes.get(o.query, [])}
                    taken |= {b.xyxy for o in mine for c in closed[1] if c in o.colors for b in boxes.get(f"{c} {noun}", [])}
                    reported = {b.xyxy for o in mine if not boxes.get(o.query) for c in closed[1]
                                for b in boxes.get(f"{c} {noun}", [])}  # a recoloured object is an attribute mismatch
                    extra = [b for b in extra if b.xyxy not in taken and b.xyxy not in reported]
                if extra:
                    conf = max(b.score for b in extra)
                    colour = next((c for c in closed[1] if {b.xyxy for b in boxes.get(f"{c} {noun}", [])} & {b.xyxy for b in extra}), "")
                    thing = f"{colour} {noun}".strip()
                    scored.append((conf, Mismatch(
                        "entity", f"no {plural(thing)}", f"an extra {thing}", round(conf, 6), self.name,
                        {"action": "remove", "found": len(extra), "boxes": _boxes(extra)})))
        for rel in layout.relations:
            a, b = layout.objects[rel.subject], layout.objects[rel.obj]
            pairs = failed_pairs(layout, rel, boxes, self.position_threshold)
            if not pairs:
                continue
            x, y = max(pairs, key=lambda p: p[0].score * p[1].score)
            seen = sorted(relative_position(x, y, self.position_threshold))
            style = 0 if rel.words.startswith("to the") or rel.words in ("above", "below") else 1
            correction = SAY[seen[0]][style] if seen else "next to"
            conf = x.score * y.score
            scored.append((conf, Mismatch(
                "relation", rel.words, correction, round(conf, 6), self.name,
                {"subject": a.noun, "object": b.noun, "expected": rel.direction, "found": seen,
                 "boxes": _boxes([x, y])})))
        if not scored and self.sure > 0:
            below = []  # (the score held to sure, box, object) of each box under its object's sure
            for o in layout.objects:
                sure = self.sure_for(o)  # (once an object, not once a box)
                below += [(score, b, o) for b in boxes.get(o.query, []) if (score := self.sure_score(b, o)) < sure]
            weakest = min(below, key=lambda x: x[0], default=None)
            if weakest is not None:
                score, box, o = weakest
                scored.append((1.0 - score, Mismatch(
                    "attribute", o.query, o.query, round(1.0 - score, 6), self.name,
                    {"unsure": True, "object": o.query, "score": round(score, 6),
                     "boxes": _boxes([replace(box, score=score)])})))
        scored.sort(key=lambda p: -p[0])
        return [m for _, m in scored]


def layout_errors(layout: Layout, boxes: dict[str, list[Box]], closed: tuple[list[str], list[str]] | None = None,
                  position_threshold: float = POSITION_THRESHOLD) -> int:
    """Object errors of a grounded layout, counted per object rather than per triplet: for each of the prompt's
    objects, how far its number of boxes is from its count (a missing one counts its count); with a closed
    vocabulary, every box of a known noun that no object phrase grounded (an extra thing, or one of the wrong
    colour); one per relation whose two sides are there and stand otherwise. Three red squares for "a red
    triangle and two purple squares" are 6 errors (two purple squares and a red triangle missing, three squares
    extra); one of them recoloured purple leaves 4."""
    errors, claimed = 0, set()
    for o in layout.objects:
        own = boxes.get(o.query, [])
        errors += abs(len(own) - (o.count if o.count is not None else 1))
        claimed |= {b.xyxy for b in own}
    if closed:
        seen = {b.xyxy for noun in closed[0] for b in boxes.get(noun, [])}
        errors += len(seen - claimed)
    errors += sum(1 for rel in layout.relations if failed_pairs(layout, rel, boxes, position_threshold))
    return errors


def failed_pairs(layout: Layout, rel: Any, boxes: dict[str, list[Box]], position_threshold: float) -> list[tuple[Box, Box]]:
    """The (subject, object) box pairs of a relation when both sides are grounded and no pair stands as the prompt
    says (GenEval's rule, :func:`autoalign.grounding.relative_position`); else [] (the relation holds, or a side is
    missing, which is reported as missing, not as a relation)."""
    sa, sb = boxes.get(layout.objects[rel.subject].query, []), boxes.get(layout.objects[rel.obj].query, [])
    pairs = [(x, y) for x in sa for y in sb if x.xyxy != y.xyxy]
    if any(rel.direction in relative_position(x, y, position_threshold) for x, y in pairs):
        return []
    return pairs
