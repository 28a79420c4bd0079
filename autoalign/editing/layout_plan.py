"""A layout plan: from the prompt's objects and the boxes found in an image to SLD's operations.

The plan is a list of :class:`~autoalign.types.LayoutOp` (remove / add / move / recolor / reshape)
that, carried out by the region editor, makes the image's layout agree with the prompt:

* the prompt is read into a :class:`Layout`: objects with a count, a noun, attribute words and a size
  word, and spatial relations between two single objects ("a red circle to the left of a blue square"),
  the planner's view of the one reading of a prompt's layout (:func:`autoalign.grounding.read_layout`);
* each detected box (``Box.label`` names what it shows, e.g. "small red circle", or the phrase a
  grounder found it for) is matched to the prompt's objects by its words.

Two planners make the same kind of plan:

:class:`RulePlanner` (deterministic)
    Too many boxes for an object: the weakest (lowest score) are removed. Too few: a box the prompt
    names nowhere that has the object's noun is recoloured (or one with its colour reshaped);
    otherwise the object is added in a free region of the prompt's size that makes its relations
    true. Boxes the prompt names nowhere are removed. A relation that the matched boxes break moves
    the subject to a free region where it holds (the object when the subject has no room).

:class:`LLMPlanner` (SLD's LLM controller)
    The prompt and the detected objects as JSON go to the ``llm`` role with
    ``prompts/layout_plan_system.txt``; the target layout comes back as JSON (``LAYOUT_SCHEMA``), is
    checked (schema, ids, boxes inside the image, sizes, lengths) and turned into operations by
    comparing it with the detection. Any failure - no server, invalid or hostile output - falls back
    to the rules, and the plan says why.

Geometry (gap between boxes, edge margin, relation margin, size words) is in ``prompts/layout_plan.json``
as fractions of the image's shorter side.
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass, field
from typing import Any

from autoalign import grounding, prompts
from autoalign.grounding import DIRECTIONS, LayoutObject, box_iou, plan_words
from autoalign.grounding import relation_holds as geneval_relation
from autoalign.inflect import singular
from autoalign.types import Box, LayoutOp, LayoutPlan

logger = logging.getLogger(__name__)


def words() -> dict[str, Any]:
    """The planner's words and geometry (``prompts/layout_plan.json``, read once by :func:`autoalign.grounding.plan_words`)."""
    return plan_words()


def _tokens(text: str) -> list[str]:
    return re.findall(r"[a-z]+", text.lower())


@dataclass
class Wanted:
    """One object (group) the prompt asks for: ``count`` of ``noun`` with ``attrs`` (colours, shape words)."""

    noun: str
    count: int = 1
    attrs: tuple[str, ...] = ()
    size: str | None = None

    def phrase(self) -> str:
        """The singular phrase of one of them ("small red circle")."""
        return " ".join([*([self.size] if self.size else []), *self.attrs, self.noun])

    def matches(self, label: str) -> bool:
        toks = {singular(t) for t in _tokens(label)}
        return self.noun in toks and all(a in toks for a in self.attrs) and (self.size is None or self.size in toks)


@dataclass
class Layout:
    """What the prompt asks for: objects and relations ``(subject index, relation words, object index)``."""

    objects: list[Wanted] = field(default_factory=list)
    relations: list[tuple[int, str, int]] = field(default_factory=list)


def wanted(obj: LayoutObject) -> Wanted:
    """The planner's view of one object of the prompt's layout (:func:`autoalign.grounding.read_layout`): its
    lemma, the count its number words say (the last of them that is a number word; 1 when none is, a plural
    without number words 2), its size word and its colours and other describing words."""
    w = words()
    count = 1
    for number in obj.numbers:
        count = w["numbers"].get(number.lower(), count)
    if obj.plural and not obj.numbers:
        count = 2
    size = next((a for a in obj.attributes if a in w["sizes"]), None)
    attrs = tuple([*obj.colors, *(a for a in obj.attributes if a not in w["sizes"])])
    return Wanted(obj.lemma, count, attrs, size)


def read_layout(prompt: str) -> Layout:
    """The prompt's objects and spatial relations: the planner's view of :func:`autoalign.grounding.read_layout`
    (its objects as :func:`wanted`; its relations whose parsed words are, as written, relation words)."""
    seen = grounding.read_layout(prompt)
    relations = [(r.subject, r.parsed, r.obj) for r in seen.relations if r.parsed in DIRECTIONS]
    return Layout([wanted(o) for o in seen.objects], relations)


