"""The current model families run their exact code path on tiny models built in code.

Generators SDXL(-Turbo), SD 3.5 and FLUX.1 through the ``diffusers`` generator; editors FLUX.1 Kontext
and Qwen-Image-Edit through the ``diffusers-edit`` editor, which takes whatever image-conditioned
pipeline a preset names. The weights are random: the tests check the machinery (pipeline class,
sizes, seeds), never the pictures.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from autoalign.config import ConfigError, RoleSpec
from autoalign.models.editor import DiffusersEditor
from autoalign.models.generator import DiffusersGenerator
from autoalign.models.loading import DeviceSpec

CPU = DeviceSpec("cpu", "float32")

GENERATORS = {
    # tiny model: (pipeline class, options as the real preset sets them, at tiny size)
    "sdxl": ("StableDiffusionXLPipeline", {"guidance_scale": 0.0}),  # SDXL-Turbo: no CFG
    "sd3": ("StableDiffusion3Pipeline", {"guidance_scale": 4.5}),
    "flux": ("FluxPipeline", {"guidance_scale": 0.0, "max_sequence_length": 32}),  # schnell
}
EDITORS = {
    "flux-kontext": ("FluxKontextPipeline", {"guidance_scale": 2.5, "_auto_resize": False, "max_area": 32 * 32}),
    "qwen-image-edit": ("QwenImageEditPipeline", {"true_cfg_scale": 4.0, "negative_prompt": " "}),
}


def pixels(image) -> np.ndarray:
    return np.asarray(image, dtype=np.int16)


@pytest.mark.parametrize("name", sorted(GENERATORS))
def test_generator_families_draw_seeded_images_of_the_asked_size(name):
    cls_name, options = GENERATORS[name]
    gen = DiffusersGenerator(
        RoleSpec("diffusers", f"tiny:{name}", {"num_inference_steps": 2, "height": 32, "width": 32, **options}), CPU
    )
    first = gen.generate("a red cube on a blue table", n=2, seed=3)
    assert type(gen.pipe).__name__ == cls_name
    assert [im.size for im in first] == [(32, 32), (32, 32)]
    assert [im.info["seed"] for im in first] == [3, 4]
    (again,) = gen.generate("a red cube on a blue table", n=1, seed=4)
    assert np.abs(pixels(first[1]) - pixels(again)).max() <= 2  # candidate i depends on seed + i only
    assert np.abs(pixels(first[0]) - pixels(first[1])).mean() > 0.5


@pytest.mark.parametrize("name", sorted(EDITORS))
def test_editor_families_return_n_samples_of_the_input_size(name):
    cls_name, options = EDITORS[name]
    editor = DiffusersEditor(
        RoleSpec("diffusers-edit", f"tiny:{name}", {"num_inference_steps": 2, "resolution": 32, **options}), CPU
    )
    source = Image.new("RGBA", (40, 30), (200, 30, 30, 255))
    samples = editor.edit(source, "make the cube blue", n=2, seed=7)
    assert type(editor.pipe).__name__ == cls_name
    assert [s.size for s in samples] == [(40, 30), (40, 30)] and all(s.mode == "RGB" for s in samples)
    assert [s.info["seed"] for s in samples] == [7, 8]


def test_the_editor_loads_the_pipeline_class_a_preset_names():
    # FluxKontextPipeline from a directory whose model_index.json says FluxKontextPipeline: the named class wins
    editor = DiffusersEditor(
        RoleSpec(
            "diffusers-edit",
            "tiny:flux-kontext",
            {"pipeline": "FluxKontextPipeline", "num_inference_steps": 1, "resolution": 32, "_auto_resize": False},
        ),
        CPU,
    )
    assert type(editor.pipe).__name__ == "FluxKontextPipeline"
    with pytest.raises(ConfigError, match="not a diffusers pipeline"):
        DiffusersEditor(RoleSpec("diffusers-edit", "tiny:flux-kontext", {"pipeline": "NoSuchPipeline"}), CPU).pipe  # noqa: B018 - loading raises
