"""Pipeline options a preset sets for real checkpoints: scheduler, safety checker, negative prompts, offload."""

from __future__ import annotations

import logging
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

from autoalign.config import ConfigError, RoleSpec, load_config
from autoalign.models import generator as generator_module
from autoalign.models.editor import InstructPix2PixEditor, MagicBrushEditor
from autoalign.models.generator import DiffusersGenerator, SafetyBlanked, place_pipeline
from autoalign.models.loading import DeviceSpec

CPU = DeviceSpec("cpu", "float32")


def test_a_preset_scheduler_replaces_the_models_own():
    gen = DiffusersGenerator(
        RoleSpec("diffusers", "tiny:sd", {"scheduler": "EulerAncestralDiscreteScheduler", "num_inference_steps": 2,
                                          "height": 32, "width": 32}),
        CPU,
    )
    assert type(gen.pipe.scheduler).__name__ == "EulerAncestralDiscreteScheduler"
    assert gen.pipe.scheduler.config.beta_schedule == "scaled_linear"  # built from the model's own config
    assert len(gen.generate("a red cube", n=1, seed=0)) == 1


def test_magicbrush_preset_samples_with_euler_ancestral():
    config = load_config("sd15-magicbrush")
    assert config.editor.backend == "magicbrush"
    assert config.editor.options["scheduler"] == "EulerAncestralDiscreteScheduler"
    editor = MagicBrushEditor(RoleSpec("magicbrush", "tiny:ip2p", {**config.editor.options, "num_inference_steps": 1,
                                                                    "resolution": 32}), CPU)
    assert type(editor.pipe.scheduler).__name__ == "EulerAncestralDiscreteScheduler"


@pytest.mark.parametrize("name, match", [("NoSuchScheduler", "not a diffusers scheduler"),
                                         ("FlowMatchEulerDiscreteScheduler", "does not fit")])
def test_an_unknown_or_unfit_scheduler_is_a_config_error_listing_compatible_ones(name, match):
    gen = DiffusersGenerator(RoleSpec("diffusers", "tiny:sd", {"scheduler": name}), CPU)
    with pytest.raises(ConfigError, match=match) as info:
        gen.pipe  # noqa: B018
    assert "EulerAncestralDiscreteScheduler" in str(info.value)


def test_sd_turbo_style_guidance_warns_that_the_negative_prompt_is_ignored(caplog):
    gen = DiffusersGenerator(
        RoleSpec("diffusers", "tiny:sd", {"guidance_scale": 0.0, "num_inference_steps": 1, "height": 32, "width": 32}),
        CPU,
    )
    with caplog.at_level(logging.WARNING, logger="autoalign.models.generator"):
        (plain,) = gen.generate("a red cube", n=1, seed=2)
        (negated,) = gen.generate("a red cube", n=1, seed=2, negative_prompt="blurry")
        gen.generate("a red cube", n=1, seed=2, negative_prompt="blurry")
    warnings = [r for r in caplog.records if "negative prompt is ignored" in r.getMessage()]
    assert len(warnings) == 1 and "guidance_scale = 0.0" in warnings[0].getMessage()
    assert np.array_equal(np.asarray(plain), np.asarray(negated))


def test_with_guidance_the_negative_prompt_is_used_without_a_warning(caplog):
    gen = DiffusersGenerator(
        RoleSpec("diffusers", "tiny:sd", {"guidance_scale": 5.0, "num_inference_steps": 1, "height": 32, "width": 32}),
        CPU,
    )
    with caplog.at_level(logging.WARNING, logger="autoalign.models.generator"):
        gen.generate("a red cube", n=1, seed=2, negative_prompt="blurry")
    assert not [r for r in caplog.records if "negative prompt" in r.getMessage()]


def test_safety_checker_false_loads_the_pipeline_without_it(monkeypatch):
    from diffusers import DiffusionPipeline

    seen: dict = {}
    original = DiffusionPipeline.from_pretrained.__func__

    def recording(cls, path, **kwargs):
        seen.update(kwargs)
        return original(cls, path, **kwargs)

    monkeypatch.setattr(DiffusionPipeline, "from_pretrained", classmethod(recording))
    gen = DiffusersGenerator(RoleSpec("diffusers", "tiny:sd", {"safety_checker": False}), CPU)
    assert gen.pipe.safety_checker is None
    assert seen["safety_checker"] is None and seen["requires_safety_checker"] is False
    with pytest.raises(ConfigError, match="safety_checker must be true or false"):
        DiffusersGenerator(RoleSpec("diffusers", "tiny:sd", {"safety_checker": "off"}), CPU).pipe  # noqa: B018


