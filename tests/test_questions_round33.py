"""Issue 39, round 33: how a quoted text is lettered when no word names the text, and a size set off as a tag, each
checked on prompts written for these tests (none taken from a DSG file). All fail at the start of the round (068bb10)."""

from __future__ import annotations

from question_facts import questions as _questions


def test_the_lettering_after_a_quote_is_the_texts_look():
    # before: the font was asked nowhere ("in bold red font" hung on nothing)
    qs = _questions('a poster that says "stay home" in bold red font')
    assert 'is the text "stay home" in bold red font?' in qs
    # before: "is there neon?" (the colour's shade read as a thing)
    qs = _questions("a sign with 'open' written in neon pink")
    assert 'is the text "open" in neon pink?' in qs and "is there neon?" not in qs
    # before: "is there lettering?", "is the lettering gold?" (the lettering read as a thing of its own)
    qs = _questions("a banner reading 'Happy New Year' in glittery gold lettering")
    assert 'is the text "Happy New Year" in glittery gold lettering?' in qs
    assert "is there lettering?" not in qs
    # the look's words are no look of the thing the text is on (before: "is the street sign reading in white?")
    qs = _questions("a street sign reading 'Elm St' in white")
    assert 'is the text "Elm St" in white?' in qs and "is the street sign reading in white?" not in qs


def test_the_lettering_after_a_list_of_quotes_is_the_naming_words_look():
    # before: "rainbow" was asked nowhere
    qs = _questions("a mug with the words 'good' and 'morning' in rainbow colors")
    assert "are the words in rainbow colors?" in qs
    # a word that names the text keeps the look it already had, asked once
    qs = _questions("a chalkboard with the word 'hello' written in red cursive letters")
    assert sum("cursive" in q for q in qs) == 1


def test_a_colour_before_a_thing_after_a_quote_is_no_lettering():
    # what the text is written in, not how it looks
    qs = _questions("a cake with 'happy birthday' written in blue icing")
    assert not any(q.startswith("is the text") for q in qs) and "is the icing blue?" in qs
    qs = _questions("the letters 'ABC' in gold glitter")
    assert not any(q.startswith("is the text") for q in qs)


def test_a_size_set_off_as_a_tag_is_the_subjects_size():
    # before: no question of the size
    qs = _questions("Mid-century walnut sideboard with four drawers, 72 x 18 x 30 in")
    assert "is the walnut sideboard 72 x 18 x 30 in?" in qs
    assert not any("drawers 72" in q for q in qs)  # the subject's, never a part's
    qs = _questions("two oak dining chairs, 1970s, 32 1/2 x 18 x 20 inches")
    assert "are the oak dining chairs 32 1/2 x 18 x 20 inches?" in qs
    # before: "is the brass desk lamp high?"
    qs = _questions("vintage brass desk lamp, 45 cm high")
    assert "is the brass desk lamp 45 cm high?" in qs and "is the brass desk lamp high?" not in qs
    # after a sentence end, with a second size in brackets (two sizes, as DSG's annotators write them)
    qs = _questions("Set of six bar stools, walnut (6). 30 1/2 x 16 x 16 in (77.5 x 40.6 x 40.6 cm)")
    assert "are the bar stools 30 1/2 x 16 x 16 in?" in qs and "are the bar stools 77.5 x 40.6 x 40.6 cm?" in qs
    # a maker's name before the thing is no subject
    qs = _questions("MARIO BIANCHI Set of four dining chairs, teak (4). 31 x 17 x 19 in")
    assert "are the dining chairs 31 x 17 x 19 in?" in qs
    # a number tag that is no size is left alone
    assert not any("2023" in q for q in _questions("a red bicycle leaning on a wall, 2023"))


def test_colours_and_materials_in_brackets_after_a_thing_are_its_looks():
    # before: "is there a matte?" and no colour of the vases
    qs = _questions("Set of three ceramic vases (matte white / sage green)")
    assert "are the vases matte white?" in qs and "are the vases sage green?" in qs
    assert "is there a matte?" not in qs
    # before: "is there a mustard yellow?", "is the mustard yellow on the sofa?"
    qs = _questions("Two velvet cushions (mustard yellow) on a grey sofa")
    assert "are the velvet cushions mustard yellow?" in qs and not any("is the mustard yellow" in q for q in qs)
    # before: "is there brass?", "is there a glass?"
    qs = _questions("pair of table lamps (brass, opal glass)")
    assert "are the table lamps made of brass?" in qs and "are the table lamps made of opal glass?" in qs
    # a bracket that is not only looks is left as read
    qs = _questions("a dog (a golden retriever) on a rug")
    assert "is there a rug?" in qs and not any("made of" in q for q in qs)


def test_a_pose_word_with_its_place_after_a_degree_is_the_parts():
    # before: nothing asked of the torso's pose ("parallel" hung on "bent", the verb before)
    qs = _questions("The person is bent forward with the torso almost parallel to the ground.")
    assert "is the torso parallel to the ground?" in qs
    qs = _questions("Someone leaning back with the thighs nearly perpendicular to the floor.")
    assert "are the thighs perpendicular to the floor?" in qs
    # without a degree word, as before
    qs = _questions("The person is bent forward with the torso parallel to the ground.")
    assert "is the torso parallel to the ground?" in qs


def test_a_noun_read_as_a_look_before_describing_tags_is_a_thing():
    # before: "scarf" read as a describing word of the tags after it: no scarf, and "is the fox wearing?"
    qs = _questions("portrait of a fox wearing a scarf, cute, fluffy, highly detailed")
    assert "is there a scarf?" in qs and "is the fox wearing the scarf?" in qs
    assert "is the fox wearing?" not in qs
    # before: no teacup, nothing the dragon sits on
    qs = _questions("a tiny dragon sitting on a teacup, adorable, whimsical, pixar style")
    assert "is there a teacup?" in qs and "is the dragon sitting on the teacup?" in qs
    # a describing word before a comma stays one ("a red, white and blue shirt")
    qs = _questions("a man wearing a red, white and blue shirt")
    assert "is there a red?" not in qs
