"""VQ2 (SeeTRUE §3.1): ask the VQA model about each (question, answer) pair, average P(yes).

For each kept question the VQA model is asked the *predicate* (``prompts/vq2_predicate.txt``)::

    is "red" true for "what color is the car?" in this image?

(a yes/no question, "is the car red?", is asked as it is) and its P(yes) (normalised over yes/no) is the pair's score; VQ2 is the mean over pairs. With
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


_YES_NO_START = frozenset("is are was were do does did can could has have had will would should".split())


def is_yes_no(question: Question) -> bool:
    """Whether the question is a yes/no question expecting "yes" ("is there a dog?", "are the apples red?").

    Read from its first word (an auxiliary verb); a yes/no question whose expected answer is "no"
    does not count (the VQ2 predicate says what is expected: ``is "no" true for ...``).
    """
    words = question.text.strip().lower().split()
    return bool(words) and words[0] in _YES_NO_START and question.answer.strip().lower() != "no"


def predicate_text(question: Question, style: str = "vq2") -> str:
    """The text put to the VQA model for one question (``style`` = ``scoring.predicate``).

    ``vq2`` wraps a wh-question and its caption-span answer in SeeTRUE's predicate
    (``is "red" true for "what color is the car?" in this image?``); a yes/no question is asked
    plainly in either style: ``is "dog" true for "is there a dog?"`` would ask about an answer the
    question does not have.
    """
    if style not in ("vq2", "plain"):
        raise ValueError(f"predicate style must be 'vq2' or 'plain' (got {style!r})")
    if style == "plain" or is_yes_no(question):
        return question.text
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
