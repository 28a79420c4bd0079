"""The model cache keeps load-time and call-time options apart, stays bounded, and keeps the scoring
models together under ``sequential`` (issue 34 item 2; issue 38 item 3). Tiny random-weight models."""

from __future__ import annotations

import functools

import pytest
from PIL import Image

from autoalign.config import RoleSpec, load_config
from autoalign.models import cache
from autoalign.models import editor as editor_module
from autoalign.models.cache import Models
from autoalign.models.loading import DeviceSpec


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()
    yield
    cache.clear()


def test_ten_guidance_values_load_one_editor_and_each_call_uses_its_own(monkeypatch):
    loads = []
    real_load = editor_module.load_pipeline

    def counting_load(*args, **kwargs):
        loads.append(args[1])
        return real_load(*args, **kwargs)

    monkeypatch.setattr(editor_module, "load_pipeline", counting_load)
    sent = []
    image = Image.new("RGB", (64, 64), "white")
    values = [1.0 + 0.2 * i for i in range(10)]
    from diffusers import StableDiffusionInstructPix2PixPipeline as Pipe

    real_call = Pipe.__call__

    @functools.wraps(real_call)  # keeps the signature the backend reads its call options from
    def recording_call(self, *args, **kwargs):
        sent.append(kwargs)
        return real_call(self, *args, **kwargs)

    monkeypatch.setattr(Pipe, "__call__", recording_call)
    for value in values:
        config = load_config("tiny", overrides={"editor": {"image_guidance_scale": value, "guidance_scale": 3 + value}})
        Models(config).editor.edit(image, "make it red", n=1, seed=0)
    assert loads == ["tiny:ip2p"]  # one pipeline for ten slider values
    assert cache.count() == 1
    assert [k["image_guidance_scale"] for k in sent] == values
    assert [k["guidance_scale"] for k in sent] == [3 + v for v in values]


def test_a_load_time_option_loads_another_pipeline():
    device = DeviceSpec("cpu", "float32")
    plain = RoleSpec(backend="instruct-pix2pix", model="tiny:ip2p", options={"image_guidance_scale": 1.5})
    other = RoleSpec(backend="instruct-pix2pix", model="tiny:ip2p",
                     options={"image_guidance_scale": 1.5, "scheduler": "EulerAncestralDiscreteScheduler"})
    a, b = cache.get_backend("editor", plain, device), cache.get_backend("editor", other, device)
    assert a is not b and cache.count() == 2
    view = cache.get_backend("editor", RoleSpec(backend="instruct-pix2pix", model="tiny:ip2p",
                                                options={"image_guidance_scale": 2.0}), device)
    assert view is not a and view._weights is a._weights and cache.count() == 2
    assert cache.get_backend("editor", plain, device) is a  # the same spec: the same instance


def test_the_cache_is_an_lru_that_releases_what_it_drops(monkeypatch):
    monkeypatch.setattr(cache, "MAX_LOADED", 2)
    freed = []
    monkeypatch.setattr(cache, "free_accelerator_memory", lambda: freed.append(1))
    device = DeviceSpec("cpu", "float32")

    def spec(scheduler):
        return RoleSpec(backend="diffusers", model="tiny:sd", options={"scheduler": scheduler, "num_inference_steps": 1})

    first = cache.get_backend("generator", spec("EulerDiscreteScheduler"), device)
    first.pipe  # noqa: B018 - load its weights
    second = cache.get_backend("generator", spec("DDIMScheduler"), device)
    cache.get_backend("generator", spec("EulerDiscreteScheduler"), device)  # used again: now the most recent
    cache.get_backend("generator", spec("PNDMScheduler"), device)  # one too many: the least recently used goes
    assert cache.count() == 2
    assert first._weights._pipe is not None and cache.loaded("generator", spec("DDIMScheduler"), device) is None
    assert second._weights._pipe is None
    cache.get_backend("generator", spec("DPMSolverMultistepScheduler"), device)
    assert first._weights._pipe is None and freed  # released, and the accelerator's cache emptied


def test_sequential_scoring_loads_the_vqa_model_once_per_run_not_once_per_score(monkeypatch):
    from autoalign.models import vqa as vqa_module
    from autoalign.scoring.scorer import Scorer

    loads = []
    real = vqa_module.ImageTextToTextVQA._load_model

    def counting(self, path):
        loads.append(path)
        return real(self, path)

    monkeypatch.setattr(vqa_module.ImageTextToTextVQA, "_load_model", counting)
    config = load_config("tiny", overrides={"sequential": True, "scoring": {"clip": True}})
    models = Models(config)
    scorer = Scorer(models, config, question_disk_cache=False)
    images = [Image.new("RGB", (64, 64), "red")]
    for _ in range(3):
        scorer.score(images, "a red apple")
    assert len(loads) == 1  # VQA then CLIP, three times: the VQA model stays loaded
    models.generator.generate("a red apple", n=1, seed=0)  # the generator's turn: the scoring models go
    assert cache.loaded("vqa", config.vqa, models.device_of("vqa"))._model is None
