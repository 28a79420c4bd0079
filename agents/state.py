"""The loop's state (plain data only) and its run-scoped context (the live objects).

The state is what LangGraph checkpoints after every step, so it holds only JSON-friendly data:
images as file paths, score cards / mismatches / instructions as dicts (``ScoreCard.to_dict()``,
``Mismatch.to_dict()``, ``Instruction.to_dict()``, ``Candidate.to_dict()``). Lists that grow over the
run use ``operator.add`` reducers (a node returns only the new items); counters and timings are
merged by summing.

The models, the config and the scorer do not serialize; they travel in :class:`LoopContext`, which
LangGraph hands to each node as ``runtime.context`` (``context_schema``), never in the state.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

from autoalign.config import Config


def add_counts(left: dict[str, float] | None, right: dict[str, float] | None) -> dict[str, float]:
    """Reducer: merge two counter dicts by summing values (model calls, milliseconds)."""
    out = dict(left or {})
    for key, value in (right or {}).items():
        out[key] = out.get(key, 0) + value
    return out


class LoopState(TypedDict, total=False):
    """Everything the loop knows, as plain data. Keys are documented where they are written."""

    # inputs (set once by the runner)
    prompt: str
    negative_prompt: str | None
    seed: int
    run_dir: str
    init_image: str | None  # an uploaded image to correct instead of generating

    # progress
    round: int  # edit rounds done so far (0 after generation)
    candidates: list[dict[str, Any]]  # round-0 Candidate dicts, in seed order (scores filled by `score`)
    best: dict[str, Any]  # the current best Candidate dict
    first_best: dict[str, Any]  # the best round-0 candidate (the keep-best floor)
    mismatches: list[dict[str, Any]]  # Mismatch dicts of the current best
    mismatches_for: str  # path of the image `mismatches` belong to (detect skips a repeat)
    pending: list[dict[str, Any]]  # Instruction dicts written for this round, not yet tried
    instructions: Annotated[list[dict[str, Any]], operator.add]  # every Instruction dict tried
    rounds: Annotated[list[dict[str, Any]], operator.add]  # one record per edit round
    rounds_without_gain: int
    stop_reason: str | None  # "aligned" | "max_rounds" | "no_improvement"

    # accounting
    model_calls: Annotated[dict[str, float], add_counts]  # e.g. {"generator": 1, "vqa_score": 3}
    timings: Annotated[dict[str, float], add_counts]  # model ms per node ("edit") and per call kind ("edit.editor")


@dataclass
class LoopContext:
    """Run-scoped dependencies handed to every node (``runtime.context``); never checkpointed.

    ``scorer``, ``writer`` and ``detect`` default to the library's (``Scorer``, ``make_writer``,
    ``detection.detect``) when the runner builds the context; tests pass doubles.
    """

    config: Config
    models: Any  # autoalign.models.cache.Models or a test double with the same properties
    run_dir: Path
    scorer: Any = None  # .score(images, prompt) -> list[ScoreCard]
    writer: Any = None  # .write(prompt, mismatches, tried) -> list[Instruction]
    detect: Callable[..., list] | None = None  # (image, prompt, card, models, config) -> list[Mismatch]
