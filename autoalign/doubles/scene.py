"""The SCENE DOUBLE: test doubles of the generator, editor and VQA that read a known scene.

It judges nothing. It exists so that the *logic* of the self-correction loop (does it notice a
wrong count, write an instruction, apply it, see the fix and stop with "aligned"?) can be tested
on a CPU without pretending that a random-weight model sees anything.

A *scene* is a list of :class:`SceneObject` (name, colour, count, optional relation to another
object). Scenes are drawn as one coloured disc per object instance in 32x32 grid cells, and every
cell carries a one-row pixel header spelling the object's name and relation, so any image the
doubles produce can be decoded back into its scene from the pixels alone (:func:`decode_scene`):

* :class:`SceneGeneratorDouble` parses the prompt with simple word rules (:func:`parse_scene`:
  number words, colour words, nouns) and draws it with a deliberate, seed-dependent flaw: for
  ``seed % 3 == 0`` a wrong count, ``1`` a wrong colour, ``2`` no flaw (option ``flaw`` =
  ``"auto" | "count" | "colour" | "none"`` overrides this). It draws only the prompt's first
  sentence: what follows (style words, the loop's "The image must clearly show: ..." emphasis)
  names no new objects, and its word rules would otherwise read it as a second scene.
* :class:`SceneEditorDouble` applies edit instructions in the template writer's style ("make the
  apple red", "add another apple", "make it two apples", "remove one apple", "replace the X with
  a Y", "put the X on the Y") to the decoded scene and redraws it; an instruction it cannot parse
  leaves the image unchanged.
* :class:`SceneVQADouble` answers yes/no questions, VQ2 predicates
  (``is "red" true for "what color are the apples?" in this image?``), VNLI entailment questions
  and short open questions ("how many apples are there?", "what color is the plate?") by
  checking keyword claims against the decoded scene.

All three register under the name ``scene-double`` (preset ``scene-double``).
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from PIL import Image, ImageDraw

from autoalign.registry import register

logger = logging.getLogger(__name__)

# --- vocabulary --------------------------------------------------------------------------------

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
_PREFIXES = re.compile(r"^(?:(?:a|an|the)\s+)?(?:photo|picture|image|painting|drawing|rendering|illustration)\s+of\s+")
_IRREGULAR = {"mice": "mouse", "people": "person", "children": "child", "men": "man", "women": "woman",
              "geese": "goose", "feet": "foot", "teeth": "tooth", "shoes": "shoe", "toes": "toe",
              "knives": "knife", "leaves": "leaf", "wolves": "wolf", "loaves": "loaf", "buses": "bus"}
_IRREGULAR_PLURAL = {v: k for k, v in _IRREGULAR.items()}
_SINGULAR_S = {"bus", "glass", "grass", "dress", "class", "cactus", "octopus", "bonus", "virus", "lens", "chess"}

YES_P, NO_P = 0.97, 0.03
CELL = 32
BACKGROUND = (236, 232, 220)
_MAGIC = (7, 77, 177)


def singular(word: str) -> str:
    """A noun's singular form by simple rules ('apples' -> 'apple', 'boxes' -> 'box')."""
    w = word.lower()
    if w in _IRREGULAR:
        return _IRREGULAR[w]
    if w in _SINGULAR_S or len(w) <= 3 or w.endswith(("ss", "us", "is")):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    if w.endswith(("ches", "shes", "xes", "zes", "oes")):
        return w[:-2]
    if w.endswith("s"):
        return w[:-1]
    return w


def plural(noun: str) -> str:
    if noun in _IRREGULAR_PLURAL:
        return _IRREGULAR_PLURAL[noun]
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    if noun.endswith(("s", "x", "z", "ch", "sh", "o")):
        return noun + "es"
    return noun + "s"


def is_plural(word: str) -> bool:
    return singular(word) != word.lower()


def colour_word(word: str) -> str | None:
    w = COLOUR_ALIASES.get(word.lower(), word.lower())
    return w if w in COLOURS else None


