"""Issue 39, round 34: which thing a user prompt's describing tag is about, when the thing named last before it is what a
past participle makes the subject of ("an elephant made of flowers, colorful") or covers it with ("a wall covered with
ivy, weathered"): the subject, not its material or its cover.
Prompts written for these tests (none taken from a DSG file). The first two tests fail at the start of the round
(d6612d3); the third is a guard that passes before and after."""

from __future__ import annotations

from question_facts import questions as _questions


def test_a_tag_after_made_of_describes_what_is_made():
    # before: "are the flowers colorful?", "are the flowers isometric?"
    qs = _questions("an elephant made of flowers, colorful, isometric, 3d render, white background")
    assert "is the elephant colorful?" in qs and "is the elephant made of flowers?" in qs
    assert "are the flowers colorful?" not in qs
    # before: "are the feathers elegant?"
    qs = _questions("a dress made of feathers, elegant, fashion photography")
    assert "is the dress elegant?" in qs and "are the feathers elegant?" not in qs
    # "built of", the same shape (before: "is the candy whimsical?")
    qs = _questions("a house built of candy, colorful, whimsical")
    assert "is the house whimsical?" in qs and "is the candy whimsical?" not in qs


def test_a_tag_after_covered_or_overgrown_with_describes_the_covered_thing():
    # before: "are the plants moody?", "are the plants post-apocalyptic?"
    qs = _questions("an abandoned train station overgrown with plants, post apocalyptic, moody, cinematic lighting")
    assert "is the train station moody?" in qs and "are the plants moody?" not in qs
    # before: "is the ivy weathered?"
    qs = _questions("a wall covered with ivy, old, weathered, sunny")
    assert "is the wall weathered?" in qs and "is the ivy weathered?" not in qs
    # before: "are the flowers whimsical?"
    qs = _questions("a door painted with flowers, colorful, whimsical")
    assert "is the door whimsical?" in qs and "are the flowers whimsical?" not in qs


def test_of_and_with_after_a_thing_or_a_container_are_not_climbed():
    # only a participle's "of" / "with" is climbed: "a bowl of ramen" and "a man with a hat" read as before
    qs = _questions("a bowl of ramen, steaming, food photography")
    assert "is the bowl steaming?" in qs
    qs = _questions("a man with a hat, smiling, portrait")
    assert "is the man smiling?" in qs and "is the hat smiling?" not in qs
    # a container's contents stay what the tag describes
    qs = _questions("a bowl filled with cherries, juicy, food photography")
    assert "are the cherries juicy?" in qs and "is the bowl juicy?" not in qs
