"""What the studio shows about a run, folded from the runner's stream.

:func:`autoalign.agents.runner.stream` yields one :class:`~autoalign.types.StreamUpdate` per graph
step: the node that ran, the edit rounds done, and what the node changed
(:class:`~autoalign.types.StepUpdate`: ``candidates``, ``best`` / ``first_best``, ``mismatches``,
``pending`` / ``instructions``, ``rounds`` (one :class:`~autoalign.types.Round` per finished edit
round, its attempts holding the edited samples), ``stop_reason``). Image paths are relative to the
run directory. :class:`RunView` folds those updates into what the page displays (gallery captions,
the prompt with mismatches highlighted, the instruction log, before/after, a status line), and
after the stream reads the run's :class:`~autoalign.types.RunResult`. It decides nothing about the
run: it only presents it.

A candidate seen again (same path, e.g. once generated and then scored) is updated in place;
``mismatches`` is replaced at every update, because it means "what is wrong with the current best
image".
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autoalign.types import Attempt, Candidate, Instruction, Mismatch, Round, RunResult, StreamUpdate
from autoalign.wording import clean_text, mismatch_words

logger = logging.getLogger(__name__)

# One colour per FineMatch aspect (autoalign.types.ASPECTS), plus rendered text.
ASPECT_COLORS: dict[str, str] = {
    "entity": "#f97316",  # orange
    "attribute": "#3b82f6",  # blue
    "relation": "#a855f7",  # purple
    "number": "#ef4444",  # red
    "text": "#10b981",  # green (rendered text in the image)
}


@dataclass
class ShownImage:
    """One image in the gallery: a candidate, an edited sample or a regeneration."""

    path: str  # absolute when the run directory is known
    seed: int
    origin: str  # generate | upload | edit | regenerate | region | plan (a region edit's boxes, not an image to pick)
    round: int
    score: dict[str, Any] = field(default_factory=dict)  # ScoreCard.to_dict(), or only {"overall": x}
    verdict: str = ""  # the judge's word on an edit: "kept" / "rejected: reason"
    chosen: bool = False  # the sample the scorer picked in its attempt

    @property
    def overall(self) -> float | None:
        value = self.score.get("overall")
        return None if value is None else float(value)


@dataclass
class ShownInstruction:
    """An instruction in the log, with the edit round it was written for."""

    instruction: Instruction
    round: int


def _fmt(value: Any) -> str:
    return "–" if value is None else f"{float(value):.2f}"


@dataclass
class RunView:
    """The studio's picture of one run, updated with :meth:`apply` for every streamed step."""

    prompt: str
    max_rounds: int = 0
    init_image: str | None = None
    run_dir: str | None = None  # the runner stores image paths relative to it
    steps: int = 0
    last_node: str = ""
    round: int = 0
    candidates: list[ShownImage] = field(default_factory=list)
    mismatches: list[Mismatch] = field(default_factory=list)
    instructions: list[ShownInstruction] = field(default_factory=list)
    best: ShownImage | None = None
    first_best: ShownImage | None = None
    stop_reason: str | None = None
    final_image: str | None = None
    round_records: list[Round] = field(default_factory=list)

    # ---------------------------------------------------------------- folding updates
    def apply(self, step: StreamUpdate) -> None:
        """Fold one step of the runner's stream into the view."""
        self.steps += 1
        self.last_node = step.node
        update = step.update
        # Instructions first, while ``round`` still says how many edit rounds were done before
        # this step: an instruction belongs to the edit round it is written for (round + 1).
        for ins in (update.pending or []) + (update.instructions or []):
            if not any(known.instruction.text == ins.text and known.round == self.round + 1 for known in self.instructions):
                self.instructions.append(ShownInstruction(ins, self.round + 1))
        for record in update.rounds or []:
            self.round_records.append(record)
            for attempt in record.attempts:
                for shown in self._samples(attempt, record.round):
                    self._add(shown)
        self.round = step.round
        for cand in update.candidates or []:
            self._add(self._shown(cand, self.round))
        if update.mismatches is not None:
            self.mismatches = list(update.mismatches)
        if update.first_best is not None:
            self.first_best = self._add(self._shown(update.first_best, self.round))
        if update.best is not None:
            self.best = self._add(self._shown(update.best, self.round))
            if self.first_best is None:
                self.first_best = self.best
        if update.stop_reason:
            self.stop_reason = update.stop_reason

    def _abs(self, path: str) -> str:
        if self.run_dir and not Path(path).is_absolute():
            return str(Path(self.run_dir) / path)
        return str(path)

    def _shown(self, cand: Candidate, round_no: int) -> ShownImage:
        return ShownImage(path=self._abs(cand.path), seed=cand.seed, origin=cand.origin, round=round_no,
                          score=dict(cand.score))

    def _samples(self, attempt: Attempt, round_no: int) -> list[ShownImage]:
        """The edited samples of an attempt; the scorer's pick carries its full card and the verdict. A
        region edit's plan picture (``rounds/rNN/plan.png``: its boxes on the image it started from)
        comes first."""
        shown = []
        plan = attempt.instruction.note if attempt.origin == "region" else ""
        if plan.endswith("plan.json") and self.run_dir:
            picture = self._abs(plan[: -len("json")] + "png")
            if Path(picture).is_file():
                shown.append(ShownImage(path=picture, seed=attempt.seed, origin="plan", round=round_no))
        for sample in attempt.samples:
            image = ShownImage(path=self._abs(sample.path), seed=attempt.seed, origin=attempt.origin,
                               round=round_no, score={"overall": sample.overall})
            if sample.path == attempt.chosen:
                image.score = attempt.score.to_dict()
                reason = attempt.decision.reason
                image.verdict = "kept" if attempt.decision.accepted else f"rejected{': ' + reason if reason else ''}"
                image.chosen = True
            shown.append(image)
        return shown

    def _add(self, image: ShownImage) -> ShownImage:
        """Add, or update in place (same path), a gallery image; returns the entry kept."""
        for known in self.candidates:
            if known.path == image.path:
                if image.score:  # not scored yet: keep a score an earlier step gave
                    known.score = image.score
                known.verdict = image.verdict or known.verdict
                known.chosen = image.chosen or known.chosen
                return known
        self.candidates.append(image)
        return image

    def finish(self, run_dir: str | Path) -> None:
        """After the stream ends: pick up ``final.png`` and the result the runner wrote."""
        run_dir = Path(run_dir)
        if not self.run_dir:
            self.run_dir = str(run_dir)
        try:
            result = RunResult.load(run_dir)
        except FileNotFoundError:
            return  # the run stopped or failed before its end: nothing more to show
        except (OSError, KeyError, TypeError, ValueError) as exc:
            logger.warning("studio: cannot read the result in %s (%s)", run_dir, exc)
            return
        self.stop_reason = self.stop_reason or result.stop_reason
        self.round = result.rounds
        if result.final_image_path.is_file():
            self.final_image = str(result.final_image_path)

    # ---------------------------------------------------------------- what the page shows
    @property
    def best_path(self) -> str | None:
        return self.best.path if self.best else None

    def best_score(self) -> float | None:
        return self.best.overall if self.best else None

    def gallery(self) -> list[tuple[str, str]]:
        """``(image path, caption)`` per candidate, the caption giving its scores; best marked ★."""
        items = []
        for i, cand in enumerate(self.candidates):
            if cand.origin == "plan":
                items.append((cand.path, f"#{i + 1} layout plan r{cand.round} · boxes: orange = remove / change / move "
                                         "from, green = add / move to"))
                continue
            parts = [f"#{i + 1} {cand.origin} r{cand.round}", f"seed {cand.seed}", f"overall {_fmt(cand.overall)}"]
            for name in ("vq2", "vnli", "clip"):
                if cand.score.get(name) is not None:
                    parts.append(f"{name.upper()} {_fmt(cand.score[name])}")
            if cand.verdict:
                parts.append(cand.verdict)
            caption = " · ".join(parts)
            if cand.path == self.best_path:
                caption = "★ best · " + caption
            items.append((cand.path, caption))
        return items

    def highlighted_prompt(self) -> list[tuple[str, str | None]]:
        """The prompt split into ``(text, aspect or None)`` pieces; mismatched phrases carry their aspect."""
        text = self.prompt
        lower = text.lower()
        spans: list[tuple[int, int, str]] = []
        for mm in self.mismatches:
            phrase = mm.phrase.strip()
            if not phrase:
                continue
            start = lower.find(phrase.lower())
            while start != -1 and any(s < start + len(phrase) and start < e for s, e, _ in spans):
                start = lower.find(phrase.lower(), start + 1)
            if start != -1:
                spans.append((start, start + len(phrase), mm.aspect))
        spans.sort()
        pieces: list[tuple[str, str | None]] = []
        pos = 0
        for start, end, aspect in spans:
            if start > pos:
                pieces.append((text[pos:start], None))
            pieces.append((text[start:end], aspect))
            pos = end
        if pos < len(text):
            pieces.append((text[pos:], None))
        return pieces

    def instruction_log(self) -> str:
        """Markdown: each round's instructions, which mismatch they address, and who wrote them."""
        if not self.instructions and not self.mismatches:
            return "_No edit instructions yet._"
        lines: list[str] = []
        current_round = None
        for shown in self.instructions:
            ins = shown.instruction
            if shown.round != current_round:
                current_round = shown.round
                if lines:
                    lines.append("")
                lines.append(f"**Edit round {current_round}**")
                lines.append("")
            fixed = [Mismatch.from_dict(m) for m in ins.mismatches]
            fixes = "; ".join(mismatch_words(m, aspect=True) for m in fixed)
            writer = f" _({clean_text(ins.writer)})_" if ins.writer else ""
            lines.append(f"- {clean_text(ins.text)}{writer}" + (f" — fixes {fixes}" if fixes else ""))
        if self.mismatches:
            lines.append("")
            lines.append("**Still mismatched:** " + "; ".join(mismatch_words(m, aspect=True) for m in self.mismatches))
        return "\n".join(lines)

    def latest_edit(self) -> str | None:
        """The most recent edit: the scorer's pick of the last attempt when known."""
        edits = [c for c in self.candidates if c.origin in ("edit", "regenerate", "region")]
        pool = [c for c in edits if c.chosen] or edits
        return pool[-1].path if pool else None

    def before_after(self) -> tuple[str, str] | None:
        """(first best or the upload, current best) once there is something to compare."""
        before = self.init_image or (self.first_best.path if self.first_best else None)
        after = self.final_image or self.best_path
        if before and after:
            return (str(before), str(after))
        return None

    def status(self, *, running: bool = True) -> str:
        """One line: step, node and round while running; rounds, best score and why it stopped after."""
        round_part = f"round {self.round}/{self.max_rounds}" if self.max_rounds else f"round {self.round}"
        best = self.best_score()
        if running:
            parts = ["Running", f"step {self.steps}"] + ([self.last_node] if self.last_node else []) + [round_part]
        else:
            parts = ["Done", f"{self.round} edit round(s)"]
        if best is not None:
            parts.append(f"best {best:.2f}")
        if self.mismatches:
            parts.append(f"{len(self.mismatches)} mismatch(es) left" if not running else f"{len(self.mismatches)} mismatch(es)")
        if not running and self.stop_reason:
            parts.append(f"stopped: {self.stop_reason}")
        return " · ".join(parts)

    def progress(self) -> float:
        """A 0..1 fraction for the progress bar: the round in progress out of ``max_rounds + 1``
        (round 0 is generation)."""
        if not self.steps:
            return 0.0
        return min(1.0, (self.round + 0.5) / (self.max_rounds + 1))

    def table_row(self, run_dir: str, started: str, *, running: bool = False) -> list[Any]:
        """The row this run holds in the session's past-runs table (``HISTORY_HEADERS``)."""
        best = self.best_score()
        return [
            started,
            self.prompt,
            None if best is None else round(best, 3),
            self.round,
            self.stop_reason or (RUNNING if running else ""),
            str(run_dir),
        ]


HISTORY_HEADERS = ["started", "prompt", "best score", "rounds", "stopped because", "run dir"]
STOP_COLUMN = HISTORY_HEADERS.index("stopped because")
RUNNING = "running…"
