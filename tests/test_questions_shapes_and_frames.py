"""Issue 39, round 18: a thing's shape ("in the shape of a heart", "shaped like a guitar"), a frame or edge that has a
look or a material of its own, and "made out of" read by the offline question generator. Each case failed before its
rule."""

from __future__ import annotations

from question_facts import facts as _facts
from question_facts import questions as _questions
from question_facts import things as _things


def test_a_shape_said_with_in_the_shape_of_is_the_things_shape_not_a_second_thing():
    prompt = "a cloud in the shape of a heart"
    qs = _questions(prompt)
    assert "is the cloud in the shape of a heart?" in qs
    assert "heart" not in _things(prompt)  # no "is there a heart?": the heart is the cloud's shape
    assert ("attribute", ("cloud", "heart")) in {(f.category, f.args) for f in _facts(prompt)}
    assert "is the cloud in the form of a dragon?" in _questions("a cloud in the form of a dragon over the sea")


def test_a_shape_said_with_shaped_like_is_the_things_shape():
    prompt = "a swimming pool shaped like a guitar"
    qs = _questions(prompt)
    assert "is the swimming pool shaped like a guitar?" in qs
    assert "guitar" not in _things(prompt)


def test_a_frame_with_a_look_or_a_material_of_its_own_is_a_thing():
    assert "is the frame made of wood?" in _questions("a red frame made of wood")
    assert "is the frame red?" in _questions("a red frame made of wood")
    assert "frame" in _things("a painting in a golden frame")
    qs = _questions("studio shot of word 'BEE' made from bees, white background, in a frame made from bees")
    assert "is the frame made from bees?" in qs
    # a frame that is only the picture's edge stays no thing
    assert "frame" not in _things("a cat centered in the frame")
    assert "frame" not in _things("a dog at the edge of the frame")


def test_made_out_of_with_out_read_as_a_particle_is_a_material():
    prompt = "A rendered 3D model of the word 'Dependable' made out of granite."
    assert "is the word made out of granite?" in _questions(prompt)
    assert "granite" not in _things(prompt)


def test_a_leading_describing_word_read_as_the_sentences_verb_describes_the_thing():
    prompt = "adorable cute silly happy corgi puppy, enamel pin"
    qs = _questions(prompt)
    assert "is the corgi puppy adorable?" in qs and "is the corgi puppy cute?" in qs
    # a real sentence with an adjective first is left alone
    assert "is the dog happy?" in _questions("happy is the dog that sleeps")


def test_made_from_after_a_quoted_text_is_the_texts_material():
    qs = _questions("Studio shot of words 'the food is terrible' made from hotdogs.")
    assert "are the words made from hotdogs?" in qs
    qs = _questions("Studio shot of words 'the food is terrible and the portions are too small' made from hotdogs, white background.")
    assert "are the words made from hotdogs?" in qs and not any("portions made" in q for q in qs)


def test_where_a_thing_is_in_the_picture_is_its_attribute():
    qs = _questions("In the center of the image, we can see cake on the plate.")
    assert "is the cake in the center of the image?" in qs and "is the cake on the plate?" in qs
    assert "is the cat in the middle of the image?" in _questions("In the middle of the image there is a cat.")
    assert "is the tree on the left side of the image?" in _questions("On the left side of the image there is a tree.")
    # a place on a thing stays a relation between the two things
    facts = _facts("a cat on the edge of the table")
    assert ("relation", ("cat", "on the edge of", "table")) in {(f.category, f.args) for f in facts}
    assert not [f for f in facts if f.category == "attribute"]


def test_in_the_wild_is_how_a_thing_is_not_a_thing():
    prompt = "This is an image of zebras in the wild."
    assert "are the zebras in the wild?" in _questions(prompt)
    assert "wild" not in _things(prompt)
    assert "is the deer in the distance?" in _questions("a deer in the distance")


def test_a_thing_as_another_kind_is_of_that_kind():
    qs = _questions("black-white cat as a gangster with beard, digital art")
    assert "is the cat a gangster?" in qs
    assert ("attribute", ("cat", "gangster")) in {(f.category, f.args) for f in _facts("black-white cat as a gangster with beard")}
    assert "is the teddy bear a doctor?" in _questions("a teddy bear as a doctor")


def test_a_full_stop_read_as_a_name_is_no_part_of_the_things_name():
    qs = _questions("bike next to post. bike has wheel. plant in pot. plant in pot")
    assert not any(". bike" in q for q in qs)
