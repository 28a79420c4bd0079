"""``autoalign ui``: serve the Gradio studio (local only unless told otherwise)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console

from autoalign.cli_apps import app, preset_option
from autoalign.settings import STUDIO_PRESET


def ui(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on; 0.0.0.0 exposes the studio to your network."),
    port: Optional[int] = typer.Option(None, "--port", help="Port (default: Gradio's, 7860 or the next free one)."),
    preset: str = preset_option(STUDIO_PRESET, short=False),
    runs_dir: Optional[Path] = typer.Option(None, "--runs-dir", help="Where runs are written (default: a temp dir)."),
    share: bool = typer.Option(False, "--share", help="Also open a public gradio.live link (off by default)."),
) -> None:
    """Open the studio: type a prompt, watch the loop draw, check and correct the image."""
    from autoalign.ui.app import build_app, launch

    local_only = host in ("127.0.0.1", "localhost", "::1") and not share
    # the "config file" box reads server paths: only for a studio its owner alone can reach
    demo = build_app(preset, runs_dir, server_config_files=local_only)
    Console().print(f"AutoAlign studio: preset [bold]{preset}[/], runs in {demo.autoalign_runs_dir}")
    launch(demo, host=host, port=port, share=share)


app.command("ui")(ui)
