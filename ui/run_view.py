"""What the studio shows about a run, folded from the runner's stream of node updates.

:func:`autoalign.agents.runner.stream` yields ``(node_name, update)`` pairs, one per graph step
(LangGraph ``stream_mode="updates"``), with the keys of :class:`autoalign.agents.state.LoopState`:
``candidates`` (Candidate dicts ``path, seed, score, origin``), ``best`` / ``first_best``,
``mismatches`` (``aspect, phrase, correction, ...``), ``pending`` / ``instructions`` (``text, writer,
mismatches``), ``rounds`` (one record per edit round, its ``attempts`` holding the edited
``samples``), ``round`` and ``stop_reason``. Image paths are relative to the run directory.
:class:`RunView` folds those updates into what the page displays (gallery captions, the prompt with
mismatches highlighted, the instruction log, before/after, a status line). It decides nothing about
the run: it only presents it.

Lists are folded so that both update styles work: a node that returns the whole list and a node
that returns only new items (a reducer that appends) give the same view; a candidate seen again
(same path, e.g. once generated and then scored) is updated in place. ``mismatches`` is the one
list that is replaced, because it means "what is wrong with the current best image".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from autoalign.wording import clean_text, mismatch_words

# One colour per FineMatch aspect (autoalign.types.ASPECTS), plus rendered text.
ASPECT_COLORS: dict[str, str] = {
    "entity": "#f97316",  # orange
    "attribute": "#3b82f6",  # blue
    "relation": "#a855f7",  # purple
    "number": "#ef4444",  # red
    "text": "#10b981",  # green (rendered text in the image)
}


def _key(item: Any) -> str:
    return json.dumps(item, sort_keys=True, default=str)


def _score_of(candidate: dict[str, Any]) -> float | None:
    score = candidate.get("score")
    if isinstance(score, dict):
        score = score.get("overall")
    try:
        return None if score is None else float(score)
    except (TypeError, ValueError):
        return None


def _is_candidate(item: Any) -> bool:
    return isinstance(item, dict) and bool(item.get("path")) and "score" in item


def _candidates_in(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Candidate dicts held one level deep in a round record (its edits, its best, ...)."""
    found: list[dict[str, Any]] = []
    for value in record.values():
        if _is_candidate(value):
            found.append(value)
        elif isinstance(value, list):
            found.extend(v for v in value if _is_candidate(v))
    return found


