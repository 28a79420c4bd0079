"""The tiny random-weight VLMs build in code, offline, and load with the real transformers classes."""

from __future__ import annotations

import hashlib

import pytest
import torch
from PIL import Image

from autoalign.models import tiny_vlm


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def llava_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-vlm") / "llava"
    tiny_vlm.build_llava(out)
    return out


@pytest.fixture(scope="module")
def blip2_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-vlm") / "blip2"
    tiny_vlm.build_blip2(out)
    return out


def test_tokenizer_has_single_tokens_for_yes_and_no_spellings():
    tok = tiny_vlm.build_tokenizer()
    for word in ("yes", "Yes", "YES", "no", "No", "NO", " yes", " Yes", " no", " No"):
        assert len(tok.encode(word, add_special_tokens=False)) == 1, word
    assert tok.convert_tokens_to_ids("<image>") != tok.unk_token_id
    assert tok.padding_side == "left"


def test_tokenizer_is_identical_across_builds():
    assert tiny_vlm.build_tokenizer().get_vocab() == tiny_vlm.build_tokenizer().get_vocab()


def test_llava_is_a_few_megabytes_of_safetensors(llava_dir):
    files = {p.name for p in llava_dir.iterdir()}
    assert "model.safetensors" in files and "config.json" in files and "processor_config.json" in files
    size = sum(p.stat().st_size for p in llava_dir.iterdir())
    assert size < 5 * 2**20


def test_llava_weights_are_the_same_on_every_build(llava_dir, tmp_path):
    tiny_vlm.build_llava(tmp_path / "again")
    assert _sha(tmp_path / "again" / "model.safetensors") == _sha(llava_dir / "model.safetensors")


def test_building_leaves_the_callers_random_state_alone(tmp_path):
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    tiny_vlm.build_blip2(tmp_path / "blip2")
    assert torch.equal(torch.rand(3), expected)


def test_llava_loads_with_auto_classes_and_image_tokens_match_the_vision_tower(llava_dir):
    from transformers import AutoModelForImageTextToText, AutoProcessor, LlavaForConditionalGeneration

    processor = AutoProcessor.from_pretrained(llava_dir)
    model = AutoModelForImageTextToText.from_pretrained(llava_dir)
    assert isinstance(model, LlavaForConditionalGeneration)
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Is there a cat?"}]}]
    text = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    assert "<image>" in text and text.endswith("ASSISTANT:")
    enc = processor(text=[text], images=[Image.new("RGB", (100, 60), "red")], return_tensors="pt")
    n_image_tokens = int((enc["input_ids"] == model.config.image_token_id).sum())
    patches = (tiny_vlm.IMAGE_SIZE // tiny_vlm.PATCH_SIZE) ** 2
    assert n_image_tokens == patches
    with torch.inference_mode():
        logits = model(**enc).logits
    assert logits.shape == (1, enc["input_ids"].shape[1], model.config.text_config.vocab_size)


def test_blip2_loads_and_its_processor_inserts_one_token_per_query(blip2_dir):
    from transformers import Blip2ForConditionalGeneration, Blip2Processor

    processor = Blip2Processor.from_pretrained(blip2_dir)
    model = Blip2ForConditionalGeneration.from_pretrained(blip2_dir)
    enc = processor(
        text=["Question: is it red? Answer:"], images=[Image.new("RGB", (40, 70), "blue")], return_tensors="pt"
    )
    n_image_tokens = int((enc["input_ids"] == model.config.image_token_id).sum())
    assert n_image_tokens == model.config.num_query_tokens == processor.num_query_tokens
    with torch.inference_mode():
        out = model(**enc)
    assert torch.isfinite(out.logits).all()
