"""English noun inflection, one home for it: ``plural("box") == "boxes"``, ``singular("mice") == "mouse"``,
``indefinite_article("unicycle") == "a"``.

Simple rules plus the exceptions in ``prompts/english_nouns.json`` (irregular plurals, nouns that end
in -s in the singular, beginnings that decide "a" or "an" by sound, nouns of a mass). Good enough for instruction text and for reading short prompts; not a
general-purpose inflector. The case of a regular noun's first letters is kept (``"Box" -> "Boxes"``).
"""

from __future__ import annotations

import json
import re
from functools import cache


@cache
def _tables() -> tuple[dict[str, str], dict[str, str], frozenset[str]]:
    from autoalign import prompts

    data = json.loads(prompts.load("english_nouns.json"))
    plural_of = {k.lower(): v.lower() for k, v in data["irregular"].items()}
    singular_of = {v: k for k, v in plural_of.items()}
    return plural_of, singular_of, frozenset(w.lower() for w in data["same_singular_ending_in_s"])


def plural(noun: str) -> str:
    """The plural of a singular noun ("apple" -> "apples", "box" -> "boxes", "mouse" -> "mice")."""
    if not noun:
        return noun
    plural_of, _, _ = _tables()
    low = noun.lower()
    if low in plural_of:
        return plural_of[low]
    if low.endswith(("s", "x", "z", "ch", "sh")):
        return noun + "es"
    if low.endswith("y") and len(low) > 1 and low[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def singular(word: str) -> str:
    """A noun's singular form, lower-cased ("apples" -> "apple", "boxes" -> "box", "mice" -> "mouse")."""
    plural_of, singular_of, same = _tables()
    w = word.lower()
    if w in singular_of:
        return singular_of[w]
    if w in same or w in plural_of or len(w) <= 3 or w.endswith(("ss", "us", "is")):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "sses", "xes", "zes", "oes")):
        return w[:-2]
    if w.endswith("s"):
        return w[:-1]
    return w


def is_plural(word: str) -> bool:
    """True when ``word`` is a plural noun form (its singular differs)."""
    plural_of, singular_of, _ = _tables()
    w = word.lower()
    return w in singular_of and singular_of[w] != w or (w not in singular_of and singular(w) != w)


@cache
def _article_tables() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...], frozenset[str]]:
    from autoalign import prompts

    data = json.loads(prompts.load("english_nouns.json"))
    return (
        tuple(data["a_before_vowel_letter"]),
        tuple(data["an_before_vowel_letter"]),
        tuple(data["an_before_consonant_letter"]),
        frozenset(w.lower() for w in data["uncountable"]),
    )


def indefinite_article(word: str) -> str:
    """ "a" or "an" before ``word`` by how it sounds: "an apple", "a unicycle", "a European", "an hour", "an 8k photo",
    "an 11-year-old" (beginnings in ``prompts/english_nouns.json``)."""
    w = word.strip().lower()
    if not w:
        return "a"
    if w[0].isdigit():  # "an 8k photo", "an 18th-century map", "an 11 year old"; "a 100", "a 1950s car"
        return "an" if re.match(r"8|1[18](?!\d)|1[18]\d{3}(?!\d)", w) else "a"
    consonant_sound, vowel_after_all, silent_h = _article_tables()[:3]
    if w[0] in "aeiou":
        return "a" if w.startswith(consonant_sound) and not w.startswith(vowel_after_all) else "an"
    return "an" if w.startswith(silent_h) else "a"


def is_uncountable(noun: str) -> bool:
    """Whether the last word of ``noun`` names a mass, asked without an article ("is there water?")."""
    words = noun.lower().split()
    return bool(words) and words[-1] in _article_tables()[3]