# --- geometry ------------------------------------------------------------------------------------------


def _side(size: tuple[int, int]) -> float:
    return float(min(size))


def clamp_box(xyxy, size: tuple[int, int]) -> tuple[float, float, float, float]:
    """``xyxy`` cut to the image (a box never reaches outside it)."""
    w, h = size
    x0, y0, x1, y1 = (float(v) for v in xyxy)
    x0, x1 = sorted((min(max(x0, 0.0), w), min(max(x1, 0.0), w)))
    y0, y1 = sorted((min(max(y0, 0.0), h), min(max(y1, 0.0), h)))
    return (x0, y0, x1, y1)


def centred_box(xyxy, side: float, size: tuple[int, int]) -> tuple[float, float, float, float]:
    """A square box of ``side`` centred where ``xyxy`` is, shifted (not cut) to lie inside the image."""
    w, h = size
    side = min(float(side), float(w), float(h))
    cx, cy = (xyxy[0] + xyxy[2]) / 2, (xyxy[1] + xyxy[3]) / 2
    x0 = min(max(cx - side / 2, 0.0), w - side)
    y0 = min(max(cy - side / 2, 0.0), h - side)
    return (x0, y0, x0 + side, y0 + side)


def _overlap(a, b, gap: float) -> bool:
    return not (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1])


def relation_holds(a, rel: str, b, margin: float) -> bool:
    """Whether box ``a`` stands in ``rel`` (the prompt's words, "to the left of") to box ``b``: GenEval's rule,
    the one the checks use (:func:`autoalign.grounding.relation_holds`), with the centres ``margin`` apart along
    the relation's axis."""
    return geneval_relation(a, DIRECTIONS[rel], b, margin=margin)


def free_box(
    size: tuple[int, int],
    side: float,
    taken: list[tuple[float, float, float, float]],
    relations: list[tuple[str, tuple[float, float, float, float], bool]] = (),
    prefer: tuple[float, float] | None = None,
) -> tuple[float, float, float, float] | None:
    """A ``side`` x ``side`` box inside the image, clear of ``taken`` by the gap, for which every
    ``(rel, other, as_subject)`` holds (``new rel other`` when ``as_subject``, else ``other rel new``),
    nearest to ``prefer`` (default: the image centre); None when there is no such place."""
    g = words()["geometry"]
    w, h = size
    short = _side(size)
    gap, edge, margin, step = g["gap"] * short, g["edge"] * short, g["relation_margin"] * short, max(1.0, g["grid"] * short)
    px, py = prefer if prefer is not None else (w / 2, h / 2)
    best, best_cost = None, math.inf
    y = edge
    while y + side <= h - edge + 1e-6:
        x = edge
        while x + side <= w - edge + 1e-6:
            box = (x, y, x + side, y + side)
            if not any(_overlap(box, t, gap) for t in taken) and all(
                relation_holds(box, rel, other, margin) if subj else relation_holds(other, rel, box, margin)
                for rel, other, subj in relations
            ):
                cost = (x + side / 2 - px) ** 2 + (y + side / 2 - py) ** 2
                if cost < best_cost - 1e-9:
                    best, best_cost = box, cost
            x += step
        y += step
    return best


def _box_side(b: Box) -> float:
    x0, y0, x1, y1 = b.xyxy
    return max(x1 - x0, y1 - y0)


