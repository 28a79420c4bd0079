"""Golden slices of the tiny pipelines (diffusers' ``expected_slice`` style): a silent change in what
the generator or the editor draws, for the same seed, fails here.

The tiny models have random (seeded, reproducible) weights, so the pictures mean nothing; what is
pinned is that the same preset, prompt and seed give the same pixels. The slice is the last 3x3
pixels of the blue channel, in [0, 1], compared with a tolerance of two 8-bit steps (CPU kernels of
other torch builds may round differently). If a change to the tiny models or the pipelines is meant
to change the output, update the numbers from the failure message.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from autoalign.config import load_config
from autoalign.models.cache import Models

pytestmark = pytest.mark.slow
TOLERANCE = 2 / 255

GENERATOR_SLICE = [0.5176, 0.4902, 0.5412, 0.4353, 0.5098, 0.5569, 0.4863, 0.5765, 0.5529]
GENERATOR_MEAN = 0.5415
EDITOR_SLICE = [0.5882, 0.5490, 0.5333, 0.5294, 0.5412, 0.5373, 0.5216, 0.5608, 0.5373]
EDITOR_MEAN = 0.5514


def _slice(image: Image.Image) -> tuple[np.ndarray, float]:
    pixels = np.asarray(image.convert("RGB"), dtype=np.float32) / 255.0
    return pixels[-3:, -3:, -1].flatten(), float(pixels.mean())


@pytest.fixture(scope="module")
def models():
    return Models(load_config("tiny"))


def test_tiny_generator_draws_the_same_pixels_for_the_same_seed(models):
    (image,) = models.generator.generate("two red apples on a blue plate", n=1, seed=0)
    assert image.size == (64, 64)
    got, mean = _slice(image)
    assert np.allclose(got, GENERATOR_SLICE, atol=TOLERANCE), np.round(got, 4).tolist()
    assert abs(mean - GENERATOR_MEAN) < TOLERANCE, mean


def test_tiny_editor_edits_to_the_same_pixels_for_the_same_seed(models):
    source = Image.new("RGB", (64, 64), (200, 30, 30))
    (image,) = models.editor.edit(source, "make it blue", n=1, seed=0)
    assert image.size == source.size
    got, mean = _slice(image)
    assert np.allclose(got, EDITOR_SLICE, atol=TOLERANCE), np.round(got, 4).tolist()
    assert abs(mean - EDITOR_MEAN) < TOLERANCE, mean


def test_another_seed_draws_other_pixels(models):
    """The slice would catch a change: a different seed is far outside the tolerance."""
    (image,) = models.generator.generate("two red apples on a blue plate", n=1, seed=1)
    got, _ = _slice(image)
    assert not np.allclose(got, GENERATOR_SLICE, atol=TOLERANCE)
