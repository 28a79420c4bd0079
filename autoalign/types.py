"""Plain-data types shared by every module, and the one contract between the loop and its readers.

Everything here is a dataclass of JSON-friendly fields, so it can travel through the LangGraph
state, checkpoints, ``trace.jsonl`` and reports unchanged (``to_dict`` / ``from_dict``).
Images never appear here: they travel as file paths (:attr:`RunResult.image` loads the final one
lazily, from the run directory).

What the loop hands out (built by :mod:`autoalign.agents.runner`, read by the CLI, ``batch``, the
benchmarks and the studio; test doubles build the same types):

* :class:`StreamUpdate` — one graph step: the node (one of :data:`NODE_NAMES`), the edit rounds done,
  and what the node changed (:class:`StepUpdate`);
* :class:`Round` — one edit round: the mismatches it worked on and each :class:`Attempt` (the
  instruction, its edited :class:`EditSample` images and the judge's :class:`EditDecision`);
* :class:`RunResult` — the summary of a finished run (``RUN/summary.json``).

Nothing outside these classes reads a summary or an update by string keys.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from PIL import Image

# What a question checks and what a mismatch is about: FineMatch's four aspects (:data:`ASPECTS`),
# ``text`` (rendered text in the picture) and ``global`` (the picture's frame, style, time; questions only).
Aspect = Literal["entity", "attribute", "relation", "number", "text", "global"]
ASPECTS: tuple[str, ...] = ("entity", "attribute", "relation", "number")

# Why the loop stopped. The round limit has one name everywhere: ``loop.max_rounds`` in the config,
# ``"max_rounds"`` as the stop reason and the router's branch, ``RunResult.max_rounds`` in a summary.
StopReason = Literal["aligned", "max_rounds", "no_improvement"]
STOP_REASONS: tuple[str, ...] = get_args(StopReason)

# The loop's graph nodes, in the order a round visits them (the runner streams exactly these).
NodeName = Literal["generate", "score", "detect", "instruct", "edit"]
NODE_NAMES: tuple[str, ...] = get_args(NodeName)


# The files of a run directory the result names (agents/rundir.py lists them all).
SUMMARY_FILE = "summary.json"
FINAL_IMAGE = "final.png"


def _from_dict(cls, data: dict[str, Any]):
    """Build a dataclass from a dict, ignoring unknown keys (forward compatible traces)."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


def _many(cls, items: Any) -> list[Any]:
    """``cls`` instances from a list of instances or dicts (None is an empty list)."""
    return [item if isinstance(item, cls) else cls.from_dict(item) for item in items or []]


def _one(cls, item: Any) -> Any:
    if item is None or isinstance(item, cls):
        return item
    return cls.from_dict(item)


@dataclass
class Question:
    """One atomic yes/no check derived from the prompt (VQ2 / DSG style)."""

    id: str
    text: str  # the question, e.g. "is the car red?" (DSG yes/no) or "what color is the car?" (VQ2)
    answer: str  # the expected answer span from the prompt, e.g. "red"
    aspect: Aspect = "entity"
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
    """A question with the VQA model's P(yes) for it on one image, and what VQ2 counted for it.

    ``score`` is P(yes) after dependency zeroing (DSG: a question whose parent the image fails counts
    0; ``zeroed`` says it was); None when no zeroing step ran (then VQ2 counts ``p_yes``). The JSON form
    is the question's fields with ``p_yes`` (and ``score``, ``zeroed``) beside them, as in every
    ``trace.jsonl`` and ``summary.json`` written so far.
    """

    question: Question
    p_yes: float
    score: float | None = None
    zeroed: bool = False

    @property
    def counted(self) -> float:
        """What VQ2 averages for this question: ``score`` when zeroing ran, else ``p_yes``."""
        return self.p_yes if self.score is None else self.score

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {**self.question.to_dict(), "p_yes": self.p_yes}
        if self.score is not None:
            out.update(score=self.score, zeroed=self.zeroed)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "QuestionScore":
        score = data.get("score")
        return cls(question=Question.from_dict(data), p_yes=float(data["p_yes"]),
                   score=None if score is None else float(score), zeroed=bool(data.get("zeroed", False)))


@dataclass
class ScoreCard:
    """All alignment scores of one image against one text."""

    overall: float  # the score the loop decides on (preset's `scoring.primary`)
    vq2: float | None = None
    vnli: float | None = None
    clip: float | None = None
    questions: list[QuestionScore] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"overall": self.overall, "vq2": self.vq2, "vnli": self.vnli, "clip": self.clip,
                "questions": [q.to_dict() for q in self.questions]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ScoreCard":
        return cls(overall=data["overall"], vq2=data.get("vq2"), vnli=data.get("vnli"), clip=data.get("clip"),
                   questions=_many(QuestionScore, data.get("questions")))


