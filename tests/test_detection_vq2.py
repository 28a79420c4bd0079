"""The VQ2-derived detector turns failed questions into FineMatch triplets (with a VQA double)."""

from __future__ import annotations

import pytest
from PIL import Image

from autoalign.config import load_config
from autoalign.detection.vq2_detector import VQ2Detector, failed_roots
from autoalign.types import Question, QuestionScore, ScoreCard

PROMPT = "two red apples on a blue plate"


class VQADouble:
    """Answers open questions from a fixed table; records what it was asked. It looks at nothing."""

    def __init__(self, answers: dict[str, str]):
        self.answers = answers
        self.asked: list[str] = []

    def answer(self, images, questions, max_new_tokens=16):
        assert len(images) == len(questions)
        self.asked.extend(questions)
        return [self.answers.get(q, "") for q in questions]


class ModelsDouble:
    def __init__(self, vqa):
        self.vqa = vqa


def card(p: dict[str, float]) -> ScoreCard:
    """The tiny preset's questions for PROMPT (as the spaCy generator writes them) with given P(yes)."""
    qs = [
        {"id": "q1", "text": "are there apples?", "answer": "apples", "aspect": "entity", "span": "two red apples", "depends_on": []},
        {"id": "q2", "text": "how many apples are there?", "answer": "two", "aspect": "number", "span": "two red apples", "depends_on": ["q1"]},
        {"id": "q3", "text": "what color are the apples?", "answer": "red", "aspect": "attribute", "span": "red apples", "depends_on": ["q1"]},
        {"id": "q4", "text": "is there a plate?", "answer": "plate", "aspect": "entity", "span": "a blue plate", "depends_on": []},
        {"id": "q5", "text": "what color is the plate?", "answer": "blue", "aspect": "attribute", "span": "blue plate", "depends_on": ["q4"]},
        {"id": "q6", "text": "what are the apples on?", "answer": "plate", "aspect": "relation", "span": "apples on a blue plate", "depends_on": ["q1", "q4"]},
    ]
    for q in qs:
        q["p_yes"] = p.get(q["id"], 0.95)
    return ScoreCard.from_dict({"overall": 0.5, "vq2": 0.5, "questions": qs})  # the card's JSON form, as a trace holds it


@pytest.fixture
def config():
    cfg = load_config("tiny")
    cfg.detection.detectors = ["vq2"]
    return cfg


IMAGE = Image.new("RGB", (32, 32))


def test_wrong_colour_becomes_an_attribute_triplet_with_the_seen_colour(config):
    vqa = VQADouble({"what color are the apples?": "Green."})
    found = VQ2Detector(ModelsDouble(vqa), config).detect(IMAGE, PROMPT, card({"q3": 0.1}))
    assert len(found) == 1
    m = found[0]
    assert (m.aspect, m.phrase, m.correction, m.source) == ("attribute", "red", "Green", "vq2")
    assert m.confidence == pytest.approx(0.9)
    assert m.evidence["question"] == "what color are the apples?" and m.evidence["p_yes"] == 0.1
    assert m.evidence["open_question"] == "what color are the apples?" and m.evidence["open_answer"] == "Green."
    assert m.evidence["noun"] == "apples"


def test_a_missing_parent_hides_its_children(config):
    vqa = VQADouble({"What is in the image?": "a bowl of pears"})
    # apples missing (q1) -> count, colour and relation of the apples also fail, but only q1 is reported
    found = VQ2Detector(ModelsDouble(vqa), config).detect(IMAGE, PROMPT, card({"q1": 0.05, "q2": 0.0, "q3": 0.0, "q6": 0.0}))
    assert [(m.aspect, m.phrase, m.correction) for m in found] == [("entity", "two red apples", "a bowl of pears")]
    assert vqa.asked == ["What is in the image?"]


def test_failed_roots_follow_dependencies_transitively():
    qs = [
        QuestionScore(Question("a", "is there a?", "a", depends_on=[]), 0.1),
        QuestionScore(Question("b", "is there b?", "b", depends_on=["a"]), 0.9),
        QuestionScore(Question("c", "is there c?", "c", depends_on=["b"]), 0.2),  # grandparent failed
        QuestionScore(Question("d", "is there d?", "d", depends_on=["d"]), 0.3),  # a cycle must not hang
    ]
    assert [q.question.id for q in failed_roots(qs, 0.5)] == ["a"]


