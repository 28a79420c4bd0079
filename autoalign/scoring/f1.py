"""SQuAD-style token F1, the answer-consistency test of VQ2 (SeeTRUE §3.1).

A generated (question, answer) pair is kept only when answering the question on the prompt text
gives back the answer with ``token_f1 >= ANSWER_F1_THRESHOLD``.
"""

from __future__ import annotations

import re
import string
from collections import Counter

ANSWER_F1_THRESHOLD = 0.54  # SeeTRUE / VQ2A: keep a pair when F1(answer on text, answer) >= 0.54

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


def normalize_answer(text: str) -> str:
    """Lower-case, drop punctuation and articles, squeeze whitespace (the SQuAD evaluation script's rules)."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def token_f1(prediction: str, reference: str) -> float:
    """Token-overlap F1 of two short answers after :func:`normalize_answer`.

    Two empty answers score 1.0; one empty answer scores 0.0.
    """
    pred = normalize_answer(prediction).split()
    ref = normalize_answer(reference).split()
    if not pred or not ref:
        return float(pred == ref)
    common = Counter(pred) & Counter(ref)
    same = sum(common.values())
    if same == 0:
        return 0.0
    precision = same / len(pred)
    recall = same / len(ref)
    return 2 * precision * recall / (precision + recall)


def consistent(prediction: str, reference: str, threshold: float = ANSWER_F1_THRESHOLD) -> bool:
    """The VQ2 filter: does answering on the text give back the expected answer?"""
    return token_f1(prediction, reference) >= threshold
