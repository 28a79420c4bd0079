"""open_clip scorer: the tiny model loads from open_clip's hub layout; ids resolve offline with clear errors."""

from __future__ import annotations

import time

import pytest
from PIL import Image

from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import InputError
from autoalign.models import tiny
from autoalign.models.clip import OpenClipScorer, hub_repo_for, open_clip_name
from autoalign.models.loading import DeviceSpec, ModelNotAvailable

CPU = DeviceSpec("cpu", "float32")


def make(model: str | None = "tiny:clip", **options) -> OpenClipScorer:
    return OpenClipScorer(RoleSpec("open_clip", model, options), CPU)


@pytest.fixture(scope="module")
def scorer() -> OpenClipScorer:
    return make(batch_size=2)


def test_cosine_is_one_float_in_range_per_image(scorer):
    images = [Image.new("RGB", (77, 131), (255, 0, 0)), Image.new("L", (20, 20), 30), Image.new("RGBA", (40, 40))]
    scores = scorer.cosine(images * 2, "a red square")
    assert len(scores) == 6 and all(isinstance(s, float) and -1.0 <= s <= 1.0 for s in scores)
    assert scores[:3] == pytest.approx(scores[3:], abs=1e-5)  # batching (batch_size=2) does not change a score


def test_cosine_of_no_images_is_empty(scorer):
    assert scorer.cosine([], "a cat") == []


def test_empty_text_and_non_images_are_input_errors(scorer):
    with pytest.raises(InputError, match="text"):
        scorer.cosine([Image.new("RGB", (8, 8))], " ")
    with pytest.raises(InputError, match="PIL"):
        scorer.cosine(["cat.png"], "a cat")


def test_a_local_directory_in_open_clips_layout_loads(tmp_path):
    path = tiny.build("clip", tmp_path)
    assert (path / "open_clip_config.json").exists() and (path / "open_clip_model.safetensors").exists()
    assert open_clip_name(str(path)) == (f"local-dir:{path}", None, False)
    (score,) = make(str(path)).cosine([Image.new("RGB", (32, 32))], "a black square")
    assert -1.0 <= score <= 1.0


def test_arch_tag_ids_map_to_their_hub_repos():
    assert hub_repo_for("ViT-B-32/laion2b_s34b_b79k") == "laion/CLIP-ViT-B-32-laion2B-s34B-b79K"
    assert hub_repo_for("hf-hub:laion/CLIP-ViT-L-14-laion2B-s32B-b82K") == "laion/CLIP-ViT-L-14-laion2B-s32B-b82K"
    assert hub_repo_for("tiny:clip") is None


@pytest.mark.parametrize(
    "model_id", ["ViT-B-32/laion2b_s34b_b79k", "hf-hub:nobody-here/no-clip", "nobody-here/no-clip"]
)
def test_uncached_hub_models_fail_fast_offline_naming_the_model(model_id):
    start = time.monotonic()
    with pytest.raises(ModelNotAvailable) as info:
        make(model_id).cosine([Image.new("RGB", (8, 8))], "a cat")
    assert ("laion/CLIP-ViT-B-32" if model_id.startswith("ViT") else "nobody-here/no-clip") in str(info.value)
    assert time.monotonic() - start < 5.0


@pytest.mark.parametrize(("model_id", "needle"), [("ViT-B-32/no-such-tag", "laion2b_s34b_b79k"), ("ViT-B-32", "ARCH/TAG")])
def test_bad_tags_and_bare_architectures_list_the_tags(model_id, needle):
    with pytest.raises(ConfigError, match=needle):
        open_clip_name(model_id)


def test_unknown_option_is_a_config_error():
    with pytest.raises(ConfigError, match="batch_size"):
        make(batchsize=4)


@pytest.mark.parametrize("template", ["a photo", "{text} and {text}", "{text} {other}", "{}{text}", 3])
def test_a_text_template_needs_one_text_field_and_no_other(template):
    with pytest.raises(ConfigError, match="text_template"):
        make(text_template=template)


def test_the_text_template_defaults_to_clipscore_and_the_shapes_preset_embeds_bare_captions():
    from autoalign.config import load_config
    from autoalign.scoring.clipscore import text_for

    assert text_for(make(), "a red circle") == "A photo depicts a red circle"
    assert text_for(make(text_template="an image of {text}."), " a red circle ") == "an image of a red circle."
    # the world's CLIP was trained on bare captions (autoalign/world/training/train_clip.py)
    shapes = load_config("shapes").clip
    assert text_for(OpenClipScorer(shapes, CPU), "a red circle") == "a red circle"


def test_a_preset_naming_the_open_clip_backend_gets_this_scorer():
    from autoalign.config import load_config
    from autoalign.models.cache import Models

    clip = Models(load_config("tiny", overrides={"clip": {"backend": "open_clip"}})).clip
    assert type(clip) is OpenClipScorer
