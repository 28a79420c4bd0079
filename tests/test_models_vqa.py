"""VQA backends: P(yes) from the next-token distribution, batching, image reuse, answers, OpenAI.

The transformers backends run on the tiny random-weight VLMs (``tiny:llava``, ``tiny:blip2``):
their numbers mean nothing, so the tests check the machinery - valid probabilities, batched ==
one-by-one, reused image embeddings == a plain forward pass - never the answers' content.
"""

from __future__ import annotations

import base64
import io
import math

import numpy as np
import pytest
from PIL import Image

from autoalign.config import ConfigError, RoleSpec, load_config
from autoalign.errors import InputError
from autoalign.models import cache, tiny_vlm
from autoalign.models.loading import DeviceSpec, resolve_model
from autoalign.models.vqa import (
    Blip2VQA,
    ImageTextToTextVQA,
    VQAServiceError,
    dedupe_images,
    word_token_ids,
)
from autoalign.models.vqa_openai import LOGPROB_FLOOR, OpenAIVQA

CPU = DeviceSpec("cpu", "float32")
FAMILIES = {
    "llava": (ImageTextToTextVQA, "image-text-to-text", "tiny:llava"),
    "blip2": (Blip2VQA, "blip2", "tiny:blip2"),
    # Built here (no tiny: name). Size-dependent image-token counts and 3-D (M-RoPE) positions:
    "qwen2_vl": (ImageTextToTextVQA, "image-text-to-text", None),
    # An encoder-decoder language model (as BLIP-2 FLAN-T5): the answer comes from the decoder.
    "blip2_t5": (Blip2VQA, "blip2", None),
    # The judges of the current presets: Qwen2.5-VL (windowed vision attention) and InternVL3.
    "qwen2_5_vl": (ImageTextToTextVQA, "image-text-to-text", None),
    "internvl": (ImageTextToTextVQA, "image-text-to-text", None),
}
QUESTIONS = ("Is there a red car?", 'is "two" true for "how many dogs are there?" in this image?', "Is it night?")


def _image(seed: int, size=(48, 40)) -> Image.Image:
    rng = np.random.RandomState(seed)
    return Image.fromarray(rng.randint(0, 255, (size[1], size[0], 3), dtype=np.uint8))


@pytest.fixture(scope="module")
def pairs():
    """Seven pairs on three images (one greyscale); one appears as a separate object with the same pixels."""
    a, b, c = _image(0), _image(1, (64, 80)), _image(2).convert("L")
    a_copy = a.copy()
    images = [a, a, b, a_copy, c, b, a]
    questions = [QUESTIONS[i % len(QUESTIONS)] for i in range(len(images))]
    return images, questions


@pytest.fixture(scope="module")
def make_vqa(tmp_path_factory):
    """``make_vqa(family, **options)``: a fresh backend on that family's tiny model."""
    built: dict[str, str] = {}

    def make(family: str, **options):
        cls, backend, model = FAMILIES[family]
        if model is None:
            if family not in built:
                out = tmp_path_factory.mktemp("vqa") / family
                tiny_vlm.BUILDERS[family](out)
                built[family] = str(out)
            path = built[family]
        else:
            path = resolve_model(model, "vqa")
        return cls(RoleSpec(backend, path, options), CPU)

    return make


def _count_images_through_vision_tower(vqa, seen: list[int]):
    """Hook the model's vision tower; append how many images each call encodes. Returns the hook handle."""
    model = vqa.model
    inner = getattr(model, "model", None)
    if hasattr(inner, "visual"):  # Qwen2-VL: flattened patches, one grid_thw row per image
        tower, count = inner.visual, lambda args, kwargs: kwargs["grid_thw"].shape[0]
    else:
        tower = inner.vision_tower if hasattr(inner, "vision_tower") else model.vision_model
        count = lambda args, kwargs: (args[0] if args else kwargs["pixel_values"]).shape[0]  # noqa: E731
    return tower.register_forward_pre_hook(lambda mod, args, kwargs: seen.append(int(count(args, kwargs))), with_kwargs=True)


# --- pure helpers ----------------------------------------------------------------------------------


def test_identical_images_are_deduplicated_by_identity_and_by_pixels():
    a, b = _image(0), _image(1)
    unique, index = dedupe_images([a, b, a, a.copy(), _image(1)])
    assert len(unique) == 2
    assert index == [0, 1, 0, 0, 1]


def test_yes_and_no_token_ids_cover_every_single_token_spelling():
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(resolve_model("tiny:llava", "vqa"))
    yes, no = word_token_ids(tok, ("yes", "Yes", "YES")), word_token_ids(tok, ("no", "No", "NO"))
    for word in ("yes", "Yes", " yes", " Yes", "YES"):
        assert tok.encode(word, add_special_tokens=False)[0] in yes
    for word in ("no", "No", " no", " No", "NO"):
        assert tok.encode(word, add_special_tokens=False)[0] in no
    assert not set(yes) & set(no)
    assert all(tok.decode([i]).strip().lower() == "yes" for i in yes)


