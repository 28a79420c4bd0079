"""The Typer apps the command modules attach to (``autoalign``, ``autoalign models``, ``autoalign bench``).

Command modules live in ``autoalign/commands/`` and do ``from autoalign.cli_apps import app``;
``autoalign.cli`` imports them all and runs the app.
"""

from __future__ import annotations

from typing import Any

import typer

app = typer.Typer(
    name="autoalign",
    help="Make text-to-image models draw what the prompt says: generate, score, detect, edit, repeat.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
models_app = typer.Typer(help="Build tiny models, list presets and where each model comes from.", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmarks: suites, audits, comparisons, meta-evaluation, FineMatch.", no_args_is_help=True)
app.add_typer(models_app, name="models")
app.add_typer(bench_app, name="bench")

# Options shared by every command that loads models.
PRESET_HELP = "Preset name (see `autoalign models list`) or a path to a preset .toml file."
CONFIG_HELP = "A TOML/YAML file whose fields override the preset."


def flag_overrides(
    seed: int | None = None,
    candidates: int | None = None,
    max_rounds: int | None = None,
    threshold: float | None = None,
    writer: str | None = None,
) -> dict[str, Any]:
    """CLI flags as a config override dict (only the flags that were given)."""
    loop = {k: v for k, v in {"seed": seed, "candidates": candidates, "max_rounds": max_rounds, "threshold": threshold}.items() if v is not None}
    out: dict[str, Any] = {"loop": loop} if loop else {}
    if writer is not None:
        out["writer"] = writer
    return out
