"""Issue 39, round 31: the not-sensible kinds of round 30's held reading and of a reading of DrawBench and T2I-CompBench
questions, as rules of English for whole classes of prompts, each checked on prompts written for these tests (none taken
from a DSG file): genres and techniques set off as tags are the picture's, never things; a capitalised title after
"titled" / "called" is written on its work; names joined by "and" in a tag are artists; a title's one more word before
"style" is the title's; a verb of seeming says nothing of its own; a measure of a stuff ("a body of water") is the stuff;
a limb after a smaller part's "with" is the doer's; materials that end as describing words are asked as materials; a
picture word placed by a compound preposition is a thing; bare idioms ("in place", "at bat") are no things; a stock
title's "books set" opened by "the"; a hyphenated "-ing" word before a noun is a look; a plural that is a verb before
"as" / "while" is the verb; nouns of a measure or a quality are no things; an "-ing" verb joined to a place is the
doer's; quotes listed with "and" share their bearer; a decade set off as a tag says when the
subject is from; a word only ever describing, read as a noun, describes the next thing. All fail at the
start of the round
(53e1103)."""

from __future__ import annotations

from question_facts import questions as _questions


def test_a_genre_or_technique_set_off_as_a_tag_is_no_thing():
    # before: "is there a horror?", "is there Tintype?"
    qs = _questions("a haunted house in the woods, horror, dark fantasy, highly detailed")
    assert "is there a horror?" not in qs and "is the image in horror style?" in qs
    qs = _questions("a portrait of an old sailor, Tintype, 1880s")
    assert "is there Tintype?" not in qs and "is this a tintype?" in qs
    assert "is this a daguerreotype?" in _questions("a daguerreotype of a woman in a bonnet")
    # a genre inside a thing's name is read as before
    assert "is this a horror movie poster?" in _questions("a horror movie poster with a ghost")


def test_capitalised_words_after_titled_or_called_are_written_on_the_work():
    # before: "are there Diffusion Models?"
    qs = _questions("a presentation slide titled Diffusion Models with a graph")
    assert '"Diffusion Models" written on the presentation slide?' in " ".join(qs)
    assert "are there Diffusion Models?" not in qs
    qs = _questions("a textbook called Deep Learning on a desk")
    assert 'is "Deep Learning" written on the textbook?' in qs and "is there Deep Learning?" not in qs
    # a name of something that bears no text is left as read
    assert not any('"Max"' in q for q in _questions("a dog named Max on a sofa"))


def test_names_joined_by_and_in_a_tag_are_artists():
    # before: "is there a makoto shinkai?", "is the city at the moebius?"
    qs = _questions("city at dusk, moebius and makoto shinkai, detailed")
    assert "is the image in the style of makoto shinkai?" in qs and "is the image in the style of moebius?" in qs
    assert not any("shinkai" in q or "moebius" in q for q in qs if q.startswith(("is there", "is the city")))
    # things joined by "and" stay things
    qs = _questions("a beach, sun and moon, detailed")
    assert "is there a sun?" in qs and "is there a moon?" in qs


def test_an_artist_read_after_by_is_no_count():
    # before: "are there mucha lighthouses?"
    qs = _questions("a lighthouse on a cliff, by greg rutkowski and alphonse mucha")
    assert "is the image in the style of alphonse mucha?" in qs
    assert not any("mucha lighthouse" in q for q in qs)


def test_a_title_keeps_its_last_word_before_style():
    # before: "is the image in the style of bioshock?", "is the city infinite?"
    qs = _questions("a floating city, bioshock infinite, concept art")
    assert "is the image in the style of bioshock infinite?" in qs and "is the city infinite?" not in qs
    assert "is the image in the style of bioshock infinite?" in _questions("a floating city in the sky, bioshock infinite style")
    # a noun after a title is a thing in that style
    qs = _questions("a house, minecraft house, render")
    assert "is the image in the style of minecraft?" in qs and "is there a house?" in qs


def test_a_verb_of_seeming_is_no_action():
    # before: "is the bug seeming?", "is the man seeming?"
    qs = _questions("a bug which seems to be on the ground")
    assert "is the bug seeming?" not in qs and "is the bug on the ground?" in qs
    qs = _questions("the man seems happy")
    assert "is the man seeming?" not in qs and "is the man happy?" in qs
    # a verb after "to" that is no "be" keeps the action
    assert "is the child pretending?" in _questions("A child is playing with a toy guitar and pretending to be a rock star.")


def test_a_measure_of_a_stuff_is_the_stuff():
    # before: "is there a body?", "is the boat floating on the body?"
    qs = _questions("a boat floating on a body of water under the moon")
    assert "is there a body?" not in qs and "is there water?" in qs and "is the boat floating on water?" in qs
    assert "is there ice?" in _questions("a sheet of ice on a pond")
    # a body with an article after "of" is a body
    assert "is there a body?" in _questions("the body of a car is red")


def test_a_limb_after_a_smaller_parts_with_is_the_doers():
    # before: "does the knee cap have arms?"
    qs = _questions("a girl kneeling on the left knee cap with the arms up")
    assert "does the knee cap have arms?" not in qs and "are the arms up?" in qs
    # a smaller part a part has stays its own
    assert "are the fingers spread?" in _questions("a person leaning on the right hand with fingers spread")