def test_mismatched_images_and_questions_are_refused():
    vqa = ImageTextToTextVQA(RoleSpec("image-text-to-text", "tiny:llava"), CPU)
    with pytest.raises(InputError, match="pair up"):
        vqa.yes_prob([_image(0)], ["a?", "b?"])
    with pytest.raises(InputError, match=r"questions\[0\]"):
        vqa.yes_prob([_image(0)], [""])
    with pytest.raises(InputError, match=r"images\[0\]"):
        vqa.yes_prob(["not an image"], ["a?"])


def test_no_pairs_give_no_scores_without_loading_weights():
    vqa = ImageTextToTextVQA(RoleSpec("image-text-to-text", "/no/such/dir"), CPU)
    assert vqa.yes_no_probs([], []) == [] and vqa.yes_prob([], []) == [] and vqa.answer([], []) == []


def test_a_bad_batch_size_names_the_field():
    with pytest.raises(ConfigError, match="batch_size"):
        ImageTextToTextVQA(RoleSpec("image-text-to-text", "tiny:llava", {"batch_size": 0}), CPU)


def test_weights_load_lazily_on_first_use():
    vqa = ImageTextToTextVQA(RoleSpec("image-text-to-text", "/no/such/dir"), CPU)  # no error yet
    assert vqa._model is None


def test_models_without_the_features_hook_fall_back_to_plain_batching():
    class ModelWithoutHookDouble:  # a forward() signature as older VLM classes have it
        def forward(self, input_ids, pixel_values=None, attention_mask=None): ...

        def get_image_features(self, pixel_values): ...

    class ModelWithHookDouble(ModelWithoutHookDouble):
        def forward(self, input_ids, pixel_values=None, attention_mask=None, mm_encoder_outputs=None): ...

    assert "mm_encoder_outputs" in ImageTextToTextVQA._image_reuse_blocker(ModelWithoutHookDouble())
    assert ImageTextToTextVQA._image_reuse_blocker(ModelWithHookDouble()) is None


# --- transformers backends on the tiny models ---------------------------------------------------------


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_yes_no_probs_are_probabilities_and_yes_prob_is_their_ratio(family, pairs, make_vqa):
    images, questions = pairs
    vqa = make_vqa(family)
    probs = vqa.yes_no_probs(images, questions)
    assert len(probs) == len(images)
    for p_yes, p_no in probs:
        assert 0.0 < p_yes < 1.0 and 0.0 < p_no < 1.0 and p_yes + p_no <= 1.0
    ratios = vqa.yes_prob(images, questions)
    assert ratios == [y / (y + n) for y, n in probs]
    assert all(0.0 <= r <= 1.0 for r in ratios)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_batched_scores_equal_one_call_per_pair(family, pairs, make_vqa):
    images, questions = pairs
    vqa = make_vqa(family, batch_size=3)  # uneven last batch, mixed images and prompt lengths per batch
    batched = vqa.yes_no_probs(images, questions)
    single = [vqa.yes_no_probs([im], [q])[0] for im, q in zip(images, questions)]
    np.testing.assert_allclose(batched, single, atol=1e-4, rtol=0)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_reused_image_embeddings_equal_the_plain_forward_pass(family, pairs, make_vqa):
    images, questions = pairs
    reuse = make_vqa(family, batch_size=4)
    plain = make_vqa(family, batch_size=4, reuse_images=False)
    assert reuse.uses_image_reuse() and not plain.uses_image_reuse()
    np.testing.assert_allclose(
        reuse.yes_no_probs(images, questions), plain.yes_no_probs(images, questions), atol=1e-4, rtol=0
    )
    # Chat-template families expand image tokens without re-processing pixels; BLIP-2's processor
    # prepends its query tokens itself and InternVL's wraps them in <img>...</img>, so their prompts
    # keep going through the processor.
    expected = family in ("llava", "qwen2_vl", "qwen2_5_vl")
    assert reuse.reuse_status()["text_without_processor"] is expected


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_vision_tower_sees_each_unique_image_once(family, pairs, make_vqa):
    images, questions = pairs  # 7 pairs, 3 distinct images
    vqa = make_vqa(family, batch_size=4)
    seen: list[int] = []
    handle = _count_images_through_vision_tower(vqa, seen)
    try:
        vqa.yes_no_probs(images, questions)
    finally:
        handle.remove()
    assert sum(seen) == 3


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_answer_returns_one_string_per_pair_and_reuse_does_not_change_it(family, pairs, make_vqa):
    images, questions = pairs
    answers = make_vqa(family, batch_size=4).answer(images, questions, max_new_tokens=4)
    assert len(answers) == len(images) and all(isinstance(a, str) for a in answers)
    plain = make_vqa(family, batch_size=4, reuse_images=False).answer(images, questions, max_new_tokens=4)
    assert answers == plain
    one_by_one = make_vqa(family)
    single = [one_by_one.answer([im], [q], max_new_tokens=4)[0] for im, q in zip(images[:3], questions[:3])]
    assert answers[:3] == single