def _attempt_samples(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Edited samples of a round record's attempts (``attempts[].samples``), as candidate dicts.

    The sample the scorer chose carries the full score card and the judge's verdict
    (``kept`` / ``rejected: reason``); the others carry their overall score.
    """
    found: list[dict[str, Any]] = []
    for attempt in record.get("attempts") or []:
        if not isinstance(attempt, dict):
            continue
        decision = attempt.get("decision") or {}
        for sample in attempt.get("samples") or []:
            if not isinstance(sample, dict) or not sample.get("path"):
                continue
            cand = {"path": sample["path"], "seed": attempt.get("seed", "?"), "origin": attempt.get("origin", "edit"),
                    "score": {"overall": sample.get("overall")}}
            if sample["path"] == attempt.get("chosen"):
                if isinstance(attempt.get("score"), dict):
                    cand["score"] = attempt["score"]
                accepted = decision.get("accepted")
                if accepted is not None:
                    reason = decision.get("reason", "")
                    cand["verdict"] = "kept" if accepted else f"rejected{': ' + reason if reason else ''}"
                cand["chosen"] = True
            found.append(cand)
    return found


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
    candidates: list[dict[str, Any]] = field(default_factory=list)
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    instructions: list[dict[str, Any]] = field(default_factory=list)
    best: dict[str, Any] | None = None
    first_best: dict[str, Any] | None = None
    stop_reason: str | None = None
    final_image: str | None = None
    round_records: list[dict[str, Any]] = field(default_factory=list)
    _seen: set[str] = field(default_factory=set, repr=False)
    _best_given: bool = field(default=False, repr=False)

    # ---------------------------------------------------------------- folding updates
    def apply(self, node: str, update: dict[str, Any] | None) -> None:
        """Fold one ``(node, update)`` step of the runner's stream into the view."""
        self.steps += 1
        self.last_node = str(node)
        update = update or {}
        # Instructions first, while ``round`` still says how many edit rounds were done before
        # this step: an instruction belongs to the edit round it is written for (round + 1).
        for key in ("pending", "instructions"):
            for ins in update.get(key) or []:
                if isinstance(ins, str):
                    ins = {"text": ins, "writer": "", "mismatches": []}
                if not isinstance(ins, dict):
                    continue
                ins_round = ins.get("round", self.round + 1)
                if self._new(("instruction", ins_round, ins.get("text"), ins.get("writer"))):
                    self.instructions.append({**ins, "round": ins_round})
        if isinstance(update.get("round"), (int, float)):
            self.round = int(update["round"])
        records = update.get("rounds")
        if isinstance(records, (int, float)):
            self.round = int(records)
        elif isinstance(records, list):  # round records (a reducer appends; new ones only)
            for rec in records:
                if isinstance(rec, dict) and self._new(("round", rec)):
                    self.round_records.append(rec)
                    rec_round = rec.get("round", len(self.round_records))
                    for cand in _candidates_in(rec) + _attempt_samples(rec):
                        self._add_candidate({**cand, "round": cand.get("round", rec_round)})
            if not isinstance(update.get("round"), (int, float)):
                self.round = max(self.round, len(self.round_records))
        for cand in self._candidate_items(update):
            self._add_candidate(cand)
        if isinstance(update.get("mismatches"), list):
            self.mismatches = [m for m in update["mismatches"] if isinstance(m, dict)]
        first = update.get("first_best")
        if isinstance(first, dict) and first.get("path"):
            self.first_best = self._add_candidate(first)
        best = update.get("best")
        if isinstance(best, dict) and best.get("path"):
            self.best = self._add_candidate(best)
            self._best_given = True
        elif not self._best_given and self.candidates:
            self.best = self._best_known()
        if self.first_best is None and self.best is not None:
            self.first_best = self.best
        if update.get("stop_reason"):
            self.stop_reason = str(update["stop_reason"])
        final = update.get("final_image") or update.get("final")
        if isinstance(final, dict):
            final = final.get("path")
        if isinstance(final, str) and final:
            self.final_image = self._abs(final)

    def _abs(self, path: str) -> str:
        if self.run_dir and not Path(path).is_absolute():
            return str(Path(self.run_dir) / path)
        return str(path)

    def _candidate_items(self, update: dict[str, Any]) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = []
        for key in ("candidates", "edits", "edit_candidates"):
            value = update.get(key)
            if isinstance(value, list):
                items.extend(c for c in value if isinstance(c, dict) and c.get("path"))
        return items

    def _new(self, item: Any) -> bool:
        key = _key(item)
        if key in self._seen:
            return False
        self._seen.add(key)
        return True

    def _add_candidate(self, cand: dict[str, Any]) -> dict[str, Any]:
        """Add or update (same path) a candidate; returns the merged entry."""
        cand = {**cand, "path": self._abs(str(cand["path"]))}
        if not cand.get("score"):
            cand.pop("score", None)  # not scored yet: keep a score a later step gave
        for i, known in enumerate(self.candidates):
            if known.get("path") == cand["path"]:
                self.candidates[i] = {**known, **cand}  # a later step may add the score
                return self.candidates[i]
        entry = {**cand, "round": cand.get("round", self.round)}
        self.candidates.append(entry)
        return entry

    def _best_known(self) -> dict[str, Any] | None:
        scored = [c for c in self.candidates if _score_of(c) is not None]
        return max(scored, key=_score_of) if scored else None

    def finish(self, run_dir: str | Path) -> None:
        """After the stream ends: pick up ``final.png`` and the summary the runner wrote."""
        run_dir = Path(run_dir)
        summary_path = run_dir / "summary.json"
        if summary_path.is_file():
            try:
                summary = json.loads(summary_path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                summary = {}
            if isinstance(summary, dict):
                self.stop_reason = self.stop_reason or summary.get("stop_reason")
                if isinstance(summary.get("rounds"), int):
                    self.round = summary["rounds"]
        final = run_dir / "final.png"
        if final.is_file():
            self.final_image = str(final)
        elif self.final_image and not Path(self.final_image).is_absolute():
            self.final_image = str(run_dir / self.final_image)
        if not self.run_dir:
            self.run_dir = str(run_dir)

    # ---------------------------------------------------------------- what the page shows
    @property
    def best_path(self) -> str | None:
        return self.best.get("path") if self.best else None

    def best_score(self) -> float | None:
        return _score_of(self.best) if self.best else None

    def gallery(self) -> list[tuple[str, str]]:
        """``(image path, caption)`` per candidate, the caption giving its scores; best marked ★."""
        items = []
        for i, cand in enumerate(self.candidates):
            score = cand.get("score") if isinstance(cand.get("score"), dict) else {"overall": cand.get("score")}
            origin = cand.get("origin", "generate")
            parts = [f"#{i + 1} {origin} r{cand.get('round', 0)}", f"seed {cand.get('seed', '?')}"]
            parts.append(f"overall {_fmt(score.get('overall'))}")
            for name in ("vq2", "vnli", "clip"):
                if score.get(name) is not None:
                    parts.append(f"{name.upper()} {_fmt(score[name])}")
            if cand.get("verdict"):
                parts.append(str(cand["verdict"]))
            caption = " · ".join(parts)
            if cand.get("path") == self.best_path:
                caption = "★ best · " + caption
            items.append((str(cand["path"]), caption))
        return items

    def highlighted_prompt(self) -> list[tuple[str, str | None]]:
        """The prompt split into ``(text, aspect or None)`` pieces; mismatched phrases carry their aspect."""
        text = self.prompt
        lower = text.lower()
        spans: list[tuple[int, int, str]] = []
        for mm in self.mismatches:
            phrase = str(mm.get("phrase", "")).strip()
            if not phrase:
                continue
            start = lower.find(phrase.lower())
            while start != -1 and any(s < start + len(phrase) and start < e for s, e, _ in spans):
                start = lower.find(phrase.lower(), start + 1)
            if start != -1:
                spans.append((start, start + len(phrase), str(mm.get("aspect", "entity"))))
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
        for ins in self.instructions:
            if ins.get("round") != current_round:
                current_round = ins.get("round")
                if lines:
                    lines.append("")
                lines.append(f"**Edit round {current_round}**")
                lines.append("")
            fixes = "; ".join(
                mismatch_words(m, aspect=True) for m in ins.get("mismatches") or [] if isinstance(m, dict)
            )
            writer = f" _({clean_text(ins['writer'])})_" if ins.get("writer") else ""
            lines.append(f"- {clean_text(ins.get('text', ''))}{writer}" + (f" — fixes {fixes}" if fixes else ""))
        if self.mismatches:
            lines.append("")
            lines.append("**Still mismatched:** " + "; ".join(mismatch_words(m, aspect=True) for m in self.mismatches))
        return "\n".join(lines)

    def latest_edit(self) -> str | None:
        """The most recent edit: the scorer's pick of the last attempt when known."""
        edits = [c for c in self.candidates if c.get("origin") in ("edit", "regenerate")]
        chosen = [c for c in edits if c.get("chosen")]
        pool = chosen or edits
        return str(pool[-1]["path"]) if pool else None

    def before_after(self) -> tuple[str, str] | None:
        """(first best or the upload, current best) once there is something to compare."""
        before = self.init_image or (self.first_best or {}).get("path")
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
