"""VNLI (SeeTRUE §3.2): does the image entail the text? P(yes) / (P(yes) + P(no)).

The VQA model is asked ``prompts/vnli.txt`` (``Does this image entail the description: "{text}"?``)
and its next-token probabilities of "yes" and "no" are compared.
"""

from __future__ import annotations

import logging
from typing import Sequence

from autoalign import prompts

logger = logging.getLogger(__name__)


def vnli_question(text: str) -> str:
    return prompts.load("vnli.txt").strip().format(text=text)


def entailment_ratio(p_yes: float, p_no: float) -> float:
    """P(yes) / (P(yes) + P(no)); 0.5 (undecided) when the model puts no mass on either word."""
    total = p_yes + p_no
    if total <= 0.0:
        logger.warning("VNLI: the model gave yes and no zero probability; scoring 0.5 (undecided)")
        return 0.5
    return float(p_yes / total)


def vnli_scores(vqa, images: Sequence, text: str) -> list[float]:
    """VNLI for every image against ``text``: one ``yes_no_probs`` call for all images."""
    question = vnli_question(text)
    probs = vqa.yes_no_probs(list(images), [question] * len(images))
    return [entailment_ratio(y, n) for y, n in probs]
