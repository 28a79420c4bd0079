"""Quoted text: what a prompt asks to be written ('a sign that says "hello"'), and the thing it is written on."""

from __future__ import annotations

import re
from typing import Any

from autoalign.scoring.parse.records import Noun, Quote
from autoalign.scoring.parse.tokens import _lemma

# "double", “curly” or 'single' quotes (a single quote only when it is not an apostrophe)
_QUOTE = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![\w'])'([^']+)'(?!\w)")


def read_quotes(text: str, doc: Any, nouns: list[Noun], lex: dict[str, Any]) -> list[Quote]:
    """The quotes of ``text`` (the text ``doc`` was parsed from), each with the thing it is written on."""
    quotes: list[Quote] = []
    for m in _QUOTE.finditer(text):
        qtext = (m.group(1) or m.group(2) or m.group(3) or "").strip()
        if not qtext:
            continue
        before = [n for n in nouns if doc[n.index].idx < m.start()]
        # the quote is written on the last noun before it ("a sign that says ..."), unless that noun is inside it
        owner = before[-1].index if before else None
        if owner is not None and _lemma(doc[owner]) in lex["text_nouns"] and not text[doc[owner].idx + len(doc[owner]) : m.start()].strip(" :,"):
            # "the word 'START' written on a sidewalk": the word is the text; it is written on what follows
            after = [n for n in nouns if doc[n.index].idx >= m.end() and doc[n.index].dep_ == "pobj" and doc[n.index].head.lower_ in ("on", "onto", "across", "over")]
            owner = after[0].index if after else None
        quotes.append(Quote(text=qtext, noun=owner, char_start=m.start(), char_end=m.end(), raw=m.group(0)))
    return quotes
