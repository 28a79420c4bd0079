"""Checking text against a known scene: :func:`holds`, :func:`judge_statement` (yes/no, VQ2 predicates,
VNLI) and :func:`answer_open` (short open answers). A test double's judge: keyword rules, no model."""

from __future__ import annotations

import re

from autoalign.doubles.scene.parsing import Scene, describe, parse_claim, words_of
from autoalign.doubles.scene.words import NUMBER_NAMES, RELATIONS, STOP, singular


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


def nouns_of(text: str) -> list[str]:
    return [o.name for o in parse_claim(text)]


def answer_open(question: str, scene: Scene) -> str:
    """A short answer to an open question about the scene (a number, a colour, a description)."""
    q = question.strip().rstrip("?").strip()
    m = _HOW_MANY.match(q)
    if m:
        names = nouns_of(m.group("rest"))
        claim = parse_claim(m.group("rest"))
        if not names:
            return NUMBER_NAMES[0]
        c = claim[0]
        total = sum(o.count or 0 for o in scene if o.name == c.name and (c.colour is None or o.colour == c.colour))
        return NUMBER_NAMES.get(total, str(total))
    m = _WHAT_COLOUR.match(q)
    if m:
        names = nouns_of(m.group("rest"))
        colours = [o.colour for o in scene if names and o.name == names[0] and o.colour]
        return " and ".join(dict.fromkeys(colours)) if colours else "none"
    if _AUX.match(q):
        return "yes" if holds(parse_claim(_AUX.sub("", q)), scene) else "no"
    if _WH.match(q):
        rest = _WH.sub("", q)
        for phrase, canonical in RELATIONS:
            if rest.startswith(phrase + " "):
                target = nouns_of(rest[len(phrase) :])
                found = [o for o in scene if target and o.relation == (canonical, target[0])]
                return describe(found) if found else "nothing"
        names = nouns_of(rest)
        if names:
            found = [o for o in scene if o.name == names[0]]
            return describe(found) if found else "nothing"
    return describe(scene)


def _answers_match(expected: str, got: str) -> bool:
    exp, have = set(words_of(expected)) - STOP, set(words_of(got)) - STOP
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
