"""The scene double's vocabulary: colour, number and relation words, and the words that are never nouns."""

from __future__ import annotations

import re

from autoalign.inflect import is_plural, plural, singular

__all__ = ["is_plural", "plural", "singular", "colour_word", "number_word"]  # with the tables below

COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (220, 40, 40),
    "orange": (245, 140, 30),
    "yellow": (240, 220, 40),
    "green": (50, 170, 60),
    "blue": (40, 90, 220),
    "purple": (140, 60, 180),
    "pink": (245, 150, 190),
    "brown": (130, 80, 40),
    "black": (20, 20, 20),
    "white": (255, 255, 255),
    "gray": (128, 128, 128),
}
COLOUR_ALIASES = {"grey": "gray", "violet": "purple"}
NUMBERS: dict[str, int] = {
    "zero": 0, "no": 0, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5,
    "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
}
NUMBER_NAMES = {0: "zero", 1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
                8: "eight", 9: "nine", 10: "ten", 11: "eleven", 12: "twelve"}
# Relation phrases, longest first; the value is the canonical relation stored in the scene.
RELATIONS: list[tuple[str, str]] = [
    ("to the left of", "left of"), ("to the right of", "right of"), ("on top of", "on"),
    ("in front of", "in front of"), ("next to", "next to"), ("left of", "left of"),
    ("right of", "right of"), ("underneath", "under"), ("beneath", "under"), ("under", "under"),
    ("below", "below"), ("above", "above"), ("over", "above"), ("beside", "next to"),
    ("behind", "behind"), ("near", "next to"), ("inside", "in"), ("on", "on"), ("in", "in"),
]
RELATION_CODES = ["", "on", "under", "above", "below", "left of", "right of", "next to", "in front of", "behind", "in"]
# Words that are never the noun of a phrase.
STOP = {
    "a", "an", "the", "is", "are", "was", "were", "be", "there", "of", "some", "any", "it", "its", "this",
    "that", "these", "those", "each", "both", "which", "what", "how", "many", "much", "color", "colour",
    "colors", "colours", "do", "does", "did", "has", "have", "having", "with", "and", "or", "to", "for",
    "sitting", "standing", "lying", "placed", "shown", "visible", "present", "very", "big", "small",
    "large", "little", "tiny", "huge", "photo", "picture", "image", "painting", "drawing", "rendering",
    "true", "in", "on", "at", "by", "one", "another", "more", "other", "only", "exactly", "just",
    "number", "kind", "type", "who", "where", "whose", "shape", "made", "side", "top", "front",
    "left", "right", "back", "next", "scene", "show", "showing", "shows", "looks", "look", "like", "together",
    "all", "their", "they", "them", "he", "she", "his", "her", "also", "not", "isn", "aren", "t", "s",
    "entail", "description", "following",
}
PREFIXES = re.compile(r"^(?:(?:a|an|the)\s+)?(?:photo|picture|image|painting|drawing|rendering|illustration)\s+of\s+")


def colour_word(word: str) -> str | None:
    w = COLOUR_ALIASES.get(word.lower(), word.lower())
    return w if w in COLOURS else None


def number_word(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return NUMBERS.get(word.lower())
