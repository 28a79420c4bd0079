"""`autoalign models make-tiny` and `autoalign models list` through Typer's test runner."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import autoalign.commands.models  # noqa: F401  (registers the commands on the app)
from autoalign.cli_apps import app
from autoalign.errors import InputError
from autoalign.models import tiny

runner = CliRunner()


def test_make_tiny_builds_loads_back_and_prints_sizes(tmp_path):
    result = runner.invoke(app, ["models", "make-tiny", str(tmp_path), "--only", "clip", "--only", "sd"])
    assert result.exit_code == 0, result.output
    for name in ("clip", "sd"):
        assert tiny.is_built(tmp_path / name)
        assert name in result.output
    assert f"{tiny.param_count(tmp_path / 'clip'):,}" in result.output
    assert "MB" in result.output and "Loaded back OK" in result.output
    assert not (tmp_path / "ip2p").exists()


def test_make_tiny_unknown_name_is_a_user_error_listing_names(tmp_path):
    result = runner.invoke(app, ["models", "make-tiny", str(tmp_path), "--only", "nope"])
    assert isinstance(result.exception, InputError)
    assert "sd" in str(result.exception) and "blip2" in str(result.exception)


def test_list_shows_each_role_and_where_its_model_comes_from():
    result = runner.invoke(app, ["models", "list", "--preset", "tiny"])
    assert result.exit_code == 0, result.output
    for text in ("generator", "editor", "vqa", "clip", "tiny:sd", "tiny:ip2p", "tiny (", "open_clip"):
        assert text in result.output


def test_list_says_uncached_hub_models_are_missing_offline():
    result = runner.invoke(app, ["models", "list", "--preset", "sd-turbo"])
    assert result.exit_code == 0, result.output
    assert "stabilityai/sd-turbo" in result.output
    assert "missing: not in the HF cache" in result.output


@pytest.mark.parametrize("preset", ["no-such-preset"])
def test_list_unknown_preset_names_the_presets(preset):
    from autoalign.config import ConfigError

    result = runner.invoke(app, ["models", "list", "--preset", preset])
    assert isinstance(result.exception, ConfigError) and "tiny" in str(result.exception)
