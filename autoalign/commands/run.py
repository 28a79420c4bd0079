"""``autoalign run PROMPT``: the self-correction loop for one prompt, into a run directory.

::

    autoalign run "two red apples on a blue plate" --preset tiny --out runs/apples
    autoalign run "a red car" --preset sd-turbo --steps 2 --guidance-scale 0 --width 512 --height 512
    autoalign run --resume runs/apples          # continue a killed run (or show a finished one)

Flags override the preset (``--seed`` -> ``loop.seed``, ``--candidates`` -> ``loop.candidates``,
``--max-rounds`` -> ``loop.max_rounds``, ``--threshold`` -> ``loop.threshold``, ``--writer`` ->
``writer``; the diffusers knobs ``--device``, ``--dtype``, ``--steps``, ``--guidance-scale``,
``--negative-prompt``, ``--width``, ``--height`` as in :mod:`autoalign.knobs`). A fresh run needs an
empty or new ``--out`` (default ``runs/<timestamp>-<slug>``). With ``--resume`` the prompt and
configuration come from the run directory; flags given must not change them.

Progress (loading, candidates, scoring, each edit round) goes to stderr (``--quiet``: none); the
result goes to stdout as a table, or as JSON with ``--json``. The run directory gets a contact sheet,
``contact_sheet.png``: candidates, each round's edits and the final image on one page.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.text import Text

from autoalign.cli_apps import (
    CONFIG_HELP,
    DEVICE_OPT,
    DTYPE_OPT,
    GUIDANCE_OPT,
    HEIGHT_OPT,
    NEGATIVE_OPT,
    PRESET_HELP,
    STEPS_OPT,
    WIDTH_OPT,
    app,
    flag_overrides,
    quiet_model_bars,
    say_scores_warning,
)
from autoalign.errors import InputError
from autoalign.types import Candidate, Mismatch, StreamUpdate
from autoalign.wording import clean_text, mismatch_words


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _mm(mismatches: list[Mismatch]) -> str:
    if not mismatches:
        return "none"
    return "; ".join(mismatch_words(m, aspect=True) for m in mismatches)


def _overall(candidate: Candidate | None) -> float | None:
    return None if candidate is None else candidate.overall


class RunProgress:
    """What ``run`` shows on stderr while the loop works: one line per finished step, a live bar.

    The bar counts rounds (round 0 draws and scores the candidates; each edit round after it). Each
    finished step prints a line with its time; the step in progress shows on the bar. With
    ``quiet`` nothing is shown.
    """

    def __init__(self, console: Console, *, candidates: int, max_rounds: int, from_image: bool, quiet: bool = False):
        self.console = console
        self.quiet = quiet
        self.max_rounds = max_rounds
        self.candidates = candidates
        self.round = 0
        self._progress = None
        self._task = None
        self._started = time.perf_counter()
        first = "loading models, reading your image" if from_image else f"loading models, drawing {candidates} candidate(s)"
        self._next = first

    def __enter__(self) -> "RunProgress":
        if not self.quiet:
            from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self._progress = Progress(
                SpinnerColumn(), TextColumn("{task.description}"), BarColumn(bar_width=20),
                TextColumn("round {task.completed:.0f}/{task.total:.0f}"), TimeElapsedColumn(),
                console=self.console, transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(self._next, total=self.max_rounds + 1)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._progress is not None:
            self._progress.stop()

    def _line(self, text: str) -> None:
        elapsed = time.perf_counter() - self._started
        self._started = time.perf_counter()
        if not self.quiet:
            self.console.print(Text("  ✓ ", style="green") + Text(text) + Text(f"  ({elapsed:.1f} s)", style="dim"))

    def _then(self, text: str, done: int | None = None) -> None:
        """Show the step now in progress; ``done``: rounds finished (round 0 counts as one)."""
        self._next = text
        if self._progress is not None:
            self._progress.update(self._task, description=text)
            if done is not None:
                self._progress.update(self._task, completed=min(done, self.max_rounds + 1))

    def step(self, step: StreamUpdate) -> None:
        """Fold one step of the runner's stream into the display."""
        node, update = step.node, step.update
        self.round = step.round
        where = f"round {self.round}/{self.max_rounds}"
        if node == "generate":
            n = len(update.candidates or [])
            self._line(f"models loaded; {n} candidate(s) ready")
            self._then(f"scoring {n} candidate(s)")
        elif node == "score":
            self._line(f"scored the candidates; best {_fmt(_overall(update.best))}")
            self._then("looking for mismatches in the best image", done=1)
        elif node == "detect":
            found = update.mismatches or []
            stop = update.stop_reason
            self._line(f"{len(found)} mismatch(es) found" + (f"; stopping: {stop}" if stop else ""))
            if stop:
                self._then("writing the final image and summary", done=self.max_rounds + 1)
            else:
                self._then(f"round {self.round + 1}/{self.max_rounds}: writing edit instructions")
        elif node == "instruct":
            pending = update.pending or []
            texts = ", ".join(f'"{clean_text(i.text, 60)}"' for i in pending[:3])
            self._line(f"round {self.round + 1}/{self.max_rounds}: {len(pending)} instruction(s) {texts}")
            self._then(f"round {self.round + 1}/{self.max_rounds}: editing and scoring the edits")
        elif node == "edit":
            records = update.rounds or []
            accepted = records[-1].accepted if records else False
            self._line(f"{where}: " + (f"edit kept, best {_fmt(_overall(update.best))}" if accepted else "no edit kept"))
            self._then(f"{where}: looking for mismatches", done=1 + self.round)
        else:
            self._line(f"{node} done")


