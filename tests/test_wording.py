"""What AutoAlign says about model output: sanitised text, mismatches in words, and the one warning
for presets whose scores mean nothing (random weights, test doubles)."""

from __future__ import annotations

import pytest

from autoalign.config import load_config
from autoalign.types import Mismatch
from autoalign.wording import clean_text, mismatch_words, scores_warning

GIBBERISH = "nchch\ufffd tre\x00e\x07rs \x1b[31mred\x1b[0m\u202eevil\u202c\n\tnext\x85line\x7f \ud800x"


def test_clean_text_drops_replacement_and_control_characters_and_escape_sequences():
    text = clean_text(GIBBERISH)
    assert "\ufffd" not in text and "\x1b" not in text and "\u202e" not in text
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in text)
    assert "\ud800" not in text
    assert text == "nchch tre e rs redevil next line x"


def test_clean_text_keeps_ordinary_unicode_and_cuts_with_an_ellipsis():
    assert clean_text("café · ★ 東京 “quoted”") == "café · ★ 東京 “quoted”"
    assert clean_text("a" * 50, max_chars=10) == "a" * 9 + "…"
    assert clean_text(None) == ""


@pytest.mark.parametrize(
    ("mismatch", "words"),
    [
        (Mismatch("attribute", "blue", "pink"), "asked for blue, image shows pink"),
        ({"aspect": "number", "phrase": "two apples", "correction": "one apple"}, "asked for two apples, image shows one apple"),
        ({"aspect": "entity", "phrase": "a cat", "correction": ""}, "asked for a cat, image does not show it"),
        ({"aspect": "entity", "phrase": "a cat", "correction": "none"}, "asked for a cat, image does not show it"),
        ({"aspect": "entity", "phrase": "a cat", "correction": "dog\ufffd\x1b[0m"}, "asked for a cat, image shows dog"),
    ],
)
def test_mismatch_says_what_was_asked_and_what_the_image_shows(mismatch, words):
    assert mismatch_words(mismatch) == words
    assert "->" not in words and "→" not in words


def test_mismatch_words_can_name_the_aspect():
    assert mismatch_words(Mismatch("attribute", "blue", "pink"), aspect=True) == "attribute: asked for blue, image shows pink"


def test_the_tiny_preset_declares_random_weights_and_gets_the_warning():
    cfg = load_config("tiny")
    assert cfg.random_weights is True
    warning = scores_warning(cfg)
    assert "random-weight" in warning and "mean nothing" in warning and "'tiny'" in warning
    assert scores_warning(cfg.to_dict()) == warning  # a stored config dict reads the same


def test_the_scene_double_declares_test_doubles_and_gets_its_own_warning():
    cfg = load_config("scene-double")
    assert cfg.test_double is True
    warning = scores_warning(cfg)
    assert "test doubles" in warning and "judge nothing" in warning and "random-weight" not in warning


def test_real_presets_get_no_warning():
    for name in ("sd-turbo", "sd15-magicbrush"):
        assert scores_warning(load_config(name)) == ""


def test_the_flag_alone_is_enough_and_old_configs_without_it_are_caught_by_their_models():
    flagged = load_config("sd-turbo", overrides={"random_weights": True})
    assert "random-weight" in scores_warning(flagged)
    old = load_config("tiny").to_dict()
    old.pop("random_weights")  # a run stored before the flag existed
    assert "random-weight" in scores_warning(old)
    real_judge = load_config("tiny", overrides={"random_weights": False, "vqa": {"model": "/models/qwen"},
                                                "clip": {"model": "/models/clip"}})
    assert scores_warning(real_judge) == ""  # tiny generator/editor only: the judges are real


def test_a_non_boolean_flag_is_refused():
    from autoalign.config import ConfigError

    with pytest.raises(ConfigError, match="random_weights must be true or false"):
        load_config("tiny", overrides={"random_weights": "yes"})


def test_an_unsure_object_is_said_as_unclear():
    from autoalign.types import Mismatch

    m = Mismatch("attribute", "red square", "red square", 0.3, "layout", {"unsure": True, "boxes": []})
    assert mismatch_words(m) == "asked for red square, image shows an unclear red square"
    assert mismatch_words(m.to_dict(), aspect=True) == "attribute: asked for red square, image shows an unclear red square"
