"""Never crash on text: a failure inside one step of reading a prompt loses that step's facts, not the prompt.

The parse and the question templates are rules over a statistical parser's output; an input nobody
foresaw (a user's prompt pasted from anywhere) can meet a rule's unchecked assumption. Each step runs
inside :func:`salvage`, which logs the failure as a warning naming the step and the text, and lets the
reading go on with what the other steps found: at worst a smaller question set, never a traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager

logger = logging.getLogger(__name__)


@contextmanager
def salvage(step: str, text: str) -> Iterator[None]:
    """Run a step of reading ``text``; an exception in it is logged (warning) and the reading goes on."""
    try:
        yield
    except Exception as exc:  # any failure of a rule on unforeseen text: the step's facts are lost, not the prompt
        shown = text if len(text) <= 120 else text[:117] + "..."
        logger.warning("question generation skipped %s for %r: %s: %s", step, shown, type(exc).__name__, exc)
