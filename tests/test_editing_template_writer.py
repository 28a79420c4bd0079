"""The offline template writer: one short imperative instruction per FineMatch triplet."""

from __future__ import annotations

import pytest

from autoalign.config import load_config
from autoalign.editing.template_writer import (
    TemplateWriter,
    instruction_texts,
    parse_count,
)
from autoalign.types import Instruction, Mismatch


def first(prompt: str, mismatch: Mismatch) -> str:
    return TemplateWriter().write(prompt, [mismatch], tried=[])[0].text


# ---- entity -----------------------------------------------------------------------------------------
def test_entity_shown_as_something_else_is_swapped():
    assert first("a cat on a sofa", Mismatch("entity", "a cat", "a dog")) == "replace the dog with a cat"


@pytest.mark.parametrize("correction", ["", "no apple", "missing"])
def test_missing_entity_is_added_with_the_right_article(correction):
    assert first("an apple on a table", Mismatch("entity", "an apple", correction)) == "add an apple"


def test_entity_the_prompt_excludes_is_removed():
    assert first("a room with no people", Mismatch("entity", "no people", "two people")) == "remove the people"


def test_detector_can_force_the_entity_action():
    m = Mismatch("entity", "a hat", "a hat", evidence={"action": "remove"})
    assert first("a man", m) == "remove the hat"


# ---- attribute --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "prompt, phrase, expected",
    [
        ("a red car next to a blue bench", "red", "make the car red"),
        ("a red car next to a blue bench", "blue", "make the bench blue"),
        ("the car is red", "red", "make the car red"),
        ("a woman holding a golden flower", "golden", "make the flower golden"),
        ("a red car", "red car", "make the car red"),
    ],
)
def test_attribute_names_the_noun_it_modifies_in_the_prompt(prompt, phrase, expected):
    assert first(prompt, Mismatch("attribute", phrase, "white")) == expected


def test_attribute_noun_from_evidence_wins():
    m = Mismatch("attribute", "shiny", "matte", evidence={"noun": "the teapot"})
    assert first("a shiny object", m) == "make the teapot shiny"


# ---- number -----------------------------------------------------------------------------------------
def test_one_too_few_adds_another():
    assert first("three cats on a sofa", Mismatch("number", "three cats", "two cats")) == "add another cat"


def test_one_too_many_removes_one():
    assert first("two dogs in a park", Mismatch("number", "two dogs", "three dogs")) == "remove one dog"


def test_count_far_off_sets_the_count():
    assert first("five birds on a wire", Mismatch("number", "five birds", "2")) == "make it five birds"


def test_bare_number_phrase_finds_its_noun_in_the_prompt():
    assert first("five birds on a wire", Mismatch("number", "five", "two")) == "make it five birds"


def test_none_shown_adds_them_all():
    assert first("three cats", Mismatch("number", "three cats", "no cats")) == "add three cats"


@pytest.mark.parametrize("text, n", [("three cats", 3), ("2 dogs", 2), ("no cats", 0), ("a dog", 1), ("a pair of shoes", 2), ("dogs", None)])
def test_counts_are_read_from_words_and_digits(text, n):
    assert parse_count(text) == n


# ---- relation ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "prompt, phrase, expected",
    [
        ("a cat on a sofa", "on", "put the cat on the sofa"),
        ("a cat to the left of a dog", "to the left of", "put the cat to the left of the dog"),
        ("a red car next to a blue bench", "next to", "put the red car next to the blue bench"),
        ("a cat sits on the mat", "on", "put the cat on the mat"),
        ("a cat on a sofa", "cat on the sofa", "put the cat on the sofa"),
        ("a woman holding a golden flower", "holding", "show the woman holding the golden flower"),
    ],
)
def test_relation_puts_subject_and_object_in_place(prompt, phrase, expected):
    assert first(prompt, Mismatch("relation", phrase, "under")) == expected


def test_unparseable_relation_falls_back_to_the_whole_prompt():
    texts = instruction_texts("sunset", Mismatch("relation", "beyond", ""))
    assert texts[0] == "make the image show sunset"


# ---- the writer's contract ------------------------------------------------------------------------
def test_instructions_record_writer_and_the_mismatch_they_address():
    m = Mismatch("attribute", "red", "blue", source="vq2")
    [ins] = TemplateWriter().write("a red car", [m], tried=[])
    assert isinstance(ins, Instruction)
    assert ins.writer == "template"
    assert ins.mismatches == [m.to_dict()]
    assert ins.note == ""


def test_tried_instruction_is_not_repeated_but_reworded():
    m = Mismatch("attribute", "red", "blue")
    [ins] = TemplateWriter().write("a red car", [m], tried=["Make the car red."])
    assert ins.text == "change the car to red"


def test_every_wording_tried_gives_nothing():
    m = Mismatch("entity", "a cat", "")
    everything = instruction_texts("a cat", m)
    assert TemplateWriter().write("a cat", [m], tried=everything) == []


def test_sequential_writes_one_per_mismatch_most_confident_first():
    cfg = load_config("tiny", overrides={"loop": {"multi_mismatch": "sequential", "max_instructions": 3}})
    mms = [
        Mismatch("attribute", "red", "blue", confidence=0.4),
        Mismatch("entity", "a dog", "", confidence=0.9),
    ]
    out = TemplateWriter(None, cfg).write("a red car and a dog", mms, tried=[])
    assert [i.text for i in out] == ["add a dog", "make the car red"]
    assert [i.mismatches[0]["phrase"] for i in out] == ["a dog", "red"]


def test_sequential_stops_at_max_instructions():
    cfg = load_config("tiny", overrides={"loop": {"max_instructions": 1}})
    mms = [Mismatch("entity", "a dog", ""), Mismatch("entity", "a cat", "")]
    assert len(TemplateWriter(None, cfg).write("a dog and a cat", mms, tried=[])) == 1


def test_combined_writes_one_instruction_for_all_mismatches():
    cfg = load_config("tiny", overrides={"loop": {"multi_mismatch": "combined"}})
    mms = [Mismatch("attribute", "red", "blue", confidence=0.9), Mismatch("entity", "a dog", "", confidence=0.5)]
    [ins] = TemplateWriter(None, cfg).write("a red car and a dog", mms, tried=[])
    assert ins.text == "make the car red and add a dog"
    assert len(ins.mismatches) == 2


def test_combined_rewords_when_tried():
    cfg = load_config("tiny", overrides={"loop": {"multi_mismatch": "combined"}})
    mms = [Mismatch("attribute", "red", "blue"), Mismatch("entity", "a dog", "")]
    [ins] = TemplateWriter(None, cfg).write("a red car and a dog", mms, tried=["make the car red and add a dog"])
    assert ins.text == "change the car to red and put a dog in the picture"


def test_same_input_same_output():
    mms = [Mismatch("relation", "on", "under"), Mismatch("number", "two cats", "one cat")]
    a = TemplateWriter().write("two cats on a sofa", mms, tried=[])
    b = TemplateWriter().write("two cats on a sofa", mms, tried=[])
    assert [i.to_dict() for i in a] == [i.to_dict() for i in b]


def test_no_mismatch_no_instruction():
    assert TemplateWriter().write("a cat", [], tried=[]) == []


def test_scene_description_as_correction_means_the_entity_is_missing():
    m = Mismatch("entity", "a dog", "a car parked on a busy street")
    assert first("a dog next to a car", m) == "add a dog"


def test_written_text_mismatch_asks_for_the_words():
    m = Mismatch("attribute", "hello", "helo", evidence={"kind": "text"})
    assert first('a sign that says "hello"', m) == 'make the text say "hello"'