def test_a_material_ending_as_a_describing_word_is_a_material():
    # before: "is the fabric pillow fabric?", "is the spatula plastic?"
    qs = _questions("a fabric pillow on a bed")
    assert "is the pillow made of fabric?" in qs and "is the fabric pillow fabric?" not in qs
    assert "is the spatula made of plastic?" in _questions("a plastic spatula")
    assert "is the vase made of ceramic?" in _questions("a ceramic vase")
    assert "is the crown golden?" in _questions("a golden crown")


def test_a_picture_placed_by_a_compound_preposition_is_a_thing():
    # before: "is this a painting?" and no relation
    qs = _questions("a painting in front of a cow")
    assert "is there a painting?" in qs and "is the painting in front of the cow?" in qs and "is this a painting?" not in qs
    assert "is the painting on the bottom of the cow?" in _questions("a painting on the bottom of a cow")
    assert "is the painting next to the window?" in _questions("a painting next to a window")
    # a picture of something placed elsewhere is the frame
    qs = _questions("a painting of a cow in front of a barn")
    assert "is this a painting?" in qs and "is the cow in front of the barn?" in qs


def test_a_bare_idiom_after_a_preposition_is_no_thing():
    # before: "is there a place?", "is there a bat?", "is there unison?"
    qs = _questions("The leather belt and wooden hanger hold the fabric dress in place.")
    assert "is there a place?" not in qs and "does the hanger hold the fabric dress?" in qs
    assert "is there a bat?" not in _questions("The FBI is at bat, the justices are on the field.")
    assert "is there unison?" not in _questions("two dancers moving in unison on a stage")
    # with an article it is a thing
    assert "is there a place?" in _questions("a house in the place of my dreams")


def test_a_books_set_title_may_open_with_the():
    # before: "are the books set enid blyton collection?"
    qs = _questions("the famous five books set enid blyton collection")
    assert "is there a books set?" in qs and not any(q.startswith("are the books set") for q in qs)
    # a sentence of setting is read as before
    assert "are the plates set on the table?" in _questions("plates set on a table")


def test_a_hyphenated_ing_word_before_a_noun_is_a_look():
    # before: "is there a plant-eating?", "does the plant-eating pull the loads?"; "fire-breathing" lost
    qs = _questions("A large plant-eating mammal with solid hoofs, used to pull loads.")
    assert not any("plant-eating?" in q or q.startswith(("is the plant-eating", "does the plant-eating")) for q in qs)
    assert "is the dragon fire-breathing?" in _questions("a fire-breathing dragon on a castle")
    # after a form of "be" it is a verb
    assert "are the soldiers re-enacting?" not in _questions("Teddy bears are re-enacting soldiers on the beach.")


def test_a_plural_that_is_a_verb_before_as_or_while_is_the_verb():
    # before: "are there kettle whistles?", "are the pot simmers on the stove?"
    qs = _questions("The metallic kettle whistles as the wooden spoon stirs the tea in the glass cup.")
    assert "is there a kettle?" in qs and "is the kettle whistling?" in qs and "does the spoon stir the tea?" in qs
    assert not any("kettle whistles" in q for q in qs)
    qs = _questions("The metallic pot simmers on the wooden stove while the plastic spatula stirs the soup.")
    assert "does the pot simmer on the stove?" in qs and not any("pot simmers" in q for q in qs)
    # a plural with a verb of its own is a plural
    assert "do the flower pots sit on the shelf?" in _questions("The flower pots sit on the shelf while the cat sleeps.")


def test_a_noun_of_a_measure_or_a_quality_is_no_thing():
    # before: "is there a length?", "is there a health?", "is there innovation?"
    assert "is there a health?" not in _questions("A woman is talking to her doctor about her health.")
    qs = _questions("a machine where drivers pay to park for a particular length of time")
    assert not any("length" in q for q in qs)
    assert "is there innovation?" not in _questions("The glass tower rose over the city, a symbol of progress and innovation.")


def test_an_ing_verb_joined_to_a_place_is_the_doers():
    # before: "is the trampoline laughing?"
    qs = _questions("A child is jumping on a trampoline and laughing.")
    assert "is the child laughing?" in qs and "is the trampoline laughing?" not in qs
    assert "is the dog barking?" in _questions("a dog running in the park and barking")
    # a verb with an object of its own is read as before
    assert "is the man reading the book?" in _questions("a man sitting on a bench and reading a book")


def test_quotes_listed_together_are_written_on_one_thing():
    # before: '"morning" written in the image' beside '"good" written on the mug'
    qs = _questions("a mug with the words 'good' and 'morning' in rainbow color")
    assert 'is "good" written on the mug?' in qs and 'is "morning" written on the mug?' in qs


def test_a_decade_set_off_as_a_tag_says_when_the_subject_is_from():
    # before: the decade was asked nowhere
    assert "are the dining chairs from the 1960s?" in _questions("set of six dining chairs, 1960s, vinyl")
    # a decade inside a name is no tag ("1960s walnut" is asked as before)
    assert not any("from the" in q for q in _questions("a 1960s walnut sideboard"))


def test_an_only_describing_word_read_as_a_noun_describes_the_next_thing():
    # before: "is there a triangular?", "is there a pyramidal?"
    qs = _questions("A triangular orange picture frame.")
    assert "is there a triangular?" not in qs and "is the picture frame triangular?" in qs
    qs = _questions("a rectangular shelf and a pyramidal bookend")
    assert "is there a bookend?" in qs and "is the bookend pyramidal?" in qs and "is there a pyramidal?" not in qs
    # names are left as read
    assert "is there New England?" in _questions("In late afternoon in January in New England, a man stands by a tree.")
