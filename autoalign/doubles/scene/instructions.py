"""Applying edit instructions in the template writer's style to a scene (:func:`apply_instruction`)."""

from __future__ import annotations

import logging
import re
from dataclasses import replace

from autoalign.doubles.scene.judge import nouns_of
from autoalign.doubles.scene.parsing import Scene, SceneObject, default_colour, parse_claim
from autoalign.doubles.scene.words import RELATIONS, colour_word, number_word

logger = logging.getLogger(__name__)

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
        return scene + [SceneObject(name, colour or default_colour(name), count)] if count > 0 else scene
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
    return scene + [SceneObject(obj.name, obj.colour or default_colour(obj.name), n, obj.relation)]


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
        swapped = SceneObject(n.name, n.colour or default_colour(n.name), n.count or o.count, o.relation)
        return [swapped if i == idx else x for i, x in enumerate(scene)]
    m = re.match(r"^(?:make|change|turn|paint|colou?r) (?:the |it )?(?P<noun>.*?)\s*(?:to |into )?(?P<colour>[a-z]+)$", t)
    if m and colour_word(m.group("colour")):
        colour = colour_word(m.group("colour"))
        names = nouns_of(m.group("noun")) if m.group("noun") else []
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