def number_word(word: str) -> int | None:
    if word.isdigit():
        return int(word)
    return NUMBERS.get(word.lower())


def count_phrase(name: str, count: int) -> str:
    return f"{NUMBER_NAMES.get(count, str(count))} {name if count == 1 else plural(name)}"


# --- scenes ------------------------------------------------------------------------------------


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


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z]+|\d+", text.lower())


def _split_chunks(text: str) -> list[tuple[list[str], str | None]]:
    """Split text into noun-phrase chunks; each with the relation phrase that follows it (if any)."""
    words = _words(_PREFIXES.sub("", text.lower().strip()))
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


def _default_colour(name: str) -> str:
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
        scene.append(replace(obj, count=count, colour=obj.colour or _default_colour(obj.name)))
    claims = parse_claim(prompt)
    by_name = {c.name: c.relation for c in claims if c.relation}
    return [replace(o, relation=by_name.get(o.name)) for o in scene if o.count]


def describe(scene: Scene) -> str:
    """A readable description of a scene ('two red apples and one blue plate')."""
    return " and ".join(o.describe() for o in scene) if scene else "nothing"


# --- drawing and decoding ----------------------------------------------------------------------


def _pack(text: str) -> list[tuple[int, int, int]]:
    data = [min(ord(ch), 255) for ch in text]
    data += [0] * (-len(data) % 3)
    return [tuple(data[i : i + 3]) for i in range(0, len(data), 3)]  # type: ignore[misc]


