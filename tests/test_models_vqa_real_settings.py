"""VQA settings of the real checkpoints, on tiny models configured like them.

* the FineMatch instruction reaches Qwen2-VL through its real chat template as it is, not wrapped in
  the short-answer prompt that contradicts its JSON format;
* non-finite logits raise instead of becoming a score;
* Qwen2-VL's image processor, with the real checkpoint's settings, is capped in pixels per image.
"""

from __future__ import annotations

import math

import pytest
import torch
from PIL import Image

from autoalign import prompts
from autoalign.config import ConfigError, RoleSpec, load_config
from autoalign.detection.vlm_detector import VLMDetector, build_instruction
from autoalign.models import tiny_vlm
from autoalign.models.loading import DeviceSpec
from autoalign.models.vqa import DEFAULT_MAX_PIXELS, ImageTextToTextVQA, NonFiniteScores, cap_image_pixels, normalise

CPU = DeviceSpec("cpu", "float32")
PROMPT = "two red apples on a blue plate"


@pytest.fixture(scope="module")
def qwen_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("qwen") / "qwen2_vl"
    tiny_vlm.build_qwen2_vl(out)
    return str(out)


class _Models:
    """The one attribute the detector reads from the run's models: the VQA backend."""

    def __init__(self, vqa):
        self.vqa = vqa


def test_the_detector_instruction_reaches_qwen2_vl_as_it_is_through_the_real_chat_template(qwen_dir):
    vqa = ImageTextToTextVQA(RoleSpec("image-text-to-text", qwen_dir), CPU)
    sent: list[str] = []
    original = vqa._batch_inputs

    def recording(texts, *args, **kwargs):
        sent.extend(texts)
        return original(texts, *args, **kwargs)

    vqa._batch_inputs = recording
    config = load_config("tiny")
    VLMDetector(_Models(vqa), config, max_new_tokens=2).detect(Image.new("RGB", (48, 40), "red"), PROMPT, None)

    instruction = build_instruction(PROMPT)
    assert sent == [
        "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
        "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>"
        + instruction
        + "<|im_end|>\n<|im_start|>assistant\n"
    ]
    short_answer = prompts.load("vqa_answer.txt").strip().replace("{question}", "").strip()
    assert short_answer not in sent[0]  # "Answer the question using a single word or phrase."
    # ...which is exactly what the short-answer path adds, so the two paths really differ:
    assert short_answer in vqa._text("What colour is the plate?", "answer")


def test_the_detector_refuses_a_vqa_backend_without_instruction_prompts():
    class AnswerOnlyVQADouble:
        def answer(self, images, questions, max_new_tokens=16):
            return ["{}"] * len(questions)

    detector = VLMDetector(_Models(AnswerOnlyVQADouble()), load_config("tiny"))
    with pytest.raises(ConfigError, match="instruction prompts"):
        detector.detect(Image.new("RGB", (8, 8)), PROMPT, None)


def test_non_finite_logits_raise_instead_of_scoring(qwen_dir):
    vqa = ImageTextToTextVQA(RoleSpec("image-text-to-text", qwen_dir), CPU)
    model = vqa.model
    # Poison the language model head the way fp16 overflow does: every logit NaN.
    handle = model.lm_head.register_forward_hook(lambda mod, args, out: torch.full_like(out, float("nan")))
    try:
        with pytest.raises(NonFiniteScores, match="bfloat16"):
            vqa.yes_prob([Image.new("RGB", (48, 40))], ["Is there a cat?"])
    finally:
        handle.remove()
    assert 0.0 <= vqa.yes_prob([Image.new("RGB", (48, 40))], ["Is there a cat?"])[0] <= 1.0


@pytest.mark.parametrize("p_yes, p_no", [(math.nan, math.nan), (math.inf, 0.1), (0.2, math.nan)])
def test_normalise_refuses_non_finite_probabilities(p_yes, p_no):
    with pytest.raises(NonFiniteScores):
        normalise(p_yes, p_no)
    assert normalise(0.0, 0.0) == 0.5  # no mass on either word stays "undecided"


def _real_qwen2_vl_processor():
    """Qwen2-VL-2B-Instruct's image processor settings (preprocessor_config.json), built offline."""
    from transformers import Qwen2VLImageProcessor

    return Qwen2VLImageProcessor(
        patch_size=14,
        merge_size=2,
        temporal_patch_size=2,
        min_pixels=56 * 56,
        max_pixels=28 * 28 * 16384,
        image_mean=[0.48145466, 0.4578275, 0.40821073],
        image_std=[0.26862954, 0.26130258, 0.27577711],
    )


