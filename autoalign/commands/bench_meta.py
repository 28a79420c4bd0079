"""``autoalign bench meta``: how well VQ2 / VNLI / CLIPScore agree with human labels (SeeTRUE ROC AUC)
and Winoground-style text / image / group scores on paired data. See ``autoalign.benchmarks.meta``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from autoalign.cli_apps import bench_app, config_option, preset_option
from autoalign.errors import InputError


def _fmt(value) -> str:
    return "undefined" if value is None else f"{value:.3f}"


@bench_app.command("meta")
def meta(
    labels: Optional[Path] = typer.Option(
        None, "--labels", help="SeeTRUE-format CSV: image,text,label,original_dataset_id,dataset_source."
    ),
    images: Path = typer.Option(..., "--images", help="Directory the CSV's image names are relative to."),
    pairs: Optional[Path] = typer.Option(
        None, "--pairs", help="Winoground-style CSV: id,image_0,image_1,caption_0,caption_1 (caption_k describes image_k)."
    ),
    scorer: str = typer.Option("vq2", "--scorer", help="vq2 | vnli | clip"),
    preset: str = preset_option(),
    config: Optional[Path] = config_option(),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N rows of each CSV."),
    out: Optional[Path] = typer.Option(
        None, "--out", help="Write the report as JSON here; per-row scores go beside it (OUT.rows.jsonl) so a rerun resumes."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON instead of tables."),
    no_progress: bool = typer.Option(False, "--no-progress", help="No progress bar."),
) -> None:
    """ROC AUC of a score against human labels, per dataset source; Winoground-style pair scores."""
    from autoalign.benchmarks.meta import SCORERS, run_labels, run_pairs
    from autoalign.config import load_config

    if labels is None and pairs is None:
        raise InputError("give --labels FILE.csv and/or --pairs FILE.csv")
    if scorer not in SCORERS:
        raise InputError(f"--scorer must be one of {', '.join(SCORERS)} (got {scorer!r})")
    if limit is not None and limit < 1:
        raise InputError(f"--limit must be >= 1 (got {limit})")
    cfg = load_config(preset, config)
    report: dict = {}
    if labels is not None:
        rows_path = out.with_name(out.name + ".rows.jsonl") if out else None
        report["labels"] = run_labels(labels, images, cfg, scorer, limit=limit, rows_path=rows_path, progress=not no_progress)
    if pairs is not None:
        rows_path = out.with_name(out.name + ".pairs.jsonl") if out else None
        report["pairs"] = run_pairs(pairs, images, cfg, scorer, limit=limit, rows_path=rows_path, progress=not no_progress)
    if out:
        from autoalign.files import atomic_write_json

        atomic_write_json(out, report)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
        return

    from rich.console import Console
    from rich.table import Table

    console = Console()
    if "labels" in report:
        r = report["labels"]
        table = Table(title=f"{scorer} vs human labels: ROC AUC (higher is better, 0.5 = chance)")
        for col in ("source", "rows", "scored", "pos/neg", "missing", "unscored", "ROC AUC"):
            table.add_column(col)
        for name, s in [*r["sources"].items(), ("overall", r["overall"])]:
            table.add_row(
                name, str(s["n"]), str(s["n_scored"]), f"{s['n_pos']}/{s['n_neg']}", str(s["n_missing"]),
                str(s["n_unscored"]), _fmt(s["auc"]),
            )
        console.print(table)
        if r["overall"]["n_missing"]:
            first = r["missing"][0]
            console.print(f"[yellow]{r['overall']['n_missing']} row(s) without a readable image[/] (first: {first['image']}: {first['status']})")
    if "pairs" in report:
        r = report["pairs"]
        table = Table(title=f"{scorer} on paired data (Winoground-style; higher is better)")
        for col in ("pairs", "scored", "missing", "text", "image", "group"):
            table.add_column(col)
        table.add_row(str(r["n"]), str(r["n_scored"]), str(r["n_missing"]), _fmt(r["text_score"]), _fmt(r["image_score"]), _fmt(r["group_score"]))
        console.print(table)
    if out:
        console.print(f"report: {out}")
