"""The world's inpainting recipe (issue 37): two CPU steps write a folder that StableDiffusionInpaintPipeline
loads, with a 9-channel UNet that starts as the committed generator, and the region editor runs it."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from autoalign.config import RoleSpec
from autoalign.models.loading import DeviceSpec
from autoalign.types import Box, LayoutOp
from autoalign.world.render import draw, scene_for
from autoalign.world.scene import parse_caption

CPU = DeviceSpec("cpu", "float32")


@pytest.fixture(scope="module")
def inpaint_weights(tmp_path_factory):
    from autoalign.world.training import recipes

    out = tmp_path_factory.mktemp("world-inpaint")
    stats = recipes.train("inpaint", out, seed=0, resume=False, steps=2, progress=False)
    assert stats["steps"] == 2 and stats["loss"] > 0
    return out / "inpaint"


def test_object_masks_cover_the_object_and_name_it():
    from autoalign.world.training.train_inpaint import mask_and_caption, object_box, object_phrase

    spec = parse_caption("two red circles")
    scene = scene_for(spec, 0)
    o = scene.objects[0]
    assert object_phrase(o, False) == "a red circle" and object_phrase(o, True) == f"a {o.size} red circle"
    seen = set()
    for seed in range(40):
        mask, caption = mask_and_caption(spec, scene, 64, random.Random(seed))
        m = np.asarray(mask) > 127
        assert m.any() and not m.all()
        if caption != spec.caption():  # an object's mask, captioned with its phrase: one object lies inside it
            assert caption in ("a red circle", *(f"a {p.size} red circle" for p in scene.objects))
            boxes = [tuple(int(round(v)) for v in object_box(p)) for p in scene.objects]
            assert any(m[y0:y1, x0:x1].all() for x0, y0, x1, y1 in boxes)
            seen.add("object")
        else:
            seen.add("rectangle")
    assert seen == {"object", "rectangle"}  # both kinds of mask are drawn


@pytest.mark.slow
def test_two_steps_write_a_nine_channel_inpainting_pipeline(inpaint_weights):
    import torch
    from diffusers import StableDiffusionInpaintPipeline

    from autoalign.models.loading import world_model_dir
    from autoalign.models.region_editor import InpaintRegionEditor

    card = json.loads((inpaint_weights / "MODEL_CARD.json").read_text())
    assert card["name"] == "inpaint" and card["plan"]["steps"] == 2 and card["initialised_from"] == "world:generator"
    pipe = StableDiffusionInpaintPipeline.from_pretrained(inpaint_weights, torch_dtype=torch.float32)
    assert pipe.unet.config.in_channels == 9 and pipe.unet.dtype == torch.float32
    assert json.loads((inpaint_weights / "unet" / "config.json").read_text())["in_channels"] == 9
    assert json.loads((inpaint_weights / "vae" / "config.json").read_text())["_name_or_path"] == "world:vae"
    # after two steps at a warm-up learning rate the latent channels are still close to the generator's
    generator = StableDiffusionInpaintPipeline.from_pretrained(world_model_dir("generator", "test"), torch_dtype=torch.float32)
    start = generator.unet.conv_in.weight
    trained = pipe.unet.conv_in.weight
    assert trained.shape == (start.shape[0], 9, *start.shape[2:])
    assert torch.allclose(trained[:, :4], start, atol=0.05)
    assert trained[:, 4:].abs().max() < 0.05  # the 5 new channels started at zero

    image = draw(scene_for(parse_caption("a red circle"), 0))
    editor = InpaintRegionEditor(RoleSpec("diffusers-inpaint", str(inpaint_weights),
                                          {"pipeline": "StableDiffusionInpaintPipeline", "num_inference_steps": 2,
                                           "resolution": 64, "add": "inpaint"}), CPU)
    ops = [LayoutOp("add", "blue square", target=Box((36, 36, 56, 56), 1.0))]
    out = editor.edit(image, ops, n=1, seed=0, prompt="a red circle and a blue square")[0]
    assert out.size == (64, 64) and editor.calls == 1
    diff = np.abs(np.asarray(out, dtype=int) - np.asarray(image, dtype=int)).sum(-1)
    assert not diff[:36, :].any() and diff[36:56, 36:56].any()  # drawn inside the box only


def test_only_recipes_that_take_a_device_train_on_a_gpu(tmp_path):
    import torch

    from autoalign.errors import InputError
    from autoalign.world.training import recipes

    with pytest.raises(InputError, match="CPU only"):
        recipes.train("clip", tmp_path, steps=1, device="cuda", progress=False)
    assert not (tmp_path / "clip").exists()
    with pytest.raises(InputError, match="not a torch device"):
        recipes.train("vae", tmp_path, steps=1, device="gpu0", progress=False)
    if not torch.cuda.is_available():  # a recipe that takes a device, asked for one this machine lacks: one line
        with pytest.raises(InputError, match="no CUDA device"):
            recipes.train("vae", tmp_path, steps=1, device="cuda", progress=False)
    assert not (tmp_path / "vae").exists()


def test_world_train_without_only_leaves_the_opt_in_inpainting_recipe_out():
    from autoalign.world.training.train import MODELS, OPT_IN, selected

    assert "inpaint" in OPT_IN and "inpaint" in MODELS
    assert "inpaint" not in selected(None) and selected(None)[-1] == "grounder"
    assert selected(["inpaint", "vae"]) == ["vae", "inpaint"]  # named: trained, in training order
