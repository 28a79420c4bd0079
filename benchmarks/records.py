"""A bench record: one line of ``results.jsonl``, typed (written by ``bench run``/``audit`` and the batch report).

A :class:`BenchRecord` is one (prompt, seed, config hash) of a benchmark: who it is (``id``, ``seed``,
``config_hash``, ``mode``, ``category``, ``prompt``, ``run_dir``), whether it ran (``status`` "ok" or
"error", ``error``), per stage (baseline, reranked, corrected) a :class:`StageResult` with the image's
scores and the detector's mismatches, and the loop's bookkeeping. The JSON form is the one every
``results.jsonl`` so far holds: :meth:`BenchRecord.from_dict` reads any of them and
:meth:`BenchRecord.to_dict` gives back the same keys (fields a record never had stay absent; keys this
class does not name travel in ``extra``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal

BenchStatus = Literal["ok", "error"]


@dataclass
class StageResult:
    """One stage image of a record: its scores, the detector's mismatches (``Mismatch.to_dict()``) and
    its path relative to the bench directory."""

    overall: float | None = None
    vq2: float | None = None
    vnli: float | None = None
    clip: float | None = None
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    image: str = ""
    vq2_below_threshold: bool | None = None
    n_questions: int | None = None  # the scorer's questions (absent when an evaluator does not count them)
    extra: dict[str, Any] = field(default_factory=dict)

    def score(self, key: str) -> float | None:
        """``overall``, ``vq2``, ``vnli`` or ``clip`` as a float; None when missing."""
        value = getattr(self, key) if key in _SCORE_KEYS else self.extra.get(key)
        return None if value is None else float(value)

    def has_mismatch(self, aspect: str | None = None) -> bool:
        """Any detected mismatch (of ``aspect``, when given)."""
        return any(aspect is None or m.get("aspect") == aspect for m in self.mismatches)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in _STAGE_ALWAYS}
        if self.n_questions is not None:
            out["n_questions"] = self.n_questions
        return {**out, **self.extra}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "StageResult":
        known = {f.name for f in fields(cls)} - {"extra"}
        return cls(**{k: v for k, v in data.items() if k in known and k != "mismatches"},
                   mismatches=list(data.get("mismatches") or []),
                   extra={k: v for k, v in data.items() if k not in known})


_SCORE_KEYS = ("overall", "vq2", "vnli", "clip")
_STAGE_ALWAYS = ("overall", "vq2", "vnli", "clip", "mismatches", "image", "vq2_below_threshold")


@dataclass
class BenchRecord:
    """One line of ``results.jsonl``; the last line of an (``id``, ``seed``, ``config_hash``) wins."""

    id: str
    seed: int
    config_hash: str
    status: BenchStatus
    mode: str = "run"  # "run" | "audit" | "batch"
    category: str = ""
    prompt: str = ""
    run_dir: str = ""
    error: str | None = None
    stages: dict[str, StageResult] = field(default_factory=dict)
    # the loop's bookkeeping (absent in an error record)
    rounds: int | None = None
    edits_accepted: int | None = None
    edits_rejected: int | None = None
    stop_reason: str | None = None
    instructions: list[dict[str, Any]] | None = None  # Instruction.to_dict()
    model_calls: dict[str, float] | None = None
    wall_time_s: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. traceback, eval_wall_s, line, attempts

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def key(self) -> tuple[str, int, str]:
        """(id, seed, config hash): what a rerun skips and the last record of which wins."""
        return (str(self.id), int(self.seed), str(self.config_hash))

    def stage(self, name: str) -> StageResult | None:
        return self.stages.get(name)

    def category_or_default(self) -> str:
        return str(self.category or "uncategorized")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: getattr(self, k) for k in _RECORD_ALWAYS}
        out["stages"] = {name: st.to_dict() for name, st in self.stages.items()}
        out.update({k: getattr(self, k) for k in _RECORD_OPTIONAL if getattr(self, k) is not None})
        return {**out, **self.extra}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "BenchRecord":
        known = {f.name for f in fields(cls)} - {"extra", "stages"}
        plain = {k: v for k, v in data.items() if k in known}
        plain.setdefault("seed", 0)
        plain.setdefault("config_hash", "")
        plain.setdefault("status", "error")
        plain.setdefault("id", "")
        stages = {name: StageResult.from_dict(st) for name, st in (data.get("stages") or {}).items()}
        return cls(**plain, stages=stages, extra={k: v for k, v in data.items() if k not in known and k != "stages"})


_RECORD_ALWAYS = ("id", "seed", "config_hash", "mode", "category", "prompt", "run_dir", "status", "error")
_RECORD_OPTIONAL = ("rounds", "edits_accepted", "edits_rejected", "stop_reason", "instructions", "model_calls",
                    "wall_time_s")