@dataclass
class Mismatch:
    """A FineMatch triplet (aspect, phrase from the prompt, correction) with its evidence."""

    aspect: Aspect
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

    @property
    def card(self) -> ScoreCard:
        """The score card (``score`` holds its JSON form, as the graph state and ``summary.json`` do)."""
        return ScoreCard.from_dict(self.score)


@dataclass
class EditDecision:
    """The verdict on one edit: accepted or not, why, the score gain, and which mismatches changed.

    ``reason`` is one of :data:`autoalign.editing.policy.EDIT_REASONS`; ``removed`` holds the
    mismatches (``to_dict()``) of the image before the edit that are gone after it, ``added`` those
    of the edited image that were not there before.
    """

    accepted: bool
    reason: str
    gain: float
    removed: list[dict[str, Any]] = field(default_factory=list)
    added: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EditDecision":
        return _from_dict(cls, data)


@dataclass
class EditSample:
    """One edited (or regenerated) image of an attempt and its overall score."""

    path: str  # relative to the run directory
    overall: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EditSample":
        return _from_dict(cls, data)


@dataclass
class Attempt:
    """One instruction tried in an edit round: its samples, the scorer's pick and the judge's verdict."""

    instruction: Instruction
    seed: int
    samples: list[EditSample]
    chosen: str  # path of the sample the scorer ranked first (the one judged)
    score: ScoreCard  # the chosen sample's card
    mismatches: list[Mismatch]  # what the detectors found in the chosen sample
    decision: EditDecision
    origin: str = "edit"  # "edit" | "regenerate" | "region" (a layout edit inside boxes)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Attempt":
        return cls(
            instruction=_one(Instruction, data["instruction"]),
            seed=int(data.get("seed", 0)),
            samples=_many(EditSample, data.get("samples")),
            chosen=str(data.get("chosen", "")),
            score=_one(ScoreCard, data.get("score") or {"overall": 0.0}),
            mismatches=_many(Mismatch, data.get("mismatches")),
            decision=_one(EditDecision, data["decision"]),
            origin=str(data.get("origin", "edit")),
        )


@dataclass
class Round:
    """One edit round: the mismatches it set out to fix, every attempt, and the best image after it."""

    round: int  # 1 for the first edit round
    mismatches: list[Mismatch]
    attempts: list[Attempt]
    accepted: bool  # an attempt was kept
    best: str  # path of the best image after the round
    best_overall: float
    note: str = ""  # e.g. "no new instruction to try"

    def to_dict(self) -> dict[str, Any]:
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Round":
        return cls(
            round=int(data["round"]),
            mismatches=_many(Mismatch, data.get("mismatches")),
            attempts=_many(Attempt, data.get("attempts")),
            accepted=bool(data.get("accepted", False)),
            best=str(data.get("best", "")),
            best_overall=float(data.get("best_overall", 0.0)),
            note=str(data.get("note", "")),
        )


@dataclass
class StepUpdate:
    """What one graph node changed in the loop's state; None = not changed by this step.

    The fields are the keys of :class:`autoalign.agents.state.LoopState` a node may return, typed.
    Lists hold only the step's new items where the state appends (``instructions``, ``rounds``).
    """

    candidates: list[Candidate] | None = None  # round-0 candidates (scores filled by ``score``)
    best: Candidate | None = None
    first_best: Candidate | None = None
    mismatches: list[Mismatch] | None = None  # of the current best image (replaces the previous list)
    mismatches_for: str | None = None  # the image path ``mismatches`` belong to
    pending: list[Instruction] | None = None  # written for the next edit round, not tried yet
    instructions: list[Instruction] | None = None  # tried in this step
    rounds: list[Round] | None = None  # edit rounds finished in this step
    round: int | None = None  # edit rounds done
    rounds_without_gain: int | None = None
    stop_reason: StopReason | None = None
    model_calls: dict[str, float] | None = None
    timings: dict[str, float] | None = None

    def __post_init__(self) -> None:
        if self.stop_reason is not None and self.stop_reason not in STOP_REASONS:
            raise ValueError(f"stop_reason must be one of {STOP_REASONS} (got {self.stop_reason!r})")

    def to_dict(self) -> dict[str, Any]:
        """The changed fields only (what a LangGraph node returns)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self) if getattr(self, f.name) is not None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "StepUpdate":
        """From a node's state update; a key that is not a field is an error (the contract is closed)."""
        unknown = sorted(set(data) - {f.name for f in fields(cls)})
        if unknown:
            raise ValueError(f"a node update holds key(s) the stream contract does not know: {', '.join(unknown)}")
        many = {"candidates": Candidate, "mismatches": Mismatch, "pending": Instruction,
                "instructions": Instruction, "rounds": Round}
        one = {"best": Candidate, "first_best": Candidate}
        out: dict[str, Any] = {}
        for key, value in data.items():
            if value is None:
                continue
            if key in many:
                value = _many(many[key], value)
            elif key in one:
                value = _one(one[key], value)
            out[key] = value
        return cls(**out)


