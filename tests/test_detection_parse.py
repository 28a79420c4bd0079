"""The VLM output parser keeps what is valid and never raises on what a model writes."""

from __future__ import annotations

import json
import logging

import pytest

from autoalign.detection.parse import parse_mismatches
from autoalign.detection.phrases import normalise_aspect, phrases_overlap, snap_phrase

PROMPT = "Three red apples on a wooden table next to a Dog."


def triplets(result):
    return [(m.aspect, m.phrase, m.correction) for m in result.mismatches]


def test_plain_json_object():
    raw = json.dumps({"mismatches": [{"class": "attribute", "phrase": "red", "correction": "green", "confidence": 0.9}]})
    result = parse_mismatches(raw, PROMPT)
    assert triplets(result) == [("attribute", "red", "green")]
    assert result.mismatches[0].confidence == 0.9 and result.mismatches[0].source == "vlm"


def test_markdown_fenced_json_with_chatter():
    raw = 'Sure! Here is my analysis:\n```json\n[{"aspect": "Number", "phrase": "Three", "correction": "two"}]\n```\nHope it helps.'
    assert triplets(parse_mismatches(raw, PROMPT)) == [("number", "Three", "two")]


def test_truncated_json_keeps_the_complete_triplets():
    raw = '{"mismatches": [{"class": "entity", "phrase": "Dog", "correction": "cat"}, {"class": "relation", "phr'
    assert triplets(parse_mismatches(raw, PROMPT)) == [("entity", "Dog", "cat")]


def test_html_wrapped_output():
    raw = "<html><body><p>{&quot;class&quot;: &quot;attribute&quot;, &quot;phrase&quot;: &quot;wooden&quot;, &quot;correction&quot;: &quot;metal&quot;}</p></body></html>"
    assert triplets(parse_mismatches(raw, PROMPT)) == [("attribute", "wooden", "metal")]


def test_python_style_dicts_and_line_formats():
    assert triplets(parse_mismatches("[{'class': 'entity', 'phrase': 'dog', 'correction': 'cat'}]", PROMPT)) == [("entity", "Dog", "cat")]
    lines = "1. Attribute: red -> green\n2. (relation, on, under)\n- number | Three | four"
    assert set(triplets(parse_mismatches(lines, PROMPT))) == {("attribute", "red", "green"), ("relation", "on", "under"), ("number", "Three", "four")}


def test_seven_triplets_are_cut_to_three_by_confidence(caplog):
    items = [{"class": "attribute", "phrase": w, "correction": "x", "confidence": c} for w, c in
             [("red", 0.2), ("wooden", 0.9), ("apples", 0.5), ("table", 0.95), ("Dog", 0.1), ("Three", 0.7), ("next to", 0.3)]]
    with caplog.at_level(logging.INFO):
        result = parse_mismatches(json.dumps({"mismatches": items}), PROMPT)
    assert [m.phrase for m in result.mismatches] == ["table", "wooden", "Three"]
    assert sum("over the limit" in reason for _, reason in result.dropped) == 4
    assert "dropped 4" in caplog.text


def test_phrase_not_in_prompt_is_dropped_and_logged(caplog):
    raw = json.dumps([{"class": "entity", "phrase": "a purple elephant", "correction": "dog"}, {"class": "entity", "phrase": "Dog", "correction": "cat"}])
    with caplog.at_level(logging.WARNING):
        result = parse_mismatches(raw, PROMPT)
    assert triplets(result) == [("entity", "Dog", "cat")]
    assert any("not in the prompt" in reason for _, reason in result.dropped)
    assert "purple elephant" in caplog.text


def test_near_miss_phrase_is_snapped_to_the_prompt_words():
    raw = json.dumps([{"class": "entity", "phrase": "red apple", "correction": "pears"}])
    result = parse_mismatches(raw, PROMPT)
    assert triplets(result) == [("entity", "red apples", "pears")]
    assert result.mismatches[0].evidence["model_phrase"] == "red apple"


def test_unknown_class_is_dropped_and_synonyms_are_mapped():
    raw = json.dumps([
        {"class": "vibes", "phrase": "red", "correction": "green"},
        {"class": " COUNT ", "phrase": "Three", "correction": "two"},
        {"class": "object", "phrase": "Dog", "correction": "cat"},
    ])
    result = parse_mismatches(raw, PROMPT)
    assert set(triplets(result)) == {("number", "Three", "two"), ("entity", "Dog", "cat")}
    assert any("unknown class 'vibes'" in reason for _, reason in result.dropped)


def test_duplicates_merge_keeping_the_higher_confidence():
    raw = json.dumps([
        {"class": "attribute", "phrase": "red", "correction": "", "confidence": 0.3},
        {"class": "Attribute", "phrase": "RED", "correction": "green", "confidence": 0.8},
    ])
    result = parse_mismatches(raw, PROMPT)
    assert triplets(result) == [("attribute", "red", "green")]
    assert result.mismatches[0].confidence == 0.8


@pytest.mark.parametrize(
    "raw",
    ["", None, 42, "none", "No mismatches.", "[]", '{"mismatches": []}', "{{{{", "```json\n", "<div></div>",
     "}{][", '{"mismatches": "lots"}', '[{"class": ["entity"], "phrase": {"x": 1}}]', "\x00\x01", "a" * 50_000,
     '{"class": "entity", "phrase": null}', '[[1, 2, 3, 4]]', "Entity: ", '{"mismatches": [{"confidence": "high"}]}'],
)
def test_garbage_never_raises(raw):
    result = parse_mismatches(raw, PROMPT)
    assert all(m.phrase in PROMPT for m in result.mismatches)


def test_out_of_range_confidence_falls_back_to_the_default():
    raw = json.dumps([{"class": "entity", "phrase": "Dog", "correction": "cat", "confidence": 7}])
    assert parse_mismatches(raw, PROMPT, default_confidence=0.4).mismatches[0].confidence == 0.4


def test_snap_phrase_rules():
    assert snap_phrase("wooden table", PROMPT) == "wooden table"
    assert snap_phrase("DOG", PROMPT) == "Dog"
    assert snap_phrase('"red"', PROMPT) == "red"
    assert snap_phrase("tabel", PROMPT) == "table"
    assert snap_phrase("spaceship", PROMPT) is None


def test_aspect_and_overlap_helpers():
    assert normalise_aspect("Relationship") == "relation"
    assert normalise_aspect("entity mismatch") == "entity"
    assert normalise_aspect("mood") is None
    assert phrases_overlap("a red car", "the red car") and phrases_overlap("red", "red car")
    assert not phrases_overlap("red car", "blue plate")
