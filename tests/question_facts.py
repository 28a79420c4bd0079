"""Shared helpers of the question-generator tests: the offline generator's facts, questions and things for a prompt."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from autoalign.scoring.parse import parse_prompt  # noqa: E402
from autoalign.scoring.questions import facts_from_parse  # noqa: E402


def facts(prompt: str):
    return facts_from_parse(parse_prompt(prompt))


def questions(prompt: str) -> list[str]:
    return [f.question.text for f in facts(prompt)]


def things(prompt: str) -> set[str]:
    """The entities the generator asks about, as it writes them."""
    return {f.args[0] for f in facts(prompt) if f.category == "entity"}