@dataclass
class StreamUpdate:
    """One step of :func:`autoalign.agents.runner.stream`: which node ran and what it changed."""

    node: NodeName
    round: int  # edit rounds done after this step
    update: StepUpdate = field(default_factory=StepUpdate)
    step: int = 0  # the step's index in the run (0-based; a resumed run goes on counting)

    def __post_init__(self) -> None:
        if self.node not in NODE_NAMES:
            raise ValueError(f"node must be one of {NODE_NAMES} (got {self.node!r})")

    def to_dict(self) -> dict[str, Any]:
        return {"node": self.node, "round": self.round, "step": self.step, "update": self.update.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "StreamUpdate":
        return cls(node=data["node"], round=int(data.get("round", 0)), step=int(data.get("step", 0)),
                   update=StepUpdate.from_dict(data.get("update") or {}))


@dataclass
class RunScores:
    """The overall score of the run's baseline (candidate 0), best first-round candidate and final image."""

    baseline: float | None = None
    first_best: float | None = None
    final: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "RunScores":
        return _from_dict(cls, data)


@dataclass
class RunResult:
    """The summary of one finished run: what ``RUN/summary.json`` holds, and what ``runner.run`` returns.

    Image paths are relative to the run directory; ``run_dir`` (not stored in the file) is set when
    the result is read from, or returned for, a run directory, and :attr:`image` then loads the
    final image.
    """

    prompt: str
    preset: str
    config_hash: str
    seed: int
    final: Candidate
    run_id: str | None = None
    negative_prompt: str | None = None
    init_image: str | None = None
    models: dict[str, str | None] = field(default_factory=dict)  # role -> model id
    writer: str = "template"
    rounds: int = 0  # edit rounds done
    max_rounds: int = 0  # the round limit the run had (loop.max_rounds)
    stop_reason: StopReason | None = None
    scores: RunScores = field(default_factory=RunScores)
    gain: float | None = None  # final - baseline
    gain_over_first_best: float | None = None
    baseline: Candidate | None = None
    first_best: Candidate | None = None
    final_image: str = FINAL_IMAGE
    mismatches_before: list[Mismatch] = field(default_factory=list)
    mismatches_after: list[Mismatch] = field(default_factory=list)
    instructions: list[Instruction] = field(default_factory=list)
    edits_accepted: int = 0
    edits_rejected: int = 0
    round_records: list[Round] = field(default_factory=list)
    graph_steps: int = 0
    wall_time_s: float = 0.0
    model_calls: dict[str, float] = field(default_factory=dict)
    model_ms: dict[str, float] = field(default_factory=dict)
    autoalign_version: str = ""
    run_dir: str | None = field(default=None, compare=False, repr=False)  # not serialised

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``summary.json``); ``run_dir`` is left out (a run directory may move)."""
        return {f.name: _plain(getattr(self, f.name)) for f in fields(self) if f.name != "run_dir"}

    @classmethod
    def from_dict(cls, data: dict[str, Any], run_dir: str | Path | None = None) -> "RunResult":
        """Read a summary written by any version of the runner (unknown keys are ignored)."""
        known = {f.name for f in fields(cls)} - {"run_dir"}
        plain = {k: v for k, v in data.items() if k in known}
        plain["final"] = _one(Candidate, data["final"])
        for key in ("baseline", "first_best"):
            plain[key] = _one(Candidate, data.get(key))
        plain["scores"] = _one(RunScores, data.get("scores") or {})
        for key in ("mismatches_before", "mismatches_after"):
            plain[key] = _many(Mismatch, data.get(key))
        plain["instructions"] = _many(Instruction, data.get("instructions"))
        plain["round_records"] = _many(Round, data.get("round_records"))
        return cls(**plain, run_dir=None if run_dir is None else str(run_dir))

    @classmethod
    def load(cls, run_dir: str | Path, name: str = SUMMARY_FILE) -> "RunResult":
        """The result of the finished run in ``run_dir`` (``ValueError`` when its summary is unreadable)."""
        path = Path(run_dir) / name
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError(f"{path} does not hold a JSON object")
        return cls.from_dict(data, run_dir)

    def path(self, relative: str) -> Path:
        """An image path of this run (as stored, relative to the run dir) made absolute."""
        p = Path(relative)
        if p.is_absolute() or self.run_dir is None:
            return p
        return Path(self.run_dir) / p

    @property
    def final_image_path(self) -> Path:
        return self.path(self.final_image)

    @cached_property
    def image(self) -> "Image.Image":
        """The final image as an RGB PIL image, loaded from the run directory on first use."""
        if self.run_dir is None:
            raise ValueError("this RunResult was not read from a run directory; there is no image to load")
        from PIL import Image

        with Image.open(self.final_image_path) as im:
            return im.convert("RGB")


def _plain(value: Any) -> Any:
    """A dataclass (or a list of them) as JSON-friendly data."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


