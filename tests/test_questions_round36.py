"""Issue 39, round 36: a noun that names no thing to see, a feeling, a quality, a state of a society or an idea
("photos of poverty", "a book titled the power of five", "a child looking at the sky with curiosity"), is never asked
as a thing ("is there a poverty?"), also after plain nouns of its own ("world peace", "business success"); a name
("Bob Hope") and a thing named by such a word ("power lines", "a love seat", "a time machine") still are. A colour
gradient is the picture's look, no thing ("are there gradients?").
Prompts written for these tests (none taken from a DSG file). The first two tests fail at the start of the round
(2e9fbf6); the third is a guard that passes before and after."""

from __future__ import annotations

from question_facts import questions as _questions


def test_an_abstract_noun_is_no_thing():
    qs = _questions("black and white photos of poverty in a city slum")
    assert "is there a poverty?" not in qs and "is there a city slum?" in qs  # before: "is there a poverty?"
    qs = _questions("a book cover titled the power of five")
    assert "is there power?" not in qs and "is there a book cover?" in qs
    qs = _questions("a child looking at the sky with curiosity")
    assert not any("curiosity" in q for q in qs) and "is the child looking at the sky?" in qs
    qs = _questions("a couple dancing with passion on a stage")
    assert not any("passion" in q for q in qs) and "is there a stage?" in qs
    qs = _questions("a tattoo of a phoenix symbolizing rebirth and resilience")
    assert not any("rebirth" in q or "resilience" in q for q in qs) and "is there a phoenix?" in qs


def test_an_abstract_noun_after_plain_nouns_is_no_thing_and_a_gradient_is_no_thing():
    qs = _questions("vector illustration of world peace, a globe with hands around it")
    assert "is there world peace?" not in qs and "is there a globe?" in qs
    qs = _questions("stock photo of business success, a man climbing stairs")
    assert "is there a business success?" not in qs and "is the man climbing the stairs?" in qs
    qs = _questions("a flat vector icon of a rocket with gradients")
    assert "are there gradients?" not in qs and "is there a rocket?" in qs


def test_things_named_by_such_words_are_still_things():
    assert "are there power lines?" in _questions("power lines along a country road")
    assert "is there a love seat?" in _questions("a red love seat in a living room")
    assert "is there a time machine?" in _questions("a time machine in a garage")
    assert "is there a peace sign?" in _questions("a peace sign painted on a wall")
    assert "is there Bob Hope?" in _questions("Bob Hope on stage with a microphone")  # a name
    assert "is there a Statue of Liberty?" in _questions("the Statue of Liberty at sunset")
    assert "is there a soldier?" in _questions("a soldier in the war with a rifle")
