"""The knobs a diffusers user expects (--device, --dtype, --steps, --guidance-scale, --negative-prompt,
--width, --height) and the editor's guidance map onto one set of config fields for run, batch, bench and the
studio (autoalign.settings, one declaration each); batch --seed."""

from __future__ import annotations

import json

import pytest

from autoalign.config import ConfigError, load_config
from autoalign.settings import MODEL_FLAGS, SETTINGS, overrides
from autoalign.ui.settings import StudioSettings

ALL_KNOBS = {"device": "cpu", "dtype": "float32", "steps": 3, "guidance_scale": 2.5,
             "negative_prompt": "blurry", "width": 96, "height": 64, "edit_guidance_scale": 6.0,
             "image_guidance_scale": 1.25}
EXPECTED = {"device": "cpu", "dtype": "float32",
            "generator": {"num_inference_steps": 3, "guidance_scale": 2.5, "negative_prompt": "blurry",
                          "width": 96, "height": 64},
            "editor": {"guidance_scale": 6.0, "image_guidance_scale": 1.25}}
FLAGS = ["--device", "cpu", "--dtype", "float32", "--steps", "3", "--guidance-scale", "2.5",
         "--negative-prompt", "blurry", "--width", "96", "--height", "64", "--edit-guidance-scale", "6",
         "--image-guidance-scale", "1.25"]


def test_each_knob_maps_to_one_config_field():
    assert overrides(ALL_KNOBS) == EXPECTED
    assert overrides(dict.fromkeys(ALL_KNOBS)) == {}
    assert set(MODEL_FLAGS) == set(ALL_KNOBS)
    assert overrides({"seed": 4, **ALL_KNOBS}) == {"loop": {"seed": 4}, **EXPECTED}
    paths = [s.path for s in SETTINGS.values() if s.path]
    assert len(paths) == len(set(paths))  # one setting per config field


def test_the_studio_uses_the_same_mapping():
    cfg = StudioSettings(preset="tiny", values=ALL_KNOBS).to_config()
    assert (cfg.device, cfg.dtype) == ("cpu", "float32")
    assert {k: cfg.generator.options[k] for k in EXPECTED["generator"]} == EXPECTED["generator"]
    assert {k: cfg.editor.options[k] for k in EXPECTED["editor"]} == EXPECTED["editor"]
    untouched = StudioSettings(preset="tiny").to_config()  # empty knobs keep the preset's values
    assert untouched.generator.options == load_config("tiny").generator.options


@pytest.mark.parametrize(
    ("knob", "value", "message"),
    [
        ("width", 100, r"--width \(generator.width\) must be a multiple of 8 from 8 to 4096 \(got 100\); diffusers"),
        ("height", 0, r"--height \(generator.height\) must be a multiple of 8"),
        ("steps", 0, r"--steps \(generator.num_inference_steps\) must be a whole number from 1 to 200"),
        ("steps", 2.5, "--steps .* must be a whole number"),
        ("guidance_scale", -1, r"--guidance-scale \(generator.guidance_scale\) must be a number in \[0, 50\]"),
        ("image_guidance_scale", 0.1, r"--image-guidance-scale \(editor.image_guidance_scale\) must be a number in \[0.5, 10\]"),
        ("dtype", "float8", "--dtype must be one of auto, float32, float16, bfloat16"),
        ("device", "gpu0", "--device must be one of auto, cpu, cuda, mps, cuda:N"),
    ],
)
def test_bad_knob_values_are_refused_naming_the_flag(knob, value, message):
    with pytest.raises(ConfigError, match=message):
        overrides({knob: value})


def test_run_flags_reach_the_run_configuration(tmp_path, cli):
    out = tmp_path / "run"
    code, stdout, _ = cli("run", "two red apples", "--preset", "scene-double", "--out", str(out),
                          "--candidates", "1", "--quiet", "--json", *FLAGS)
    assert code == 0
    stored = json.loads((out / "config.json").read_text())["config"]
    assert (stored["device"], stored["dtype"]) == ("cpu", "float32")
    assert {k: stored["generator"]["options"][k] for k in EXPECTED["generator"]} == EXPECTED["generator"]
    assert {k: stored["editor"]["options"][k] for k in EXPECTED["editor"]} == EXPECTED["editor"]
    from PIL import Image

    with Image.open(out / "candidates" / "cand_00.png") as im:
        assert im.size == (96, 64)  # the scene double draws at the configured size
    assert json.loads(stdout)["preset"] == "scene-double"


def test_a_bad_run_flag_is_a_one_line_error_and_writes_nothing(tmp_path, cli):
    out = tmp_path / "run"
    code, _, err = cli("run", "two red apples", "--preset", "scene-double", "--out", str(out), "--width", "100")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "--width" in err
    assert not out.exists()


def test_batch_takes_the_knobs_and_a_seed(tmp_path, cli):
    prompts = tmp_path / "prompts.csv"
    prompts.write_text("prompt,seed\ntwo red apples,\nthree blue cups,5\n", encoding="utf-8")
    out = tmp_path / "batch"
    code, _, err = cli("batch", str(prompts), "--out", str(out), "--preset", "scene-double", "--seed", "11",
                       "--candidates", "1", "--max-rounds", "1", "--no-progress", "--no-report", *FLAGS)
    assert code == 0, err
    rows = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines() if line.strip()]
    seeds = {r["prompt"]: r["seed"] for r in rows}
    assert seeds == {"two red apples": 11, "three blue cups": 5}  # a row's own seed wins over --seed
    run_configs = list(out.rglob("config.json"))
    assert run_configs
    for path in run_configs:
        stored = json.loads(path.read_text())["config"]
        assert stored["generator"]["options"]["width"] == 96 and stored["device"] == "cpu"


def test_bench_run_takes_the_knobs(tmp_path, cli):
    suite = tmp_path / "suite.csv"
    suite.write_text("prompt,category\ntwo red apples,count\n", encoding="utf-8")
    out = tmp_path / "bench"
    code, _, err = cli("bench", "run", "--suite", str(suite), "--preset", "scene-double", "--out", str(out),
                       "--candidates", "1", "--max-rounds", "1", "--no-progress", *FLAGS)
    assert code == 0, err
    meta = json.loads((out / "bench.json").read_text())
    assert meta["config"]["generator"]["options"]["num_inference_steps"] == 3
    assert meta["config"]["generator"]["options"]["negative_prompt"] == "blurry"