# --- Grounding and region edits (issues 36-37): one contract shared by the grounder role, the
# ``layout`` detector, the layout planner and the region editor. Boxes are pixel xyxy in the image
# they were found in; masks travel as file paths (like every image), never as arrays.


@dataclass
class Box:
    """One object found for a phrase: a pixel box ``(x0, y0, x1, y1)``, its score, and a mask file if any."""

    xyxy: tuple[float, float, float, float]
    score: float
    label: str = ""  # the phrase (or the detector's label) this box answers
    mask: str = ""  # a mask image's path (white = the object), "" when the model gives none
    # the grounder's mask as a boolean (height, width) array, in memory only: never in to_dict / the trace
    # (whoever keeps it writes a file and sets ``mask``); not compared, not shown
    mask_array: Any = field(default=None, compare=False, repr=False)
    # the same box scored by a reader of the whole instance, where the grounder has one (the world grounder's shape
    # head: its probability of the shape it names x the colour's); in memory only, None otherwise
    head_score: float | None = field(default=None, compare=False, repr=False)

    def to_dict(self) -> dict[str, Any]:
        return {"xyxy": list(self.xyxy), "score": self.score, "label": self.label, "mask": self.mask}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Box":
        return cls(xyxy=tuple(float(v) for v in data["xyxy"]), score=float(data["score"]),
                   label=data.get("label", ""), mask=data.get("mask", ""))

    @property
    def center(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.xyxy
        return ((x0 + x1) / 2.0, (y0 + y1) / 2.0)


@dataclass
class Grounding:
    """What a grounder found for one phrase in one image (boxes best first, already thresholded)."""

    phrase: str
    boxes: list[Box] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"phrase": self.phrase, "boxes": [b.to_dict() for b in self.boxes]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Grounding":
        return cls(phrase=data["phrase"], boxes=[Box.from_dict(b) for b in data.get("boxes", [])])


LayoutOpKind = Literal["remove", "add", "move", "recolor", "reshape"]
LAYOUT_OP_KINDS: tuple[str, ...] = get_args(LayoutOpKind)


@dataclass
class LayoutOp:
    """One step of a layout plan (SLD's operations): what to do, to which box, with which phrase."""

    kind: LayoutOpKind
    phrase: str  # the object phrase to draw ("a red circle") or the one being removed
    source: Box | None = None  # the box removed / moved / recoloured (None for an addition)
    target: Box | None = None  # where the object goes (add / move), or the same box (recolour / reshape)
    reason: str = ""  # the mismatch it answers, in words

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "phrase": self.phrase, "reason": self.reason,
                "source": self.source.to_dict() if self.source else None,
                "target": self.target.to_dict() if self.target else None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "LayoutOp":
        return cls(kind=data["kind"], phrase=data["phrase"], reason=data.get("reason", ""),
                   source=Box.from_dict(data["source"]) if data.get("source") else None,
                   target=Box.from_dict(data["target"]) if data.get("target") else None)


@dataclass
class LayoutPlan:
    """A layout plan as the trace records it: the operations, which planner made them, and why it fell back."""

    ops: list[LayoutOp] = field(default_factory=list)
    planner: str = ""  # "rules" | "llm"
    note: str = ""  # e.g. why the LLM planner fell back to the rules

    def to_dict(self) -> dict[str, Any]:
        return {"ops": [op.to_dict() for op in self.ops], "planner": self.planner, "note": self.note}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "LayoutPlan":
        return cls(ops=[LayoutOp.from_dict(o) for o in data.get("ops", [])], planner=data.get("planner", ""),
                   note=data.get("note", ""))
