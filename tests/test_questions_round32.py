"""Issue 39, round 32: rules of a prompt's structure (separators, tags) rather than of its words, each checked on prompts
written for these tests (none taken from a DSG file): two spaces that set a stock title's parts off act as a comma; a
one-word tag that is only ever a describing word is a look of the picture and of a frame that is its subject. All fail at
the start of the round (5c87a9c)."""

from __future__ import annotations

from question_facts import questions as _questions


def test_two_spaces_before_a_capitalised_part_of_a_stock_title_set_it_off():
    # before: no "from the 1960s" (the decade tag needs a comma)
    qs = _questions("two wooden stools, 1960s  Teak, leather")
    assert "are the stools from the 1960s?" in qs
    # a caption's stray spaces are left as typed
    qs = _questions("A  man standing on a beach")
    assert "is the man standing on the beach?" in qs
    qs = _questions("The pig  is sitting in front of the sign.")
    assert "is the pig sitting in front of the sign?" in qs
    # a text set off by two spaces is still a text
    qs = _questions("an antique book with  Knowledge Is Power  painted in gold")
    assert 'is "Knowledge Is Power" written on the book?' in qs


def test_a_lone_describing_tag_is_a_look_of_the_picture_and_its_frame():
    # before: "vivid" was asked nowhere
    qs = _questions("beautiful artwork by boris groh, vivid, masterpiece, detailed")
    assert "is the image vivid?" in qs and "is the artwork vivid?" in qs
    # a list of looks before a thing's name is the thing's, not the picture's
    assert "is the image new?" not in _questions("A shiny, new, low riding semi trailer truck")
    assert "is the image angry?" not in _questions("A set of emoji icons with happy, angry, surprised and sobbing faces.")


def test_a_frame_that_shows_no_thing_is_the_subject_of_its_looks_and_its_artist():
    # before: "is this beautiful artwork?" and "is the image in the style of ...?" only
    qs = _questions("gorgeous artwork by jane doe, vivid")
    assert "is the artwork gorgeous?" in qs and "is the artwork by jane doe?" in qs
    assert "is the image in the style of jane doe?" in qs
    qs = _questions("a lighthouse on a cliff at dusk, art by john smith")
    assert "is the art by john smith?" in qs
    # a frame of a thing: the thing is the subject, the artist stays the picture's
    qs = _questions("a watercolor painting of a fox by Beatrix Potter")
    assert not any(q.startswith("is the painting") for q in qs)


def test_a_look_only_ever_describing_is_the_frames_though_it_reads_as_a_noun():
    # before: "is the image vibrant?" only ("the vibrant" reads as a noun to the tagger)
    qs = _questions("candid photography, realistic, vibrant")
    assert "is the photography vibrant?" in qs and "is the image vibrant?" in qs


def test_a_backdrop_set_off_as_a_tag_is_no_subject_of_the_tag_after_it():
    # before: the tag after the backdrop described nothing ("is the background weathered?" was not asked either)
    qs = _questions("portrait of an old fisherman, white background, weathered")
    assert "is the fisherman weathered?" in qs and "is the background weathered?" not in qs
    qs = _questions("a red apple on a table, black background, highly detailed")
    assert "is the apple highly detailed?" in qs


def test_a_material_that_opens_a_stock_titles_part_with_a_capital_is_the_subjects():
    # before: "is there Teak?"
    qs = _questions("two wooden stools, 1960s  Teak, leather")
    assert "are the stools made of teak?" in qs and "is there Teak?" not in qs
    assert "is the chair made of leather?" in _questions("a chair, Leather")
    # a capitalised word that is no material stays as read
    assert "is the squirrel made of oak?" not in _questions("a squirrel, Oak, autumn")


def test_a_capitalised_look_inside_a_name_is_the_names():
    # before: "is the Gate Bridge golden?", "is there a Gate Bridge?"
    qs = _questions("a ferry passing under the Golden Gate Bridge at dusk")
    assert "is the Gate Bridge golden?" not in qs and "is there a Golden Gate Bridge?" in qs
    # a sentence's first word and a title-case prompt keep their looks
    assert "are the apples red?" in _questions("Red apples on a table")
    assert "is the Car red?" in _questions("A Red Car On The Road")


def test_a_verb_of_seeming_with_like_is_no_action():
    # before: "is the font looking?", "is the cloud looking?"
    qs = _questions("a poster in a font that looks like handwriting")
    assert not any("looking" in q for q in qs)
    assert "is the cloud looking?" not in _questions("a cloud that looks like a dog")
    # a look after a linking verb is still asked
    assert "is the man tired?" in _questions("the man looks tired")
