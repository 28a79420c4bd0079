"""Run the question generator over many prompts and report what failed: the check behind ``autoalign questions check``.

The generator never raises on text (:mod:`autoalign.scoring.parse.salvage`): a rule that fails on a prompt
logs a warning and that prompt gets a smaller question set. This check counts both: *crashes* (an
exception that still reached the caller: a bug to report) and *salvaged* prompts (a warning was logged:
some facts were lost), with the time per prompt and the number of questions.
"""

from __future__ import annotations

import logging
import statistics
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from autoalign.types import Question


@dataclass
class PromptFailure:
    prompt: str
    error: str  # "ExceptionType: message" (a crash) or the first warning logged (salvaged)


@dataclass
class QuestionCheck:
    prompts: int = 0
    questions: int = 0
    seconds: float = 0.0
    crashes: list[PromptFailure] = field(default_factory=list)
    salvaged: list[PromptFailure] = field(default_factory=list)
    empty: int = 0  # prompts that got no question at all
    per_prompt_ms: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        ms = self.per_prompt_ms
        return {
            "prompts": self.prompts,
            "questions": self.questions,
            "crashes": len(self.crashes),
            "salvaged": len(self.salvaged),
            "empty": self.empty,
            "seconds": round(self.seconds, 2),
            "ms_per_prompt_mean": round(statistics.fmean(ms), 2) if ms else 0.0,
            "ms_per_prompt_max": round(max(ms), 2) if ms else 0.0,
            "crash_examples": [f.__dict__ for f in self.crashes[:20]],
            "salvaged_examples": [f.__dict__ for f in self.salvaged[:20]],
        }


class _Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def check_prompts(prompts: Iterable[str], generate: Callable[[str], list[Question]]) -> QuestionCheck:
    """Generate questions for each prompt, catching what escapes and the warnings logged under ``autoalign.scoring``."""
    report = QuestionCheck()
    handler = _Warnings()
    watched = logging.getLogger("autoalign.scoring")
    watched.addHandler(handler)
    try:
        start = time.perf_counter()
        for prompt in prompts:
            handler.messages.clear()
            t0 = time.perf_counter()
            try:
                questions = generate(prompt)
            except Exception as exc:  # what the check is for: report it, go on with the next prompt
                report.crashes.append(PromptFailure(prompt, f"{type(exc).__name__}: {exc}"))
                questions = []
            report.per_prompt_ms.append((time.perf_counter() - t0) * 1000)
            report.prompts += 1
            report.questions += len(questions)
            report.empty += not questions
            if handler.messages:
                report.salvaged.append(PromptFailure(prompt, handler.messages[0]))
        report.seconds = time.perf_counter() - start
    finally:
        watched.removeHandler(handler)
    return report
