"""Grounded answers (evidence fusion): count and place questions answered from the grounder's boxes.

With ``[scoring] grounded_answers = true`` the :class:`~autoalign.scoring.scorer.Scorer` replaces the VQA
model's P(yes) of two kinds of question by what the ``grounder`` role finds:

* **number** ("are there two squares?", "is there one red circle?"): the object the question's span names
  ("two blue squares": colour words and noun, :func:`autoalign.grounding.read_layout`) is grounded, and the
  count the question asks (its answer word, else the span's) is compared with the boxes found;
* **relation** ("is the circle to the left of the squares?"): the prompt's relation with those words; both
  sides grounded, and the relation read from box centres as GenEval does
  (:func:`autoalign.grounding.relative_position`), true when some pair of boxes stands as asked.

P(yes) = 0.5 + 0.5 x (mean box score) when the boxes agree, 0.5 - 0.5 x (mean box score) when they do not
(0 when an object the question needs is not found at all): confident boxes give answers near 0 or 1, and
the scores stay continuous for ROC AUC. Every other question keeps the VQA model's answer.
"""

from __future__ import annotations

from typing import Any, Sequence

from PIL import Image

from autoalign.grounding import COUNT_WORDS, Layout, LayoutObject, read_layout, relative_position
from autoalign.types import Box, Question


def _object_of(text: str, answer: str = "") -> LayoutObject | None:
    layout = read_layout(text)
    if not layout.objects:
        return None
    obj = layout.objects[0]
    if answer.lower() in COUNT_WORDS:
        obj.count = COUNT_WORDS[answer.lower()]
    return obj


def _mean(boxes: list[Box]) -> float:
    return sum(b.score for b in boxes) / len(boxes) if boxes else 0.0


def _plan(prompt_layout: Layout, q: Question) -> tuple[str, Any] | None:
    """What grounding answers ``q``: ("number", object) or ("relation", (subject, object, direction)); None: the VQA does."""
    if q.aspect == "number":
        obj = _object_of(q.span or q.text, q.answer)
        return ("number", obj) if obj is not None and obj.count is not None else None
    if q.aspect == "relation":
        text = " ".join(q.text.lower().split())
        for rel in sorted(prompt_layout.relations, key=lambda r: -len(r.words)):
            if f" {rel.words} " in f" {text} ":
                return "relation", (prompt_layout.objects[rel.subject], prompt_layout.objects[rel.obj], rel.direction)
    return None


def grounded_answers(grounder: Any, images: Sequence[Image.Image], prompt: str,
                     questions: Sequence[Question]) -> list[list[float | None]]:
    """Per image, per question: P(yes) from the grounder for count and place questions, None for the rest."""
    layout = read_layout(prompt)
    plans = [_plan(layout, q) for q in questions]
    phrases: list[str] = []
    for plan in plans:
        if plan is None:
            continue
        objs = [plan[1]] if plan[0] == "number" else list(plan[1][:2])
        phrases += [o.query for o in objs]
    phrases = list(dict.fromkeys(phrases))
    if not phrases:
        return [[None] * len(questions) for _ in images]
    found = grounder.ground(list(images), phrases)
    out: list[list[float | None]] = []
    for per_image in found:
        boxes = {g.phrase: g.boxes for g in per_image}
        row: list[float | None] = []
        for plan in plans:
            if plan is None:
                row.append(None)
            elif plan[0] == "number":
                obj = plan[1]
                got = boxes.get(obj.query, [])
                conf = _mean(got) if got else 1.0
                row.append(0.5 + 0.5 * conf if len(got) == obj.count else 0.5 - 0.5 * conf)
            else:
                subject, other, direction = plan[1]
                sa, sb = boxes.get(subject.query, []), boxes.get(other.query, [])
                pairs = [(x, y) for x in sa for y in sb if x.xyxy != y.xyxy]
                if not pairs:
                    row.append(0.0)
                    continue
                good = [x.score * y.score for x, y in pairs if direction in relative_position(x, y)]
                row.append(0.5 + 0.5 * max(good) if good else 0.5 - 0.5 * max(x.score * y.score for x, y in pairs))
        out.append(row)
    return out
