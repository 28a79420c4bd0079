"""``autoalign run PROMPT``: the self-correction loop for one prompt, into a run directory.

::

    autoalign run "two red apples on a blue plate" --preset tiny --out runs/apples
    autoalign run --resume runs/apples          # continue a killed run (or show a finished one)

Flags override the preset (``--seed`` -> ``loop.seed``, ``--candidates`` -> ``loop.candidates``,
``--max-rounds`` -> ``loop.max_rounds``, ``--threshold`` -> ``loop.threshold``, ``--writer`` ->
``writer``). A fresh run needs an empty or new ``--out`` (default ``runs/<timestamp>-<slug>``).
With ``--resume`` the prompt and configuration come from the run directory; flags given must not
change them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from autoalign.cli_apps import CONFIG_HELP, PRESET_HELP, app, flag_overrides
from autoalign.errors import InputError
from autoalign.types import Mismatch


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


def _mm(mismatches: list[Mismatch]) -> str:
    if not mismatches:
        return "none"
    return "; ".join(f"{m.aspect}: {m.phrase}" + (f" -> {m.correction}" if m.correction else "") for m in mismatches)


@app.command("run")
def run(
    prompt: str | None = typer.Argument(None, help="What the image should show (omit with --resume)."),
    preset: str = typer.Option("tiny", "--preset", "-p", help=PRESET_HELP),
    config: Path | None = typer.Option(None, "--config", "-c", help=CONFIG_HELP),
    out: Path | None = typer.Option(None, "--out", "-o", help="Run directory (default runs/<timestamp>-<slug>); must be empty or new."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of generation and edits (loop.seed)."),
    candidates: int | None = typer.Option(None, "--candidates", "-n", help="Images generated in round 0 (loop.candidates, >= 1)."),
    max_rounds: int | None = typer.Option(None, "--max-rounds", help="Edit rounds at most (loop.max_rounds)."),
    threshold: float | None = typer.Option(None, "--threshold", help="Score in [0, 1] that counts as aligned (loop.threshold)."),
    writer: str | None = typer.Option(None, "--writer", help="Instruction writer: template or llm."),
    image: Path | None = typer.Option(None, "--image", help="Correct this image instead of generating one."),
    resume: Path | None = typer.Option(None, "--resume", help="Continue the run in this directory from its last checkpoint."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
) -> None:
    """Generate, score, detect mismatches, edit, repeat, until the image shows the prompt."""
    from autoalign.agents import rundir, runner
    from autoalign.config import deep_merge, from_dict, load_config

    overrides = flag_overrides(seed, candidates, max_rounds, threshold, writer)
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
        out_dir = resume
    else:
        if prompt is None:
            raise InputError("PROMPT is missing; give the text the image should show (or --resume RUN_DIR)")
        cfg = load_config(preset, config, overrides)
        out_dir = out if out is not None else rundir.default_out(prompt)

    from rich.console import Console

    console = Console(stderr=True)
    kwargs: dict[str, Any] = {"resume": resume is not None}
    if image is not None:
        if not image.is_file():
            raise InputError(f"--image: {image} is not a file")
        kwargs["init_image"] = str(image)
    with console.status("starting", spinner="dots") as status:
        for step in runner.stream(prompt or "", cfg, out_dir, **kwargs):
            status.update(f"{step.node} done (round {step.round}); run dir {out_dir}")
    result = runner.result(Path(out_dir))
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2))
        return

    from rich.table import Table

    scores = result.scores
    table = Table(title=f"autoalign run ({result.preset})", show_header=False)
    table.add_row("rounds", f"{result.rounds} of {result.max_rounds}")
    table.add_row("score before", f"baseline {_fmt(scores.baseline)}, best first candidate {_fmt(scores.first_best)}")
    table.add_row("score after", _fmt(scores.final))
    table.add_row("mismatches before", _mm(result.mismatches_before))
    table.add_row("mismatches after", _mm(result.mismatches_after))
    table.add_row("edits", f"{result.edits_accepted} accepted, {result.edits_rejected} rejected")
    table.add_row("stop reason", str(result.stop_reason))
    table.add_row("run dir", str(out_dir))
    Console().print(table)
