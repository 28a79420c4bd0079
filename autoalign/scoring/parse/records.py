"""What a parse holds: things, their attributes, relations, global tags, quotes (plain data)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from autoalign.scoring.parse.lexicon import DEFAULT_SPACY_MODEL, _reads_as_listed_noun, _reads_as_name


@dataclass
class Attribute:
    """Something said about one thing: "red", "wooden", "made of denim", "surfing"."""

    value: str  # the describing word(s), e.g. "red", "very big", "denim"
    kind: str  # color | size | material | shape | texture | state | type
    index: int  # token index of its first word (for the question's span)
    phrase: str = ""  # how a yes/no question says it after "is the X ...": "made of denim"; default value


@dataclass
class Noun:
    """A thing in the prompt with what modifies it."""

    index: int  # token index of the head noun
    phrase: str  # compounds + head, e.g. "coffee cup"
    plural: bool
    chunk: str  # the noun chunk as written, e.g. "two red apples"
    start: int  # token span of the chunk
    end: int
    colors: list[str] = field(default_factory=list)
    attributes: list[str] = field(default_factory=list)  # non-colour describing words
    numbers: list[str] = field(default_factory=list)
    modifier_start: dict[str, int] = field(default_factory=dict)  # word -> its token index
    attrs: list[Attribute] = field(default_factory=list)  # every attribute, colours included, in prompt order
    lemma: str = ""  # the head's lemma, lower case
    bare: bool = False  # singular without a determiner ("sand", "soccer"): asked without an article


@dataclass
class Relation:
    subject: int  # token index of the subject noun
    word: str  # "on", "next to", "holding", "sitting on", "with"
    obj: int  # token index of the object noun; the subject's own index for "each other" ("elephants touching each other")
    kind: str  # "prep" | "verb" | "part"
    verb_tag: str = ""  # VBG for "holding"
    start: int = 0  # token span from subject to object (for the question's span)
    end: int = 0
    finite: str = ""  # for a finite verb ("grips"), its lemma ("grip"): asked as "does the boy grip ...?"
    also: tuple[int, ...] = ()  # the other objects of "between X and Y" (X's index; ``obj`` is Y)


@dataclass
class GlobalTag:
    """A fact about the whole picture: its frame ("photo"), style ("in the style of Hokusai"), time ("night")."""

    value: str  # "photo", "aerial photo", "digital art", "style of Hokusai", "night", "hyperrealistic"
    kind: str  # frame | style | time
    index: int
    parent: int | None = None  # token index of the frame this refines ("aerial" -> "photo"), if any
    countable: bool = True  # "a photo" vs "digital art"
    tag: bool = False  # a user prompt's tag fragment ("stunning volumetric lighting"); ``index`` is its head word


@dataclass
class Quote:
    text: str
    noun: int | None  # token index of the noun the quote is written on, if any
    char_start: int
    char_end: int = 0
    raw: str = ""  # as written in the prompt, quotes included
    looks: list[Attribute] = field(default_factory=list)  # how the text is lettered, where no word names it ("... in red")


@dataclass
class Parse:
    doc: Any
    nouns: list[Noun]
    relations: list[Relation]
    quotes: list[Quote]
    globals: list[GlobalTag] = field(default_factory=list)
    model: str = DEFAULT_SPACY_MODEL  # the spaCy pipeline that read it

    def reads_as_noun(self, word: str) -> bool:
        """Whether the pipeline tags ``word`` alone ("the owl") as a noun: a modifier read as an adjective
        in context ("an owl family") is then likely part of a compound name."""
        return _reads_as_listed_noun(word.lower(), self.model)  # ("a cute girl": "cute" is no kind of girl)

    def reads_as_name(self, tok) -> bool:
        """Whether a token names someone or something ("Greta", "ivan" in "ivan shishkin"): a named entity, or read as a
        name both here and, lower-cased, in a plain sentence ("bench" at a sentence's start is no name, "ivan" is)."""
        if tok.text[:1].islower():  # (the tagger's names and entities among lower-case words are often things)
            return _reads_as_name(tok.lower_, self.model)
        written = not tok.is_sent_start  # (a sentence's first word is capitalised anyway)
        return bool(tok.ent_type_) or tok.pos_ == "PROPN" and (written or _reads_as_name(tok.lower_, self.model))

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
