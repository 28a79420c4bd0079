"""The GPU user's first hour (issue 38): what a GPU preset meets before and while loading, checked
here without a GPU or a hub - torch's CUDA answers, huggingface_hub's errors and progress switches,
and the tiny pipelines stand in."""

from __future__ import annotations

import json
import logging

import pytest

from autoalign.config import RoleSpec, load_config
from autoalign.models import loading
from autoalign.models.loading import ModelNotAvailable, resolve_device, snapshot_problems


def test_bf16_that_is_only_emulated_does_not_count(monkeypatch):
    """T4 / V100: torch.cuda.is_bf16_supported() is True by emulation; dtype auto must be float16 there."""
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: including_emulation)
    assert resolve_device("cuda", "auto").dtype == "float16"
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda including_emulation=True: True)  # Ampere+
    assert resolve_device("cuda", "auto").dtype == "bfloat16"


def test_loading_quietly_keeps_the_hub_download_bars(caplog):
    from huggingface_hub import utils as hub_utils
    from transformers.utils import logging as transformers_logging

    from autoalign.models.hf_logging import quiet_hf_progress

    caplog.set_level(logging.WARNING, logger="autoalign.models")
    before = transformers_logging.is_progress_bar_enabled(), hub_utils.are_progress_bars_disabled()
    transformers_logging.enable_progress_bar()  # every bar on, as in a fresh process
    try:
        with quiet_hf_progress():
            assert not transformers_logging.is_progress_bar_enabled()  # load bars hidden
            assert not hub_utils.are_progress_bars_disabled()  # a 34 GB download still shows progress
        assert transformers_logging.is_progress_bar_enabled() and not hub_utils.are_progress_bars_disabled()
    finally:
        (transformers_logging.enable_progress_bar if before[0] else transformers_logging.disable_progress_bar)()
        (hub_utils.disable_progress_bars if before[1] else hub_utils.enable_progress_bars)()


def test_a_gated_repo_at_load_time_is_one_clear_error(monkeypatch):
    import httpx
    from diffusers import DiffusionPipeline
    from huggingface_hub.errors import GatedRepoError

    from autoalign.models.generator import load_pipeline

    def gated(*args, **kwargs):
        response = httpx.Response(403, request=httpx.Request("GET", "https://huggingface.co/x"))
        raise GatedRepoError("Access to model black-forest-labs/FLUX.1-Kontext-dev is restricted", response=response)

    monkeypatch.setattr(loading, "hub_reachable", lambda timeout=5.0: True)
    monkeypatch.setattr(DiffusionPipeline, "from_pretrained", gated)
    device = loading.DeviceSpec("cpu", "float32")
    with pytest.raises(ModelNotAvailable, match=r"gated: accept its licence .* `hf auth login`"):
        load_pipeline(DiffusionPipeline, "black-forest-labs/FLUX.1-Kontext-dev", "editor", device, {})


def test_a_gpu_preset_that_lands_on_the_cpu_says_so(monkeypatch, caplog):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(loading, "_warned_cpu", set())
    caplog.set_level(logging.WARNING, logger="autoalign.models.loading")
    device = loading.role_device(load_config("sd-turbo"), "generator")
    assert device.device == "cpu" and device.dtype == "float32"
    assert any("CUDA is not available" in r.getMessage() and "models check" in r.getMessage() for r in caplog.records)
    caplog.clear()
    loading.role_device(load_config("tiny"), "generator")  # a CPU preset: nothing to say
    assert not caplog.records


def _write(path, text="{}"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_snapshot_without_tokenizer_processor_or_chat_template_is_incomplete(tmp_path):
    vlm = tmp_path / "vlm"
    _write(vlm / "config.json", json.dumps({"model_type": "qwen2_vl", "vision_config": {}}))
    _write(vlm / "model.safetensors", "w")
    problems = snapshot_problems(vlm, chat_template=True)
    assert "tokenizer_config.json" in problems and any("preprocessor_config.json" in p for p in problems)
    assert any("chat template" in p for p in problems)
    for name in ("tokenizer_config.json", "tokenizer.json", "preprocessor_config.json"):
        _write(vlm / name)
    assert snapshot_problems(vlm, chat_template=True) == ["the chat template (chat_template.jinja / chat_template.json)"]
    _write(vlm / "chat_template.jinja", "{{ messages }}")
    assert snapshot_problems(vlm, chat_template=True) == []

    pipe = tmp_path / "pipe"
    _write(pipe / "model_index.json", json.dumps({"_class_name": "FluxPipeline", "tokenizer_2": ["transformers", "T5TokenizerFast"],
                                                 "scheduler": ["diffusers", "FlowMatchEulerDiscreteScheduler"]}))
    _write(pipe / "tokenizer_2" / "special_tokens_map.json")
    _write(pipe / "scheduler" / "README.md", "not the config")
    assert snapshot_problems(pipe) == ["tokenizer_2/tokenizer_config.json",
                                       "tokenizer_2/tokenizer files (tokenizer.json / tokenizer.model / spiece.model / "
                                       "vocab.json / vocab.txt)", "scheduler/scheduler_config.json"]


@pytest.mark.parametrize("model, reasoning", [("o3-mini", True), ("gpt-5-mini", True), ("gpt-4o-mini", False)])
def test_the_llm_sends_reasoning_models_no_temperature(openai_stub, model, reasoning):
    from autoalign.models.llm import OpenAILLM

    openai_stub.push_json({"name": "cat", "count": 1})
    llm = OpenAILLM(RoleSpec(backend="openai", model=model, options={
        "base_url": openai_stub.url, "api_key": "k", "timeout": 5.0, "max_retries": 0, "max_tokens": 200}))
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "count": {"type": "integer"}},
              "required": ["name", "count"]}
    assert llm.complete_json([{"role": "user", "content": "x"}], schema, "thing") == {"name": "cat", "count": 1}
    body = openai_stub.requests[0]["body"]
    assert body["response_format"]["type"] == "json_schema"  # the first mode, not stepped down
    if reasoning:
        assert "temperature" not in body and "max_tokens" not in body and body["max_completion_tokens"] > 200
    else:
        assert body["temperature"] == 0 and body["max_tokens"] == 200


def test_the_truncation_limit_is_t5s_for_flux():
    from autoalign.models import cache
    from autoalign.models.generator import DiffusersGenerator

    device = loading.DeviceSpec("cpu", "float32")
    flux = DiffusersGenerator(RoleSpec(backend="diffusers", model="tiny:flux", options={"num_inference_steps": 1}), device)
    assert flux.max_prompt_tokens() == 512  # FluxPipeline's max_sequence_length, not CLIP's 77
    short = DiffusersGenerator(RoleSpec(backend="diffusers", model="tiny:flux",
                                        options={"num_inference_steps": 1, "max_sequence_length": 128}), device)
    assert short.max_prompt_tokens() == 128
    sd = DiffusersGenerator(RoleSpec(backend="diffusers", model="tiny:sd"), device)
    assert sd.max_prompt_tokens() == 77
    cache.clear()