def test_models_cache_hands_every_caller_one_vqa_that_loads_weights_once(monkeypatch):
    import transformers

    calls: list[str] = []
    original = transformers.AutoModelForImageTextToText.from_pretrained.__func__

    def counting(cls, path, *args, **kwargs):
        calls.append(str(path))
        return original(cls, path, *args, **kwargs)

    monkeypatch.setattr(transformers.AutoModelForImageTextToText, "from_pretrained", classmethod(counting))
    config = load_config("tiny")
    cache.clear()
    try:
        vq2_vqa = cache.Models(config).vqa
        vnli_vqa = cache.Models(config).vqa
        detection_vqa = cache.Models(load_config("tiny")).vqa
        assert vq2_vqa is vnli_vqa is detection_vqa
        assert isinstance(vq2_vqa, ImageTextToTextVQA)
        for vqa in (vq2_vqa, vnli_vqa, detection_vqa):
            vqa.yes_prob([_image(0)], ["Is there a cat?"])
        assert len(calls) == 1
    finally:
        cache.clear()


# --- OpenAI-compatible backend against a local stub server -----------------------------------------------

SECRET = "sk-test-secret-do-not-log"


def _openai(url: str, **options) -> OpenAIVQA:
    opts = {"base_url": url, "api_key": SECRET, "max_retries": 0, "timeout": 10.0, **options}
    return OpenAIVQA(RoleSpec("openai", "stub-vlm", opts), CPU)


def test_openai_p_yes_sums_yes_spellings_from_the_top_logprobs(openai_stub):  # noqa: F811
    openai_stub.push_text("Yes", logprobs=[("Yes", -0.2), (" yes", -2.0), ("No", -1.5), ("maybe", -3.0)])
    image = _image(3, (20, 10))
    [(p_yes, p_no)] = _openai(openai_stub.url).yes_no_probs([image], ["Is there a cat?"])
    assert p_yes == pytest.approx(math.exp(-0.2) + math.exp(-2.0), rel=1e-12)
    assert p_no == pytest.approx(math.exp(-1.5), rel=1e-12)

    body = openai_stub.bodies()[0]
    assert body["model"] == "stub-vlm"
    assert body["max_tokens"] == 1 and body["logprobs"] is True and body["top_logprobs"] == 20
    image_part, text_part = body["messages"][0]["content"]
    url = image_part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    sent = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert sent.size == (20, 10) and np.array_equal(np.asarray(sent.convert("RGB")), np.asarray(image))
    assert "Is there a cat?" in text_part["text"]


def test_openai_yes_prob_is_the_normalised_ratio_and_a_missing_answer_gets_the_floor(openai_stub):  # noqa: F811
    openai_stub.push_text("No", logprobs=[("No", -0.1), ("Maybe", -2.5)])
    [ratio] = _openai(openai_stub.url).yes_prob([_image(0)], ["Is there a cat?"])
    assert ratio == pytest.approx(LOGPROB_FLOOR / (LOGPROB_FLOOR + math.exp(-0.1)), rel=1e-12)


def test_openai_answer_returns_the_stripped_reply(openai_stub):  # noqa: F811
    openai_stub.push_text("  red \n")
    assert _openai(openai_stub.url).answer([_image(0)], ["What color is the car?"], max_new_tokens=5) == ["red"]
    assert openai_stub.bodies()[0]["max_tokens"] == 5


def test_openai_server_error_raises_a_clear_error_without_the_key(openai_stub, caplog):  # noqa: F811
    openai_stub.push_error(500, "model overloaded")
    vqa = _openai(openai_stub.url)
    with caplog.at_level("DEBUG"):
        with pytest.raises(VQAServiceError, match="HTTP 500") as info:
            vqa.yes_prob([_image(0)], ["Is there a cat?"])
    assert "model overloaded" in str(info.value) and "stub-vlm" in str(info.value)
    assert SECRET not in str(info.value) and SECRET not in caplog.text and SECRET not in repr(vqa)


def test_openai_without_a_model_name_says_how_to_set_one(monkeypatch):
    monkeypatch.delenv("AUTOALIGN_VQA_MODEL", raising=False)
    vqa = OpenAIVQA(RoleSpec("openai", None, {"api_key": SECRET, "base_url": "http://127.0.0.1:9"}), CPU)
    with pytest.raises(ConfigError, match="AUTOALIGN_VQA_MODEL"):
        vqa.yes_prob([_image(0)], ["a?"])
