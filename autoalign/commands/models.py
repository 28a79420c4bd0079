"""``autoalign models ...``: build the tiny models, and list where each preset's models come from."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from autoalign.cli_apps import PRESET_HELP, models_app
from autoalign.config import RoleSpec, load_config, preset_names
from autoalign.models import loading

# Roles whose model is weights to load (the others are a spaCy package and an API).
WEIGHT_ROLES = ("generator", "editor", "vqa", "clip")


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
        None, "--only", help="Build only this model (repeatable): sd, ip2p, clip, llava, blip2."
    ),
    force: bool = typer.Option(False, "--force", help="Rebuild models that are already built."),
) -> None:
    """Build tiny random-weight models in code, save them, and load each back through its backend."""
    from autoalign.models import tiny

    console = Console()
    with console.status("building tiny models..."):
        built = tiny.make_all(out_dir, names=only or None, force=force)
    table = Table(title="tiny models (random weights: outputs mean nothing)")
    for column in ("name", "path", "size on disk", "parameters"):
        table.add_column(column, justify="right" if column in ("size on disk", "parameters") else "left")
    for name, path in built.items():
        table.add_row(name, str(path), _human_bytes(tiny.disk_size(path)), f"{tiny.param_count(path):,}")
    console.print(table)
    console.print(f"Loaded back OK. Use them with model = \"{Path(out_dir).resolve()}/NAME\", or --preset tiny.")


class _SourceFinder:
    """Says where a role's model would come from, without loading weights (hub reachability checked once)."""

    def __init__(self) -> None:
        self._reachable: bool | None = None

    def hub_reachable(self) -> bool:
        if self._reachable is None:
            self._reachable = loading.hub_reachable()
        return self._reachable

    def model_id(self, role: str, spec: RoleSpec) -> str | None:
        if spec.model or role not in ("editor", "clip"):
            return spec.model
        if role == "editor":
            from autoalign.models.editor import InstructPix2PixEditor, MagicBrushEditor

            defaults = {"instruct-pix2pix": InstructPix2PixEditor, "magicbrush": MagicBrushEditor}
            cls = defaults.get(spec.backend)
            return cls.default_model if cls else None
        from autoalign.models.clip import DEFAULT_MODEL

        return DEFAULT_MODEL if spec.backend == "open_clip" else None

    def source(self, role: str, spec: RoleSpec) -> str:
        model_id = self.model_id(role, spec)
        if "double" in spec.backend.lower():
            return "test double in code (no weights; judges nothing)"
        if role == "llm" or spec.backend == "openai":
            return "API (OpenAI-compatible endpoint; OPENAI_BASE_URL, AUTOALIGN_LLM_MODEL)"
        if role == "questions":
            if not model_id:
                return "no model"
            found = importlib.util.find_spec(model_id) is not None
            return "installed Python package" if found else f"missing: pip install {model_id}"
        if not model_id:
            return "missing: no model set in the preset"
        if model_id.startswith(loading.TINY_PREFIX):
            from autoalign.models import tiny

            name = model_id[len(loading.TINY_PREFIX) :]
            if name not in tiny.TINY_MODELS:
                return f"missing: unknown tiny model {name!r} (known: {', '.join(tiny.TINY_MODELS)})"
            path = loading.tiny_dir() / name
            state = "built locally at" if tiny.is_built(path) else "built on first use at"
            return f"tiny ({state} {path})"
        if Path(model_id).expanduser().is_dir():
            return "local directory"
        if model_id.startswith(("/", "./", "../", "~")):
            return "missing: directory does not exist"
        repo = model_id.removeprefix("hf-hub:")
        if role == "clip":
            from autoalign.config import ConfigError
            from autoalign.models.clip import hub_repo_for

            try:
                repo = hub_repo_for(model_id) or repo
            except ConfigError as exc:
                return f"missing: {exc}"
        if loading.in_hf_cache(repo):
            return "HF cache"
        if self.hub_reachable():
            return "hub download (needs network)"
        offline = " (HF_HUB_OFFLINE=1)" if loading.hub_offline() else ""
        return f"missing: not in the HF cache and the hub is unreachable{offline}"


def _clip_used(config) -> bool:
    """Whether a run of ``config`` asks the CLIP role for a score (the Scorer's ``scoring.clip``)."""
    return bool(config.scoring.clip) or config.scoring.primary == "clip"


def missing_models(config, roles: tuple[str, ...] = WEIGHT_ROLES + ("questions",)) -> list[str]:
    """``"role: why"`` for each of ``roles`` whose model cannot be had now (loads nothing).

    Commands call this before they create anything, so an offline run of a real preset stops with
    one line instead of leaving a half-made run directory behind.
    """
    finder = _SourceFinder()
    missing = []
    for role in roles:
        source = finder.source(role, getattr(config, role))
        if source.startswith("missing:"):
            model = finder.model_id(role, getattr(config, role)) or "(none)"
            missing.append(f"{role} model {model}: {source.removeprefix('missing:').strip()}")
    return missing


@models_app.command("list")
def list_models(
    preset: Optional[list[str]] = typer.Option(None, "--preset", "-p", help=PRESET_HELP + " Repeatable; default: all."),
) -> None:
    """List each preset's backends and model ids, and where each model would come from (loads nothing)."""
    from autoalign.config import MODEL_ROLES

    finder = _SourceFinder()
    table = Table(title="presets and their models")
    for column in ("preset", "role", "backend", "model id", "source"):
        table.add_column(column, overflow="fold")
    for name in preset or preset_names():
        config = load_config(name)
        for i, role in enumerate(MODEL_ROLES):
            spec: RoleSpec = getattr(config, role)
            source = finder.source(role, spec)
            if role == "clip" and not _clip_used(config):
                source += "; unused by this preset (scoring.clip = false)"
            table.add_row(
                config.name if i == 0 else "",
                role,
                spec.backend,
                finder.model_id(role, spec) or "-",
                source,
            )
        table.add_section()
    # A wide table: do not fold it to 80 columns when written to a pipe or a file.
    Console(width=None if sys.stdout.isatty() else 200).print(table)
