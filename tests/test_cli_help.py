"""Every command's --help reads cleanly: flags show no value type, no raw backticks, the knobs are listed."""

from __future__ import annotations

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from autoalign import cli
from autoalign.cli_apps import app

cli._load_commands()
runner = CliRunner()


def _command_paths() -> list[list[str]]:
    """Every leaf command as its argv prefix: ["run"], ["bench", "run"], ["models", "list"], ..."""
    root = get_command(app)
    paths: list[list[str]] = []

    def walk(command, prefix):
        subs = getattr(command, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*prefix, name])
        else:
            paths.append(prefix)

    walk(root, [])
    return paths


COMMANDS = _command_paths()


def test_every_command_is_covered():
    names = {" ".join(p) for p in COMMANDS}
    assert {"run", "score", "detect", "batch", "ui", "bench run", "bench audit", "models list"} <= names


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) for p in COMMANDS])
def test_help_has_no_bool_placeholder_and_no_raw_backticks(path):
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert result.exit_code == 0, result.output
    assert "<bool>" not in result.output
    assert "`" not in result.output
    assert "--help" in result.output


@pytest.mark.parametrize("path", [["run"], ["batch"], ["bench", "run"], ["bench", "audit"]])
def test_model_commands_list_the_diffusers_knobs(path):
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    for flag in ("--device", "--dtype", "--steps", "--guidance-scale", "--negative-prompt", "--width", "--height"):
        assert flag in result.output, flag


def test_run_help_offers_quiet_and_json_and_batch_help_offers_seed():
    assert "--quiet" in runner.invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    assert "--json" in runner.invoke(app, ["run", "--help"], env={"COLUMNS": "200"}).output
    assert "--seed" in runner.invoke(app, ["batch", "--help"], env={"COLUMNS": "200"}).output
