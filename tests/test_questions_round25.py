"""Issue 39, round 25: the kinds round 24's held reading named (participles read as looks or verbs, "can" read as a verb,
a one-word artist, an act given a tag's look, a state read as a thing), quotes parsed as one name, and a frame that is the
picture's subject. Each case failed before its rule (the prompts are written for the tests, not taken from a DSG file)."""

from __future__ import annotations

from question_facts import questions as _questions

from autoalign.scoring.parse.lexicon import load_spacy


def test_a_quote_is_parsed_as_one_name_and_the_sentence_around_it_is_read():
    # the quote's words no longer take the sentence apart: the sign is above the door, and "night" is no time of day
    qs = _questions("a red neon sign that says 'open all night' above a wooden door")
    assert "is the neon sign above the door?" in qs and "is it night?" not in qs
    assert "is \"open all night\" written on the neon sign?" in qs
    qs = _questions("a coffee mug with the phrase 'i need sleep' in cursive script, on a wooden table")
    assert "is the coffee mug on the table?" in qs


def test_a_stand_in_gives_the_prompt_back_as_written():
    from autoalign.scoring.parse.stand_ins import parse_with_stand_ins, stand_ins

    text = 'the words "keep calm" and \'carry on\' on a wall, next to can'
    assert [text[a:b] for a, b, _ in stand_ins(text)] == ["keep calm", "carry on", "can"]
    doc = parse_with_stand_ins(load_spacy(), text)
    assert doc.text == text
    assert [t.text for t in doc if t.text in ("keep calm", "carry on", "can")] == ["keep calm", "carry on", "can"]
    assert next(t for t in doc if t.text == "can").pos_ == "NOUN"
    # an apostrophe is no quote; a text without quotes or "can" is parsed as it is
    assert stand_ins("the dog's bowl and the cat's toy") == []


def test_can_after_a_preposition_or_before_nothing_a_verb_could_be_is_a_thing():
    qs = _questions("umbrella next to can")
    assert "is the umbrella canning?" not in qs and "is the umbrella next to the can?" in qs
    qs = _questions("person hold can. can on table")
    assert "does the person hold the can?" in qs and "is the can on the table?" in qs
    # the verb stays a verb
    assert "is the dog on the table?" in _questions("we can see a dog on the table")


def test_a_word_and_a_participle_before_a_thing_are_one_look():
    qs = _questions("A full grown rooster standing in the grass")
    assert "is the rooster full grown?" in qs and "is the rooster full?" not in qs and "is the rooster grown?" not in qs
    qs = _questions("a strange looking man with a hat")
    assert "is the man strange looking?" in qs and "is the man looking?" not in qs
    qs = _questions("a powerful - looking vehicle, concept art")
    assert "is the vehicle looking?" not in qs and any(q.startswith("is the vehicle powerful") for q in qs)
    # a tag of its own: one describing word, no thing
    qs = _questions("a mystical cat, occult inspired, dark")
    assert "is there an occult?" not in qs and "is the cat inspiring?" not in qs and "is the cat occult inspired?" in qs
    # a verb of looking stays a verb
    assert "is the woman looking at the painting?" in _questions("a woman looking at a painting")


def test_in_flight_is_how_a_thing_is_and_its_place_is_the_things():
    qs = _questions("birds in flight in front of the mountains")
    assert "is there a flight?" not in qs and "is the flight in front of the mountains?" not in qs
    assert "are the birds in flight?" in qs and "are the birds in front of the mountains?" in qs


def test_an_ing_look_opening_a_tag_before_a_part_is_the_parts_look():
    qs = _questions("a furry caterpillar, pupa, screaming evil face")
    assert "is the caterpillar screaming the face?" not in qs and "is the caterpillar screaming?" not in qs
    assert "is the face screaming?" in qs
    assert "is the caterpillar screaming the face?" not in _questions("a furry caterpillar, screaming evil face, dark fantasy")
    # a verb that does something to the part is the subject's
    assert "is the dragon flapping the wings?" in _questions("a dragon, flapping huge wings, fire")


def test_a_one_word_name_listed_with_an_artists_full_name_is_an_artist():
    qs = _questions("a cyberpunk city by moebius and makoto shinkai")
    assert "is the image in the style of moebius?" in qs and "is the image in the style of makoto shinkai?" in qs
    assert "is there moebius?" not in qs and not any("city by" in q for q in qs)
    assert "is the house by the lake?" in _questions("a small house by the lake and a tree")


def test_an_act_takes_no_look_of_a_tag():
    qs = _questions("an astronaut taking a selfie, colorful, vivid")
    assert "is there a selfie?" not in qs and "is the selfie colorful?" not in qs
    assert "is the astronaut taking a selfie?" in qs and "is the image colorful?" in qs


def test_a_frame_that_is_the_subject_takes_the_looks_of_the_tags_after_it():
    qs = _questions("beautiful artwork by boris groh, vivid, masterpiece, detailed")
    assert "is the artwork detailed?" in qs and "is the image detailed?" in qs
    qs = _questions("digital painting, colorful, detailed")
    assert "is the painting colorful?" in qs and "is the painting detailed?" in qs
    # a thing after the frame is what the tag describes; a tool's name is no look
    assert not any(q.startswith("is the photo ") for q in _questions("a photo of a dog, vivid"))
    assert "is the photography octane?" not in _questions("waves, macro photography, realistic, octane")


def test_a_one_word_tag_the_tagger_read_as_a_noun_but_that_describes_is_a_look():
    qs = _questions("a haunted castle, gothic, dark, 8k")
    assert "does the image have dark?" not in qs and "is the image dark?" in qs
    qs = _questions("clown girl, gothic, rich deep colours, painted by francis bacon")
    assert "is the girl gothic?" in qs
    # a noun stays a noun
    assert "is there snow?" in _questions("an old ship, snow, dark, moody")