def wanted_side(want: Wanted, size: tuple[int, int], detected: list[Box]) -> float:
    """The side of a new object's box: the prompt's size word, else the median detected box, else the default."""
    w = words()
    if want.size and want.size in w["sizes"]:
        return w["sizes"][want.size] * _side(size)
    sides = sorted(_box_side(b) for b in detected)
    if sides:
        return sides[len(sides) // 2]
    return w["default_size"] * _side(size)


# --- the rule planner ----------------------------------------------------------------------------------


class RulePlanner:
    """Deterministic layout plans (module docstring)."""

    name = "rules"

    def plan(self, prompt: str | Layout, detected: list[Box], size: tuple[int, int]) -> LayoutPlan:
        layout = read_layout(prompt) if isinstance(prompt, str) else prompt
        ops: list[LayoutOp] = []
        boxes = list(detected)
        assigned: dict[int, list[int]] = {i: [] for i in range(len(layout.objects))}
        free = set(range(len(boxes)))
        # exact matches first (most specific object first, so "red circle" does not take a "small red circle")
        order = sorted(range(len(layout.objects)), key=lambda i: -len(layout.objects[i].phrase().split()))
        for i in order:
            want = layout.objects[i]
            hits = sorted((j for j in free if want.matches(boxes[j].label)), key=lambda j: -boxes[j].score)
            keep, extra = hits[: want.count], hits[want.count:]
            assigned[i] = keep
            free -= set(hits)
            for j in extra:  # too many: the weakest go
                ops.append(LayoutOp("remove", boxes[j].label, source=boxes[j],
                                    reason=f"{len(hits)} {want.phrase()} where the prompt asks {want.count}"))
        # too few: repair a box the prompt names nowhere (same noun: recolour; else reshape), else add
        placed: dict[int, tuple] = {}
        for i in order:
            want = layout.objects[i]
            while len(assigned[i]) < want.count:
                toks = lambda j: {singular(t) for t in _tokens(boxes[j].label)}  # noqa: E731
                same_noun = [j for j in sorted(free) if want.noun in toks(j)]
                same_attr = [j for j in sorted(free) if want.attrs and all(a in toks(j) for a in want.attrs)]
                if same_noun or same_attr:
                    j = (same_noun or same_attr)[0]
                    kind = "recolor" if same_noun else "reshape"
                    ops.append(LayoutOp(kind, want.phrase(), source=boxes[j], target=boxes[j],
                                        reason=f"{boxes[j].label} where the prompt asks {want.phrase()}"))
                    free.discard(j)
                    assigned[i].append(j)
                    continue
                box = self._place_new(layout, i, boxes, assigned, placed, ops, size)
                if box is None:
                    logger.info("layout plan: no free place for %s", want.phrase())
                    break
                new = Box(box, 1.0, label=want.phrase())
                boxes.append(new)
                assigned[i].append(len(boxes) - 1)
                placed[len(boxes) - 1] = box
                ops.append(LayoutOp("add", want.phrase(), target=new,
                                    reason=f"{len(assigned[i]) - 1} {want.phrase()} where the prompt asks {want.count}"))
        for j in sorted(free):  # nothing in the prompt names it
            ops.append(LayoutOp("remove", boxes[j].label, source=boxes[j], reason=f"the prompt names no {boxes[j].label}"))
        self._fix_relations(layout, boxes, assigned, ops, size)
        return LayoutPlan(ops=ops, planner=self.name)

    def _taken(self, boxes: list[Box], ops: list[LayoutOp], skip: set[int] = frozenset()) -> list[tuple]:
        gone = {id(op.source) for op in ops if op.kind in ("remove", "move") and op.source is not None}
        moved = [op.target.xyxy for op in ops if op.kind == "move" and op.target is not None]
        return [b.xyxy for j, b in enumerate(boxes) if id(b) not in gone and j not in skip] + moved

    def _current(self, boxes: list[Box], ops: list[LayoutOp], j: int) -> tuple:
        for op in ops:
            if op.kind == "move" and op.source is boxes[j] and op.target is not None:
                return op.target.xyxy
        return boxes[j].xyxy

    def _place_new(self, layout, i, boxes, assigned, placed, ops, size):
        want = layout.objects[i]
        side = wanted_side(want, size, [b for b in boxes if b.label])
        rels = []
        for s, rel, o in layout.relations:
            if s == i and assigned[o]:
                rels.append((rel, self._current(boxes, ops, assigned[o][0]), True))
            elif o == i and assigned[s]:
                rels.append((rel, self._current(boxes, ops, assigned[s][0]), False))
        prefer = None
        if rels:  # next to the partner, on the relation's side
            rel, other, subj = rels[0]
            dx, dy = words()["relations"][rel]
            sign = 1 if subj else -1
            cx, cy = (other[0] + other[2]) / 2, (other[1] + other[3]) / 2
            dist = words()["geometry"]["relation_margin"] * _side(size) + side
            prefer = (cx + sign * dx * dist, cy + sign * dy * dist)
        return free_box(size, side, self._taken(boxes, ops), rels, prefer)

    def _fix_relations(self, layout, boxes, assigned, ops, size) -> None:
        margin = words()["geometry"]["relation_margin"] * _side(size)
        for s, rel, o in layout.relations:
            if not assigned[s] or not assigned[o]:
                continue
            js, jo = assigned[s][0], assigned[o][0]
            a, b = self._current(boxes, ops, js), self._current(boxes, ops, jo)
            if relation_holds(a, rel, b, margin):
                continue
            # move the subject to where the relation holds; else the object
            for mover, other, subj in ((js, b, True), (jo, a, False)):
                side = _box_side(boxes[mover])
                dx, dy = words()["relations"][rel]
                sign = 1 if subj else -1
                cx, cy = (other[0] + other[2]) / 2, (other[1] + other[3]) / 2
                cur = self._current(boxes, ops, mover)
                mx, my = (cur[0] + cur[2]) / 2, (cur[1] + cur[3]) / 2
                # keep the coordinate across the relation's axis; go to the far side along it
                prefer = (cx + sign * dx * (margin + side), my) if dx else (mx, cy + sign * dy * (margin + side))
                box = free_box(size, side, self._taken(boxes, ops, skip={mover}), [(rel, other, subj)], prefer)
                if box is None:
                    continue
                self._move(boxes, ops, mover, box, f"{layout.objects[s].phrase()} is not {rel} {layout.objects[o].phrase()}")
                break
            else:  # neither alone has room: the two change places (each centred where the other was)
                sa, sb = self._recentred(a, b), self._recentred(b, a)
                taken = self._taken(boxes, ops, skip={js, jo})
                if relation_holds(sa, rel, sb, margin) and not any(_overlap(x, t, 0.0) for x in (sa, sb) for t in taken):
                    why = f"{layout.objects[s].phrase()} is not {rel} {layout.objects[o].phrase()}: they change places"
                    self._move(boxes, ops, js, sa, why)
                    self._move(boxes, ops, jo, sb, why)

    @staticmethod
    def _recentred(box, at) -> tuple:
        cx, cy = (at[0] + at[2]) / 2, (at[1] + at[3]) / 2
        hw, hh = (box[2] - box[0]) / 2, (box[3] - box[1]) / 2
        return (cx - hw, cy - hh, cx + hw, cy + hh)

    def _move(self, boxes, ops, j, box, reason) -> None:
        for op in ops:  # a planned addition just goes elsewhere
            if op.kind == "add" and op.target is boxes[j]:
                op.target = Box(box, op.target.score, label=op.target.label)
                boxes[j] = op.target
                return
            if op.kind in ("recolor", "reshape") and op.source is boxes[j]:
                # recolour and move: remove the old one, add the new phrase at the new place
                op.kind, op.target = "move", Box(box, boxes[j].score, label=op.phrase)
                op.reason += "; " + reason
                return
        ops.append(LayoutOp("move", boxes[j].label, source=boxes[j], target=Box(box, boxes[j].score, label=boxes[j].label),
                            reason=reason))


# --- the LLM planner -----------------------------------------------------------------------------------

SCHEMA_NAME = "target_layout"
LAYOUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "objects": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": ["integer", "null"]},
                    "label": {"type": "string"},
                    "box": {"type": "array", "items": {"type": "number"}},
                },
                "required": ["id", "label", "box"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["objects"],
    "additionalProperties": False,
}
MAX_OBJECTS = 16
MAX_LABEL_WORDS = 6
MOVED_IOU = 0.5


