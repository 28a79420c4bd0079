"""``autoalign world ...``: train the shapes world's models, and measure them.

``world train`` writes the files that are committed in ``autoalign/world/weights/``; every recipe is
seeded, shows a progress bar with loss and ETA, and resumes from its own checkpoint (in
``$AUTOALIGN_HOME/world-train/``) when interrupted. ``world eval`` prints the world's figures.
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from autoalign.cli_apps import app
from autoalign.errors import InputError

world_app = typer.Typer(help="The shapes world: train its models (`world train`) and measure them (`world eval`).",
                        no_args_is_help=True)
app.add_typer(world_app, name="world")


@world_app.command("train")
def train_command(
    only: Optional[list[str]] = typer.Option(None, "--only", help="Train only this model (repeatable): clip, clip-plain, clip-swap, vlm, vae, generator, editor, grounder; inpaint only when named."),
    out: Optional[Path] = typer.Option(None, "--out", help="Where to write the weights (default: the package's autoalign/world/weights)."),
    seed: int = typer.Option(0, "--seed", help="Seed of every recipe."),
    fresh: bool = typer.Option(False, "--fresh", help="Ignore saved checkpoints and start over."),
    steps: Optional[int] = typer.Option(None, "--steps", help="Override each recipe's number of steps (smoke tests)."),
    device: str = typer.Option("cpu", "--device", help="Torch device to train on (cuda: the recipes that support it: vae, generator, editor, inpaint)."),
) -> None:
    """Train the world's models (seeded, resumable) and write their weights."""
    from autoalign.world import WEIGHTS_DIR
    from autoalign.world.training import recipes
    from autoalign.world.training.train import MODELS, selected

    bad = [n for n in only or [] if n not in MODELS]
    if bad:
        raise InputError(f"--only must be one of {', '.join(MODELS)} (got {', '.join(bad)})")
    names = selected(only)  # in training order; opt-in recipes only when named
    logging.getLogger("autoalign.world").setLevel(logging.INFO)
    out_dir = Path(out) if out else WEIGHTS_DIR
    console = Console(stderr=True)
    for name in names:
        start = time.time()
        stats = recipes.train(name, out_dir, seed=seed, resume=not fresh, steps=steps, device=device)
        console.print(f"[bold]{name}[/bold]: {json.dumps(stats)} ({time.time() - start:.0f} s) -> {out_dir / name}")


@world_app.command("eval")
def eval_command(
    n: int = typer.Option(300, "--n", help="Scenes per split to evaluate on."),
    weights: Optional[Path] = typer.Option(None, "--weights", help="Weights directory (default: the committed ones)."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
    only: Optional[list[str]] = typer.Option(None, "--only", help="Only these parts (repeatable): oracle, vlm, vq2, rerank, instructions, editor, region, clip."),
    validation: bool = typer.Option(False, "--validation", help="Evaluate on the validation split (to tune settings on) instead of test and compositional."),
) -> None:
    """Oracle recovery, VLM accuracy, VQ2/VNLI AUC, the loop's instructions, edit success and CLIP group scores, with n and 95% intervals."""
    from autoalign.benchmarks import world_eval as evaluate

    if n < 1:
        raise InputError(f"--n must be a positive integer (got {n})")
    result = evaluate.run(n=n, weights=weights, parts=only or None, splits=("val",) if validation else evaluate.SPLITS)
    if as_json:
        typer.echo(json.dumps(result, indent=2))
    else:
        evaluate.print_table(result)