def _image_tokens(image_processor, size) -> int:
    grid = image_processor(images=[Image.new("RGB", size)], return_tensors="pt")["image_grid_thw"][0]
    return int(grid.prod()) // image_processor.merge_size**2


class _ProcessorDouble:
    def __init__(self, image_processor):
        self.image_processor = image_processor


def test_a_phone_photo_is_capped_to_the_default_pixel_budget():
    image_processor = _real_qwen2_vl_processor()
    assert _image_tokens(image_processor, (4032, 3024)) == 15552  # uncapped: the out-of-memory case
    bounds = cap_image_pixels(_ProcessorDouble(image_processor), {})
    assert bounds == {"min_pixels": 56 * 56, "max_pixels": DEFAULT_MAX_PIXELS}
    assert _image_tokens(image_processor, (4032, 3024)) <= DEFAULT_MAX_PIXELS // (28 * 28)


def test_preset_pixel_bounds_apply_and_bad_ones_are_refused():
    image_processor = _real_qwen2_vl_processor()
    cap_image_pixels(_ProcessorDouble(image_processor), {"max_pixels": 256 * 28 * 28})
    assert _image_tokens(image_processor, (1024, 1024)) <= 256
    with pytest.raises(ConfigError, match="min_pixels"):
        cap_image_pixels(_ProcessorDouble(_real_qwen2_vl_processor()), {"min_pixels": 10**7, "max_pixels": 10**6})
    from transformers import CLIPImageProcessor

    with pytest.raises(ConfigError, match="no pixel bounds"):
        cap_image_pixels(_ProcessorDouble(CLIPImageProcessor()), {"max_pixels": 1000})
    assert cap_image_pixels(_ProcessorDouble(CLIPImageProcessor()), {}) is None


def test_the_pixel_cap_reaches_the_loaded_backend(qwen_dir):
    image = Image.new("RGB", (64, 64))
    small = ImageTextToTextVQA(RoleSpec("image-text-to-text", qwen_dir, {"max_pixels": 32 * 32}), CPU)
    full = ImageTextToTextVQA(RoleSpec("image-text-to-text", qwen_dir), CPU)
    assert _image_tokens(small.processor.image_processor, image.size) < _image_tokens(
        full.processor.image_processor, image.size
    )
    assert 0.0 <= small.yes_prob([image], ["Is it dark?"])[0] <= 1.0


# --- the OpenAI-compatible backend with reasoning models -------------------------------------------


def _openai_vqa(url: str, model: str, **options):
    from autoalign.models.vqa_openai import OpenAIVQA

    opts = {"base_url": url, "api_key": "sk-test", "max_retries": 0, "timeout": 10.0, **options}
    return OpenAIVQA(RoleSpec("openai", model, opts), CPU)


@pytest.mark.parametrize(
    "name, expected",
    [("gpt-5", True), ("gpt-5-mini", True), ("o3", True), ("o4-mini", True), ("o1-2024-12-17", True),
     ("gpt-4o", False), ("gpt-4.1-mini", False), ("Qwen/Qwen2.5-VL-7B-Instruct", False), ("o3x-vision", False)],
)
def test_reasoning_models_are_known_by_name(name, expected):
    from autoalign.models.vqa_openai import is_reasoning_model

    assert is_reasoning_model(name) is expected


def test_a_reasoning_model_gets_max_completion_tokens_and_no_temperature(openai_stub):  # noqa: F811
    openai_stub.push_text("red")
    vqa = _openai_vqa(openai_stub.url, "gpt-5-mini")
    assert vqa.answer([Image.new("RGB", (8, 8))], ["What colour?"], max_new_tokens=5) == ["red"]
    body = openai_stub.bodies()[0]
    assert "max_tokens" not in body and "temperature" not in body
    assert body["max_completion_tokens"] > 5


def test_p_yes_from_a_model_without_logprobs_fails_clearly_before_any_request(openai_stub):  # noqa: F811
    from autoalign.models.vqa import VQAServiceError

    vqa = _openai_vqa(openai_stub.url, "o3")
    with pytest.raises(VQAServiceError, match="no logprobs"):
        vqa.yes_prob([Image.new("RGB", (8, 8))], ["Is it red?"])
    assert openai_stub.bodies() == []


def test_other_models_keep_max_tokens_and_respond_sends_the_prompt_as_it_is(openai_stub):  # noqa: F811
    openai_stub.push_text('{"mismatches": []}')
    vqa = _openai_vqa(openai_stub.url, "gpt-4o")
    vqa.respond([Image.new("RGB", (8, 8))], ["Reply with JSON only."], max_new_tokens=64)
    body = openai_stub.bodies()[0]
    assert body["max_tokens"] == 64 and body["temperature"] == 0
    assert body["messages"][0]["content"][1]["text"] == "Reply with JSON only."
