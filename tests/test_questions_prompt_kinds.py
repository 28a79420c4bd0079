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


# ---- round 16 (issue 39): rules read off the tuning part of dsg1k-dev; each case failed before its rule ----------------


def test_a_described_background_is_a_thing_and_what_is_in_it_is_placed_there():
    qs = _questions("In this picture I can observe a bird. The background is completely blurred.")
    assert "is the background blurred?" in qs
    qs = _questions("In the background, there are few flags, trees and the sky.")
    assert {"are the flags in the background?", "are the trees in the background?"} <= set(qs)
    assert "is the background white?" in _questions("studio shot of a red apple, white background")


@pytest.mark.parametrize(
    "prompt, absent",
    [
        ("The legs are close but not joined.", "are the legs joined?"),
        ("the background is not clear", "is the background clear?"),
        ("a cat not sitting on a mat", "is the cat sitting on the mat?"),
        ("the arms are not touching the head", "are the arms touching the head?"),
        ("a street with no cars", "are there cars?"),
    ],
)
def test_what_the_prompt_says_is_not_so_is_not_asked_as_if_it_were(prompt, absent):
    assert absent not in _questions(prompt)


def test_colours_after_in_are_the_things_colours():
    assert "is the text in red?" in _questions("a volcano erupting, with the text 'magma' in red")
    assert {"are the bookmarks in black?", "are the bookmarks in white?"} <= set(_questions("Set of four bookmarks in black and white."))
    assert {"are the words in blue?"} <= set(_questions("the words 'hi' in blue colors"))
    assert "are the cocktails in black?" in _questions("Three cocktails are in black and white.")


def test_they_and_it_describing_a_thing_of_the_sentence_before():
    qs = _questions("There are two birds on the ground. they are laying down. They are brown and black.")
    assert {"are the birds laying down?", "are the birds brown?", "are the birds black?"} <= set(qs)
    assert "is the bird in black?" in _questions("I can observe a bird. It is in black and white colors.")
    # "it" is guessed for a colour only: "It is sunny" says nothing of the bird
    assert not any("sunny" in q for q in _questions("I can observe a bird. It is sunny."))


def test_made_out_of_is_a_material():
    assert "is the lowercase letter made out of fire?" in _questions("The lowercase letter 'b' made out of fire.")


def test_different_things_are_asked_as_different():
    assert "are the cocktails different?" in _questions("Set with three different cocktails.")


def test_a_short_sentence_that_starts_with_a_thing_and_its_place_is_no_order():
    qs = _questions("monitor on table. bench on table. lamp above monitor")
    assert {"is the monitor on the table?", "is the bench on the table?", "is the lamp above the monitor?"} <= set(qs)
    assert "is there a bench?" in qs  # a bare thing gets an article (round 19)


def test_a_describing_word_the_parse_hung_on_the_verb_describes_the_thing():
    assert "is the girl cute?" in _questions("cute girl smiling while crying")


def test_an_adjective_that_reads_as_a_noun_alone_is_no_kind_of_thing():
    qs = _questions("a cat in front of a blurry background")
    assert "is the background blurry?" in qs and "is the background a blurry background?" not in qs


def test_weighted_parts_of_a_user_prompt_are_parts_not_words():
    qs = _questions("black paper:: zodiac tarot::2 moon hanging over a mountain::2 white streaks::3")
    assert {"is the moon hanging over the mountain?", "are the streaks white?"} <= set(qs)
    assert not any("::" in q for q in qs)


def test_a_place_put_before_what_we_can_see_is_the_place_of_each_thing_seen():
    qs = _questions("In the picture I can see a vehicle. In the background I can see a table, a box and tools.")
    assert {"is the table in the background?", "is the box in the background?", "are the tools in the background?"} <= set(qs)


def test_a_relative_clause_is_about_its_thing_not_the_things_listed_after_it():
    qs = _questions("I can see a table which has some objects on it, a box and tools.")
    assert "does the table have the objects?" in qs
    assert not any(q.startswith(("does the box have", "do the tools have")) for q in qs)


def test_him_and_her_with_nobody_in_their_sentence_are_who_the_sentence_before_is_about():
    qs = _questions("A woman is walking on the sidewalk. She is holding a black phone. There are people in the background behind her.")
    assert "are the people behind the woman?" in qs
    assert "is the background behind the woman?" not in qs  # a backdrop is never placed itself


def test_someone_is_a_person_in_the_picture():
    assert {"is there a person?", "is the person stretching?"} <= set(_questions("Someone is stretching."))


def test_a_frame_read_as_a_verb_is_the_frame():
    qs = _questions("Studio shot of words 'hello' made from hotdogs")
    assert "is this a studio shot?" in qs
    assert not any("studio shoot" in q or q == "is there studio?" for q in qs)


