"""``autoalign models ...``: build the tiny models, list where each preset's models come from and
what they need, and download a preset's models."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from autoalign.cli_apps import CONFIG_HELP, DEVICE_OPT, PRESET_HELP, models_app
from autoalign.config import RoleSpec, load_config, preset_names
from autoalign.errors import AutoAlignError
from autoalign.models import catalog, loading


def _human_bytes(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"


@models_app.command("make-tiny")
def make_tiny(
    out_dir: Path = typer.Argument(..., help="Directory to build into (one sub-directory per model)."),
    only: Optional[list[str]] = typer.Option(
        None,
        "--only",
        help="Build only this model (repeatable; default: the tiny preset's sd, ip2p, clip, llava, blip2). Also: "
        "sdxl, sd3, flux, flux-kontext, qwen-image-edit, qwen2_5_vl, internvl.",
    ),
    force: bool = typer.Option(False, "--force", help="Rebuild models that are already built."),
) -> None:
    """Build tiny random-weight models in code, save them, and load each back through its backend."""
    from autoalign.models import tiny, tiny_check

    console = Console()
    with console.status("building tiny models..."):
        built = tiny_check.make_all(out_dir, names=only or None, force=force)
    table = Table(title="tiny models (random weights: outputs mean nothing)")
    for column in ("name", "path", "size on disk", "parameters"):
        table.add_column(column, justify="right" if column in ("size on disk", "parameters") else "left")
    for name, path in built.items():
        table.add_row(name, str(path), _human_bytes(tiny.disk_size(path)), f"{tiny.param_count(path):,}")
    console.print(table)
    console.print(f"Loaded back OK. Use them with model = \"{Path(out_dir).resolve()}/NAME\", or --preset tiny.")


@models_app.command("list")
def list_models(
    preset: Optional[list[str]] = typer.Option(None, "--preset", "-p", help=PRESET_HELP + " Repeatable; default: all."),
    results: Optional[Path] = typer.Option(
        None, "--results", help="Also write the 'what each preset needs' table as results JSON (docs/results shape)."),
) -> None:
    """List each preset's backends and model ids, and where each model would come from (loads nothing)."""
    from autoalign.config import MODEL_ROLES

    finder = catalog.SourceFinder()
    table = Table(title="presets and their models")
    for column in ("preset", "role", "backend", "model id", "source"):
        table.add_column(column, overflow="fold")
    rows = []
    for name in preset or preset_names():
        config = load_config(name)
        for i, role in enumerate(MODEL_ROLES):
            spec: RoleSpec = getattr(config, role)
            source = finder.source(role, spec)
            if role == "clip" and not catalog.clip_used(config):
                source += "; unused by this preset (scoring.clip = false)"
            table.add_row(
                config.name if i == 0 else "",
                role,
                spec.backend,
                finder.model_id(role, spec) or "-",
                source,
            )
        table.add_section()
        rows.append(catalog.preset_row(config))
    # A wide table: do not fold it to 80 columns when written to a pipe or a file.
    console = Console(width=None if sys.stdout.isatty() else 200)
    console.print(table)
    needs = Table(title="what each preset needs (GPU memory: an estimate, parameters x bytes x 1.2; host RAM: what "
                        "offloaded pipelines and CPU roles keep there; download: the loaders' files only)")
    for column in ("preset", "GPU memory (est.)", "host RAM (est.)", "download", "licences"):
        needs.add_column(column, overflow="fold")
    for row in rows:
        needs.add_row(*(escape(row[k]) for k in ("preset", "gpu_memory", "host_ram", "download", "licences")))
    console.print(needs)
    if results is not None:
        from autoalign.files import atomic_write_json

        command = "autoalign models list" + "".join(f" --preset {p}" for p in preset or []) + f" --results {results}"
        atomic_write_json(results, catalog.needs_results(rows, command))
        console.print(f"wrote {results}")


@models_app.command("check")
def check(
    preset_arg: Optional[str] = typer.Argument(None, metavar="[PRESET]", help="The preset (or use --preset)."),
    preset: Optional[str] = typer.Option(None, "--preset", "-p", help=PRESET_HELP),
    config: Optional[Path] = typer.Option(None, "--config", "-c", help=CONFIG_HELP),
    device: Optional[str] = DEVICE_OPT,
) -> None:
    """Check, before any GPU work, that this machine can run a preset: CUDA and driver, native bf16, GPU memory
    and host RAM against the preset's estimate, gated repos and login, complete model snapshots. One line per
    finding; exit code 2 when any fails. `run`, `batch` and `bench run` run the same checks first."""
    from autoalign.models import doctor

    if preset and preset_arg and preset != preset_arg:
        raise AutoAlignError(f"two presets given: {preset_arg!r} and --preset {preset!r}")
    name = preset or preset_arg
    if not name:
        raise AutoAlignError("name the preset to check: `autoalign models check PRESET` (see `autoalign models list`)")
    cfg = load_config(name, config, {"device": device} if device else None)
    findings = doctor.check(cfg)
    for finding in findings:
        typer.echo(finding.line())
    failed = doctor.failures(findings)
    if failed:
        raise AutoAlignError(f"preset {cfg.name!r} cannot run here: {len(failed)} check(s) failed (FAIL lines above)")
    typer.echo(f"preset {cfg.name!r}: ready")


@models_app.command("download")
def download(
    preset: str = typer.Option(..., "--preset", "-p", help=PRESET_HELP),
) -> None:
    """Fetch every hub model of a preset into the Hugging Face cache (resumable; local and tiny models skipped).

    Offline, it says which models are missing and how large they are instead.
    """
    from autoalign.models import download as downloader

    config = load_config(preset)
    console = Console(width=None if sys.stdout.isatty() else 200)
    hub = [m for m in catalog.preset_models(config) if m.repo]
    for model in catalog.preset_models(config):
        if not model.repo:
            console.print(f"skipping {model.role} model {model.model_id!r}: not a hub model (local or tiny)")
    if not hub:
        console.print(f"preset {config.name!r} has no hub models to download")
        return
    if not loading.hub_reachable():
        missing = catalog.missing_models(config)
        if not missing:
            console.print(f"every hub model of preset {config.name!r} is complete in the local Hugging Face cache")
            return
        raise AutoAlignError(catalog.missing_message(config, missing))
    results = downloader.download_preset(config)
    table = Table(title=f"preset {config.name}: models in the Hugging Face cache")
    for column in ("role", "repo", "files", "size", "stored at / problem"):
        table.add_column(column, overflow="fold")
    for r in results:
        table.add_row(r.role, r.repo, str(r.files), _human_bytes(r.bytes) if r.path else "-", r.path or f"FAILED: {r.error}")
    console.print(table)
    failed = [r for r in results if r.error]
    if failed:
        raise AutoAlignError(
            f"{len(failed)} of {len(results)} model(s) of preset {config.name!r} could not be downloaded: "
            + "; ".join(f"{r.repo}: {r.error}" for r in failed)
        )
