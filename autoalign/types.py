"""Plain-data types shared by every module.

Everything here is a dataclass of JSON-friendly fields, so it can travel through the LangGraph
state, checkpoints, ``trace.jsonl`` and reports unchanged (``asdict`` / ``from_dict``).
Images never appear here: they travel as file paths.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

ASPECTS: tuple[str, ...] = ("entity", "attribute", "relation", "number")
Aspect = Literal["entity", "attribute", "relation", "number"]


def _from_dict(cls, data: dict[str, Any]):
    """Build a dataclass from a dict, ignoring unknown keys (forward compatible traces)."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


@dataclass
class Question:
    """One atomic yes/no check derived from the prompt (VQ2 / DSG style)."""

    id: str
    text: str  # the question, e.g. "is the car red?" (DSG yes/no) or "what color is the car?" (VQ2)
    answer: str  # the expected answer span from the prompt, e.g. "red"
    aspect: str = "entity"  # entity | attribute | relation | number (| text | global: the picture's frame, style, time)
    span: str = ""  # the prompt phrase this question checks (for localisation)
    depends_on: list[str] = field(default_factory=list)  # ids of parent questions (DSG)
    # a short-answer form of a yes/no question ("what color is the car?"), whose answer is ``answer``;
    # detectors ask it to learn what the image shows instead; "" when there is none
    open_question: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Question":
        return _from_dict(cls, data)


@dataclass
class QuestionScore:
    """A question with the VQA model's P(yes) for it on one image."""

    question: Question
    p_yes: float

    def to_dict(self) -> dict[str, Any]:
        return {**self.question.to_dict(), "p_yes": self.p_yes}


@dataclass
class ScoreCard:
    """All alignment scores of one image against one text."""

    overall: float  # the score the loop decides on (preset's `scoring.primary`)
    vq2: float | None = None
    vnli: float | None = None
    clip: float | None = None
    questions: list[dict[str, Any]] = field(default_factory=list)  # QuestionScore.to_dict()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ScoreCard":
        return _from_dict(cls, data)


@dataclass
class Mismatch:
    """A FineMatch triplet (aspect, phrase from the prompt, correction) with its evidence."""

    aspect: str
    phrase: str
    correction: str = ""
    confidence: float = 1.0
    source: str = ""  # which detector produced it
    evidence: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Mismatch":
        return _from_dict(cls, data)

    def key(self) -> tuple[str, str]:
        """Identity used to tell whether an edit removed or added a mismatch."""
        return (self.aspect, self.phrase.strip().lower())


@dataclass
class Instruction:
    """An edit instruction, tied to the mismatch it addresses and the writer that wrote it."""

    text: str
    writer: str  # "template" | "llm" | ...
    mismatches: list[dict[str, Any]] = field(default_factory=list)  # Mismatch.to_dict()
    note: str = ""  # e.g. why the LLM writer fell back

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Instruction":
        return _from_dict(cls, data)


@dataclass
class Candidate:
    """A generated or edited image on disk and its score card."""

    path: str
    seed: int
    score: dict[str, Any]  # ScoreCard.to_dict()
    origin: str = "generate"  # "generate" | "edit" | "regenerate" | "upload"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Candidate":
        return _from_dict(cls, data)

    @property
    def overall(self) -> float:
        return float(self.score["overall"])
