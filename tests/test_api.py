"""The public Python API (autoalign.align / score / detect) as a notebook uses it.

The loop's logic is checked on the scene double preset (TEST DOUBLES that judge nothing: a known
scene drawn and read back); the tiny preset (random weights: its scores mean nothing) checks that
the same calls run real pipelines end to end.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from PIL import Image

import autoalign
from autoalign.config import ConfigError, load_config
from autoalign.doubles.scene import decode_scene, parse_scene, render_scene
from autoalign.errors import InputError
from autoalign.types import ASPECTS, Mismatch, RunResult, ScoreCard, StreamUpdate

PROMPT = "two red apples and a blue plate"


def test_importing_autoalign_loads_no_model_library():
    code = ("import sys, autoalign; heavy = [m for m in ('torch', 'PIL', 'diffusers', 'autoalign.api') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_align_fixes_the_image_and_returns_a_typed_result_with_the_final_picture(tmp_path):
    steps: list[StreamUpdate] = []
    result = autoalign.align(PROMPT, "scene-double", out_dir=tmp_path / "run", seed=0, candidates=1,
                             generator={"flaw": "count"}, on_step=steps.append)
    assert isinstance(result, RunResult) and result.run_dir == str(tmp_path / "run")
    assert result.stop_reason == "aligned" and result.rounds == 1 and result.mismatches_after == []
    assert result.mismatches_before[0].aspect == "number"
    assert result.scores.final > result.scores.first_best
    assert isinstance(result.image, Image.Image) and decode_scene(result.image) == parse_scene(PROMPT)
    assert [s.node for s in steps] == ["generate", "score", "detect", "instruct", "edit", "detect"]
    (record,) = result.round_records
    assert record.attempts[0].decision.accepted and record.attempts[0].instruction.text


def test_align_corrects_a_pil_image_given_instead_of_a_prompt_drawing(tmp_path):
    mine = render_scene(parse_scene("two green apples and a blue plate"))
    result = autoalign.align(PROMPT, "scene-double", image=mine, out_dir=tmp_path / "run")
    assert result.baseline.origin == "upload" and result.stop_reason == "aligned"
    assert decode_scene(result.image) == parse_scene(PROMPT)


def test_align_overrides_only_what_is_given(tmp_path):
    result = autoalign.align(PROMPT, "scene-double", out_dir=tmp_path / "run", max_rounds=0, generator={"flaw": "count"})
    preset = load_config("scene-double")
    assert result.max_rounds == 0 and result.stop_reason == "max_rounds" and result.rounds == 0
    stored = RunResult.load(tmp_path / "run")
    assert stored == result
    config = autoalign.api.resolve_config("scene-double", max_rounds=0)
    assert config.loop.candidates == preset.loop.candidates and config.loop.threshold == preset.loop.threshold


def test_align_takes_a_config_object_or_file(tmp_path):
    cfg = load_config("scene-double", overrides={"generator": {"flaw": "count"}, "loop": {"candidates": 1}})
    result = autoalign.align(PROMPT, config=cfg, out_dir=tmp_path / "a", max_rounds=2)
    assert result.preset == "scene-double" and result.max_rounds == 2 and result.stop_reason == "aligned"
    path = tmp_path / "mine.toml"
    path.write_text("[loop]\nmax_rounds = 0\ncandidates = 1\n")
    assert autoalign.api.resolve_config("scene-double", path).loop.max_rounds == 0


def test_bad_settings_and_inputs_are_refused_before_a_run_starts(tmp_path):
    with pytest.raises(ConfigError, match="unknown setting 'rounds'"):
        autoalign.align(PROMPT, "scene-double", out_dir=tmp_path / "a", rounds=2)
    with pytest.raises(ConfigError, match=r"candidates \(loop.candidates\) must be a whole number from 1 to 64"):
        autoalign.align(PROMPT, "scene-double", out_dir=tmp_path / "b", candidates=0)
    with pytest.raises(InputError, match="file not found"):
        autoalign.align(PROMPT, "scene-double", out_dir=tmp_path / "c", image=tmp_path / "missing.png")
    with pytest.raises(InputError, match="prompt is empty"):
        autoalign.align("  ", "scene-double", out_dir=tmp_path / "d")
    assert not any((tmp_path / name).exists() for name in "abcd")


def test_score_gives_one_card_per_image_and_ranks_the_right_scene_higher(tmp_path):
    right = render_scene(parse_scene(PROMPT))
    wrong_path = tmp_path / "wrong.png"
    render_scene(parse_scene("one red apple and a blue plate")).save(wrong_path)
    cards = autoalign.score([right, wrong_path], PROMPT, "scene-double")
    assert all(isinstance(c, ScoreCard) for c in cards) and len(cards) == 2
    assert cards[0].overall > cards[1].overall and cards[0].questions


def test_detect_names_the_wrong_count():
    wrong = render_scene(parse_scene("one red apple and a blue plate"))
    found = autoalign.detect(wrong, PROMPT, "scene-double")
    assert found and all(isinstance(m, Mismatch) for m in found)
    assert found[0].aspect == "number" and "apple" in found[0].phrase
    assert autoalign.detect(render_scene(parse_scene(PROMPT)), PROMPT, "scene-double") == []
    with pytest.raises(InputError, match="one image"):
        autoalign.detect([wrong, wrong], PROMPT, "scene-double")


@pytest.mark.slow
def test_the_tiny_preset_runs_align_score_and_detect_end_to_end(tmp_path):
    result = autoalign.align("a red apple", out_dir=tmp_path / "run", candidates=1, max_rounds=1, seed=1)
    assert result.preset == "tiny" and result.image.size == Image.open(tmp_path / "run" / "final.png").size
    assert result.rounds <= 1 and result.models["generator"] == "tiny:sd"
    (card,) = autoalign.score(result.image, "a red apple")
    assert card.overall == pytest.approx(result.scores.final, abs=1e-6)  # same models, same image, same score
    found = autoalign.detect(result.image, "a red apple")
    assert len(found) <= 3 and all(isinstance(m, Mismatch) and m.aspect in ASPECTS + ("text",) for m in found)
