"""What a prompt lays out and where grounded boxes stand: one home for both, read by the ``layout``
detector (:mod:`autoalign.detection.layout`), grounded answers (:mod:`autoalign.scoring.grounded`), the
layout planner (:mod:`autoalign.editing.layout_plan`) and the GenEval-style scorer.

* :func:`read_layout` - the prompt's objects (chunk, singular noun, colour words, count: "two red circles"
  -> 2, "a red circle" -> 1, a bare plural -> None) and its spatial relations, from the question
  generator's parse (:func:`autoalign.scoring.parse.parse_prompt`); the one reading of a prompt's layout:
  the planner's objects and relations are a view of it (:func:`autoalign.editing.layout_plan.read_layout`);
  its word lists (numbers, relation words, sizes) are ``prompts/layout_plan.json``'s;
* :func:`relative_position` - where one box stands from another, GenEval's rule: the centre offset less
  ``POSITION_THRESHOLD`` x the two boxes' sizes on each axis, normalised by the offset's length; a direction
  holds beyond 0.5 (``relation_holds``: one direction, with an optional margin; the layout planner's
  placements use it, so a plan is made by the rule that checks it);
* :func:`size_seen` - whether a box reads as small or big: its longer side against the middle size of the
  size words (``prompts/layout_plan.json``, which the layout planner draws by), a fraction of the image's
  shorter side.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Sequence

from autoalign import prompts
from autoalign.inflect import singular
from autoalign.types import Box

#: GenEval's POSITION_THRESHOLD: the part of both boxes' sizes a centre offset must exceed.
POSITION_THRESHOLD = 0.1


@lru_cache(maxsize=1)
def plan_words() -> dict[str, Any]:
    """``prompts/layout_plan.json`` (its ``_comment`` left out): the size, relation and number words and the
    geometry the layout planner draws by and :func:`size_seen` reads by (:mod:`autoalign.editing.layout_plan`)."""
    data = json.loads(prompts.load("layout_plan.json"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


#: a count word before an object's noun (or a count answer) -> the count: the number words
#: (``prompts/layout_plan.json`` "numbers", which the planner counts by) and the count nouns ("pair")
COUNT_WORDS: dict[str, int] = {**plan_words()["numbers"], **plan_words()["count_nouns"]}
WORD_OF = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine", 10: "ten"}
_DIRECTION_OF = {(-1, 0): "left", (1, 0): "right", (0, -1): "above", (0, 1): "below"}
#: relation words of a prompt -> the direction of the subject from the object (GenEval's four): the layout
#: planner's relation words (``prompts/layout_plan.json`` "relations", each with its direction (dx, dy))
DIRECTIONS: dict[str, str] = {word: _DIRECTION_OF[tuple(d)] for word, d in plan_words()["relations"].items()}
#: how a direction is said, in the form the prompt used ("to the left of" or "left of")
SAY = {"left": ("to the left of", "left of"), "right": ("to the right of", "right of"),
       "above": ("above", "above"), "below": ("below", "below")}


@dataclass
class LayoutObject:
    """One object phrase of the prompt: its chunk, head noun, colours, count (None: not said) and size word,
    and what else the parse says of it (the layout planner's view of it: :func:`autoalign.editing.layout_plan.wanted`)."""

    chunk: str
    noun: str  # singular head noun, lower case
    colors: list[str] = field(default_factory=list)
    count: int | None = 1
    index: int = -1  # the noun's token index in the parse
    size: str | None = None  # a size word before the noun ("small", "big"; :func:`size_words`)
    lemma: str = ""  # the parse's lemma of the head noun (the singular of its phrase where it has none)
    attributes: list[str] = field(default_factory=list)  # its other describing words, as the parse gave them
    numbers: list[str] = field(default_factory=list)  # the parse's number words for it ("a pair of shoes": "two")
    plural: bool = False  # the noun is written in the plural

    @property
    def query(self) -> str:
        return " ".join([*self.colors, self.noun])


@dataclass
class LayoutRelation:
    words: str  # as written in the prompt ("to the left of")
    direction: str  # left | right | above | below
    subject: int  # indices into the object list
    obj: int
    parsed: str = ""  # the parse's relation word, unchanged (``Relation.word``: "left of", "to the left of")


@dataclass
class Layout:
    objects: list[LayoutObject]
    relations: list[LayoutRelation]


def read_layout(prompt: str) -> Layout:
    """The prompt's objects (count, colour, noun) and spatial relations, from the question generator's parse:
    the one reading of a prompt's layout (the layout planner's :func:`autoalign.editing.layout_plan.read_layout`
    is a view of it)."""
    from autoalign.scoring.parse import parse_prompt

    parse = parse_prompt(prompt)
    doc = parse.doc
    objects: list[LayoutObject] = []
    by_index: dict[int, int] = {}
    for noun in parse.nouns:
        words = [doc[i].lower_ for i in range(noun.start, noun.index)]
        count: int | None = None
        for w in words:
            if w in COUNT_WORDS:
                count = COUNT_WORDS[w]
                break
        if count is None and not noun.plural:
            count = 1
        by_index[noun.index] = len(objects)
        size = next((a.lower() for a in noun.attributes if a.lower() in size_words()), None)
        objects.append(LayoutObject(chunk=noun.chunk, noun=singular(doc[noun.index].lower_),
                                    colors=[c.lower() for c in noun.colors], count=count, index=noun.index, size=size,
                                    lemma=noun.lemma or singular(noun.phrase), attributes=list(noun.attributes),
                                    numbers=list(noun.numbers), plural=noun.plural))
    relations = []
    for rel in parse.relations:
        word = " ".join(rel.word.lower().split())
        direction = DIRECTIONS.get(word) or DIRECTIONS.get(f"to the {word}")
        if direction and rel.subject in by_index and rel.obj in by_index and rel.subject != rel.obj:
            # the words as written between the subject and the object ("to the left of")
            lo, hi = doc[rel.subject].idx + len(doc[rel.subject].text), doc[parse.noun_at(rel.obj).start].idx
            between = prompt[lo:hi].strip().lower()
            said = next((w for w in sorted(DIRECTIONS, key=len, reverse=True) if w in between and DIRECTIONS[w] == direction), word)
            relations.append(LayoutRelation(said, direction, by_index[rel.subject], by_index[rel.obj], parsed=rel.word))
    return Layout(objects, relations)


def size_words() -> dict[str, float]:
    """Size word -> the side of its box as a fraction of the image's shorter side (``prompts/layout_plan.json``)."""
    return plan_words()["sizes"]


def _size_of(fraction: float) -> str:
    """"small" or "big": a side (a fraction of the image's shorter side) against the middle size, ``default_size``."""
    return "big" if fraction >= float(plan_words()["default_size"]) else "small"


def size_class(word: str) -> str:
    """"small" or "big": which side of the middle size (``default_size``) a size word stands."""
    return _size_of(size_words()[word])


def size_seen(box: Box | Sequence[float], image_size: tuple[int, int]) -> str:
    """"small" or "big": the box's longer side against the middle size (``default_size`` of the image's
    shorter side); the shapes world's small and big objects are 10 and 18 pixels of 64, the middle 14."""
    x0, y0, x1, y1 = _xyxy(box)
    return _size_of(max(x1 - x0, y1 - y0) / max(1, min(image_size)))


def _xyxy(box: Box | Sequence[float]) -> tuple[float, float, float, float]:
    x0, y0, x1, y1 = box.xyxy if isinstance(box, Box) else box
    return float(x0), float(y0), float(x1), float(y1)


def box_iou(a: Box | Sequence[float], b: Box | Sequence[float]) -> float:
    """Intersection over union of two boxes (pixel xyxy, or :class:`Box`); 0 when both are empty."""
    a, b = _xyxy(a), _xyxy(b)
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def relative_position(a: Box | Sequence[float], b: Box | Sequence[float], threshold: float = POSITION_THRESHOLD) -> set[str]:
    """Where box ``a`` stands from box ``b`` (GenEval's rule on box centres and sizes): a set of left/right/above/below.

    ``a`` and ``b`` are :class:`Box` es or ``(x0, y0, x1, y1)`` tuples."""
    ax0, ay0, ax1, ay1 = _xyxy(a)
    bx0, by0, bx1, by1 = _xyxy(b)
    off = ((ax0 + ax1) / 2 - (bx0 + bx1) / 2, (ay0 + ay1) / 2 - (by0 + by1) / 2)
    sizes = ((ax1 - ax0) + (bx1 - bx0), (ay1 - ay0) + (by1 - by0))
    revised = [max(abs(o) - threshold * d, 0.0) * (1 if o > 0 else -1) for o, d in zip(off, sizes)]
    if all(abs(r) < 1e-3 for r in revised):
        return set()
    norm = (off[0] ** 2 + off[1] ** 2) ** 0.5
    dx, dy = revised[0] / norm, revised[1] / norm
    out = set()
    if dx < -0.5:
        out.add("left")
    if dx > 0.5:
        out.add("right")
    if dy < -0.5:
        out.add("above")
    if dy > 0.5:
        out.add("below")
    return out


def relation_holds(a: Box | Sequence[float], direction: str, b: Box | Sequence[float], *,
                   threshold: float = POSITION_THRESHOLD, margin: float = 0.0) -> bool:
    """Whether ``a`` stands ``direction`` (left / right / above / below) of ``b`` by GenEval's rule
    (:func:`relative_position`), with the centres at least ``margin`` pixels apart along the direction's axis
    (a planner asks for a margin so that a placed box still holds after a small drift; the checks use 0)."""
    if direction not in SAY:
        raise ValueError(f"unknown direction {direction!r}; one of {', '.join(SAY)}")
    if direction not in relative_position(a, b, threshold):
        return False
    ax0, ay0, ax1, ay1 = _xyxy(a)
    bx0, by0, bx1, by1 = _xyxy(b)
    along = {"left": (bx0 + bx1 - ax0 - ax1) / 2, "right": (ax0 + ax1 - bx0 - bx1) / 2,
             "above": (by0 + by1 - ay0 - ay1) / 2, "below": (ay0 + ay1 - by0 - by1) / 2}[direction]
    return along >= margin