def test_number_and_relation_corrections(config):
    vqa = VQADouble({"how many apples are there?": "3", "Where is the apples relative to the plate?": "next to"})
    found = VQ2Detector(ModelsDouble(vqa), config).detect(IMAGE, PROMPT, card({"q2": 0.2, "q6": 0.3}))
    by_aspect = {m.aspect: m for m in found}
    assert (by_aspect["number"].phrase, by_aspect["number"].correction) == ("two red apples", "3 red apples")
    rel = by_aspect["relation"]
    assert (rel.phrase, rel.correction) == ("on", "next to")
    assert rel.evidence["subject"] == "apples" and rel.evidence["object"] == "plate"
    assert [m.aspect for m in found] == ["number", "relation"]  # most confident first


def test_threshold_and_limit_come_from_the_config(config):
    config.detection.threshold = 0.2
    vqa = VQADouble({})
    found = VQ2Detector(ModelsDouble(vqa), config).detect(IMAGE, PROMPT, card({"q3": 0.1, "q5": 0.3}))
    assert [m.phrase for m in found] == ["red"]
    config.detection.threshold = 0.5
    config.detection.max_mismatches = 1
    found = VQ2Detector(ModelsDouble(vqa), config).detect(IMAGE, PROMPT, card({"q3": 0.1, "q5": 0.3, "q6": 0.4}))
    assert [m.phrase for m in found] == ["red"]


def test_all_passing_questions_mean_no_mismatch_and_no_vqa_call(config):
    vqa = VQADouble({})
    assert VQ2Detector(ModelsDouble(vqa), config).detect(IMAGE, PROMPT, card({})) == []
    assert vqa.asked == []


def test_text_questions_go_to_the_ocr_detector_when_it_runs(config):
    prompt = 'a sign that says "OPEN"'
    qs = [
        {"id": "q1", "text": "is there a sign?", "answer": "sign", "aspect": "entity", "span": "a sign", "depends_on": [], "p_yes": 0.9},
        {"id": "q2", "text": "what text is written on the sign?", "answer": "OPEN", "aspect": "text", "span": '"OPEN"', "depends_on": ["q1"], "p_yes": 0.1},
    ]
    config.detection.detectors = ["vq2", "text"]
    assert VQ2Detector(ModelsDouble(VQADouble({})), config).detect(IMAGE, prompt, ScoreCard.from_dict({"overall": 0.5, "questions": qs})) == []
    config.detection.detectors = ["vq2"]
    vqa = VQADouble({"what text is written on the sign?": "CLOSED"})
    (m,) = VQ2Detector(ModelsDouble(vqa), config).detect(IMAGE, prompt, ScoreCard.from_dict({"overall": 0.5, "questions": qs}))
    assert (m.aspect, m.phrase, m.correction, m.evidence["kind"]) == ("attribute", "OPEN", "CLOSED", "text")


def test_open_questions_can_be_switched_off(config):
    vqa = VQADouble({})
    found = VQ2Detector(ModelsDouble(vqa), config, open_questions=False).detect(IMAGE, PROMPT, card({"q5": 0.2}))
    assert [(m.phrase, m.correction) for m in found] == [("blue", "")]
    assert vqa.asked == []


def test_yes_no_questions_of_the_offline_generator_get_corrections_from_their_short_forms(config):
    from autoalign.config import RoleSpec
    from autoalign.scoring.questions import SpacyQuestions

    qs = [q.to_dict() for q in SpacyQuestions(RoleSpec("spacy", None, {})).generate(PROMPT)]
    texts = [q["text"] for q in qs]
    assert texts[:3] == ["are there apples?", "are there two apples?", "are the apples red?"]
    p = {"are there two apples?": 0.1, "are the apples red?": 0.2, "are the apples on the plate?": 0.3}
    for q in qs:
        q["p_yes"] = p.get(q["text"], 0.95)
    vqa = VQADouble({"how many apples are there?": "three", "what color are the apples?": "green"})
    card = ScoreCard.from_dict({"overall": 0.5, "vq2": 0.5, "questions": qs})
    found = VQ2Detector(ModelsDouble(vqa), config).detect(IMAGE, PROMPT, card)
    got = {(m.aspect, m.phrase, m.correction) for m in found}
    assert ("number", "two red apples", "three red apples") in got
    assert ("attribute", "red", "green") in got
    assert "how many apples are there?" in vqa.asked and "what color are the apples?" in vqa.asked
    # a relation has no short form: the detector's own template asks where the apples are
    assert any(q.startswith("Where is the apples relative to the plate") for q in vqa.asked)
