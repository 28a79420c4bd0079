"""Command-line entry point: ``autoalign ...``. The one place that wires every part together."""

from __future__ import annotations

import logging
import os
import sqlite3
import sys

from autoalign.cli_apps import app
from autoalign.errors import AutoAlignError
from autoalign.files import storage_error

# Each module registers its commands on the apps in ``autoalign.cli_apps``.
_COMMAND_MODULES = (
    "run",
    "models",
    "score",
    "detect",
    "bench_meta",
    "bench_finematch",
    "bench_suite",
    "batch",
    "ui",
    "world",
    "questions",
)


def _load_commands() -> None:
    import importlib

    for name in _COMMAND_MODULES:
        importlib.import_module(f"autoalign.commands.{name}")


def main(argv: list[str] | None = None) -> None:
    logging.basicConfig(
        level=os.environ.get("AUTOALIGN_LOG", "WARNING").upper(),
        format="%(levelname)s %(name)s: %(message)s",
    )
    _load_commands()
    try:
        app(args=argv, standalone_mode=True)
    except AutoAlignError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    except (OSError, sqlite3.Error) as exc:  # a full disk or a read-only file system: one line, not a traceback
        message = storage_error(exc)
        if message is None:
            raise
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