def test_a_frame_opening_a_tag_before_by_is_the_frame_not_a_verb():
    qs = _questions("a lighthouse on a cliff at night, painting by ivan aivazovsky")
    assert "is the lighthouse painting?" not in qs and "is this a painting?" in qs
    assert "is the image in the style of ivan aivazovsky?" in qs
    qs = _questions("a girl reading a book, drawing by a child")
    assert "is the image drawing by a child?" not in qs and "is this a drawing?" in qs


def test_a_verb_done_to_a_thing_after_a_comma_is_no_style_tag():
    qs = _questions("a man sitting on a bench, painting a fence")
    assert "does the image have painting a fence?" not in qs and "is the man painting the fence?" in qs


def test_names_listed_after_an_artist_are_artists():
    qs = _questions("portrait of a cyborg samurai, art by greg rutkowski and alphonse mucha")
    assert "is the image in the style of alphonse mucha?" in qs
    assert "is there an alphonse?" not in qs and "is there a mucha?" not in qs
    qs = _questions("portrait of a knight, by artgerm, greg rutkowski and wlop, highly detailed")
    assert "is the image in the style of wlop?" in qs and "is the image in the style of greg rutkowski?" in qs
    # the last name of a list keeps the word the tagger read as a verb
    qs = _questions("clown girl, painted by francis bacon, adrian ghenie, james jean and petra cortright")
    assert "is the image in the style of petra cortright?" in qs and "is the girl cortrighting?" not in qs
    # a thing with an article, or an English word, is no name
    qs = _questions("a castle by greg rutkowski and a dragon")
    assert "is there a dragon?" in qs and not any("style of a dragon" in q for q in qs)


def test_a_medium_tag_is_the_pictures_medium_not_things():
    qs = _questions("a giant octopus attacking a pirate ship in a stormy sea, epic, dark, oil on canvas")
    assert "is this oil on canvas?" in qs
    assert not any(q in qs for q in ("is there an oil?", "is there a canvas?", "is the octopus in the oil?", "is the oil on the canvas?"))
    assert "is this ink on paper?" in _questions("a portrait of an old man, ink on paper")
    # a thing named so outside a tag list stays a thing
    assert "is the oil on the canvas?" in _questions("an oil on a canvas")


def test_a_film_or_lens_width_is_one_word():
    assert "is the image shot on 35mm film?" in _questions("a lonely astronaut on the moon, 35mm film")
    assert "is the image taken with an 85mm lens?" in _questions("portrait of a woman, 85mm lens, bokeh")
    qs = _questions("three 35mm cameras on a table")
    assert "are there three cameras?" in qs and "are there three mm cameras?" not in qs and "are there 35 mm cameras?" not in qs


def test_a_tag_after_a_part_the_subject_is_with_describes_the_subject():
    qs = _questions("a portrait of a beautiful elf queen with long silver hair and blue eyes, fantasy, elegant, highly detailed")
    assert "is the elf queen elegant?" in qs and "are the eyes elegant?" not in qs and "are the eyes highly detailed?" not in qs


def test_a_participle_hung_on_a_kind_is_what_the_things_do():
    qs = _questions("Seven kittens of different colors playing together on the grass")
    assert "are the kittens playing on the grass?" in qs and "are the kittens of different colors?" in qs


def test_in_a_row_is_how_things_are_laid_out():
    qs = _questions("six apples in a row on a table")
    assert "is there a row?" not in qs and "are the apples in a row?" in qs and "are the apples on the table?" in qs
    qs = _questions("a group of horses standing in a row in a bright basketball hall.")
    assert "are the horses in a row?" in qs and "are the horses standing in the basketball hall?" in qs
    assert "are the geese in flight?" in _questions("a flock of geese in flight over a lake")
    # a row named by a describing word is a thing
    assert "is there a front row?" in _questions("people sitting in the front row")


def test_a_body_part_listed_before_its_own_verb_is_its_subject():
    qs = _questions("The body is twisted to the right, the left hand is on the right hip and the right elbow is bent.")
    assert "is the hand on the elbow?" not in qs and "is the hand on the hip?" in qs and "is the elbow bent?" in qs


def test_parts_a_measure_apart():
    qs = _questions("standing with feet shoulder width apart, arms raised above the head")
    assert "is there a feet shoulder width?" not in qs and "are the feet shoulder width apart?" in qs
    qs = _questions("the legs are shoulder width apart")
    assert "is there a shoulder width?" not in qs and "are the legs shoulder width apart?" in qs


def test_a_frames_name_does_not_reach_over_a_comma():
    qs = _questions("an abandoned amusement park at night, eerie, foggy, horror movie still")
    assert "is this a horror movie still?" in qs and not any("eerie, foggy" in q for q in qs)


def test_an_ing_word_after_a_describing_word_that_a_preposition_takes_is_a_thing():
    qs = _questions("a cake shaped like the number 7 with pink frosting")
    assert "is the cake frosting?" not in qs and "is the frosting pink?" in qs and "does the cake have a frosting?" in qs
    # the shape says it; no bare participle
    assert "is the cake shaped?" not in qs and "is the cake shaped like the number?" in qs


def test_a_participle_look_that_would_loop_the_tree_is_not_joined():
    # (guards this round's own join of "X looking": here the thing after "looking" hangs under its own object, and the
    # join made a loop in the tree that crashed spaCy; passes on a1da0cf, where "looking" was never joined)
    qs = _questions("canvas colors looking sculpture ' lens alphonse ride paper in inspired a it. isometric pink")
    assert "is there a sculpture?" in qs
