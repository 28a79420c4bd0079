"""A studio refusal: the artist sees the message, the server log gets one line (never a traceback).

Gradio prints a traceback for every :class:`gradio.Error` unless it is raised with
``print_exception=False``; an ordinary refusal (empty prompt, bad setting, failed run already
explained) is not a bug, so :func:`refusal` logs it once and turns the traceback off.
"""

from __future__ import annotations

import logging

import gradio as gr

logger = logging.getLogger(__name__)


def refusal(message: str, title: str = "Error") -> gr.Error:
    """A :class:`gradio.Error` to raise, logged as one line (``studio refused (TITLE): MESSAGE``)."""
    logger.warning("studio refused (%s): %s", title, " ".join(str(message).split()))
    return gr.Error(message, title=title, print_exception=False)


__all__ = ["refusal"]
