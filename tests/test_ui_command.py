"""``autoalign ui`` and ``python -m autoalign.ui``: local by default, sharing only when asked."""

from __future__ import annotations

import subprocess
import sys

import pytest
from typer.testing import CliRunner

import autoalign.commands.ui  # noqa: F401  (registers the command)
import autoalign.ui.app as ui_app
from autoalign.cli_apps import app


@pytest.fixture()
def launched(monkeypatch):
    calls = []
    monkeypatch.setattr(ui_app, "launch", lambda demo, **kw: calls.append((demo, kw)))
    return calls


def test_ui_listens_on_localhost_without_sharing_by_default(launched, tmp_path):
    result = CliRunner().invoke(app, ["ui", "--runs-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    demo, kwargs = launched[0]
    assert kwargs == {"host": "127.0.0.1", "port": None, "share": False}
    assert demo.autoalign_runs_dir == tmp_path


def test_ui_host_port_and_share_are_opt_in_flags(launched):
    result = CliRunner().invoke(app, ["ui", "--host", "0.0.0.0", "--port", "7999", "--share", "--preset", "tiny"])
    assert result.exit_code == 0, result.output
    demo, kwargs = launched[0]
    assert kwargs == {"host": "0.0.0.0", "port": 7999, "share": True}
    config_box = next(b for b in demo.blocks.values() if getattr(b, "label", "") and "Config file" in b.label)
    assert config_box.visible is False  # a shared studio does not read files on its server


def test_unknown_preset_is_refused_naming_the_choices(launched):
    result = CliRunner().invoke(app, ["ui", "--preset", "no-such-preset"])
    assert result.exit_code != 0 and not launched
    assert "preset must be one of" in str(result.exception)


def test_python_dash_m_autoalign_ui_is_the_same_command():
    out = subprocess.run([sys.executable, "-m", "autoalign.ui", "--help"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "--host" in out.stdout and "127.0.0.1" in out.stdout and "--share" in out.stdout
