"""`autoalign models make-tiny` and `autoalign models list` through Typer's test runner."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

import autoalign.commands.models  # noqa: F401  (registers the commands on the app)
from autoalign.cli_apps import app
from autoalign.errors import AutoAlignError, InputError
from autoalign.models import tiny

runner = CliRunner()


def test_make_tiny_builds_loads_back_and_prints_sizes(tmp_path):
    result = runner.invoke(app, ["models", "make-tiny", str(tmp_path), "--only", "clip", "--only", "sd"])
    assert result.exit_code == 0, result.output
    for name in ("clip", "sd"):
        assert tiny.is_built(tmp_path / name)
        assert name in result.output
    assert f"{tiny.param_count(tmp_path / 'clip'):,}" in result.output
    assert "MB" in result.output and "Loaded back OK" in result.output
    assert not (tmp_path / "ip2p").exists()


def test_make_tiny_unknown_name_is_a_user_error_listing_names(tmp_path):
    result = runner.invoke(app, ["models", "make-tiny", str(tmp_path), "--only", "nope"])
    assert isinstance(result.exception, InputError)
    assert "sd" in str(result.exception) and "blip2" in str(result.exception)


def test_list_shows_each_role_and_where_its_model_comes_from():
    result = runner.invoke(app, ["models", "list", "--preset", "tiny"])
    assert result.exit_code == 0, result.output
    for text in ("generator", "editor", "vqa", "clip", "tiny:sd", "tiny:ip2p", "tiny (", "open_clip"):
        assert text in result.output


def test_list_says_uncached_hub_models_are_missing_offline():
    result = runner.invoke(app, ["models", "list", "--preset", "sd-turbo"])
    assert result.exit_code == 0, result.output
    assert "stabilityai/sd-turbo" in result.output
    assert "missing (about 2.6 GB): not in the HF cache" in result.output


@pytest.mark.parametrize("preset", ["no-such-preset"])
def test_list_unknown_preset_names_the_presets(preset):
    from autoalign.config import ConfigError

    result = runner.invoke(app, ["models", "list", "--preset", preset])
    assert isinstance(result.exception, ConfigError) and "tiny" in str(result.exception)


# --- what presets need, and `models download` -------------------------------------------------------


def test_list_shows_each_presets_estimated_gpu_memory_download_and_licences():
    result = runner.invoke(app, ["models", "list", "--preset", "sd-turbo", "--preset", "flux-dev-kontext"])
    assert result.exit_code == 0, result.output
    assert "GPU memory (est.)" in result.output and "~12.1 GB" in result.output
    assert "Non-Commercial" in result.output and "gated" in result.output
    assert "missing (about 2.6 GB)" in result.output


def test_download_offline_names_every_missing_model_with_its_size():
    result = runner.invoke(app, ["models", "download", "--preset", "sd-turbo"])
    assert isinstance(result.exception, AutoAlignError)
    message = str(result.exception)
    for repo in ("stabilityai/sd-turbo", "timbrooks/instruct-pix2pix", "Qwen/Qwen2-VL-2B-Instruct"):
        assert repo in message
    assert "about 13.1 GB in all" in message and "hf download" in message


def test_download_skips_tiny_and_local_models():
    result = runner.invoke(app, ["models", "download", "--preset", "tiny"])
    assert result.exit_code == 0, result.output
    assert "no hub models to download" in result.output and "skipping generator model 'tiny:sd'" in result.output


def test_download_fetches_only_the_loader_files_and_reports_what_it_stored(monkeypatch, tmp_path):
    import json

    import huggingface_hub
    from huggingface_hub.hf_api import ModelInfo

    from autoalign.models import hub_files, loading

    known = hub_files.listing("stabilityai/sd-turbo")  # the repo's file listing (hub_files.json)
    fetched: dict[str, list[str]] = {}

    class HubDouble:
        """huggingface_hub's model_info, answered from the stored listing (no network); other repos are gated."""

        def model_info(self, repo, revision=None, files_metadata=False):
            if repo != "stabilityai/sd-turbo":
                import httpx
                from huggingface_hub.errors import GatedRepoError

                response = httpx.Response(403, request=httpx.Request("GET", f"https://huggingface.co/{repo}"))
                raise GatedRepoError(f"{repo} is gated", response=response)
            siblings = [{"rfilename": f, "size": n} for f, n in known["files"].items()]
            return ModelInfo(id=repo, siblings=siblings)

    def hf_hub_download_double(repo, filename, revision=None):
        path = tmp_path / "index" / filename
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(known["model_index"]))
        return str(path)

    def snapshot_double(repo, revision=None, allow_patterns=None):
        fetched[repo] = list(allow_patterns)
        folder = tmp_path / repo.replace("/", "--")
        for name in allow_patterns:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(b"x" * 10)
        return str(folder)

    monkeypatch.setattr(loading, "hub_reachable", lambda timeout=5.0: True)
    monkeypatch.setattr(huggingface_hub, "HfApi", HubDouble)
    monkeypatch.setattr(huggingface_hub, "hf_hub_download", hf_hub_download_double)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", snapshot_double)
    result = runner.invoke(app, ["models", "download", "--preset", "sd-turbo"])
    assert fetched["stabilityai/sd-turbo"] == [
        "model_index.json", "scheduler/scheduler_config.json",
        "text_encoder/config.json", "text_encoder/model.fp16.safetensors",
        "tokenizer/merges.txt", "tokenizer/special_tokens_map.json", "tokenizer/tokenizer_config.json",
        "tokenizer/vocab.json",
        "unet/config.json", "unet/diffusion_pytorch_model.fp16.safetensors",
        "vae/config.json", "vae/diffusion_pytorch_model.fp16.safetensors",
    ]  # the fp16 variant only, and no single-file checkpoint
    assert "stabilityai--sd-turbo" in result.output and "120 B" in result.output
    # the other three repos are gated in the double: reported as failures, one line, exit code 2
    assert isinstance(result.exception, AutoAlignError) and "3 of 4 model(s)" in str(result.exception)
    assert "hf auth login" in str(result.exception)


def test_transformers_and_open_clip_repos_fetch_configs_tokenizers_and_safetensors_only():
    from autoalign.models.download import select_files

    vlm = ["config.json", "model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors",
           "model.safetensors.index.json", "pytorch_model.bin", "tokenizer.json", "chat_template.json",
           "preprocessor_config.json", "README.md", ".gitattributes"]
    assert select_files(vlm) == ["chat_template.json", "config.json", "model-00001-of-00002.safetensors",
                                 "model-00002-of-00002.safetensors", "model.safetensors.index.json",
                                 "preprocessor_config.json", "tokenizer.json"]
    clip = ["open_clip_config.json", "open_clip_model.safetensors", "open_clip_pytorch_model.bin", "README.md"]
    assert select_files(clip) == ["open_clip_config.json", "open_clip_model.safetensors"]
