"""``autoalign detect IMAGE --text "..."``: FineMatch mismatches of an image against a prompt.

Scores the image with the Scorer (the VQ2 questions and P(yes) the ``vq2`` detector reads), runs
the preset's detectors and prints the merged triplets with confidence and evidence, as a rich
table or JSON with ``--json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from autoalign.cli_apps import app, config_option, preset_option, quiet_model_bars, say_scores_warning
from autoalign.wording import clean_text, mismatch_words


def _evidence_summary(evidence: dict) -> str:
    """A short one-line view of the evidence (full evidence is in --json)."""
    if "merged" in evidence:
        return "; ".join(f"{m['source']}: {_evidence_summary(m['evidence'])}" for m in evidence["merged"])
    parts = []
    for key in ("question", "p_yes", "open_question", "open_answer", "requested", "read", "similarity", "backend"):
        if key in evidence and evidence[key] not in ("", None):
            value = evidence[key]
            parts.append(f"{key}={value:.3f}" if isinstance(value, float) else f"{key}={clean_text(value, 80)}")
    if "ocr" in evidence:
        parts.append("ocr=" + (" | ".join(clean_text(line["text"], 40) for line in evidence["ocr"]) or "(nothing)"))
    return ", ".join(parts)


@app.command("detect")
def detect_command(
    image: Path = typer.Argument(..., help="The image to check."),
    text: str = typer.Option(..., "--text", "-t", help="The prompt the image should show."),
    preset: str = preset_option(),
    config: Optional[Path] = config_option(),
    as_json: bool = typer.Option(False, "--json", help="Print JSON instead of a table."),
) -> None:
    """Find FineMatch mismatches (aspect, phrase, correction) between an image and a prompt."""
    from autoalign.commands.score import load_images
    from autoalign.config import load_config
    from autoalign.detection import detect
    from autoalign.models.cache import Models
    from autoalign.scoring.scorer import Scorer

    cfg = load_config(preset, config)
    pil_image = load_images([image])[0]
    quiet_model_bars()
    models = Models(cfg)
    card = Scorer(models, cfg).score([pil_image], text)[0]
    mismatches = detect(pil_image, text, card, models, cfg)
    if as_json:
        payload = {
            "image": str(image),
            "text": text,
            "preset": cfg.name,
            "detectors": list(cfg.detection.detectors),
            "overall": card.overall,
            "mismatches": [{**m.to_dict(), "words": mismatch_words(m)} for m in mismatches],
        }
        say_scores_warning(cfg)
        typer.echo(json.dumps(payload, indent=2, default=str))
        return

    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    say_scores_warning(cfg)
    console = Console()
    console.print(Text(str(image), style="bold") + Text(f"  overall ({cfg.scoring.primary}) {card.overall:.3f}  "
                                                        f"detectors: {', '.join(cfg.detection.detectors)}"))
    if not mismatches:
        console.print("no mismatch found")
        return
    table = Table(show_header=True, header_style="bold")
    for col in ("aspect", "mismatch", "confidence", "source", "evidence"):
        table.add_column(col)
    for m in mismatches:
        table.add_row(clean_text(m.aspect), Text(mismatch_words(m)), f"{m.confidence:.3f}", clean_text(m.source),
                      Text(_evidence_summary(m.evidence)))
    console.print(table)
