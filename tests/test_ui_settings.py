"""The studio's settings map onto the preset's fields; bad values are refused naming the field."""

from __future__ import annotations

import pytest

from autoalign.config import ConfigError, LoopSettings, load_config, load_preset_dict
from autoalign.ui.settings import KNOBS, StudioSettings, preset_defaults


def test_studio_settings_override_the_preset():
    values = {"candidates": 3, "max_rounds": 1, "threshold": 0.65, "seed": 7, "image_guidance_scale": 2.0}
    cfg = StudioSettings(preset="tiny", values=values).to_config()
    assert (cfg.loop.candidates, cfg.loop.max_rounds, cfg.loop.threshold, cfg.loop.seed) == (3, 1, 0.65, 7)
    assert cfg.editor.options["image_guidance_scale"] == 2.0
    assert cfg.writer == "template"


def test_preset_defaults_are_the_presets_own_values():
    data = load_preset_dict("tiny")
    d = preset_defaults("tiny")
    assert set(d) == set(KNOBS)
    assert d["candidates"] == data["loop"]["candidates"]
    assert d["max_rounds"] == data["loop"]["max_rounds"]
    assert d["image_guidance_scale"] == data["editor"]["image_guidance_scale"]
    assert (d["steps"], d["width"], d["device"]) == (2, 64, "cpu")
    assert "seed" not in data["loop"] and d["seed"] == LoopSettings().seed  # left out by the preset: the library's
    shapes = preset_defaults("shapes")
    assert (shapes["threshold"], shapes["candidates"], shapes["steps"]) == (1.95, 4, 20)


def test_settings_left_unset_keep_the_presets_values():
    assert StudioSettings(preset="scene-double").to_config() == load_config("scene-double")
    assert StudioSettings(preset="tiny").overrides() == {}
    assert StudioSettings(preset="tiny", values={"device": "", "negative_prompt": "", "steps": None}).overrides() == {}


@pytest.mark.parametrize("preset", ["shapes", "tiny", "scene-double"])
def test_the_values_the_page_shows_make_the_presets_own_config(preset):
    shown = preset_defaults(preset)
    on_page = StudioSettings(preset=preset, values=dict(shown))
    # valid as shown even when every knob is sent (threshold 1.95 on shapes is inside CLIPScore's range)
    assert on_page.to_config().loop == load_config(preset).loop
    assert on_page.changed_from(shown).overrides() == {}


def test_the_page_sends_only_the_knobs_the_artist_moved(tmp_path):
    """A config file's loop fields are not overridden by sliders left where the preset put them."""
    path = tmp_path / "mine.toml"
    path.write_text("[loop]\ncandidates = 5\nmax_rounds = 4\n")
    shown = preset_defaults("tiny")
    on_page = StudioSettings(preset="tiny", values={**shown, "max_rounds": 1.0, "seed": float(shown["seed"])},
                             config_file=str(path))
    sent = on_page.changed_from(shown)
    assert sent.overrides() == {"loop": {"max_rounds": 1}}
    cfg = sent.to_config()
    assert (cfg.loop.candidates, cfg.loop.max_rounds) == (5, 1)  # the file's candidates, the artist's rounds


def test_config_file_fields_apply_under_the_studio_settings(tmp_path):
    path = tmp_path / "mine.toml"
    path.write_text('[loop]\npatience = 5\ncandidates = 8\n[scoring]\nprimary = "clip"\n')
    cfg = StudioSettings(preset="tiny", values={"candidates": 2}, config_file=str(path)).to_config()
    assert cfg.loop.patience == 5 and cfg.scoring.primary == "clip"
    assert cfg.loop.candidates == 2  # what the artist set on the page wins


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"values": {"writer": "poet"}}, "writer must be one of llm, template"),
        ({"values": {"image_guidance_scale": 0}}, r"image_guidance_scale \(editor.image_guidance_scale\) must be a number in \[0.5, 10\]"),
        ({"values": {"candidates": 0}}, r"candidates \(loop.candidates\) must be a whole number from 1 to 64"),
        ({"values": {"width": 1_000_000_000}}, r"width \(generator.width\) must be a multiple of 8 from 8 to 4096"),
        ({"preset": "tiny", "values": {"threshold": 1.5}}, r"loop.threshold \(scoring.primary 'vq2'\) must be a number in \[0, 1\]"),
        ({"config_file": "/nonexistent/overrides.toml"}, "config file not found"),
        ({"preset": "no-such-preset"}, "unknown preset"),
    ],
)
def test_bad_settings_are_refused_naming_the_field(kwargs, match):
    with pytest.raises(ConfigError, match=match):
        StudioSettings(**kwargs).to_config()


def test_a_malformed_yaml_config_file_is_a_readable_settings_error(tmp_path):
    bad = tmp_path / "mine.yaml"
    bad.write_text("loop:\n  candidates: [1, 2\n")
    with pytest.raises(ConfigError, match=r"cannot parse .*mine\.yaml"):
        StudioSettings(preset="tiny", config_file=str(bad)).to_config()