def _preflight(cfg: Any, from_image: bool) -> None:
    """Stop before anything is written when the run cannot work here: a model it needs cannot be had
    (offline, not cached, gated), or the machine lacks what the preset needs (CUDA, native bf16, memory)."""
    from autoalign.agents.runner import preflight
    from autoalign.models.catalog import WEIGHT_ROLES
    from autoalign.models.doctor import require_ready

    preflight(cfg)  # unknown backends and missing local paths first: they say what is wrong more precisely
    roles = tuple(r for r in WEIGHT_ROLES if not (r == "generator" and from_image and not cfg.loop.regenerate_on_stall)
                  and not (r == "editor" and cfg.loop.max_rounds == 0)) + ("questions",)
    require_ready(cfg, roles)  # one line naming every failed check (`autoalign models check`)


@app.command("run")
def run(
    prompt: Optional[str] = typer.Argument(None, help="What the image should show (omit with --resume)."),
    preset: str = typer.Option("tiny", "--preset", "-p", help=PRESET_HELP),
    config: Optional[Path] = typer.Option(None, "--config", "-c", help=CONFIG_HELP),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Run directory (default runs/<timestamp>-<slug>); must be empty or new."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of generation and edits (loop.seed)."),
    candidates: Optional[int] = typer.Option(None, "--candidates", "-n", help="Images generated in round 0 (loop.candidates, >= 1)."),
    max_rounds: Optional[int] = typer.Option(None, "--max-rounds", help="Edit rounds at most (loop.max_rounds)."),
    threshold: Optional[float] = typer.Option(None, "--threshold", help="Score in [0, 1] that counts as aligned (loop.threshold)."),
    writer: Optional[str] = typer.Option(None, "--writer", help="Instruction writer: template or llm."),
    image: Optional[Path] = typer.Option(None, "--image", help="Correct this image instead of generating one."),
    resume: Optional[Path] = typer.Option(None, "--resume", help="Continue the run in this directory from its last checkpoint."),
    device: Optional[str] = DEVICE_OPT,
    dtype: Optional[str] = DTYPE_OPT,
    steps: Optional[int] = STEPS_OPT,
    guidance_scale: Optional[float] = GUIDANCE_OPT,
    negative_prompt: Optional[str] = NEGATIVE_OPT,
    width: Optional[int] = WIDTH_OPT,
    height: Optional[int] = HEIGHT_OPT,
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout (progress stays on stderr)."),
) -> None:
    """Generate, score, detect mismatches, edit, repeat, until the image shows the prompt."""
    from autoalign.agents import rundir, runner
    from autoalign.agents.contact_sheet import write_contact_sheet
    from autoalign.config import deep_merge, from_dict, load_config

    overrides = flag_overrides(seed, candidates, max_rounds, threshold, writer, device=device, dtype=dtype, steps=steps,
                               guidance_scale=guidance_scale, negative_prompt=negative_prompt, width=width, height=height)
    if resume is not None and out is not None and out != resume:
        raise InputError("--out and --resume name different directories; give only --resume RUN_DIR")
    if resume is not None and prompt is not None and not (resume / rundir.CONFIG).exists():
        # killed before its config.json was written (or never started): begin it from PROMPT and the flags
        cfg = load_config(preset, config, overrides)
        out_dir = resume
    elif resume is not None:
        stored = runner.stored_run(resume)
        prompt = prompt if prompt is not None else stored.get("prompt", "")
        cfg_dict = deep_merge(stored.get("config") or {}, overrides)
        if config:
            from autoalign.config import read_config_file

            cfg_dict = deep_merge(cfg_dict, read_config_file(config))
        cfg = from_dict(cfg_dict)
        runner.require_secrets(cfg)  # credentials are not stored: they come from --config again
        out_dir = resume
    else:
        if prompt is None:
            raise InputError("PROMPT is missing; give the text the image should show (or --resume RUN_DIR)")
        cfg = load_config(preset, config, overrides)
        out_dir = out if out is not None else rundir.default_out(prompt)

    kwargs: dict[str, Any] = {"resume": resume is not None}
    if image is not None:
        if not image.is_file():
            raise InputError(f"--image: {image} is not a file")
        kwargs["init_image"] = str(image)
    if resume is None:
        _preflight(cfg, from_image=image is not None)
    quiet_model_bars()
    console = Console(stderr=True)
    progress = RunProgress(console, candidates=cfg.loop.candidates, max_rounds=cfg.loop.max_rounds,
                           from_image=image is not None, quiet=quiet)
    with progress:
        for step in runner.stream(prompt or "", cfg, out_dir, **kwargs):
            progress.step(step)
    result = runner.result(Path(out_dir))
    sheet = write_contact_sheet(out_dir)
    say_scores_warning(cfg)
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
        return

    from rich.table import Table

    scores = result.scores
    table = Table(title=f"autoalign run ({clean_text(result.preset)})", show_header=False)
    table.add_column("field", no_wrap=True)
    table.add_column("value", overflow="fold")  # paths wrap instead of being cut
    table.add_row("rounds", f"{result.rounds} of {result.max_rounds}")
    table.add_row("score before", f"baseline {_fmt(scores.baseline)}, best first candidate {_fmt(scores.first_best)}")
    table.add_row("score after", _fmt(scores.final))
    table.add_row("mismatches before", Text(_mm(result.mismatches_before)))
    table.add_row("mismatches after", Text(_mm(result.mismatches_after)))
    table.add_row("edits", f"{result.edits_accepted} accepted, {result.edits_rejected} rejected")
    table.add_row("stop reason", str(result.stop_reason))
    table.add_row("run dir", Text(str(out_dir)))
    if sheet is not None:
        table.add_row("contact sheet", Text(str(sheet)))
    Console().print(table)
