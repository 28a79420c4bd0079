"""Issue 39, round 35: what a thing is made or sold for ("a set of nine labels for the summer season", "balloons for a
birthday party", "arrows for your design"), an occasion or a use after "for" (``not_things.purpose``), is no thing in
the picture but the thing's state: "are the labels for the summer season?", never "is there a summer season?". And a
colour tag after a product ("two pairs of running shoes, pink and grey", "leather boots, brown") is its colour where the
tagger read the colour as a noun.
Prompts written for these tests (none taken from a DSG file). The first, second and fourth tests fail at the start of
the round (e045df9); the third and fifth are guards that pass before and after."""

from __future__ import annotations

from question_facts import questions as _questions


def test_an_occasion_after_for_is_the_things_purpose_not_a_thing():
    # before: "are there winter holidays?"
    qs = _questions("Set of eight labels for the winter holidays in red and white")
    assert "are the labels for the winter holidays?" in qs
    assert "are there winter holidays?" not in qs
    assert "are there eight labels?" in qs and "are the labels in red?" in qs
    # before: "is there a birthday party?"
    qs = _questions("ten colorful balloons for a birthday party")
    assert "are the balloons for a birthday party?" in qs and "is there a birthday party?" not in qs
    # a noun that owns the occasion is part of it (before: "is there Valentine?", "is there a day?")
    qs = _questions("A box of twelve chocolates for Valentine's day")
    assert "are the chocolates for Valentine's day?" in qs
    assert "is there Valentine?" not in qs and "is there a day?" not in qs
    qs = _questions("cards for mother's day, red and pink")
    assert "is there a mother?" not in qs and "are the cards red and pink?" in qs


def test_a_use_after_for_is_the_things_purpose_and_its_colours_climb():
    # through a quantity word's "of"; the colours hung on the occasion are the posters'
    # (before: "is there a summer festival?", "is the summer festival in red?")
    qs = _questions("A set of four posters for the summer festival in red and orange")
    assert "are the posters for the summer festival?" in qs and "are the posters in red?" in qs
    assert not any("festival in" in q or q == "is there a summer festival?" for q in qs)
    # a possessive pronoun is left out (before: nothing asked of the arrows' use)
    qs = _questions("Collection of seven hand drawn arrows for your design")
    assert "are the arrows for design?" in qs
    qs = _questions("A luggage for travel is stuffed with a down jacket.")
    assert "is the luggage for travel?" in qs and "is there a travel?" not in qs
    # after a verb, the occasion is no thing and is asked of nothing ("are the suitcases for the party?" would misread
    # "packed"; before: "is there a party?")
    qs = _questions("two suitcases were packed for the party")
    assert "is there a party?" not in qs and not any("for the party" in q for q in qs)


def test_a_thing_after_for_and_for_after_a_verb_read_as_before():
    # a recipient or an object after "for" may be in the picture: still a thing
    qs = _questions("a bowl of food for the dog on the kitchen floor")
    assert "is there a dog?" in qs
    qs = _questions("A woman is holding a cup of coffee while waiting for the bus.")
    assert "is there a bus?" in qs and "is the woman waiting for the bus?" in qs
    # an outing stays no thing and no state
    qs = _questions("A man is holding a leash and taking his dog for a walk.")
    assert not any("walk" in q for q in qs)


def test_a_colour_tag_after_a_product_is_its_colour_where_the_tagger_read_a_noun():
    # a colour tag the tagger reads as a thing (before: "is there a grey?", nothing pink)
    qs = _questions("two pairs of running shoes for women, pink and grey")
    assert "are the running shoes pink and grey?" in qs and "is there a grey?" not in qs
    # (before: "is there a brown?")
    qs = _questions("two horses in a field, brown and white")
    assert "are the horses brown and white?" in qs and "is there a brown?" not in qs
    # a lone colour word that is also a noun (before: nothing asked of the colour)
    assert "are the leather boots brown?" in _questions("Pair of leather boots, brown")
    assert "are the vases white?" in _questions("Three ceramic vases, white, matte finish")


def test_colours_in_a_list_of_things_or_black_and_white_are_read_as_before():
    # an item of a list of things is a thing
    qs = _questions("a pear, orange, and two bananas")
    assert "is there an orange?" in qs and not any(q.startswith("is the pear orange") for q in qs)
    # "black and white" set off as a tag is the picture's colouring, not the fisherman's
    qs = _questions("portrait of an old fisherman, black and white, film grain")
    assert "is the fisherman black and white?" not in qs
    # a colour tag the tagger reads as a describing word, as before
    assert "are the mugs blue?" in _questions("four mugs, blue")