class UnusablePlan(Exception):
    """The LLM's target layout cannot be used (the message says why)."""


def build_messages(prompt: str, detected: list[Box], size: tuple[int, int]) -> list[dict[str, str]]:
    objects = [{"id": j, "label": b.label, "box": [round(v, 1) for v in b.xyxy]} for j, b in enumerate(detected)]
    user = json.dumps({"prompt": prompt, "image_size": list(size), "objects": objects})
    return [{"role": "system", "content": prompts.load("layout_plan_system.txt")}, {"role": "user", "content": user}]


def ops_from_target(answer: Any, detected: list[Box], size: tuple[int, int]) -> list[LayoutOp]:
    """The operations that turn ``detected`` into the LLM's target layout; :class:`UnusablePlan` when
    the answer breaks the schema or the image (boxes outside it, of no area or most of it, unknown or
    repeated ids, too many objects, labels that are not short phrases)."""
    from autoalign.models.llm import schema_errors

    errors = schema_errors(answer, LAYOUT_SCHEMA)
    if errors:
        raise UnusablePlan("; ".join(errors[:3]))
    objects = answer["objects"]
    if len(objects) > MAX_OBJECTS:
        raise UnusablePlan(f"{len(objects)} objects (at most {MAX_OBJECTS})")
    w, h = size
    seen: set[int] = set()
    kept: dict[int, tuple[str, tuple]] = {}
    added: list[tuple[str, tuple]] = []
    for k, obj in enumerate(objects):
        label = " ".join(obj["label"].split())
        if not label or len(label.split()) > MAX_LABEL_WORDS or not re.fullmatch(r"[A-Za-z][A-Za-z \-']*", label):
            raise UnusablePlan(f"object {k}: label {obj['label'][:40]!r} is not a short noun phrase")
        box = obj["box"]
        if len(box) != 4 or not all(math.isfinite(v) for v in box):
            raise UnusablePlan(f"object {k}: box {box!r} is not four finite numbers")
        x0, y0, x1, y1 = box
        if not (0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h):
            raise UnusablePlan(f"object {k}: box {box!r} is not inside the {w}x{h} image")
        if (x1 - x0) * (y1 - y0) > 0.5 * w * h or min(x1 - x0, y1 - y0) < 2:
            raise UnusablePlan(f"object {k}: box {box!r} is no object's size")
        ident = obj["id"]
        if ident is None:
            added.append((label, (float(x0), float(y0), float(x1), float(y1))))
            continue
        if not 0 <= ident < len(detected) or ident in seen:
            raise UnusablePlan(f"object {k}: id {ident} is unknown or repeated")
        seen.add(ident)
        kept[ident] = (label, (float(x0), float(y0), float(x1), float(y1)))
    ops: list[LayoutOp] = []
    for j, b in enumerate(detected):
        if j not in kept:
            ops.append(LayoutOp("remove", b.label, source=b, reason="not in the target layout"))
            continue
        label, box = kept[j]
        same_label = _tokens(label) == _tokens(b.label) or set(_tokens(label)) <= set(_tokens(b.label))
        moved = box_iou(box, b.xyxy) < MOVED_IOU
        if moved:
            ops.append(LayoutOp("move", label, source=b, target=Box(box, b.score, label=label),
                                reason="placed elsewhere in the target layout"))
        elif not same_label:
            old_nouns = {singular(t) for t in _tokens(b.label)}
            new_toks = [singular(t) for t in _tokens(label)]
            kind = "recolor" if new_toks and new_toks[-1] in old_nouns else "reshape"
            ops.append(LayoutOp(kind, label, source=b, target=b, reason=f"{b.label} becomes {label}"))
    for label, box in added:
        ops.append(LayoutOp("add", label, target=Box(box, 1.0, label=label), reason="missing from the image"))
    return ops


