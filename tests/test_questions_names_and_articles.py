"""Issue 39, round 19: fewer questions a reader finds not sensible. "a" or "an" by sound, no article before a mass or a
name, one before a bare thing; pronouns, months and names in a list of tags are no things. Each case failed before
its rule (the prompts are written for the tests, not taken from a DSG file)."""

from __future__ import annotations

import pytest
from question_facts import questions as _questions
from question_facts import things

from autoalign.inflect import indefinite_article, is_uncountable


def _things(prompt: str) -> set[str]:
    return {t.lower() for t in things(prompt)}


@pytest.mark.parametrize(
    "word,article",
    [("apple", "an"), ("unicycle", "a"), ("universe", "a"), ("uniform", "a"), ("unidentified", "an"), ("umbrella", "an"),
     ("European", "a"), ("one-eyed", "a"), ("hour", "an"), ("honest", "an"), ("horse", "a"), ("8k", "an"), ("11-year-old", "an"),
     ("18th-century", "an"), ("1950s", "a"), ("100", "a"), ("owl", "an"), ("urn", "an"), ("user", "a")],
)
def test_a_or_an_goes_by_sound_not_by_letter(word, article):
    assert indefinite_article(word) == article


def test_articles_in_questions_go_by_sound():
    assert "is there a unicycle?" in _questions("a clown riding an unicycle")  # the prompt's own slip is not copied
    assert "is there a Universe?" in _questions("Holding the Universe in my Hands")
    assert "is there an egg?" in _questions("a hamster next to an egg")


def test_a_mass_the_prompt_gives_no_a_is_asked_without_one():
    assert is_uncountable("water") and is_uncountable("ice water") and not is_uncountable("cat")
    qs = _questions("A leaf floats on the surface of the water.")
    assert "is there water?" in qs and "is there a water?" not in qs
    assert "is there snow?" in _questions("a fox running in the snow")
    assert "is there air?" in _questions("a ball flying through the air")
    assert "is there a glass?" in _questions("a glass of water on the table")  # counted by the prompt: kept
    # a bare abstract noun: never "a development" (since round 24 not asked at all after a thing's "of")
    assert "is there a development?" not in _questions("trees at various stages of development")
    assert "is there a movement?" not in _questions("a poster of the arts and crafts movement")


def test_a_bare_thing_that_is_no_mass_gets_an_article():
    qs = _questions("cute girl smiling while crying")
    assert "is there a girl?" in qs and "is there girl?" not in qs
    assert "is there a robot?" in _questions("robot on a conveyor belt, digital art")
    # a list of things written without articles: each one asked once, and the objects get "the"
    qs = _questions("person has kite. person near kite. kite in sky")
    assert qs.count("is there a kite?") == 1 and "is there kite?" not in qs
    assert "is the person near the kite?" in qs
    # but a name keeps none
    assert "is there Superman?" in _questions("Superman with a red cape")


def test_a_name_is_asked_without_the():
    qs = _questions("Albert Einstein is riding a bicycle")
    assert "is there Albert Einstein?" in qs
    assert "is Albert Einstein riding the bicycle?" in qs
    assert "is the Albert Einstein riding the bicycle?" not in qs


def test_a_pronoun_is_never_a_thing_whatever_the_tagger_read():
    assert "him" not in _things("The Eyes Of Him, concept art")
    assert "is there Him?" not in _questions("The Eyes Of Him, concept art")


def test_a_month_is_a_time_not_a_thing():
    qs = _questions("a dog running in the snow in december")
    assert "is it december?" in qs and "december" not in _things("a dog running in the snow in december")
    assert "september" not in _things("a cabin in the woods in september, photo")


def test_a_name_in_a_list_of_tags_is_the_artist_not_a_thing():
    prompt = "landscape with mountains, ivan shishkin, oil on canvas"
    assert "is the image in the style of ivan shishkin?" in _questions(prompt)
    assert not {"shishkin", "ivan shishkin"} & _things(prompt)
    prompt = "forest at dawn, Thomas Kinkade, matte painting, trending on artstation"
    assert "is the image in the style of Thomas Kinkade?" in _questions(prompt)
    assert "kinkade" not in _things(prompt) and "thomas kinkade" not in _things(prompt)
    # a genre is no name: "is the image in sci fi style?", not "... in the style of sci fi?" nor "is there sci fi?"
    qs = _questions("a robot in a church, atmospheric, sci fi, octane render, 8k")
    assert "is the image in sci fi style?" in qs and "is there sci fi?" not in qs
    # things in the first part and plurals in the tags are still things
    assert "cloud" in _things("chernobyl station at spring, aerial shot, noon, Cumulonimbus clouds")


def test_a_pose_word_with_an_object_is_no_state_of_the_implied_person():
    qs = _questions("Holding the Universe in my Hands")
    assert "is the person holding?" not in qs and "is the person holding the Universe?" in qs
    assert "is the person standing?" in _questions("standing on left leg right leg up and knee bent")


def test_an_artists_name_after_by_goes_on_to_the_end_of_its_fragment():
    prompt = "a girl walking a giant snail, a surrealist painting by remedies varo"
    qs = _questions(prompt)
    assert "is the image in the style of remedies varo?" in qs
    assert not any("varo" in q and "style" not in q and "by remedies varo?" not in q for q in qs)  # no "is the surrealist painting varoing?"
    # (round 32: the painting shows no thing of its own, so its artist is asked of it too: "is the painting by remedies varo?")
    assert "is the man painting by the river?" in _questions("a man painting by the river")  # a place, no artist


def test_a_noun_inside_a_three_word_preposition_is_no_thing():
    qs = _questions("the left hand is in contact with the floor")
    assert "is the hand in contact with the floor?" in qs and "contact" not in _things("the left hand is in contact with the floor")
    prompt = "The head is turned slightly to the right so that it is in line with the right shoulder."
    assert "line" not in _things(prompt) and not any("line" in q for q in _questions(prompt))
    # "in a line" of its own (no "with") is how the soldiers stand, not "in line with" (round 25; this case expected a
    # thing "line" before)
    assert "are the soldiers in a line?" in _questions("a row of soldiers standing in a line")


def test_a_short_sentence_is_no_tag_even_in_a_list_of_sentences():
    # (the named-tag rule is for comma-separated tags; a three-word sentence of a relation list is things)
    prompt = "boat has person. person ride boat. sky above boat. Person Ride"
    assert not any("style" in q for q in _questions(prompt))
