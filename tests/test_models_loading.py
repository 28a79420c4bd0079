"""Where weights come from and where they run: dtype/device choice, hub ids vs complete snapshots,
reachability through huggingface_hub's session (proxies), and one message naming every missing model."""

from __future__ import annotations

import http.server
import json
import os
import threading

import pytest
import torch

from autoalign.config import ConfigError, load_config
from autoalign.models import cache, catalog, loading
from autoalign.models.loading import ModelNotAvailable, resolve_device, resolve_model, role_device, snapshot_problems

# --- dtype and device ----------------------------------------------------------------------------


@pytest.mark.parametrize("bf16, expected", [(True, "bfloat16"), (False, "float16")])
def test_auto_dtype_on_cuda_is_bf16_where_the_gpu_supports_it(monkeypatch, bf16, expected):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bf16)
    assert resolve_device("auto", "auto") == loading.DeviceSpec("cuda", expected)
    assert resolve_device("cuda:1", "auto").dtype == expected
    assert resolve_device("cuda", "float32").dtype == "float32"  # an explicit dtype is kept


def test_auto_on_cpu_is_float32_and_fp16_on_cpu_is_refused(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto", "auto") == loading.DeviceSpec("cpu", "float32")
    assert resolve_device("cpu", "float16").dtype == "float32"
    assert resolve_device("mps", "auto").dtype == "float16"
    with pytest.raises(ModelNotAvailable, match="CUDA is not available"):
        resolve_device("cuda", "auto")


def test_each_role_may_have_its_own_device_and_dtype(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: True)
    config = load_config(
        "sd-turbo",
        overrides={"device": "cuda:0", "vqa": {"device": "cuda:1", "dtype": "float32"}, "clip": {"device": "cpu"}},
    )
    assert role_device(config, "generator") == loading.DeviceSpec("cuda:0", "bfloat16")
    assert role_device(config, "vqa") == loading.DeviceSpec("cuda:1", "float32")
    assert role_device(config, "clip") == loading.DeviceSpec("cpu", "float32")
    assert cache.Models(config).device_of("vqa").device == "cuda:1"
    assert "device" not in config.vqa.options and "dtype" not in config.vqa.options  # not backend options


@pytest.mark.parametrize(
    "override, field",
    [
        ({"vqa": {"dtype": "fp8"}}, r"\[vqa\] dtype"),
        ({"generator": {"device": "gpu"}}, r"\[generator\] device"),
        ({"editor": {"offload": "always"}}, r"\[editor\] offload"),
        ({"dtype": "half"}, "dtype must be one of"),
        ({"sequential": "yes"}, "sequential"),
    ],
)
def test_bad_device_dtype_and_offload_settings_name_the_field(override, field):
    with pytest.raises(ConfigError, match=field):
        load_config("tiny", overrides=override)


# --- is a snapshot complete? ---------------------------------------------------------------------------


def _write(path, text="{}"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _diffusers_snapshot(root, with_unet_weights=True):
    _write(root / "model_index.json", json.dumps({
        "_class_name": "StableDiffusionPipeline",
        "unet": ["diffusers", "UNet2DConditionModel"],
        "vae": ["diffusers", "AutoencoderKL"],
        "tokenizer": ["transformers", "CLIPTokenizer"],
        "safety_checker": [None, None],
    }))
    _write(root / "unet" / "config.json")
    if with_unet_weights:
        _write(root / "unet" / "diffusion_pytorch_model.fp16.safetensors", "w")
    _write(root / "vae" / "config.json")
    _write(root / "vae" / "diffusion_pytorch_model.safetensors", "w")
    _write(root / "tokenizer" / "vocab.json")
    _write(root / "tokenizer" / "tokenizer_config.json")


def test_an_interrupted_download_is_incomplete_and_a_finished_one_complete(tmp_path):
    only_config = tmp_path / "only-config"
    _write(only_config / "config.json")
    assert snapshot_problems(only_config)  # the case the issue names: only config.json arrived
    partial = tmp_path / "partial"
    _diffusers_snapshot(partial, with_unet_weights=False)
    assert snapshot_problems(partial) == ["unet/ weights (*.safetensors)"]
    complete = tmp_path / "complete"
    _diffusers_snapshot(complete)
    assert snapshot_problems(complete, variant="fp16") == []


def test_a_sharded_model_lacking_a_shard_or_with_a_dangling_cache_link_is_incomplete(tmp_path):
    root = tmp_path / "vlm"
    _write(root / "config.json")
    shards = {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}
    _write(root / "model.safetensors.index.json", json.dumps({"weight_map": shards}))
    _write(root / shards["a"], "w")
    assert snapshot_problems(root) == ["model weights (model-00002-of-00002.safetensors)"]
    os.symlink(tmp_path / "blobs" / "never-finished", root / shards["b"])  # how the HF cache links files
    assert snapshot_problems(root) == ["model weights (model-00002-of-00002.safetensors)"]
    (tmp_path / "blobs").mkdir()
    (tmp_path / "blobs" / "never-finished").write_text("w")
    assert snapshot_problems(root) == []


def test_offline_a_partial_snapshot_is_refused_and_a_complete_one_used(tmp_path, monkeypatch):
    partial, complete = tmp_path / "partial", tmp_path / "complete"
    _diffusers_snapshot(partial, with_unet_weights=False)
    _diffusers_snapshot(complete)
    snapshots = {"org/partial": str(partial), "org/complete": str(complete)}
    monkeypatch.setattr(loading, "local_snapshot", snapshots.get)
    with pytest.raises(ModelNotAvailable, match=r"partly in the local Hugging Face cache \(missing unet/") as info:
        resolve_model("org/partial", "generator")
    assert "hf download org/partial" in str(info.value) and "huggingface-cli" not in str(info.value)
    assert resolve_model("org/complete", "generator") == str(complete)


def test_online_the_hub_id_goes_to_the_library_even_with_a_partial_snapshot(tmp_path, monkeypatch):
    partial = tmp_path / "partial"
    _diffusers_snapshot(partial, with_unet_weights=False)
    monkeypatch.setattr(loading, "local_snapshot", lambda repo: str(partial))
    monkeypatch.setattr(loading, "hub_reachable", lambda timeout=5.0: True)
    assert resolve_model("org/partial", "generator") == "org/partial"  # the library resumes the download
    assert resolve_model("hf-hub:org/clip", "clip") == "hf-hub:org/clip"


# --- reachability through huggingface_hub's session -------------------------------------------------


class _ProxyDouble(http.server.BaseHTTPRequestHandler):
    """An HTTP proxy test double: answers every request itself and records the requested URL."""

    seen: list[str] = []

    def do_HEAD(self):  # noqa: N802 - http.server's naming
        _ProxyDouble.seen.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_reachability_goes_through_the_proxy_that_downloads_would_use(monkeypatch):
    from huggingface_hub import constants
    from huggingface_hub.utils import close_session

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ProxyDouble)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
        # a host no DNS resolves: only a proxy can reach it (a raw TCP connect, as before, cannot)
        monkeypatch.setattr(constants, "ENDPOINT", "http://hub.invalid")
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{server.server_port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        close_session()  # a fresh session reads the proxy variables
        loading.forget_reachability()
        assert loading.hub_reachable(timeout=5.0) is True
        assert any("hub.invalid" in url for url in _ProxyDouble.seen)
    finally:
        server.shutdown()
        close_session()
        loading.forget_reachability()


def test_offline_mode_is_unreachable_without_a_request(monkeypatch):
    from huggingface_hub.utils import get_session

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    called = []
    monkeypatch.setattr("huggingface_hub.utils.get_session", lambda: called.append(1) or get_session())
    assert loading.hub_reachable() is False and called == []


# --- one message naming every missing model ----------------------------------------------------------


def test_the_missing_model_message_lists_every_model_of_the_preset_with_sizes():
    config = load_config("sd-turbo")
    missing = catalog.missing_models(config)
    repos = [m.repo for m, _ in missing]
    assert repos == [
        "stabilityai/sd-turbo",
        "timbrooks/instruct-pix2pix",
        "Qwen/Qwen2-VL-2B-Instruct",
        "laion/CLIP-ViT-B-32-laion2B-s34B-b79K",
    ]
    message = catalog.missing_message(config, missing)
    for repo in repos:
        assert f"hf download {repo}" in message and repo in message
    assert "about 2.6 GB" in message and "about 4.4 GB" in message and "in all" in message
    assert "autoalign models download --preset sd-turbo" in message and "huggingface-cli" not in message
    assert "\n" not in message


def test_asking_for_a_missing_role_raises_that_message_once_for_all(monkeypatch):
    config = load_config("sd-turbo")
    models = cache.Models(config)
    with pytest.raises(ModelNotAvailable) as info:
        models.vqa  # noqa: B018
    assert "Qwen/Qwen2-VL-2B-Instruct" in str(info.value) and "stabilityai/sd-turbo" in str(info.value)


# --- sequential loading ---------------------------------------------------------------------------------


def test_sequential_loading_releases_the_other_roles_weights(monkeypatch):
    released: list[str] = []

    class BackendDouble:
        """Holds 'weights' until released; records releases."""

        def __init__(self, spec, device):
            self.role = spec.backend
            self.loaded = True

        def release(self):
            held, self.loaded = self.loaded, False
            if held:
                released.append(self.role)
            return held

    monkeypatch.setattr(cache.registry, "get", lambda role, name: BackendDouble)
    overrides = {role: {"backend": role, "model": f"tiny:{role}"} for role in ("generator", "editor", "vqa", "clip")}
    cache.clear()
    try:
        config = load_config("tiny", overrides={**overrides, "sequential": True})
        models = cache.Models(config)
        models.generator.loaded = True
        models.vqa  # noqa: B018 - the generator's weights go before the VQA model is used
        assert released == ["generator"]
        models.vqa  # noqa: B018 - same role again: nothing released
        assert released == ["generator"]
        cache.clear()
        relaxed = cache.Models(load_config("tiny", overrides=overrides))
        relaxed.generator, relaxed.vqa  # noqa: B018
        assert released == ["generator"]  # sequential = false: everything stays loaded
    finally:
        cache.clear()
