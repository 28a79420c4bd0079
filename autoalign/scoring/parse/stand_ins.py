"""Stand-ins: words the tagger misreads are parsed as a plain word of their role, then given back their own text.

A quoted text is parsed as one name ("a cake with 'happy birthday anna' written in blue icing" is tagged as "a cake with
'Bob' written in white chalk", whatever words the quote holds), and "can" where it can only be a noun ("an umbrella next to
can") as "cup". The parse of the stand-in text is kept; each stand-in's token gets back the words it stood for, so the
reading sees the prompt as written, with the quote as one token (a name, inside the quote: no thing of its own). A
hyphenated "-ing" describing word before the word it describes ("a plant-eating mammal") is parsed as "hungry".
"""

from __future__ import annotations

import logging
import re

from autoalign.scoring.parse.quotes import _QUOTE

logger = logging.getLogger(__name__)

QUOTE_STAND_IN = "Bob"  # (of the names tried, the one the tagger sets beside "the words" / "the slogan" most often)
_NOUN_STAND_IN = "cup"

# "can" where it can only be a noun: after an article, a preposition or a number, or before nothing a verb could be
_ARTICLE_CAN = re.compile(r"(?i)\b(?:a|the|to|of|on|in|into|with|from|beside|behind|near|by|one|two|three|four|five|six|\d+)\s+(can)(?![\w'’])")
# a hyphenated describing word of an "-ing" form before the word it describes ("a plant-eating mammal", "a fire-breathing
# dragon"): parsed as a plain describing word, not as a noun or a verb ("is there a plant-eating?")
_HYPHEN_ING = re.compile(r"(?i)(?<![\w-])([a-z]+-[a-z]+ing)(?=\s+(?!(?:on|in|at|with|by|to|from|into|over|under|through|and|or|the|a|an|of|for|around|across|along|near|while|as)\b)[a-z])")
_LOOK_STAND_IN = "hungry"
_BE = frozenset({"is", "are", "was", "were", "be", "been", "being", "am", "'s", "'re"})
_BARE_CAN = re.compile(r"(?i)\b(can)(?=\s*(?:$|[.,;!?]|\s(?:on|in|next|near|behind|beside|under|above|with)\b))")


def stand_ins(text: str) -> list[tuple[int, int, str]]:
    """(start, end, stand-in) for each span of ``text`` to parse as another word, in order, not overlapping."""
    spans: list[tuple[int, int, str]] = []
    for m in _QUOTE.finditer(text):  # (the quotes quotes.py reads; at most 12 words, else left to the tagger)
        group = next(g for g in (1, 2, 3) if m.group(g) is not None)
        start, end = m.span(group)
        content = text[start:end]
        if not content.strip() or len(content.split()) > 12 or content != content.strip() or "\n" in content:
            continue  # ("' hello '": quote marks set off by spaces, left to the tagger)
        spans.append((start, end, QUOTE_STAND_IN))
    if "can" in text.lower():
        for m in (*_ARTICLE_CAN.finditer(text), *_BARE_CAN.finditer(text)):
            start, end = m.span(1)
            if not any(a < end and start < b for a, b, _ in spans):
                spans.append((start, end, _NOUN_STAND_IN))
    if "ing " in text:
        for m in _HYPHEN_ING.finditer(text):
            start, end = m.span(1)
            if text[:start].split()[-1:] and text[:start].split()[-1].lower() in _BE:
                continue  # ("teddy bears are re-enacting soldiers": a verb)
            if not any(a < end and start < b for a, b, _ in spans):
                spans.append((start, end, _LOOK_STAND_IN))
    return sorted(spans)


def parse_with_stand_ins(nlp, text: str):
    """``nlp(text)``, with the spans of :func:`stand_ins` parsed as their stand-in and given back their own words.

    Falls back to the plain parse when a stand-in is not read as one token of its own."""
    spans = stand_ins(text)
    if not spans:
        return nlp(text)
    from spacy.tokens import Doc

    parts, at, where = [], 0, []
    for start, end, word in spans:
        parts.append(text[at:start])
        offset = sum(map(len, parts))
        where.append((offset, offset + len(word), text[start:end]))
        parts.append(word)
        at = end
    parts.append(text[at:])
    stood = nlp("".join(parts))
    words, given = [], {}
    for tok in stood:
        own = next((w for a, b, w in where if tok.idx == a and tok.idx + len(tok) == b), None)
        if own is None and any(a < tok.idx + len(tok) and tok.idx < b for a, b, _ in where):
            logger.debug("a stand-in split by the tokenizer in %r: plain parse", text[:80])
            return nlp(text)
        if own is not None:
            given[tok.i] = own
        words.append(own if own is not None else tok.text)
    doc = Doc(
        nlp.vocab,
        words=words,
        spaces=[bool(t.whitespace_) for t in stood],
        tags=[t.tag_ for t in stood],
        pos=[t.pos_ for t in stood],
        morphs=[str(t.morph) for t in stood],
        lemmas=[given[t.i].lower() if t.i in given else t.lemma_ for t in stood],
        heads=[t.head.i for t in stood],
        deps=[t.dep_ for t in stood],
        ents=[f"{t.ent_iob_}-{t.ent_type_}" if t.ent_type_ and t.i not in given else "O" for t in stood],
    )
    if doc.text != text:
        return nlp(text)
    return doc
