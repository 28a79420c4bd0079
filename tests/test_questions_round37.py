"""Issue 39, round 37: user prompts' resolutions written apart ("8 k") are the one word "8k", and a resolution tag is
never a thing's look ("is the castle uhd?"); a product title's bracketed note on how it is sold ("(optional)") is no
thing; a quote that names what a logo is for is written on the logo ("a logo for the company 'Bright Dawn'").
Prompts written for these tests (none taken from a DSG file). Each test fails at the start of the round (75697ee) and
holds a guard that passes before and after."""

from __future__ import annotations

from question_facts import questions as _questions


def test_a_resolution_written_apart_is_one_word_and_no_things_look():
    qs = _questions("an epic fantasy castle on a hill, 8 k, 4 k uhd, trending on artstation")
    assert "is the image in 8k resolution?" in qs and "is the image in 4k resolution?" in qs  # before: "8 k", "4 k"
    assert not any("castle uhd" in q for q in qs) and "is the fantasy castle on the hill?" in qs
    assert "is the fantasy castle uhd?" not in _questions("an epic fantasy castle on a hill, 4k uhd, hdr")
    assert "vitamin k" in " ".join(_questions("a bottle of vitamin k pills on a table"))  # (a letter, no resolution)


def test_a_bracketed_note_on_how_a_thing_is_sold_is_no_thing():
    qs = _questions("set of kitchen knives (optional) with a wooden block")
    assert not any("optional" in q for q in qs) and "are there kitchen knives?" in qs  # before: "is there optional?"
    qs = _questions("two desk lamps (sold separately) on an oak desk")
    # before: "are the desk lamps sold on the oak desk?"
    assert not any("sold" in q for q in qs) and "are the desk lamps on the oak desk?" in qs
    assert 'is "(optional)" written on the sign?' in _questions('a sign that says "(optional)"')  # a quoted text stays


def test_a_quote_naming_what_a_logo_is_for_is_written_on_the_logo():
    qs = _questions('a logo for the company "Bright Dawn" with a sun rising')
    assert 'is "Bright Dawn" written on the logo?' in qs  # before: "... written on the company?"
    assert 'is "Bean There" written on the logo?' in _questions("a logo for a coffee shop called 'Bean There'")
    # a verb of saying after the thing keeps the quote on it, as before
    assert 'is "Open" written on the sign?' in _questions('a sign for the bakery that says "Open"')