def render_scene(scene: Scene, size: tuple[int, int] = (128, 128)) -> Image.Image:
    """Draw a scene: one disc per instance in a 32x32 cell, with a pixel header naming the object."""
    width, height = size
    image = Image.new("RGB", size, BACKGROUND)
    draw = ImageDraw.Draw(image)
    cols, rows = max(1, width // CELL), max(1, height // CELL)
    slots = [(c * CELL, r * CELL) for r in range(rows) for c in range(cols)]
    instances = [obj for obj in scene for _ in range(max(0, obj.count or 0))]
    if len(instances) > len(slots):
        logger.warning("scene double: %d objects do not fit a %dx%d canvas; drawing %d", len(instances), width, height, len(slots))
    pixels = image.load()
    for obj, (x0, y0) in zip(instances, slots):
        fill = COLOURS[obj.colour or _default_colour(obj.name)]
        draw.ellipse([x0 + 4, y0 + 4, x0 + CELL - 4, y0 + CELL - 4], fill=fill, outline=(60, 60, 60))
        rel, other = obj.relation or ("", "")
        name, other = obj.name[:40], other[:40]
        header = [_MAGIC, (len(name), len(other), RELATION_CODES.index(rel) if rel in RELATION_CODES else 0)]
        header += _pack(name + other)
        for i, px in enumerate(header[:CELL]):
            pixels[x0 + i, y0] = px
    return image


def _nearest_colour(rgb: tuple[int, int, int]) -> str:
    return min(COLOURS, key=lambda n: sum((a - b) ** 2 for a, b in zip(COLOURS[n], rgb)))


def decode_scene(image: Image.Image) -> Scene:
    """Read a scene back from an image drawn by :func:`render_scene` (empty for any other image)."""
    image = image.convert("RGB")
    pixels = image.load()
    width, height = image.size
    counts: dict[tuple[str, str, tuple[str, str] | None], int] = {}
    order: list[tuple[str, str, tuple[str, str] | None]] = []
    for y0 in range(0, height - CELL + 1, CELL):
        for x0 in range(0, width - CELL + 1, CELL):
            if pixels[x0, y0] != _MAGIC:
                continue
            n_name, n_other, rel_code = pixels[x0 + 1, y0]
            chars: list[int] = []
            for i in range(2, CELL):
                chars.extend(pixels[x0 + i, y0])
            text = "".join(chr(c) for c in chars[: n_name + n_other])
            name, other = text[:n_name], text[n_name:]
            colour = _nearest_colour(pixels[x0 + CELL // 2, y0 + CELL // 2])
            relation = (RELATION_CODES[rel_code], other) if rel_code and other else None
            key = (name, colour, relation)
            if key not in counts:
                order.append(key)
                counts[key] = 0
            counts[key] += 1
    return [SceneObject(name=k[0], colour=k[1], count=counts[k], relation=k[2]) for k in order]


# --- checking claims against a scene -----------------------------------------------------------


def holds(claim: Scene, scene: Scene) -> bool:
    """Whether every object of a claim is in the scene with the colour, count and relation it says.

    A claim with no object (nothing recognisable in the text) does not hold.
    """
    if not claim:
        return False
    for c in claim:
        same = [o for o in scene if o.name == c.name and (c.colour is None or o.colour == c.colour)]
        total = sum(o.count or 0 for o in same)
        if c.count is not None and total != c.count:
            return False
        if c.count is None and total == 0:
            return False
        if c.relation:
            rel, other = c.relation
            if not any(o.relation == (rel, other) for o in same):
                return False
    return True


_VQ2 = re.compile(r'is\s+"(?P<answer>[^"]*)"\s+true\s+for\s+"(?P<question>[^"]*)"', re.IGNORECASE)
_VNLI = re.compile(r'entail[s]?\s+the\s+(?:description|text|caption|statement)\s*:?\s*"(?P<text>[^"]*)"', re.IGNORECASE)
_HOW_MANY = re.compile(r"how many\s+(?P<rest>.+)", re.IGNORECASE)
_WHAT_COLOUR = re.compile(r"what colou?r\s+(?:is|are|was|were|does|do)?\s*(?P<rest>.+)", re.IGNORECASE)
_WH = re.compile(r"^\s*(?:what|who|which)\b(?:\s+(?:is|are))?\s*", re.IGNORECASE)
_AUX = re.compile(r"^\s*(?:is|are|does|do|can|was|were|has|have)\s+(?:there\s+)?", re.IGNORECASE)


def _nouns(text: str) -> list[str]:
    return [o.name for o in parse_claim(text)]


def answer_open(question: str, scene: Scene) -> str:
    """A short answer to an open question about the scene (a number, a colour, a description)."""
    q = question.strip().rstrip("?").strip()
    m = _HOW_MANY.match(q)
    if m:
        names = _nouns(m.group("rest"))
        claim = parse_claim(m.group("rest"))
        if not names:
            return NUMBER_NAMES[0]
        c = claim[0]
        total = sum(o.count or 0 for o in scene if o.name == c.name and (c.colour is None or o.colour == c.colour))
        return NUMBER_NAMES.get(total, str(total))
    m = _WHAT_COLOUR.match(q)
    if m:
        names = _nouns(m.group("rest"))
        colours = [o.colour for o in scene if names and o.name == names[0] and o.colour]
        return " and ".join(dict.fromkeys(colours)) if colours else "none"
    if _AUX.match(q):
        return "yes" if holds(parse_claim(_AUX.sub("", q)), scene) else "no"
    if _WH.match(q):
        rest = _WH.sub("", q)
        for phrase, canonical in RELATIONS:
            if rest.startswith(phrase + " "):
                target = _nouns(rest[len(phrase) :])
                found = [o for o in scene if target and o.relation == (canonical, target[0])]
                return describe(found) if found else "nothing"
        names = _nouns(rest)
        if names:
            found = [o for o in scene if o.name == names[0]]
            return describe(found) if found else "nothing"
    return describe(scene)


def _answers_match(expected: str, got: str) -> bool:
    exp, have = set(_words(expected)) - STOP, set(_words(got)) - STOP
    if not exp:
        return False
    norm = lambda ws: {singular(w) for w in ws}
    return norm(exp) <= norm(have)


def judge_statement(text: str, scene: Scene) -> bool:
    """True/false of a question or statement about the scene, in any of the forms the loop asks."""
    m = _VQ2.search(text)
    if m:
        answer, question = m.group("answer"), m.group("question")
        q = question.strip().rstrip("?")
        if _HOW_MANY.match(q) or _WHAT_COLOUR.match(q):
            return _answers_match(answer, answer_open(question, scene))
        if _AUX.match(q):  # a yes/no question with "yes"/"no" as the answer
            truth = holds(parse_claim(_AUX.sub("", q)), scene)
            return truth if answer.strip().lower() not in ("no", "false") else not truth
        # Substitute the answer for the wh-word: "what is on the table?" + "a cat" -> "a cat on the table".
        if _WH.match(q):
            claim_text = f"{answer} {_WH.sub('', q)}"
            claim = parse_claim(claim_text)
            return holds(claim, scene) if claim else _answers_match(answer, answer_open(question, scene))
        return holds(parse_claim(f"{answer} {question}"), scene)
    m = _VNLI.search(text)
    if m:
        return holds(parse_claim(m.group("text"), exact=True), scene)
    q = text.strip().rstrip("?")
    if _AUX.match(q):
        return holds(parse_claim(_AUX.sub("", q)), scene)
    return holds(parse_claim(q), scene)


# --- editing -----------------------------------------------------------------------------------

_VERBS = ("make", "add", "put", "replace", "turn", "remove", "take", "change", "leave", "move", "show", "paint", "color", "colour", "delete")


def split_instruction(text: str) -> list[str]:
    """Split a combined instruction ('make the apple red and add another apple') into its parts."""
    parts = re.split(r"\s+and\s+(?=(?:%s)\b)" % "|".join(_VERBS), text.strip().lower().rstrip("."))
    return [p.strip() for p in parts if p.strip()]


def _find(scene: Scene, claim: SceneObject) -> int | None:
    for i, o in enumerate(scene):
        if o.name == claim.name and (claim.colour is None or o.colour == claim.colour):
            return i
    for i, o in enumerate(scene):
        if o.name == claim.name:
            return i
    return None


def _set_count(scene: Scene, name: str, count: int, colour: str | None = None) -> Scene:
    """Set how many ``name`` objects there are (0 removes them); adds the object when missing."""
    idx = _find(scene, SceneObject(name, colour))
    if idx is None:
        return scene + [SceneObject(name, colour or _default_colour(name), count)] if count > 0 else scene
    out: Scene = []
    for i, o in enumerate(scene):
        if i != idx:
            out.append(o)
        elif count > 0:
            out.append(replace(o, count=count))
    return out


def _add(scene: Scene, obj: SceneObject, n: int) -> Scene:
    idx = _find(scene, obj)
    if idx is not None and (obj.colour is None or scene[idx].colour == obj.colour):
        return [replace(o, count=(o.count or 0) + n) if i == idx else o for i, o in enumerate(scene)]
    return scene + [SceneObject(obj.name, obj.colour or _default_colour(obj.name), n, obj.relation)]


def apply_instruction(scene: Scene, instruction: str) -> Scene:
    """The scene after one edit instruction; unchanged when the instruction is not understood."""
    for part in split_instruction(instruction):
        scene = _apply_one(scene, part)
    return scene


def _apply_one(scene: Scene, text: str) -> Scene:
    t = re.sub(r"\s+", " ", text.strip().lower())
    t = re.sub(r"\s+(?:in|to) the (?:picture|image|scene)$", "", t)
    m = re.match(r"^(?:replace) the (?P<old>.+?) with (?P<new>.+)$", t) or re.match(
        r"^(?:turn|change) the (?P<old>.+?) (?:into|to) (?P<new>.+)$", t
    )
    if m and parse_claim(m.group("new")) and not colour_word(m.group("new").strip()):
        old, new = parse_claim(m.group("old")), parse_claim(m.group("new"))
        idx = _find(scene, old[0]) if old else None
        if idx is None:
            return scene
        o, n = scene[idx], new[0]
        swapped = SceneObject(n.name, n.colour or _default_colour(n.name), n.count or o.count, o.relation)
        return [swapped if i == idx else x for i, x in enumerate(scene)]
    m = re.match(r"^(?:make|change|turn|paint|colou?r) (?:the |it )?(?P<noun>.*?)\s*(?:to |into )?(?P<colour>[a-z]+)$", t)
    if m and colour_word(m.group("colour")):
        colour = colour_word(m.group("colour"))
        names = _nouns(m.group("noun")) if m.group("noun") else []
        if not names and not scene:
            return scene
        idx = _find(scene, SceneObject(names[0])) if names else 0
        if idx is None:
            return scene
        return [replace(o, colour=colour) if i == idx else o for i, o in enumerate(scene)]
    m = re.match(r"^(?:make it|change the number of \S+ to|leave only) (?P<n>\S+)\s*(?P<rest>.*)$", t)
    if m and number_word(m.group("n")) is not None:
        n = number_word(m.group("n"))
        rest = m.group("rest") or (re.search(r"number of (\S+)", t) or [None, ""])[1]
        claim = parse_claim(rest)
        if not claim:
            return scene
        return _set_count(scene, claim[0].name, n, claim[0].colour)  # type: ignore[arg-type]
    m = re.match(r"^(?:remove|take away|delete) (?P<n>one|a|an) (?P<rest>.+)$", t)
    if m:
        claim = parse_claim(m.group("rest"))
        idx = _find(scene, claim[0]) if claim else None
        if idx is None:
            return scene
        o = scene[idx]
        return _set_count(scene, o.name, max(0, (o.count or 1) - 1), o.colour)
    m = re.match(r"^(?:remove|take away|delete) (?:the |all )?(?P<rest>.+)$", t)
    if m:
        claim = parse_claim(m.group("rest"))
        if not claim:
            return scene
        c = claim[0]
        return [o for o in scene if not (o.name == c.name and (c.colour is None or o.colour == c.colour))]
    m = re.match(r"^add (?:another|one more) (?P<rest>.+)$", t)
    if m:
        claim = parse_claim(m.group("rest"))
        return _add(scene, claim[0], 1) if claim else scene
    m = re.match(r"^(?:put|move|show|make) the (?P<x>.+?) (?P<rel>%s) the (?P<y>.+)$" % "|".join(p for p, _ in RELATIONS), t)
    if m:
        rel = dict(RELATIONS)[m.group("rel")]
        xs, ys = parse_claim(m.group("x")), parse_claim(m.group("y"))
        idx = _find(scene, xs[0]) if xs else None
        if idx is None or not ys:
            return scene
        return [replace(o, relation=(rel, ys[0].name)) if i == idx else o for i, o in enumerate(scene)]
    m = re.match(r"^(?:add|put|make the image show|make it look like|show) (?P<rest>.+)$", t)
    if m:
        claims = parse_claim(m.group("rest"))
        if not claims:
            return scene
        for c in claims:
            if t.startswith(("add", "put")):
                scene = _add(scene, c, c.count or 1)
            else:  # "make the image show two red apples": make the scene match the phrase
                idx = _find(scene, c)
                if idx is None:
                    scene = _add(scene, c, c.count or 1)
                else:
                    o = scene[idx]
                    scene[idx : idx + 1] = [replace(o, colour=c.colour or o.colour, count=c.count or o.count)]
        return scene
    logger.debug("scene editor double: instruction not understood, image unchanged: %r", text)
    return scene


# --- the doubles -------------------------------------------------------------------------------


def _size(options: dict[str, Any]) -> tuple[int, int]:
    return int(options.get("width", 128)), int(options.get("height", 128))


def flawed(scene: Scene, seed: int, flaw: str = "auto") -> Scene:
    """The scene with the generator double's deliberate flaw for ``seed``.

    ``auto``: seed % 3 == 0 -> wrong count, 1 -> wrong colour, 2 -> correct. The flawed object is
    picked by the seed too. A colour flaw on a scene with no object falls back to a count flaw.
    ``both``: a wrong count on the seed's object and a wrong colour on the next one (two mismatches).
    """
    if not scene or flaw == "none":
        return list(scene)
    if flaw == "both":
        counted = flawed(scene, seed, "count")
        idx = (seed // 3 + 1) % len(scene)
        recoloured = flawed([counted[idx]], 0, "colour")[0]
        return [recoloured if i == idx else o for i, o in enumerate(counted)]
    kind = flaw if flaw != "auto" else ("count", "colour", "none")[seed % 3]
    if kind == "none":
        return list(scene)
    idx = (seed // 3) % len(scene)
    obj = scene[idx]
    if kind == "colour":
        names = list(COLOURS)
        wrong = names[(names.index(obj.colour) + 1 + (seed // 3) % (len(names) - 1)) % len(names)] if obj.colour else names[0]
        obj = replace(obj, colour=wrong)
    else:
        count = obj.count or 1
        obj = replace(obj, count=count + 1 if count <= 1 else count - 1)
    return [obj if i == idx else o for i, o in enumerate(scene)]


class _Double:
    """Constructed like a real backend (``cls(spec=..., device=...)``); loads nothing."""

    def __init__(self, spec: Any = None, device: Any = None, options: dict[str, Any] | None = None):
        self.spec = spec
        self.device = device
        self.options = {**(getattr(spec, "options", None) or {}), **(options or {})}
        self.calls = 0


@register("generator", "scene-double")
class SceneGeneratorDouble(_Double):
    """TEST DOUBLE generator: draws the prompt's parsed scene with a seed-dependent flaw.

    Options: ``flaw`` ("auto" | "count" | "colour" | "both" | "none"), ``width``/``height`` (128).
    """

    def generate(self, prompt: str, n: int, seed: int, negative_prompt: str | None = None) -> list[Image.Image]:
        self.calls += 1
        scene = parse_scene(first_sentence(prompt))
        flaw = str(self.options.get("flaw", "auto"))
        return [render_scene(flawed(scene, seed + i, flaw), _size(self.options)) for i in range(n)]

    def max_prompt_tokens(self) -> int | None:
        return None


@register("editor", "scene-double")
class SceneEditorDouble(_Double):
    """TEST DOUBLE editor: decodes the scene, applies the instruction, redraws at the input's size.

    All ``n`` samples are the same edit (the double has no randomness to sample from).
    """

    def edit(self, image: Image.Image, instruction: str, n: int, seed: int) -> list[Image.Image]:
        self.calls += 1
        scene = decode_scene(image)
        edited = apply_instruction(list(scene), instruction)
        if edited == scene:
            return [image.copy() for _ in range(n)]
        return [render_scene(edited, image.size) for _ in range(n)]


@register("vqa", "scene-double")
class SceneVQADouble(_Double):
    """TEST DOUBLE VQA: answers by checking the question's keywords against the decoded scene.

    P(yes) is 0.97 when the statement holds and 0.03 when it does not.
    """

    def yes_prob(self, images: Sequence[Image.Image], questions: Sequence[str]) -> list[float]:
        return [y / (y + n) for y, n in self.yes_no_probs(images, questions)]

    def yes_no_probs(self, images: Sequence[Image.Image], questions: Sequence[str]) -> list[tuple[float, float]]:
        self.calls += 1
        out = []
        for image, question in zip(images, questions, strict=True):
            truth = judge_statement(question, decode_scene(image))
            out.append((YES_P, NO_P) if truth else (NO_P, YES_P))
        return out

    def answer(self, images: Sequence[Image.Image], questions: Sequence[str], max_new_tokens: int = 16) -> list[str]:
        self.calls += 1
        return [answer_open(q, decode_scene(im)) for im, q in zip(images, questions, strict=True)]