class LLMPlanner:
    """SLD's LLM controller through the ``llm`` role; any failure falls back to :class:`RulePlanner`."""

    name = "llm"

    def __init__(self, llm: Any):
        self.llm = llm
        self.fallback = RulePlanner()

    def plan(self, prompt: str, detected: list[Box], size: tuple[int, int]) -> LayoutPlan:
        try:
            answer = self.llm.complete_json(build_messages(prompt, detected, size), LAYOUT_SCHEMA, SCHEMA_NAME)
            ops = ops_from_target(answer, detected, size)
        except Exception as exc:  # noqa: BLE001 - any failure of the LLM falls back to the rules
            reason = f"{type(exc).__name__}: {exc}"[:300]
            logger.warning("layout plan: the LLM planner failed (%s); the rules plan instead", reason)
            plan = self.fallback.plan(prompt, detected, size)
            plan.note = f"llm failed: {reason}; rules fallback"
            return plan
        return LayoutPlan(ops=ops, planner=self.name)


def make_planner(name: str, models: Any = None):
    """``"rules"`` or ``"llm"`` (which needs ``models.llm``)."""
    if name == "rules":
        return RulePlanner()
    if name == "llm":
        return LLMPlanner(models.llm)
    from autoalign.errors import AutoAlignError

    raise AutoAlignError(f"unknown layout planner {name!r}; planners: llm, rules")


# --- from the layout detector's triplets ---------------------------------------------------------------

#: Mismatch aspects the region editor answers (policy: counts, missing / extra things, places).
REGION_ASPECTS: tuple[str, ...] = ("number", "entity", "relation")


