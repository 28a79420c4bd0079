"""InstructPix2Pix / MagicBrush editing on the tiny pipeline: any input size and mode, n samples at once."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import InputError
from autoalign.models.editor import InstructPix2PixEditor, MagicBrushEditor, to_rgb, working_size
from autoalign.models.loading import DeviceSpec

CPU = DeviceSpec("cpu", "float32")
TINY_OPTIONS = {"num_inference_steps": 2, "guidance_scale": 7.5, "image_guidance_scale": 1.5, "resolution": 64}


def make(cls=InstructPix2PixEditor, model: str | None = "tiny:ip2p", **options):
    return cls(RoleSpec(cls.__name__, model, {**TINY_OPTIONS, **options}), CPU)


@pytest.fixture(scope="module")
def editor() -> InstructPix2PixEditor:
    return make()


class RecordingPipe:
    """A test double wrapping the real pipeline: records each call's keyword arguments, then delegates."""

    def __init__(self, pipe):
        self._pipe = pipe
        self.calls: list[dict] = []

    def __call__(self, **kwargs):
        self.calls.append(kwargs)
        return self._pipe(**kwargs)

    def __getattr__(self, name):
        return getattr(self._pipe, name)


@pytest.mark.parametrize(
    "image",
    [
        Image.new("RGB", (77, 131), (200, 40, 40)),
        Image.new("RGBA", (131, 77), (0, 200, 0, 120)),
        Image.new("L", (50, 50), 128),
        Image.new("P", (40, 61)),
        Image.new("RGB", (300, 90), (10, 10, 200)),
    ],
    ids=["rgb-77x131", "rgba-131x77", "grey-50x50", "palette-40x61", "rgb-wider-than-resolution"],
)
def test_edits_come_back_in_the_input_size_as_rgb(editor, image):
    out = editor.edit(image, "make it blue", n=2, seed=0)
    assert len(out) == 2
    assert all(im.size == image.size and im.mode == "RGB" for im in out)


def test_n_samples_are_made_in_one_batched_call_at_a_multiple_of_8(editor):
    recorder = RecordingPipe(editor.pipe)
    editor._pipe = recorder
    try:
        out = editor.edit(Image.new("RGB", (77, 131)), "add a hat", n=3, seed=4)
    finally:
        editor._pipe = recorder._pipe
    assert len(out) == 3 and len(recorder.calls) == 1
    sent = recorder.calls[0]["image"]
    assert len(sent) == 3
    width, height = sent[0].size
    assert width % 8 == 0 and height % 8 == 0 and max(width, height) <= 64


def test_same_seed_same_edits_and_samples_differ(editor):
    image = Image.new("RGB", (64, 64), (120, 120, 0))
    a = editor.edit(image, "make it night", n=2, seed=9)
    b = editor.edit(image, "make it night", n=2, seed=9)
    assert all((np.asarray(x) == np.asarray(y)).all() for x, y in zip(a, b))
    assert np.abs(np.asarray(a[0], dtype=np.int16) - np.asarray(a[1], dtype=np.int16)).mean() > 1.0


@pytest.mark.parametrize("instruction", ["", "   ", None])
def test_empty_instruction_is_an_input_error(editor, instruction):
    with pytest.raises(InputError, match="instruction"):
        editor.edit(Image.new("RGB", (32, 32)), instruction, n=1, seed=0)


def test_non_image_and_bad_n_are_input_errors(editor):
    with pytest.raises(InputError, match="image"):
        editor.edit("cat.png", "make it blue", n=1, seed=0)
    with pytest.raises(InputError, match="n must"):
        editor.edit(Image.new("RGB", (32, 32)), "make it blue", n=0, seed=0)


@pytest.mark.parametrize(
    ("size", "resolution", "expected"),
    [((77, 131), 64, (40, 64)), ((131, 77), 64, (64, 40)), ((512, 512), 512, (512, 512)), ((64, 64), 512, (512, 512)),
     ((1000, 10), 512, (512, 8)), ((640, 480), 500, (496, 368))],
)
def test_working_size_keeps_aspect_with_sides_multiple_of_8(size, resolution, expected):
    assert working_size(size, resolution) == expected


def test_rgba_is_composited_on_white():
    clear = Image.new("RGBA", (4, 4), (0, 0, 0, 0))
    assert to_rgb(clear).getpixel((0, 0)) == (255, 255, 255)


def test_default_checkpoints_per_backend_without_loading():
    assert make(InstructPix2PixEditor, model=None).model_id == "timbrooks/instruct-pix2pix"
    magic = make(MagicBrushEditor, model=None)
    assert magic.model_id == "vinesmsuic/magicbrush-jul7" and magic._pipe is None


def test_bad_resolution_is_a_config_error():
    with pytest.raises(ConfigError, match="resolution"):
        make(resolution=4)


@pytest.mark.parametrize(("backend", "cls"), [("instruct-pix2pix", InstructPix2PixEditor), ("magicbrush", MagicBrushEditor)])
def test_a_preset_naming_either_editor_backend_gets_that_editor(backend, cls):
    from autoalign.config import load_config
    from autoalign.models.cache import Models

    editor = Models(load_config("tiny", overrides={"editor": {"backend": backend}})).editor
    assert type(editor) is cls
