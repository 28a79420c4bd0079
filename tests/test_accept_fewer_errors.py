"""``loop.accept = "fewer_errors"`` (round 19; on in the shapes preset): object errors of a grounded layout, and the judge
keeping an edit that lowers them even when the layout detector tells the rest of the scene another way."""

from __future__ import annotations

import pytest

from autoalign.config import ConfigError, load_config
from autoalign.detection.layout import layout_errors
from autoalign.editing.policy import ACCEPTED, NEW_MISMATCH, NO_GAIN, judge_edit
from autoalign.grounding import read_layout
from autoalign.types import Box, Mismatch, ScoreCard

CLOSED = (["circle", "square", "triangle"], ["red", "purple", "blue"])
SQUARES = [Box((0.0, 0.0, 10.0, 10.0), 0.9), Box((20.0, 0.0, 30.0, 10.0), 0.9), Box((40.0, 0.0, 50.0, 10.0), 0.9)]


def test_object_errors_count_objects_not_triplets():
    layout = read_layout("a red triangle and two purple squares")
    three_red = {"red triangle": [], "purple square": [], "square": SQUARES, "triangle": []}
    one_recoloured = {"red triangle": [], "purple square": SQUARES[:1], "square": SQUARES, "triangle": []}
    right = {"red triangle": [Box((0.0, 30.0, 10.0, 40.0), 0.9)], "purple square": SQUARES[:2], "square": SQUARES[:2],
             "triangle": [Box((0.0, 30.0, 10.0, 40.0), 0.9)]}
    assert layout_errors(layout, three_red, CLOSED) == 6  # 2 purple squares + 1 triangle missing, 3 squares extra
    assert layout_errors(layout, one_recoloured, CLOSED) == 4
    assert layout_errors(layout, right, CLOSED) == 0
    # without a closed vocabulary nothing is extra: only the prompt's objects and relations count
    assert layout_errors(layout, three_red) == 3


def test_a_relation_that_does_not_hold_is_one_error():
    layout = read_layout("a red circle to the left of a blue square")
    circle, square = Box((40.0, 20.0, 50.0, 30.0), 0.9), Box((5.0, 20.0, 15.0, 30.0), 0.9)
    wrong = {"red circle": [circle], "blue square": [square], "circle": [circle], "square": [square]}
    assert layout_errors(layout, wrong, CLOSED) == 1
    right = {"red circle": [square], "blue square": [circle], "circle": [square], "square": [circle]}
    assert layout_errors(layout, right, CLOSED) == 0


def mm(aspect: str, phrase: str, correction: str = "", source: str = "layout") -> Mismatch:
    return Mismatch(aspect, phrase, correction, 0.9, source, {})


def test_the_judge_keeps_an_edit_with_fewer_object_errors_and_new_layout_triplets():
    before = [mm("attribute", "purple", "red"), mm("entity", "a red triangle")]
    after = [mm("number", "two purple squares", "a purple square"), mm("entity", "a red triangle"),
             mm("entity", "no red squares", "an extra red square")]
    card = ScoreCard(overall=2.0, vq2=0.5)
    grounded = ("entity", "number", "relation")
    strict = judge_edit(card, before, card, after, 0.0, grounded_aspects=grounded)
    assert not strict.accepted and strict.reason == NO_GAIN  # nothing of its own gone, no CLIP gain
    kept = judge_edit(card, before, card, after, 0.0, grounded_aspects=grounded, errors=(6, 4))
    assert kept.accepted and kept.reason == ACCEPTED
    # as many errors as before: refused as without the count
    assert not judge_edit(card, before, card, after, 0.0, grounded_aspects=grounded, errors=(4, 4)).accepted
    # another detector's new mismatch still refuses it
    other = judge_edit(card, before, card, after + [mm("attribute", "red", "blue", source="clip-probe")], 0.0,
                       grounded_aspects=grounded, errors=(6, 4))
    assert other.reason == NEW_MISMATCH
    # without the grounded pass deciding, the count is not used
    assert not judge_edit(card, before, card, after, 0.0, errors=(6, 4)).accepted


def test_loop_accept_is_checked():
    assert load_config("shapes").loop.accept == "fewer_errors"  # chosen on validation, round 19
    assert load_config("tiny").loop.accept == "strict"
    with pytest.raises(ConfigError, match="loop.accept must be one of"):
        load_config("shapes", overrides={"loop": {"accept": "lenient"}})