def _evidence_boxes(m: Any) -> list[Box]:
    out = []
    for b in (m.evidence or {}).get("boxes") or []:
        try:
            box = Box.from_dict(b) if isinstance(b, dict) else None
        except (KeyError, TypeError, ValueError):
            box = None
        if box is not None:
            out.append(box)
    return out


def _object_phrase(text: str) -> str:
    """A noun phrase without its article or count word ("a red circle" -> "red circle")."""
    toks = [t for t in _tokens(text) if t not in words()["numbers"] and t not in ("no", "the", "extra")]
    return " ".join(singular(t) if i == len(toks) - 1 else t for i, t in enumerate(toks))


def _surplus(m: Any) -> list[Box]:
    """A ``number`` triplet's boxes beyond the count it expects, weakest first (none when not too many)."""
    ev = m.evidence or {}
    if m.aspect != "number" or not isinstance(ev.get("expected"), int):
        return []
    found = _evidence_boxes(m)
    return sorted(found, key=lambda b: b.score)[: max(0, len(found) - int(ev["expected"]))]


def fixed_in_place(m: Any) -> bool:
    """An attribute triplet the region editor carries out even where attributes are not routed to it: the surplus
    colour of a count (``evidence["surplus"]``) or an object the grounder cannot read for sure (``evidence["unsure"]``)."""
    ev = getattr(m, "evidence", None) or {}
    return getattr(m, "aspect", None) == "attribute" and (ev.get("surplus") is True or ev.get("unsure") is True)


