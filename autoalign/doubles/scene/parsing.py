"""Prompt text to a scene: :class:`SceneObject`, :func:`parse_scene` and :func:`parse_claim` (word rules)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace

from autoalign.doubles.scene.words import (
    COLOURS,
    NUMBER_NAMES,
    PREFIXES,
    RELATIONS,
    STOP,
    colour_word,
    is_plural,
    number_word,
    plural,
    singular,
)


@dataclass(frozen=True)
class SceneObject:
    """One kind of object in a scene: ``count`` instances of ``name`` in ``colour``.

    ``count``/``colour`` may be None in a parsed *claim* ("is there a red apple?" says nothing about
    the count); drawn scenes always have both. ``relation`` = (relation, other object's name).
    """

    name: str
    colour: str | None = None
    count: int | None = None
    relation: tuple[str, str] | None = None

    def describe(self) -> str:
        words = NUMBER_NAMES.get(self.count or 1, str(self.count))
        noun = self.name if (self.count or 1) == 1 else plural(self.name)
        text = f"{words} {self.colour + ' ' if self.colour else ''}{noun}"
        if self.relation:
            text += f" {self.relation[0]} the {self.relation[1]}"
        return text


Scene = list[SceneObject]


def words_of(text: str) -> list[str]:
    return re.findall(r"[a-z]+|\d+", text.lower())


def _split_chunks(text: str) -> list[tuple[list[str], str | None]]:
    """Split text into noun-phrase chunks; each with the relation phrase that follows it (if any)."""
    words = words_of(PREFIXES.sub("", text.lower().strip()))
    chunks: list[tuple[list[str], str | None]] = []
    current: list[str] = []
    i = 0
    while i < len(words):
        matched = None
        for phrase, canonical in RELATIONS:
            parts = phrase.split()
            if words[i : i + len(parts)] == parts:
                matched = (len(parts), canonical)
                break
        if matched:
            chunks.append((current, matched[1]))
            current = []
            i += matched[0]
            continue
        if words[i] in ("and", "with", "plus", "while"):
            chunks.append((current, None))
            current = []
        else:
            current.append(words[i])
        i += 1
    chunks.append((current, None))
    return chunks


def _chunk_object(words: list[str], exact: bool = False) -> tuple[SceneObject, bool] | None:
    """The object a chunk of words names, and whether its noun was plural; None without a noun."""
    noun = None
    for w in reversed(words):
        if w not in STOP and not colour_word(w) and number_word(w) is None:
            noun = w
            break
    if noun is None and len(words) >= 2 and words[-2] in ("a", "an", "the") and colour_word(words[-1]):
        noun = words[-1]  # "an orange": a colour word used as a noun
        words = words[:-1]
    if noun is None:
        return None
    count = None
    colour = None
    for w in words:
        n = number_word(w)
        if n is not None and w not in ("no",):
            count = n
        elif w == "no":
            count = 0
        c = colour_word(w)
        if c:
            colour = c
    if exact and count is None and not is_plural(noun) and any(w in ("a", "an") for w in words):
        count = 1  # in a full description "a red apple" means one
    return SceneObject(name=singular(noun), colour=colour, count=count), is_plural(noun)


def parse_claim(text: str, exact: bool = False) -> Scene:
    """Parse a phrase into a claim: objects with only what the text says (count/colour may be None).

    ``exact``: read "a"/"an" as exactly one (for whole descriptions, as VNLI asks), not "at least one".
    """
    parsed: list[tuple[SceneObject, str | None]] = []
    for words, relation in _split_chunks(text):
        result = _chunk_object(words, exact)
        if result is None:
            # A relation right after a chunk without a noun ("what is on the table") still binds.
            if parsed and relation and parsed[-1][1] is None:
                parsed[-1] = (parsed[-1][0], relation)
            continue
        obj, _ = result
        parsed.append((obj, relation))
    out: Scene = []
    for i, (obj, relation) in enumerate(parsed):
        if relation and i + 1 < len(parsed):
            obj = replace(obj, relation=(relation, parsed[i + 1][0].name))
        out.append(obj)
    return out


def default_colour(name: str) -> str:
    digest = hashlib.sha256(name.encode()).digest()
    return list(COLOURS)[digest[0] % len(COLOURS)]


def first_sentence(prompt: str) -> str:
    """The text up to the first full stop that ends a sentence ("a cat. Photo" -> "a cat")."""
    return re.split(r"(?<=[^.\s])\.(?:\s|$)", prompt.strip(), maxsplit=1)[0]


def parse_scene(prompt: str) -> Scene:
    """Parse a prompt into a drawable scene: counts default to 1 (2 for a bare plural), colours to
    a fixed colour per noun."""
    scene: Scene = []
    for words, _ in _split_chunks(prompt):
        result = _chunk_object(words)
        if result is None:
            continue
        obj, was_plural = result
        count = obj.count if obj.count is not None else (2 if was_plural else 1)
        scene.append(replace(obj, count=count, colour=obj.colour or default_colour(obj.name)))
    claims = parse_claim(prompt)
    by_name = {c.name: c.relation for c in claims if c.relation}
    return [replace(o, relation=by_name.get(o.name)) for o in scene if o.count]


def describe(scene: Scene) -> str:
    """A readable description of a scene ('two red apples and one blue plate')."""
    return " and ".join(o.describe() for o in scene) if scene else "nothing"