def test_a_pose_word_read_as_a_present_verb_is_not_made_an_ing_form():
    qs = _questions("knees bent forward, torso is straight up")
    assert "are the knees bent?" in qs and not any("benting" in q for q in qs)


def test_a_run_of_tags_without_and_is_no_list_of_places():
    qs = _questions("Rubber latex maid at the store, chic hat, groceries in the air, Kodak, Fuji film, redshift, IMAX, photoreal")
    assert not any(word in q for q in qs if " in the " in q for word in ("Kodak", "IMAX", "Fuji"))
    assert {"is the pear in the bowl?", "are the bananas in the bowl?"} <= set(_questions("a pear, an orange, and two bananas in a bowl"))


def test_in_the_shape_of_is_a_place_word_not_a_thing():
    qs = _questions("Grape vines in the shape of a heart")
    assert "is there a shape?" not in qs
    # (round 18: the heart is the vines' shape, an attribute, and no thing of its own; round 16 asked a relation)
    assert "are the Grape vines in the shape of a heart?" in qs and "is there a heart?" not in qs


def test_a_pose_word_read_as_a_base_verb_is_asked_as_a_pose():
    qs = _questions("arms are down and bent up at the elbows")
    assert "are the arms bent up at the elbows?" in qs and not any(q.startswith("do the arms bent") for q in qs)


def test_a_matte_painting_is_the_frame_and_part_by_is_an_artist():
    qs = _questions("a painting of a huangshan, a matte painting by marc simonetti, deviantart")
    assert "is this a matte painting?" in qs and "is the matte painting?" not in qs and "is there a matte?" not in qs
    qs = _questions("clown girl, painted by francis bacon, part by gerhard richter, part by takato yamamoto")
    assert {"is the image in the style of gerhard richter?", "is the image in the style of takato yamamoto?"} <= set(qs)
    assert "is there part?" not in qs


def test_by_the_place_is_no_artist():
    qs = _questions("a man painting by the river")
    assert not any("style of" in q for q in qs) and "is there a river?" in qs


def test_a_set_of_n_after_the_things_counts_them():
    qs = _questions("blue peacock birds set of two 11 quot")
    assert "are there two peacock birds?" in qs
    assert not any("set of" in q for q in qs)


def test_a_sculpture_is_a_thing_in_the_picture_not_its_medium():
    qs = _questions("a marble sculpture of a horse")
    assert {"is there a marble sculpture?", "is the sculpture made of marble?"} <= set(qs)
    assert "is this a sculpture?" not in qs


def test_a_number_hyphened_to_a_word_is_one_word():
    qs = _questions("Minimal sculpture of letter W, 3-D render, isometric perspective")
    assert "is this a 3-d render?" in qs and "is this a d render?" not in qs
    assert "are there two 3-seater sofas?" in _questions("two 3-seater sofas")
    assert "is there perspective?" not in qs


def test_a_light_verb_or_a_shown_time_is_no_state():
    assert "is the monkey doing?" not in _questions("monkey doing linkbuilding for a website with banana")
    assert "is the time saying?" not in _questions("the time on the phone says 12:42.")


def test_a_thing_shown_on_someones_own_part_is_there_not_the_one_acting():
    qs = _questions("A young male child showing off a sleeve tattoo on his arm.")
    assert "is the child on the arm?" not in qs and "is the sleeve on the arm?" in qs


def test_an_adjective_with_an_article_after_a_preposition_is_a_thing():
    qs = _questions("Modern humans interacting with a woolly mammoth outside in the snow")
    assert {"is there a mammoth?", "are the humans interacting with the mammoth?"} <= set(qs)


def test_there_are_things_in_a_place():
    qs = _questions("There are large waves in the water behind the man.")
    assert {"are the waves in the water?", "are the waves behind the man?"} <= set(qs)


def test_inside_of_is_a_place_and_a_participle_on_a_list_is_each_things():
    qs = _questions("There is peas and onions chopped up inside of the bowl.")
    assert {"are the peas chopped up inside of the bowl?", "are the onions chopped up inside of the bowl?"} <= set(qs)


def test_a_thing_with_something_inside_holds_it():
    assert "is the cat inside the box?" in _questions("a box with a cat inside, on a table")
    assert "is the fish inside the fish tank?" in _questions("a photo of a fish tank with a fish inside")
    assert "is the liquid in the test tube?" in _questions("a test tube with a drop of liquid in it")


def test_who_wears_something_somewhere_is_there_too():
    qs = _questions("A man wears a fur coat in a sauna")
    assert {"is the man in the sauna?", "is the fur coat in the sauna?"} <= set(qs)
    assert "is the man on the head?" not in _questions("a man wearing a hat on his head")
