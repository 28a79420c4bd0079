"""``python -m autoalign.ui``: the same as ``autoalign ui`` (see ``autoalign ui --help``).

It runs the ``ui`` command's own function, so the studio starts without importing the whole CLI.
"""

from __future__ import annotations

import typer

from autoalign.commands.ui import ui

if __name__ == "__main__":
    typer.run(ui)
