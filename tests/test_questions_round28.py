"""Issue 39, round 28: general rules for the looks of user prompts' things and for questions no picture answers, each
stated as a rule of English and checked on prompts written for these tests (none taken from a DSG file): a made likeness
is what a material makes, a describing tag set off by a comma is a tag (never a backdrop's look), a place hung on a thing
is no subject of a tag."""

from __future__ import annotations

from question_facts import questions as _questions


def test_a_likeness_is_what_the_material_makes():
    qs = _questions("a statue of a lion made of gold in a square")
    assert "is the statue made of gold?" in qs and "is the lion made of gold?" not in qs and "is the lion gold?" not in qs
    qs = _questions("a small figurine of an owl carved from wood")
    assert "is the figurine carved from wood?" in qs and "is the owl carved from wood?" not in qs
    # no likeness: the thing itself is made of it
    assert "is the horse made of ice?" in _questions("a horse made of ice")
    assert "is the house made of wood?" in _questions("a picture of a house made of wood")


def test_a_describing_tag_is_no_look_of_the_backdrop():
    qs = _questions("a portrait of an old sailor, photorealistic, ultra-detailed, black background")
    assert "is the background black?" in qs
    assert not any(q.startswith("is the background") and q != "is the background black?" for q in qs)
    assert "is the sailor ultra-detailed?" in qs  # a tag written with a hyphen is a tag like any other
    # a backdrop's own look, right before it
    assert "is the background blurred?" in _questions("a cat on a sofa, blurred background")


def test_a_describing_word_after_a_comma_is_a_tag_of_the_subject():
    qs = _questions("a lighthouse on a cliff, moody, hyper-realistic, 4k")
    assert "is the lighthouse moody?" in qs and "is the cliff moody?" not in qs
    assert "is the lighthouse hyper-realistic?" in qs
    # adjectives listed before their noun are its looks
    qs = _questions("a big, red ball")
    assert "is the ball big?" in qs and "is the ball red?" in qs


def test_a_place_hung_on_a_thing_is_no_subject_of_a_tag():
    qs = _questions("a knight in shining armor, hyper-realistic, 8k")
    assert "is the knight hyper-realistic?" in qs and "is the armor hyper-realistic?" not in qs
    qs = _questions("a cabin in the woods, photorealistic")
    assert "is the cabin photorealistic?" in qs and "are the woods photorealistic?" not in qs


def test_a_named_city_or_country_is_where_the_picture_is():
    qs = _questions("a tram on a street in Lisbon, golden hour")
    assert "is there Lisbon?" not in qs and "is the street in Lisbon?" in qs and "is the tram on the street?" in qs
    qs = _questions("a fisherman from Norway mending a net")
    assert "is there Norway?" not in qs and "is the fisherman mending the net?" in qs
    # what a frame shows is still asked
    assert "is there Tokyo?" in _questions("an aerial view of Tokyo at night")


def test_the_thing_whose_colours_a_thing_has_is_no_thing():
    qs = _questions("crayons sorted by color of the spectrum in a tin box")
    assert "is there a spectrum?" not in qs and "is there a tin box?" in qs
    qs = _questions("a scarf in the colors of the rainbow")
    assert "is there a rainbow?" not in qs and "is the scarf in the colors of the rainbow?" in qs
    # the colour of a thing named: the thing is there
    assert "is there a car?" in _questions("the color of the car is red")


def test_has_on_wears_every_thing_of_its_list():
    qs = _questions("the person has on a black coat, a scarf and a bag")
    assert {"is the person wearing the coat?", "is the person wearing the scarf?", "is the person wearing the bag?"} <= set(qs)
    assert "is the person on the coat?" not in qs and not any(q.startswith("does the person have") for q in qs)
    # "has ... on" a thing named after is no wearing
    assert "is the table wearing the vase?" not in _questions("the table has on it a vase of flowers")
    assert "does the man have the dog?" in _questions("a man has a dog on a leash")


def test_a_pose_word_right_after_a_part_is_that_parts():
    qs = _questions("the left leg is bent with the knee cap pointing up, the right leg straight")
    assert "is the right leg straight?" in qs and "is the left leg straight?" not in qs and "is the left leg bent?" in qs


def test_a_tag_that_is_only_a_material_is_what_the_subject_is_made_of():
    qs = _questions("a venetian mask, porcelain, intricate, 8k")
    assert "is the mask made of porcelain?" in qs and "is there porcelain?" not in qs
    qs = _questions("set of four dining chairs, 1960s, leather")
    assert "are the dining chairs made of leather?" in qs and "is there leather?" not in qs
    # a list of things is no tag
    qs = _questions("An instrument used for cutting cloth, paper, and other thin material")
    assert "is the cloth made of paper?" not in qs and "is there paper?" in qs


def test_an_epithet_after_a_name_says_what_the_named_one_is():
    qs = _questions("Diana the huntress in the forest, oil painting")
    assert "is Diana a huntress?" in qs and "is Diana in the forest?" in qs and "is the huntress in the forest?" not in qs
    # no "the" right after the name: no epithet
    assert not any(q.startswith("is Paris a") for q in _questions("Paris, the city of love, at night"))


def test_a_thing_named_between_dashes_says_what_the_thing_before_is():
    qs = _questions("A woman - perhaps a nurse - is walking down the hall.")
    assert "is the woman a nurse?" in qs and "is the woman walking down the hall?" in qs
    assert not any(" a black" in q for q in _questions("a cat - black - on a mat"))


def test_a_describing_word_read_as_a_past_verb_describes_its_object():
    qs = _questions("studio shot multicolored yarn on a white table")
    assert "is the yarn multicolored?" in qs and "is this a studio shot?" in qs and "is the yarn on the table?" in qs


def test_upside_down_is_one_describing_phrase():
    qs = _questions("an upside down bucket on the sand")
    assert "is the bucket upside down?" in qs and "is the bucket upside?" not in qs
    assert "is the boat upside down?" in _questions("the boat is upside down on the beach")


def test_a_quote_that_names_a_shape_is_written_on_nothing():
    qs = _questions("clouds in the shape of the word 'love' over a beach")
    assert 'is "love" written in the image?' in qs and 'is "love" written on the clouds?' not in qs
