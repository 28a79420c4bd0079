"""The real presets: they load, every hub model they name is sized in the catalog, their GPU memory
estimates follow from parameter counts, and the GPU guide's table (docs/gpu.md) says what the code computes."""

from __future__ import annotations

from pathlib import Path

import pytest

from autoalign.config import load_config, preset_names
from autoalign.models import catalog

REAL = [p for p in preset_names() if load_config(p).generator.backend == "diffusers"
        and not str(load_config(p).generator.model or "").startswith(("tiny:", "world:"))]


def test_the_current_families_have_presets():
    models = {load_config(p).generator.model for p in REAL} | {load_config(p).editor.model for p in REAL}
    models |= {load_config(p).vqa.model for p in REAL}
    for expected in ("stabilityai/sdxl-turbo", "stabilityai/stable-diffusion-3.5-medium", "black-forest-labs/FLUX.1-schnell",
                     "black-forest-labs/FLUX.1-dev", "black-forest-labs/FLUX.1-Kontext-dev", "Qwen/Qwen-Image-Edit",
                     "Qwen/Qwen2.5-VL-7B-Instruct", "Qwen/Qwen2.5-VL-3B-Instruct", "OpenGVLab/InternVL3-2B-hf"):
        assert expected in models


@pytest.mark.parametrize("preset", REAL)
def test_every_hub_model_of_a_real_preset_is_sized_and_licensed(preset):
    for model in catalog.preset_models(load_config(preset)):
        info = catalog.entry(model.repo)
        assert info is not None, model.repo
        assert info["params"] > 0 and info["licence"]
        assert (catalog.download_gb(model.repo, model.variant) or 0) > 0, model.repo  # the planner on its listing


@pytest.mark.parametrize("preset", REAL)
def test_editor_pipelines_named_by_presets_exist_in_diffusers(preset):
    import diffusers

    from autoalign.models.generator import pipeline_class

    config = load_config(preset)
    if "pipeline" in config.editor.options:
        assert issubclass(pipeline_class(config.editor.options, "editor"), diffusers.DiffusionPipeline)


def test_memory_is_parameters_times_bytes_with_offload_counting_the_largest_component():
    est = catalog.memory_estimate(load_config("sd-turbo"))
    assert est.per_role_gb == {"generator": round(1.290 * 2.4, 1), "editor": round(1.371 * 2.4, 1),
                               "vqa": round(2.209 * 2.4, 1), "clip": round(0.151 * 2.4, 1)}
    assert est.peak_gb == est.all_resident_gb == pytest.approx(sum(est.per_role_gb.values()), abs=0.05)
    flux = catalog.memory_estimate(load_config("flux-dev-kontext"))  # sequential, both FLUX roles offloaded
    assert flux.peak_gb == round(11.901 * 2.4, 1) == flux.per_role_gb["editor"]
    fp32 = catalog.memory_estimate(load_config("sd-turbo", overrides={"vqa": {"dtype": "float32"}, "clip": {"device": "cpu"}}))
    assert fp32.per_role_gb["vqa"] == round(2.209 * 4 * 1.2, 1) and "clip" not in fp32.per_role_gb


def test_the_gpu_guide_table_states_what_the_catalog_computes():
    guide = (Path(__file__).resolve().parents[1] / "docs" / "gpu.md").read_text(encoding="utf-8")
    for preset in REAL:
        row = catalog.preset_row(load_config(preset))
        line = next((ln for ln in guide.splitlines() if ln.startswith(f"| `{preset}`")), None)
        assert line is not None, preset
        for key in ("gpu_memory", "host_ram", "download"):
            assert row[key] in line, (preset, key, row, line)
