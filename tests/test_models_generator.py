"""The diffusers generator on the tiny pipeline: seed-deterministic, validated, lazy, offline-safe."""

from __future__ import annotations

import time

import numpy as np
import pytest

from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import InputError
from autoalign.models.generator import DiffusersGenerator
from autoalign.models.loading import DeviceSpec, ModelNotAvailable, resolve_model

CPU = DeviceSpec("cpu", "float32")
TINY_OPTIONS = {"num_inference_steps": 2, "guidance_scale": 5.0, "height": 64, "width": 48}


def make(model: str = "tiny:sd", **options) -> DiffusersGenerator:
    return DiffusersGenerator(RoleSpec("diffusers", model, {**TINY_OPTIONS, **options}), CPU)


@pytest.fixture(scope="module")
def generator() -> DiffusersGenerator:
    return make()


def pixels(image) -> np.ndarray:
    return np.asarray(image, dtype=np.int16)


def test_images_have_the_configured_size_and_count(generator):
    images = generator.generate("a red cube", n=3, seed=0)
    assert len(images) == 3
    assert all(im.size == (48, 64) and im.mode == "RGB" for im in images)


def test_same_seed_gives_identical_images(generator):
    a = generator.generate("a red cube", n=2, seed=11)
    b = generator.generate("a red cube", n=2, seed=11)
    assert all((pixels(x) == pixels(y)).all() for x, y in zip(a, b))


def test_different_seeds_give_different_images(generator):
    a, b = generator.generate("a red cube", n=2, seed=11)
    (c,) = generator.generate("a red cube", n=1, seed=99)
    assert np.abs(pixels(a) - pixels(b)).mean() > 1.0
    assert np.abs(pixels(a) - pixels(c)).mean() > 1.0


def test_candidate_i_does_not_depend_on_n():
    one_at_a_time = make(batch_size=1)
    three = one_at_a_time.generate("a red cube", n=3, seed=5)
    (third_alone,) = one_at_a_time.generate("a red cube", n=1, seed=7)
    assert (pixels(three[2]) == pixels(third_alone)).all()


def test_batched_candidates_match_single_ones_up_to_rounding(generator):
    # In one batch, float math may round differently than alone: at most a level or two of 255.
    batched = generator.generate("a red cube", n=3, seed=5)
    (alone,) = generator.generate("a red cube", n=1, seed=7)
    assert np.abs(pixels(batched[2]) - pixels(alone)).max() <= 2


def test_concurrent_calls_from_threads_match_sequential_ones(generator):
    from concurrent.futures import ThreadPoolExecutor

    expected = [pixels(im) for im in generator.generate("a red cube", n=1, seed=21)]
    with ThreadPoolExecutor(max_workers=3) as pool:
        results = list(pool.map(lambda _: generator.generate("a red cube", n=1, seed=21), range(3)))
    assert all((pixels(r[0]) == expected[0]).all() for r in results)


def test_negative_prompt_changes_the_image(generator):
    (plain,) = generator.generate("a red cube", n=1, seed=3)
    (negated,) = generator.generate("a red cube", n=1, seed=3, negative_prompt="blurry, green")
    assert np.abs(pixels(plain) - pixels(negated)).max() > 0


def test_prompt_token_limit_and_count_allow_truncation_warnings(generator):
    assert generator.max_prompt_tokens() == 77
    short = generator.count_prompt_tokens("a red cube")
    long = generator.count_prompt_tokens("a red cube and " * 40)
    assert 5 <= short <= 8  # <start> a red cube <end>; the tiny BPE may split a word in two
    assert long > generator.max_prompt_tokens()


@pytest.mark.parametrize(
    ("prompt", "n", "seed", "field"),
    [("", 1, 0, "prompt"), ("   ", 1, 0, "prompt"), ("a cat", 0, 0, "n"), ("a cat", 1, -1, "seed"), ("a cat", 1.5, 0, "n")],
)
def test_bad_arguments_raise_input_errors_naming_the_field(generator, prompt, n, seed, field):
    with pytest.raises(InputError, match=field):
        generator.generate(prompt, n=n, seed=seed)


def test_unknown_option_is_a_config_error_listing_allowed_options():
    gen = make(num_inference_stepz=3)
    with pytest.raises(ConfigError) as info:
        gen.generate("a cat", n=1, seed=0)
    assert "num_inference_stepz" in str(info.value) and "num_inference_steps" in str(info.value)


def test_construction_loads_no_weights():
    gen = make("/nonexistent/model-dir")  # would fail on load
    assert gen._pipe is None
    with pytest.raises(ModelNotAvailable, match="/nonexistent/model-dir"):
        gen.generate("a cat", n=1, seed=0)


def test_unknown_hub_id_offline_fails_fast_naming_the_model():
    start = time.monotonic()
    with pytest.raises(ModelNotAvailable, match="nobody-here/no-such-model"):
        resolve_model("nobody-here/no-such-model", "generator")
    with pytest.raises(ModelNotAvailable, match="nobody-here/no-such-model"):
        make("nobody-here/no-such-model").generate("a cat", n=1, seed=0)
    assert time.monotonic() - start < 5.0


def test_a_preset_naming_the_diffusers_backend_gets_this_generator():
    from autoalign.config import load_config
    from autoalign.models.cache import Models

    generator = Models(load_config("tiny", overrides={"generator": {"backend": "diffusers"}})).generator
    assert type(generator) is DiffusersGenerator
