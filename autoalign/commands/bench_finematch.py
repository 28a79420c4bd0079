"""``autoalign bench finematch``: ITM-IoU of mismatch triplets on a FineMatch-style JSON-lines file.

With ``--predictions`` it scores saved predictions (no model is loaded); otherwise it runs the
preset's detectors on every image and scores what they find (``--out`` saves those predictions).
"""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path
from typing import Optional

import typer

from autoalign.cli_apps import bench_app, config_option, preset_option
from autoalign.errors import InputError


def _versions() -> dict[str, str]:
    out = {}
    for pkg in ("autoalign", "sacrebleu", "bert-score"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = "not installed"
    return out


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"


@bench_app.command("finematch")
def finematch(
    data: Path = typer.Option(..., "--data", help="FineMatch JSON lines: {id, image, caption, mismatches:[{class, phrase, correction}]}."),
    images: Optional[Path] = typer.Option(None, "--images", help="Folder the 'image' fields are relative to (needed without --predictions)."),
    predictions: Optional[Path] = typer.Option(None, "--predictions", help="Saved predictions (JSON lines {id, mismatches}); no model is loaded."),
    semantic_sim: str = typer.Option("bertscore", "--semantic-sim", help="Semantic similarity: bertscore (bert-base-uncased) or chrf."),
    bertscore_model: str = typer.Option("bert-base-uncased", "--bertscore-model", help="BERTScore model: hub id or local directory."),
    threshold: float = typer.Option(0.55, "--threshold", help="Match threshold T of ITM-IoU."),
    preset: str = preset_option(),
    config: Optional[Path] = config_option(),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the detectors' predictions here (JSON lines)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of tables."),
) -> None:
    """Score FineMatch mismatch triplets with ITM-IoU (Mismatch Detection and Detection & Correction)."""
    from autoalign.benchmarks import finematch as fm
    from autoalign.detection.itm_iou import SEMANTIC_SIMS
    from autoalign.detection.itm_iou import semantic_sim as make_sim

    if semantic_sim not in SEMANTIC_SIMS:
        raise InputError(f"--semantic-sim must be one of {', '.join(SEMANTIC_SIMS)} (got {semantic_sim!r})")
    if not 0.0 < threshold <= 1.0:
        raise InputError(f"--threshold must be in (0, 1] (got {threshold})")
    items = fm.load_items(data)
    run_info: dict = {}
    if predictions is not None:
        preds = fm.load_predictions(predictions)
        source = str(predictions)
    else:
        if images is None:
            raise InputError("--images DIR is needed to run the detectors (or pass --predictions PRED.jsonl)")
        if not images.is_dir():
            raise InputError(f"--images {images}: not a folder")
        from autoalign.config import load_config
        from autoalign.models.cache import Models

        cfg = load_config(preset, config)
        preds = fm.predict(items, images, Models(cfg), cfg, progress=not as_json)
        source = f"preset {cfg.name}"
        run_info = {"preset": cfg.name, "config_hash": cfg.hash(), "detectors": list(cfg.detection.detectors), "seed": cfg.loop.seed}
        if out is not None:
            from autoalign.files import atomic_write_text

            atomic_write_text(out, "".join(json.dumps({"id": i, "mismatches": t}) + "\n" for i, t in preds.items()))
    sim = make_sim(semantic_sim, model=bertscore_model) if semantic_sim == "bertscore" else make_sim(semantic_sim)
    report = fm.score(items, preds, sim, semantic_name=semantic_sim, threshold=threshold)
    report.update({"data": str(data), "predictions": source, "versions": _versions(), **run_info})

    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return

    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(
        f"[bold]FineMatch[/] {data} - {report['n']} pairs, predictions from {source}, "
        f"semantic similarity {semantic_sim}, T = {threshold:g}"
    )
    console.print(
        f"ITM-IoU  Mismatch Detection [bold]{report['itm_iou_md']:.2f}[/]   "
        f"Detection & Correction [bold]{report['itm_iou_mdc']:.2f}[/]   (0-100, higher is better)"
    )
    if report["missing_predictions"]:
        console.print(f"[yellow]{report['missing_predictions']} item(s) had no prediction (counted as predicted aligned)[/]")
    table = Table(title="detection per class (matched at >= T, Mismatch Detection mode)", header_style="bold")
    for col in ("class", "precision", "recall", "predicted", "true"):
        table.add_column(col)
    for cls, row in report["per_class"].items():
        table.add_row(cls, _fmt(row["precision"]), _fmt(row["recall"]), str(row["n_pred"]), str(row["n_true"]))
    console.print(table)
