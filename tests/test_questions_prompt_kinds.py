"""What the offline question generator reads from prompts beyond COCO-style captions (issue 39): paragraphs, poses,
user-prompt tags and artists, counts past ten. Each case failed before its rule (round 15)."""

from __future__ import annotations

import pytest

from autoalign.scoring.parse import number_value, parse_prompt
from autoalign.scoring.questions import facts_from_parse


def _questions(prompt: str) -> list[str]:
    return [f.question.text for f in facts_from_parse(parse_prompt(prompt))]


def _things(prompt: str) -> set[str]:
    return {f.args[0] for f in facts_from_parse(parse_prompt(prompt)) if f.category == "entity"}


def test_a_paragraph_that_sees_things_places_them_not_the_seer():
    qs = _questions("In this picture we can see fruits on the surface. In the background we can see boats on the water.")
    assert "are the fruits on the surface?" in qs
    assert "are the boats on the water?" in qs
    assert not any("we" in q.split() for q in qs)


def test_he_and_they_in_a_paragraph_are_the_thing_the_sentence_before_is_about():
    qs = _questions("A surfer is wearing a black wet suit. He is standing on top of a white surfboard.")
    assert "is the surfer standing on top of the surfboard?" in qs
    assert "are the dogs looking at the cat?" in _questions("Two dogs sit on a couch. They are looking at a cat.")
    # number must agree: "they" is not one surfer
    assert not any("surfer" in q and "cat" in q for q in _questions("A surfer rides a wave. They are looking at a cat."))


def test_a_pose_word_after_a_body_part_is_its_state_and_left_is_its_side():
    qs = _questions("The person is leaning toward the right with their right arm up and left arm bent.")
    assert "is the right arm up?" in qs
    assert "is the left arm bent?" in qs
    assert not any("leave" in q for q in qs)  # "left arm" is no verb and its object
    assert {"is the arm bent?", "is the arm straight?", "is the arm down?"} <= set(_questions("the left arm is bent straight down"))


@pytest.mark.parametrize(
    "prompt, globals_, not_things",
    [
        (
            "aliens praying inside alien church, atmospheric, highly detailed and intricate, artstation, octane render, 8k --ar 7:5",
            {"highly detailed and intricate", "artstation", "render", "8k"},  # "octane render": a frame ("is this an octane render?")
            {"render", "artstation", "k"},
        ),
        (
            "portrait of chaos, by geert goiris, by sally mann, award - winning photography, concept art",
            {"style of geert goiris", "style of sally mann", "concept art"},
            {"goiris", "mann"},
        ),
        (
            "a painting of a huangshan, a matte painting by marc simonetti, deviantart, fantasy art",
            {"style of marc simonetti", "deviantart", "fantasy art"},
            {"simonetti", "deviantart"},
        ),
    ],
)
def test_user_prompt_tags_and_artists_are_facts_about_the_picture_not_things(prompt, globals_, not_things):
    facts = facts_from_parse(parse_prompt(prompt))
    got = {f.args[0] for f in facts if f.category == "global"}
    assert globals_ <= got, got
    assert not (_things(prompt) & not_things)


def test_a_tag_the_picture_has_is_asked_as_such():
    qs = _questions("a futuristic woman, artstation, stunning volumetric lighting, hyper realism")
    assert "does the image have stunning volumetric lighting?" in qs
    assert "is the image in artstation style?" in qs


def test_a_caption_with_commas_keeps_its_things():
    # no style word in the second fragment: a thing, not a tag
    assert {"cat", "dog"} <= _things("a cat on a sofa, a dog on the floor")
    assert "are the cats on the sofa?" in _questions("two cats on a sofa, highly detailed")


def test_counts_past_ten_and_of_a_quantity():
    qs = _questions("twenty-one red balloons and sixteen cats")
    assert "are there twenty-one balloons?" in qs and "are there sixteen cats?" in qs
    assert "are there nine dogs?" in _questions("photos of nine different breeds of dogs")
    assert "are there six gift boxes?" in _questions("Set of six gift boxes")
    assert (number_value("twenty-one"), number_value("1,000"), number_value("sixteen"), number_value("lot")) == (21, 1000, 16, None)
