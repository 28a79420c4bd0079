"""Issue 39, round 20: materials joined by "and", colours hung on a quantity word, and fewer tags, outings and units read
as things. Each case failed before its rule (the prompts are written for the tests, not taken from a DSG file)."""

from __future__ import annotations

from question_facts import questions as _questions


def test_every_material_joined_by_and_is_the_made_things():
    qs = _questions("a hut made from bamboo poles and river clay")
    assert "is the hut made from bamboo poles?" in qs and "is the hut made from river clay?" in qs
    assert "is there river clay?" in qs  # a material with a name of its own stays a thing too


def test_a_made_thing_read_as_a_past_tense_sentence_is_still_made_of_its_material():
    qs = _questions("Pavilion made from oak beams in a quiet garden.")
    assert "is the pavilion made from oak beams?" in qs


def test_a_list_of_tags_after_a_material_is_no_material():
    qs = _questions("letters 'hi' made from noodles, museum quality, framed photo, white background")
    assert not any("made from photo" in q or "made from background" in q or "made from museum" in q for q in qs)


def test_colours_hung_on_a_quantity_word_are_the_counted_things():
    qs = _questions("A set of six stickers for the summer season in red and green.")
    assert "are the stickers in red?" in qs and "are the stickers in green?" in qs


def test_what_one_goes_out_for_is_no_thing():
    qs = _questions("a girl taking her pony for a ride")
    assert "is there a ride?" not in qs and "is there a pony?" in qs


def test_a_style_word_before_a_frame_is_no_thing():
    qs = _questions("studio close-up shot of a ceramic teapot")
    assert "is there a studio?" not in qs and "is there a teapot?" in qs
    assert "is there a studio?" in _questions("a painter working in a bright studio")  # a studio as a place stays


def test_degrees_after_a_number_are_no_things():
    qs = _questions("right arm bent at 45 degrees")
    assert not any("degrees" in q for q in qs)


def test_print_media_tags_and_hq_are_no_things():
    qs = _questions("old lighthouse at dusk, linocut print, trending on artstation hq")
    assert "is there a print?" not in qs and "is there a hq?" not in qs and "is there a lighthouse?" in qs


def test_a_prompt_pasted_as_a_csv_field_is_read_as_its_text():
    qs = _questions('"a reading nook: two velvet armchairs and a 24"" side table"')
    assert "are there two velvet armchairs?" in qs or "are there two armchairs?" in qs
    assert "is there a side table?" in qs and not any(q.endswith("written in the image?") for q in qs)
    assert not any("24" in q for q in qs)  # 24 inches is the table's size, no count
    assert 'is "hello" written on the sign?' in _questions('a sign that says "hello"')  # a quote inside stays text


def test_a_one_word_tag_read_as_a_bare_verb_is_a_look_of_the_picture():
    qs = _questions("abandoned lighthouse, spooky, oil painting")
    assert "is the image spooky?" in qs and not any("spookying" in q for q in qs)


def test_a_word_that_only_ends_like_an_abstract_noun_is_counted():
    assert "is there a ship?" in _questions("old ship, night sky")  # "-ship" is an ending, "ship" a thing


def test_a_word_before_a_frame_names_its_kind():
    qs = _questions("progress shot of a wooden cabin with large windows")
    assert "is there progress?" not in qs and "is there a cabin?" in qs
    assert "is there Kodatype?" not in _questions("Kodatype candid photography of a grey rabbit")


def test_a_text_whose_quotes_were_lost_between_double_spaces_is_text():
    qs = _questions("a mug with  coffee is life  printed on its side")
    assert any('"coffee is life"' in q for q in qs) and "is there a life?" not in qs and "is there coffee?" not in qs
    qs = _questions("neon letters in the shape of text  stay curious  glowing on a wall")
    assert any('"stay curious"' in q for q in qs)
    assert "is there a hat?" in _questions("a cat with  a hat  and a dog")  # stray spaces around a thing: no text
    assert not any("written" in q for q in _questions("A man is on the beach.  It is a cold day.  The waves are rolling."))


def test_the_side_of_a_body_part_is_which_part_it_is():
    qs = _questions("left hand on the hip, head tilted back")
    assert "is there a left hand?" in qs and "is the hand left?" not in qs


def test_a_colour_named_with_colored_is_the_things_colour():
    assert "is the vase gold?" in _questions("a gold-colored vase on a shelf")
    qs = _questions("a silver coloured car")
    assert "is the car silver?" in qs and "is the car coloured?" not in qs
