"""Test-wide settings: never touch a model hub; build tiny models once per session in a temp home."""

from __future__ import annotations

import os
import tempfile

# Set before anything imports huggingface_hub / transformers / diffusers.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# One tiny-model home per test session (AUTOALIGN_TEST_HOME reuses one across sessions to save time).
os.environ["AUTOALIGN_HOME"] = os.environ.get("AUTOALIGN_TEST_HOME") or tempfile.mkdtemp(prefix="autoalign-test-")

# The OpenAI-compatible stub server fixture (a real HTTP server on 127.0.0.1), for every test module.
# ---------------------------------------------------------------- optional checks on the shared data
# The project's workspace keeps public benchmark text copies in ../shared/data (DrawBench, EditBench,
# GenEval, T2I-CompBench, SeeTRUE). A user's clone has no such folder: every test builds the small
# files it needs itself, and the checks against the full copies run only when this one variable names
# that folder (AUTOALIGN_TEST_SHARED_DATA=../shared/data python -m pytest). Without it they are
# deselected, never skipped, so `pytest -ra` reports no skip for missing data.
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from openai_stub import openai_stub  # noqa: E402,F401

SHARED_DATA_ENV = "AUTOALIGN_TEST_SHARED_DATA"


def shared_data_dir() -> Path | None:
    value = os.environ.get(SHARED_DATA_ENV, "").strip()
    return Path(value).expanduser() if value else None


def pytest_configure(config):
    config.addinivalue_line(
        "markers", f"shared_data: an optional slow check on the shared benchmark copies (set {SHARED_DATA_ENV})"
    )


def pytest_collection_modifyitems(config, items):
    folder = shared_data_dir()
    if folder is not None:
        if not folder.is_dir():
            raise pytest.UsageError(f"{SHARED_DATA_ENV}={folder}: not a folder (point it at ../shared/data)")
        return
    kept, dropped = [], []
    for item in items:
        (dropped if item.get_closest_marker("shared_data") else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.fixture
def shared_data() -> Path:
    """The shared benchmark copies (only tests marked ``shared_data`` use it; they run only when set)."""
    folder = shared_data_dir()
    assert folder is not None, f"tests using shared_data must be marked @pytest.mark.shared_data ({SHARED_DATA_ENV})"
    return folder


@pytest.fixture
def cli(capsys):
    """The ``autoalign`` command in this process: ``code, out, err = cli("run", PROMPT, "--preset", ...)``
    (the exit code, and what it printed to stdout and stderr)."""
    from autoalign.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run
