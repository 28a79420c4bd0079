"""``autoalign score IMAGE... --text "..."``: the alignment score card of each image.

Prints VQ2 (with each question, its expected answer and the VQA model's P(yes)), VNLI and CLIPScore
as rich tables, or JSON with ``--json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from autoalign.cli_apps import app, config_option, preset_option, quiet_model_bars, say_scores_warning


def load_images(paths: list[Path]):
    """Open every path as an RGB image; InputError naming the first bad one (missing, not an image,
    damaged, a decompression bomb or over the pixel limit: :func:`autoalign.images.open_image`)."""
    from autoalign.api import open_images

    return open_images(paths)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


@app.command("score")
def score(
    images: list[Path] = typer.Argument(..., help="Image files to score against the text."),
    text: str = typer.Option(..., "--text", "-t", help="The prompt the images should show."),
    preset: str = preset_option(),
    config: Optional[Path] = config_option(),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of tables."),
) -> None:
    """Score images against a text: VQ2 (per question), VNLI and CLIPScore."""
    from autoalign.config import load_config
    from autoalign.models.cache import Models
    from autoalign.scoring.scorer import Scorer

    cfg = load_config(preset, config)
    pil_images = load_images(images)
    quiet_model_bars()
    scorer = Scorer(Models(cfg), cfg)
    cards = scorer.score(pil_images, text)
    if as_json:
        payload = {
            "text": text,
            "preset": cfg.name,
            "primary": cfg.scoring.primary,
            "images": [{"image": str(p), **c.to_dict()} for p, c in zip(images, cards)],
            "calls": dict(scorer.calls),
        }
        say_scores_warning(cfg)
        typer.echo(json.dumps(payload, indent=2))
        return

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from autoalign.wording import clean_text

    say_scores_warning(cfg)
    console = Console()
    for path, card in zip(images, cards):
        console.print(
            Text(str(path), style="bold")
            + Text(f"  overall ({cfg.scoring.primary}) {_fmt(card.overall)}  "
                   f"VQ2 {_fmt(card.vq2)}  VNLI {_fmt(card.vnli)}  CLIP {_fmt(card.clip)}")
        )
        if card.questions:
            table = Table(show_header=True, header_style="bold")
            for col in ("id", "aspect", "question", "answer", "P(yes)", "score"):
                table.add_column(col)
            for qs in card.questions:
                q = qs.question
                score_text = _fmt(qs.counted) + (" (parent no)" if qs.zeroed else "")
                table.add_row(*(Text(clean_text(v)) for v in (q.id, q.aspect, q.text, q.answer)), _fmt(qs.p_yes), score_text)
            console.print(table)
        else:
            console.print("  (the text gave no questions: VQ2 undefined)")
