"""Detectors together: the VLM detector's two backends, the merge rule, and ``detection.detect``.

The VLM and the LLM are doubles that return canned text (they judge nothing); the point is the
wiring: what is sent, how the answer is parsed, how detectors' triplets merge.
"""

from __future__ import annotations

import json

import pytest
from PIL import Image

from autoalign import registry
from autoalign.config import ConfigError, load_config
from autoalign.detection import detect, make_detectors
from autoalign.detection.ensemble import merge, noisy_or
from autoalign.detection.vlm_detector import VLMDetector, build_instruction
from autoalign.types import Mismatch

PROMPT = "two red apples on a blue plate"
IMAGE = Image.new("RGB", (32, 32))


class VLMDouble:
    """A VQA double whose answer()/respond() return a canned reply and record the questions and the path."""

    def __init__(self, reply: str, answers: dict[str, str] | None = None):
        self.reply = reply
        self.answers = answers or {}
        self.asked: list[tuple[str, int]] = []
        self.paths: list[str] = []

    def answer(self, images, questions, max_new_tokens=16):
        self.asked.extend((q, max_new_tokens) for q in questions)
        self.paths.extend("answer" for _ in questions)
        return [self.answers.get(q, self.reply) for q in questions]

    def respond(self, images, prompts, max_new_tokens=256):
        self.asked.extend((q, max_new_tokens) for q in prompts)
        self.paths.extend("respond" for _ in prompts)
        return [self.answers.get(q, self.reply) for q in prompts]


class LLMDouble:
    """An OpenAI-style chat double: records the messages, returns a canned reply."""

    def __init__(self, reply: str):
        self.reply = reply
        self.messages = None

    def complete_text(self, messages, max_tokens=None):
        self.messages = messages
        return self.reply


class ModelsDouble:
    def __init__(self, vqa=None, llm=None):
        self.vqa = vqa
        self.llm = llm


@pytest.fixture
def config():
    return load_config("tiny")


REPLY = json.dumps({"mismatches": [{"class": "color", "phrase": "red", "correction": "green", "confidence": 0.7}]})


def test_instruction_holds_examples_and_caption():
    text = build_instruction(PROMPT)
    assert 'Caption: "two red apples on a blue plate"' in text
    assert "Three dogs sleeping on a sofa." in text and '"mismatches"' in text
    assert text.rstrip().endswith("Answer:")


def test_vlm_detector_through_the_vqa_model(config):
    vqa = VLMDouble("```json\n" + REPLY + "\n```")
    (m,) = VLMDetector(ModelsDouble(vqa=vqa), config).detect(IMAGE, PROMPT, None)
    assert (m.aspect, m.phrase, m.correction, m.confidence, m.source) == ("attribute", "red", "green", 0.7, "vlm")
    assert m.evidence["backend"] == "vqa"
    assert vqa.asked[0][0] == build_instruction(PROMPT) and vqa.asked[0][1] == 256
    assert vqa.paths == ["respond"]  # the instruction as it is, not wrapped in the short-answer prompt


def test_vlm_detector_through_the_openai_client_sends_the_image(config):
    llm = LLMDouble(REPLY)
    (m,) = VLMDetector(ModelsDouble(llm=llm), config, backend="openai").detect(IMAGE, PROMPT, None)
    assert (m.phrase, m.evidence["backend"]) == ("red", "openai")
    parts = llm.messages[0]["content"]
    assert parts[0]["type"] == "text" and parts[1]["image_url"]["url"].startswith("data:image/png;base64,")


def test_vlm_garbage_answer_gives_no_mismatch(config):
    assert VLMDetector(ModelsDouble(vqa=VLMDouble("nch\x1eDoescr%cr%cr")), config).detect(IMAGE, PROMPT, None) == []


def test_unknown_vlm_backend_is_a_config_error(config):
    with pytest.raises(ConfigError, match="backend must be one of"):
        VLMDetector(ModelsDouble(), config, backend="telepathy")


def test_agreeing_detectors_merge_and_confidence_rises():
    a = Mismatch("attribute", "red", "green", 0.6, "vq2", {"noun": "apples", "p_yes": 0.4})
    b = Mismatch("attribute", "red apples", "", 0.5, "vlm", {"backend": "vqa"})
    c = Mismatch("entity", "a blue plate", "a bowl", 0.3, "vq2", {})
    merged = merge([[a, c], [b]])
    assert len(merged) == 2
    top = merged[0]
    assert top.confidence == pytest.approx(1 - 0.4 * 0.5) == pytest.approx(noisy_or([0.6, 0.5]))
    assert (top.phrase, top.correction, top.source, top.aspect) == ("red", "green", "vq2+vlm", "attribute")
    assert [e["source"] for e in top.evidence["merged"]] == ["vq2", "vlm"]
    assert top.evidence["noun"] == "apples"  # hints survive for the instruction writer
    assert merged[1] is c


def test_same_detector_triplets_do_not_merge():
    a = Mismatch("number", "two red apples", "3", 0.6, "vq2")
    b = Mismatch("entity", "two red apples", "pears", 0.5, "vq2")
    assert len(merge([[a, b]])) == 2


def test_merge_keeps_at_most_the_limit_by_confidence():
    found = [Mismatch("entity", w, "", c, "vq2") for w, c in [("apples", 0.2), ("plate", 0.9), ("red", 0.5), ("blue", 0.7)]]
    assert [m.phrase for m in merge([found], 3)] == ["plate", "blue", "red"]


def test_detect_runs_the_configured_detectors_and_merges(config):
    config.detection.detectors = ["vq2", "vlm"]
    questions = [
        {"id": "q1", "text": "what color are the apples?", "answer": "red", "aspect": "attribute", "span": "red apples", "depends_on": [], "p_yes": 0.2},
    ]
    vqa = VLMDouble(REPLY, answers={"what color are the apples?": "green"})
    found = detect(IMAGE, PROMPT, {"overall": 0.2, "vq2": None, "vnli": None, "clip": None, "questions": questions}, ModelsDouble(vqa=vqa), config)
    assert len(found) == 1
    m = found[0]
    assert (m.phrase, m.correction, m.source) == ("red", "green", "vq2+vlm")
    assert m.confidence == pytest.approx(1 - 0.2 * 0.3)


def test_importing_detection_registers_every_detector(config):
    assert {"vq2", "vlm", "text"} <= set(registry.names("detector"))
    config.detection.detectors = ["text", "vq2"]
    assert [d.name for d in make_detectors(ModelsDouble(), config)] == ["text", "vq2"]


@pytest.mark.slow
def test_vlm_detector_runs_on_the_tiny_vlm(config):
    """The real transformers VQA backend answers the long few-shot instruction; random weights give
    garbage, which the parser must turn into valid triplets or nothing."""
    from autoalign.models.cache import Models

    found = VLMDetector(Models(config), config, max_new_tokens=24).detect(Image.new("RGB", (64, 64), "red"), PROMPT, None)
    assert len(found) <= 3 and all(m.phrase in PROMPT and m.aspect in ("entity", "attribute", "relation", "number") for m in found)