class SafetyPipeDouble:
    """A pipeline test double whose safety checker 'blanks' the draws of chosen seeds (black image, flag set)."""

    def __init__(self, blanked_seeds: set[int]):
        self.blanked_seeds = blanked_seeds
        self.calls: list[list[int]] = []

    def __call__(self, prompt, num_images_per_prompt, generator, output_type, **kwargs):
        seeds = [g.initial_seed() for g in generator]
        self.calls.append(seeds)
        flags = [s in self.blanked_seeds for s in seeds]
        images = [Image.new("RGB", (8, 8), (0, 0, 0) if f else (s, 100, 100)) for s, f in zip(seeds, flags)]
        return SimpleNamespace(images=images, nsfw_content_detected=flags)


def _generator_with(pipe, **options) -> DiffusersGenerator:
    gen = DiffusersGenerator(RoleSpec("diffusers", "tiny:sd", options), CPU)
    gen._pipe = pipe
    return gen


def test_a_blanked_image_is_recorded_redrawn_and_never_returned():
    pipe = SafetyPipeDouble(blanked_seeds={11})
    gen = _generator_with(pipe)
    images = gen.generate("a cat", n=3, seed=10)
    assert [im.info["seed"] for im in images] == [10, 14, 12]  # candidate 1 redrawn from seed 11 + 3
    assert all(im.getpixel((0, 0)) != (0, 0, 0) for im in images)
    assert gen.blanked == [{"what": "a cat", "seed": 11}]
    assert pipe.calls == [[10, 11, 12], [14]]


def test_an_image_blanked_on_every_redraw_raises_and_names_the_option():
    gen = _generator_with(SafetyPipeDouble(blanked_seeds={5, 6, 7}), safety_retries=2)
    with pytest.raises(SafetyBlanked, match="safety_checker = false"):
        gen.generate("a cat", n=1, seed=5)
    assert [b["seed"] for b in gen.blanked] == [5, 6, 7]


def test_the_editor_redraws_blanked_samples_too():
    class EditPipeDouble(SafetyPipeDouble):
        vae_scale_factor = 8

        def __call__(self, prompt, image, num_images_per_prompt, generator, output_type, **kwargs):
            return super().__call__(prompt, len(generator), generator, output_type)

    editor = InstructPix2PixEditor(RoleSpec("instruct-pix2pix", "tiny:ip2p", {"resolution": 16}), CPU)
    editor._pipe = EditPipeDouble(blanked_seeds={20})
    samples = editor.edit(Image.new("RGB", (16, 16), "white"), "make it red", n=2, seed=20)
    assert [s.info["seed"] for s in samples] == [22, 21] and editor.blanked == [{"what": "make it red", "seed": 20}]


class OffloadPipeDouble:
    def __init__(self):
        self.calls: list[tuple] = []

    def enable_model_cpu_offload(self, device=None):
        self.calls.append(("model", device))

    def enable_sequential_cpu_offload(self, device=None):
        self.calls.append(("sequential", device))

    def to(self, device):
        self.calls.append(("to", device))
        return self


@pytest.mark.parametrize("offload", ["model", "sequential"])
def test_cpu_offload_hooks_replace_moving_the_pipeline_to_the_gpu(offload):
    pipe = OffloadPipeDouble()
    assert place_pipeline(pipe, DeviceSpec("cuda:1", "bfloat16"), offload, "editor") is pipe
    assert pipe.calls == [(offload, "cuda:1")]


def test_offload_on_cpu_warns_and_just_moves_the_pipeline(caplog):
    pipe = OffloadPipeDouble()
    with caplog.at_level(logging.WARNING, logger=generator_module.__name__):
        place_pipeline(pipe, CPU, "model", "editor")
    assert pipe.calls == [("to", "cpu")] and "needs a CUDA device" in caplog.text


def test_sd_turbo_downloads_the_fp16_weights():
    assert load_config("sd-turbo").generator.options["variant"] == "fp16"