def ops_for_mismatches(prompt: str, mismatches: list[Any], size: tuple[int, int],
                       aspects: tuple[str, ...] = REGION_ASPECTS, occupied: list[Box] | None = None) -> LayoutPlan:
    """The operations that answer the ``layout`` detector's triplets (their ``evidence["boxes"]``):

    * ``entity`` with ``action = "remove"``: its boxes are removed; with ``action = "add"``: the phrase is
      added in a free region where the prompt's relations hold: clear of every evidence box, or, given ``occupied``
      (every object the grounder finds: region editor option ``clear_of = "objects"``), clear of every evidence box
      and object that no removal of the plan takes away;
    * ``number``: ``found`` above ``expected`` removes the weakest boxes, below adds the missing ones;
    * ``attribute`` (when asked for): the boxes are recoloured to the expected colour; a size triplet
      (``evidence["size"]``) removes each box and adds the object at the prompt's size where it stood;
    * ``attribute`` marked ``evidence["surplus"]`` (the grounded pass): the weakest surplus box of a
      ``number`` triplet of the same noun is recoloured to the expected colour instead of removed;
    * ``attribute`` marked ``evidence["unsure"]`` (the layout detector's option ``sure``): the object is removed
      and drawn again with its phrase around the same centre, at the prompt's size word or as wide as the box's
      narrower side;
    * ``relation``: the evidence's two boxes (subject, object) are re-planned by the rules (a move).

    Triplets without the evidence a step needs are skipped (the instruction editor still has them)."""
    layout = read_layout(prompt)
    taken = [b for m in mismatches for b in _evidence_boxes(m)]
    rules = RulePlanner()
    ops: list[LayoutOp] = []

    def add(phrase: str, reason: str) -> None:
        want = next((w for w in layout.objects if w.matches(phrase)), Wanted(phrase.split()[-1] if phrase else "object"))
        side = wanted_side(want, size, taken)
        if occupied is None:  # every evidence box blocks, a removed one too (the shipped rule of rounds 17-28)
            blocking = taken
        else:  # every object found blocks, unless the plan removes (or moves) it
            gone = [op.source for op in ops if op.source is not None]
            blocking = [b for b in [*taken, *occupied] if not any(box_iou(b, g) >= 0.5 for g in gone)]
        boxes = [b.xyxy for b in blocking] + [op.target.xyxy for op in ops if op.target is not None]
        box = free_box(size, side, boxes)
        if box is not None:
            ops.append(LayoutOp("add", phrase, target=Box(box, 1.0, label=phrase), reason=reason))

    def redraw(b: Box, phrase: str, side: float, reason: str, removed: str | None = None) -> None:
        """The object in ``b`` removed, then ``phrase`` added in a square of ``side`` around the same centre."""
        ops.append(LayoutOp("remove", removed or b.label or phrase, source=b, reason=reason))
        ops.append(LayoutOp("add", phrase, target=Box(centred_box(b.xyxy, side, size), 1.0, label=phrase), reason=reason))

    recolour: dict[tuple[float, ...], str] = {}  # surplus box -> the colour it takes instead of being removed
    for m in mismatches:
        ev = m.evidence or {}
        if m.aspect == "attribute" and ev.get("surplus") is True and ev.get("expected") and ev.get("noun"):
            noun = singular(str(ev["noun"]).split()[-1])
            for n in mismatches:
                spare = _surplus(n)
                if spare and singular((_tokens(str(n.evidence.get("noun"))) or [""])[-1]) == noun:
                    free = [b for b in spare if tuple(b.xyxy) not in recolour]
                    if free:
                        recolour[tuple(free[0].xyxy)] = f"{ev['expected']} {noun}"
                        break

    for m in mismatches:
        ev = m.evidence or {}
        if m.aspect not in aspects and not fixed_in_place(m):
            continue
        found = _evidence_boxes(m)
        if m.aspect == "entity" and ev.get("action") == "remove":
            ops += [LayoutOp("remove", b.label or m.correction, source=b, reason=f"{m.phrase}: {m.correction}") for b in found]
        elif m.aspect == "entity" and ev.get("action") == "add":
            for _ in range(max(1, int(ev.get("expected") or 1))):
                add(_object_phrase(m.phrase), f"missing: {m.phrase}")
        elif m.aspect == "number" and isinstance(ev.get("expected"), int):
            expected, have = int(ev["expected"]), len(found)
            if have > expected:
                for b in _surplus(m):
                    if tuple(b.xyxy) in recolour:
                        ops.append(LayoutOp("recolor", recolour[tuple(b.xyxy)], source=b, target=b,
                                            reason=f"{have} where the prompt asks {expected}, and no {recolour[tuple(b.xyxy)]}"))
                    else:
                        ops.append(LayoutOp("remove", b.label or _object_phrase(m.phrase), source=b,
                                            reason=f"{have} where the prompt asks {expected}"))
            for _ in range(max(0, expected - have)):
                add(_object_phrase(m.phrase), f"{have} where the prompt asks {expected}")
        elif m.aspect == "attribute" and ev.get("surplus") is True:
            continue  # carried out by the number triplet's surplus boxes above
        elif m.aspect == "attribute" and ev.get("unsure") is True and ev.get("object"):
            phrase = str(ev["object"])
            want = next((w for w in layout.objects if w.matches(phrase)), Wanted(phrase.split()[-1]))
            for b in found[:1]:  # at the prompt's size, else as wide as its narrower side
                x0, y0, x1, y1 = b.xyxy
                side = wanted_side(want, size, []) if want.size else min(x1 - x0, y1 - y0)
                redraw(b, phrase, side, f"not read for sure (score {b.score:.2f}): redrawn as the prompt says")
        elif m.aspect == "attribute" and ev.get("size") is True and ev.get("expected") in words()["sizes"] and ev.get("noun"):
            side = wanted_side(Wanted(str(ev["noun"]).split()[-1], size=ev["expected"]), size, [])
            for b in found:
                redraw(b, f"{ev['expected']} {ev['noun']}", side, f"{m.correction} where the prompt says {m.phrase}",
                       removed=b.label or str(ev["noun"]))
        elif m.aspect == "attribute" and ev.get("expected") and ev.get("noun"):
            phrase = f"{ev['expected']} {ev['noun']}"
            ops += [LayoutOp("recolor", phrase, source=b, target=b, reason=f"{m.correction} where the prompt says {m.phrase}")
                    for b in found[:1]]
        elif m.aspect == "relation" and len(found) == 2:
            subject, obj = found
            a = Box(subject.xyxy, subject.score, label=_object_phrase(str(ev.get("subject") or subject.label)))
            b = Box(obj.xyxy, obj.score, label=_object_phrase(str(ev.get("object") or obj.label)))
            rel_layout = Layout([Wanted(_object_phrase(a.label).split()[-1]), Wanted(_object_phrase(b.label).split()[-1])],
                                [(0, m.phrase, 1)] if m.phrase in words()["relations"] else [])
            moves = [op for op in rules.plan(rel_layout, [a, b], size).ops if op.kind == "move"]
            for op in moves:  # back to the evidence's own boxes
                op.source = subject if op.source is a else obj if op.source is b else op.source
            ops += moves
    return LayoutPlan(ops=ops, planner="triplets")
