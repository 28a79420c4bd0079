"""VQ2 (SeeTRUE §3.1): ask the VQA model about each (question, answer) pair, average P(yes).

For each kept question the VQA model is asked the *predicate* (``prompts/vq2_predicate.txt``)::

    is "red" true for "what color is the car?" in this image?

and its P(yes) (normalised over yes/no) is the pair's score; VQ2 is the mean over pairs. With
``scoring.predicate = "plain"`` the question itself is asked instead.

With ``scoring.dependency_zeroing`` (DSG), a question whose parent question scores P(yes) < 0.5
counts as 0 ("what color is the car?" means nothing when there is no car). Zeroing is transitive:
a zeroed parent zeroes its children too.
"""

from __future__ import annotations

import logging
from typing import Sequence

from autoalign import prompts
from autoalign.types import Question

logger = logging.getLogger(__name__)

PARENT_THRESHOLD = 0.5


def predicate_text(question: Question, style: str = "vq2") -> str:
    """The text put to the VQA model for one question (``style`` = ``scoring.predicate``)."""
    if style == "plain":
        return question.text
    if style != "vq2":
        raise ValueError(f"predicate style must be 'vq2' or 'plain' (got {style!r})")
    return prompts.load("vq2_predicate.txt").strip().format(answer=question.answer, question=question.text)


def dependency_zeroed(questions: Sequence[Question], p_yes: Sequence[float], threshold: float = PARENT_THRESHOLD) -> list[float]:
    """Per-question scores after DSG zeroing: 0 when any parent (transitively) has a score < ``threshold``.

    Unknown parent ids are ignored; a dependency cycle is broken by treating its members' raw P(yes)
    as their parents' scores.
    """
    if len(questions) != len(p_yes):
        raise ValueError(f"{len(questions)} questions but {len(p_yes)} scores")
    by_id = {q.id: i for i, q in enumerate(questions)}
    out: list[float | None] = [None] * len(questions)

    def effective(i: int, visiting: frozenset[int]) -> float:
        if out[i] is not None:
            return out[i]  # type: ignore[return-value]
        score = float(p_yes[i])
        for parent in questions[i].depends_on:
            j = by_id.get(parent)
            if j is None or j == i:
                continue
            parent_score = float(p_yes[j]) if j in visiting else effective(j, visiting | {i})
            if parent_score < threshold:
                score = 0.0
                break
        out[i] = score
        return score

    return [effective(i, frozenset()) for i in range(len(questions))]


def vq2_score(scores: Sequence[float]) -> float | None:
    """The mean of the per-question scores; ``None`` when the prompt gave no questions."""
    if not scores:
        return None
    return float(sum(scores) / len(scores))
