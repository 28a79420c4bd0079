"""``autoalign batch PROMPTS --out DIR --preset P``: durable batch correction (local or Ray), with a bench-style report."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table
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
from autoalign.wording import clean_text


@app.command("batch")
def batch(
    prompts: Path = typer.Argument(..., help="A .txt (one prompt a line), .csv or .jsonl file with a 'prompt' column or field."),
    out: Path = typer.Option(..., "--out", "-o", help="Batch directory (ledger, images, manifest). Rerun to resume."),
    preset: str = typer.Option("tiny", "--preset", "-p", help=PRESET_HELP),
    config: Optional[Path] = typer.Option(None, "--config", "-c", help=CONFIG_HELP),
    engine: str = typer.Option("local", "--engine", help="local | ray"),
    address: Optional[str] = typer.Option(None, "--address", help="Ray cluster address (default: start Ray locally)."),
    workers: Optional[int] = typer.Option(None, "--workers", help="Ray actors (default: one per GPU, or 1 on CPU)."),
    gpus_per_worker: Optional[float] = typer.Option(None, "--gpus-per-worker", help="GPUs per Ray actor (default 1 when GPUs exist)."),
    retries: int = typer.Option(1, "--retries", help="Extra attempts for a failing item in each invocation."),
    limit: Optional[int] = typer.Option(None, "--limit", help="Only the first N items (after --shard)."),
    shard: Optional[str] = typer.Option(None, "--shard", help="i/n: only the items whose id hashes to shard i of n."),
    candidates: Optional[int] = typer.Option(None, "--candidates", help="Override loop.candidates."),
    max_rounds: Optional[int] = typer.Option(None, "--max-rounds", help="Override loop.max_rounds."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Seed of items without their own 'seed' (loop.seed)."),
    device: Optional[str] = DEVICE_OPT,
    dtype: Optional[str] = DTYPE_OPT,
    steps: Optional[int] = STEPS_OPT,
    guidance_scale: Optional[float] = GUIDANCE_OPT,
    negative_prompt: Optional[str] = NEGATIVE_OPT,
    width: Optional[int] = WIDTH_OPT,
    height: Optional[int] = HEIGHT_OPT,
    no_progress: bool = typer.Option(False, "--no-progress", help="No progress bar."),
    no_report: bool = typer.Option(
        False, "--no-report", help="Skip the benchmark report (results.jsonl, summary.json/md, report.html)."
    ),
) -> None:
    """Correct every prompt of a file; failures are recorded and skipped; rerun to resume.

    Afterwards the finished items are scored like 'bench run' (baseline, best-of-N, corrected) and
    summary.json, summary.md and report.html are written into the batch directory (--no-report
    skips this; a rerun only evaluates newly finished items). A row's own seed and negative_prompt
    win over --seed and --negative-prompt.
    """
    from autoalign.agents.batch import run_batch
    from autoalign.config import load_config

    cfg = load_config(preset, config, flag_overrides(
        seed=seed, candidates=candidates, max_rounds=max_rounds, device=device, dtype=dtype, steps=steps,
        guidance_scale=guidance_scale, negative_prompt=negative_prompt, width=width, height=height))
    quiet_model_bars()
    report_paths: dict = {}

    def write_reports(_report: object) -> None:
        """The evaluation and reports, written while the batch still holds its directory (no gap)."""
        if not no_report:
            from autoalign.benchmarks.batch_report import write_batch_reports

            # Models are cached per process, so the evaluation reuses the weights the batch loaded.
            report_paths.update(write_batch_reports(out, cfg, prompts_file=prompts, progress=not no_progress))

    report = run_batch(
        prompts,
        out,
        cfg,
        engine=engine,
        retries=retries,
        limit=limit,
        shard=shard,
        address=address,
        workers=workers,
        gpus_per_worker=gpus_per_worker,
        progress=not no_progress,
        then=write_reports,
    )
    console = Console(stderr=True)
    for bad in report.bad_rows:  # printed here only (the library logs them at INFO)
        console.print(Text(f"line {bad['line']}", style="yellow") + Text(f": {clean_text(bad['error'])}"))
    for changed in report.changed:  # a row whose content changed under the same id ran again (docs/outputs.md)
        console.print(Text(f"line {changed['line']}", style="yellow")
                      + Text(f": id {clean_text(repr(changed['id']))} changed since it ran (prompt, seed or negative prompt); ran again"))
    table = Table(title=f"batch {out} ({report.engine})")
    for col in ("selected", "succeeded", "failed", "skipped (done before)", "bad rows", "wall s"):
        table.add_column(col, justify="right")
    table.add_row(
        str(report.selected),
        str(report.succeeded),
        str(report.failed),
        str(report.skipped),
        str(len(report.bad_rows)),
        f"{report.wall_s:.1f}",
    )
    Console().print(table)
    if report_paths:
        Console().print(f"reports: {', '.join(str(report_paths[k]) for k in ('summary.json', 'summary.md', 'report.html'))}")
    say_scores_warning(cfg)
    raise typer.Exit(report.exit_code)
