"""The download planner on the presets' real repo listings (``autoalign/models/hub_files.json``):
it fetches exactly what the loaders read - checked file for file against diffusers' own
``DiffusionPipeline.download`` run offline on the same listing - and the catalog's download sizes are
that selection's sizes (issue 38, items 1-2)."""

from __future__ import annotations

import json

import pytest

from autoalign.config import load_config, preset_names
from autoalign.models import catalog, hub_files, loading

PIPELINES = sorted(r for r, v in hub_files.listings().items() if "model_index" in v)
OTHERS = sorted(r for r, v in hub_files.listings().items() if "model_index" not in v)


def _variant(repo: str) -> str | None:
    return (catalog.entry(repo) or {}).get("variant")


def diffusers_download(repo: str, variant: str | None, monkeypatch, tmp_path) -> set[str]:
    """What diffusers' ``DiffusionPipeline.download`` fetches of ``repo``: its own allow/ignore patterns
    applied (as ``snapshot_download`` does) to the stored listing. Hub calls are doubles, no network."""
    from diffusers import DiffusionPipeline
    from diffusers.pipelines import pipeline_utils
    from huggingface_hub.hf_api import ModelInfo
    from huggingface_hub.utils import filter_repo_objects

    known = hub_files.listing(repo)
    index_dir = tmp_path / "index"
    index_dir.mkdir(exist_ok=True)
    (index_dir / "model_index.json").write_text(json.dumps(known["model_index"]))
    fetched: set[str] = set()

    def model_info(name, token=None, revision=None):
        return ModelInfo(id=name, siblings=[{"rfilename": f} for f in known["files"]])

    def hf_hub_download(name, filename, **kwargs):
        return str(index_dir / filename)

    def snapshot_download(name, allow_patterns=None, ignore_patterns=None, **kwargs):
        fetched.update(filter_repo_objects(list(known["files"]), allow_patterns=allow_patterns,
                                           ignore_patterns=ignore_patterns))
        return str(index_dir)

    monkeypatch.setattr(pipeline_utils, "model_info", model_info)
    monkeypatch.setattr(pipeline_utils, "hf_hub_download", hf_hub_download)
    monkeypatch.setattr(pipeline_utils, "snapshot_download", snapshot_download)
    DiffusionPipeline.download(repo, variant=variant)
    return fetched


@pytest.mark.parametrize("repo", PIPELINES)
def test_the_planner_fetches_exactly_what_diffusers_downloads(repo, monkeypatch, tmp_path):
    known = hub_files.listing(repo)
    ours = set(hub_files.select_files(list(known["files"]), _variant(repo), known["model_index"]))
    assert ours == diffusers_download(repo, _variant(repo), monkeypatch, tmp_path)


def test_sd35_medium_leaves_the_comfyui_text_encoders_and_the_single_file_behind():
    known = hub_files.listing("stabilityai/stable-diffusion-3.5-medium")
    plan = hub_files.catalog_plan("stabilityai/stable-diffusion-3.5-medium", None)
    assert not any(f.startswith("text_encoders/") for f in plan.files)  # ~16 GB of single files
    assert "sd3.5_medium.safetensors" not in plan.files
    assert {"text_encoder_3/model-00001-of-00002.safetensors", "text_encoder_3/model-00002-of-00002.safetensors",
            "text_encoder_3/model.safetensors.index.json", "tokenizer_3/spiece.model"} <= set(plan.files)
    text_encoders = sum(n for f, n in known["files"].items() if f.startswith("text_encoders/"))
    assert text_encoders > 16e9 and plan.bytes < 16.5e9


def test_sd15_fetches_the_ema_weights_not_the_non_ema_ones():
    plan = hub_files.catalog_plan("stable-diffusion-v1-5/stable-diffusion-v1-5", None)
    unet = [f for f in plan.files if f.startswith("unet/")]
    assert unet == ["unet/config.json", "unet/diffusion_pytorch_model.safetensors"]  # not .non_ema (3.44 GB), not .fp16
    assert round(plan.bytes / 1e9, 1) == 5.5


def test_a_folder_without_the_variant_falls_back_to_its_plain_weights_and_bin_only_repos_fetch_bin():
    files = ["model_index.json", "unet/config.json", "unet/diffusion_pytorch_model.safetensors",
             "unet/diffusion_pytorch_model.fp16.safetensors", "vae/config.json", "vae/diffusion_pytorch_model.safetensors"]
    index = {"_class_name": "StableDiffusionPipeline", "unet": ["diffusers", "UNet2DConditionModel"],
             "vae": ["diffusers", "AutoencoderKL"]}
    assert hub_files.select_files(files, "fp16", index) == [
        "model_index.json", "unet/config.json", "unet/diffusion_pytorch_model.fp16.safetensors",
        "vae/config.json", "vae/diffusion_pytorch_model.safetensors"]
    magicbrush = hub_files.catalog_plan("vinesmsuic/magicbrush-jul7", None)
    assert "unet/diffusion_pytorch_model.bin" in magicbrush.files
    assert "MagicBrush-epoch-52-step-4999.ckpt" not in magicbrush.files


@pytest.mark.parametrize("repo", OTHERS)
def test_transformers_and_open_clip_repos_fetch_weights_tokenizer_processor_and_template_once(repo):
    plan = hub_files.catalog_plan(repo, None)
    files = set(plan.files)
    assert "config.json" in files or "open_clip_config.json" in files
    assert not any(f.endswith(".bin") for f in files)  # safetensors where the repo has them
    assert "README.md" not in files and ".gitattributes" not in files
    if "open_clip_config.json" in files:
        assert [f for f in files if f.endswith(".safetensors")] == ["open_clip_model.safetensors"]
        return
    assert "tokenizer_config.json" in files and {"preprocessor_config.json"} <= files
    shards = [f for f in hub_files.listing(repo)["files"] if f.endswith(".safetensors")]
    assert set(shards) <= files  # every shard
    if repo.startswith(("Qwen/", "OpenGVLab/")):
        assert files & {"chat_template.json", "chat_template.jinja"}


def test_preset_download_sizes_are_the_planned_selection():
    """What the issue measured by hand: sd15-magicbrush 28.2 GB, sd35-kontext 68.3 GB (not 31.6 / 84.6)."""
    expected = {"sd15-magicbrush": 28.2, "sd35-kontext": 68.3}
    for preset, gb in expected.items():
        config = load_config(preset)
        est = catalog.memory_estimate(config)
        planned = sum(hub_files.catalog_plan(m.repo, m.variant or _variant(m.repo)).bytes
                      for m in catalog.preset_models(config) if m.repo)
        assert est.download_gb == pytest.approx(planned / 1e9, abs=0.15) == pytest.approx(gb, abs=0.15)


def test_hf_download_suggestion_names_only_the_loaded_folders():
    command = loading.hf_download_command("black-forest-labs/FLUX.1-dev")
    assert command.startswith("hf download black-forest-labs/FLUX.1-dev --include")
    assert '--include "transformer/*"' in command and "flux1-dev.safetensors" not in command
    assert "ae.safetensors" not in command
    assert loading.hf_download_command("some/unknown-repo") == "hf download some/unknown-repo"


def test_every_real_preset_repo_has_a_listing():
    for preset in preset_names():
        for model in catalog.preset_models(load_config(preset)):
            if model.repo:
                assert hub_files.listing(model.repo) is not None, (preset, model.repo)
