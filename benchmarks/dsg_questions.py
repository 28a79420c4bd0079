"""How close the offline (spaCy) question generator comes to human DSG questions, and whether it binds colours.

    python -m autoalign.benchmarks.dsg_questions --anns ../shared/data/dsg/tifa160-dev-anns.csv \\
        --colour-prompts ../shared/data/t2i_compbench/color_val.txt ../shared/data/drawbench/DrawBench.csv

**Recall of the human questions.** Each row of the DSG file is one human-checked tuple
(``attribute - color (bears, brown)``). A tuple counts as covered when the generator wrote a fact that
states the same thing, by this rule (words compared as spaCy lemmas, lower case, articles and
possessives dropped: "woman's dress" is the dress; "book_1" is the book; a thing's head word is read
as a noun, "building" is a building; a human argument names every generated thing whose name holds its
head word, so "the Statue of Liberty", head word "liberty", is the generated "Statue of Liberty"):

* entity (thing): a generated entity whose name contains the thing's head word;
* attribute (thing, value), also DSG's two-argument entity rows (``entity - scale (boy, little)``):
  a generated attribute of that thing sharing a word with the value, or a generated entity whose
  name holds both ("food truck" covers ``type (truck, food)``), or a generated action of that thing
  sharing a word with the value (``state (man, surf)``);
* count (thing, ==N): a generated count of that thing with the number N;
* relation / action with two things: a generated relation between those two things (either order)
  whose predicate shares a word with the human predicate, or where both predicates hold a word of the
  same group of spatial synonyms (``SPATIAL_SYNONYMS``: "parked by" covers "next to", "atop" covers
  "on"); with one thing (``action (man, play)``): a generated attribute or relation of that thing
  sharing a word with the predicate;
* global (value): a generated global fact sharing a word with the value;
* text rendering (thing, "TEXT"): a generated text fact with the same text.

("riding" also counts as "ride": a lone -ing word gets its verb stems). Since round 36 (``--matching current``, the
default; ``--matching round35`` is the rule before) three readings are added, each where the generated question checks
the same fact: a British spelling is read as the American one ("colourful" is "colorful", "grey" "gray":
``SPELLING_VARIANTS``); a plural head word that the pipeline leaves as it is after "the" is read as its singular
("sofas" -> "sofa"; not a name, "Jeff Bezos"), and "someone" as "person", the generator's name for it; and an attribute is also covered by a generated relation of that thing
whose object is the value's head word, when each of the value's other words is said of that object (``(beer bottles,
reflection)`` by "do the beer bottles have reflection?"; ``(zebras, black and white stripes)`` only with "are the
stripes black?" and "... white?" as well); and a place relation is also covered by the converse one between the same
two things (``CONVERSE_PLACES``: "is the wave behind the man?" covers ``(man, wave, in front of)``, "is the sky above
the tower?" ``(tower, sky, under)``); a global tuple of a thing and its look by that look asked of the thing
(``global (white background)`` by "is the background white?"). Since round 37 (``current``; ``--matching round36`` is
round 36's rule) an attribute is also covered by a question of the picture that holds every word of its value: DSG's
annotators hang a user prompt's picture tags on its subject, ``(cat, shallow depth of field)``, which the generator asks
of the picture, "does the image have shallow depth of field?" (the same fact; a shared word is not enough). The 160 prompts are split by ``sha1(item_id)`` (even: tuning part, odd: held-out part); both parts
are reported. Questions per prompt are compared with DSG's; ``--sample-questions N`` and
``--sample-matches N`` print deterministic samples for checking by hand.

**Colour binding.** From each colour prompt with two different colour words, a swapped caption is made
by exchanging them ("a red car and a blue bird" -> "a blue car and a red bird"). A pair is told
apart when the original gets a colour question that the swapped caption does not get (so its true
answer differs between the two).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import random
import re
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from autoalign.benchmarks.metrics import wilson
from autoalign.config import RoleSpec
from autoalign.files import atomic_write_json
from autoalign.inflect import is_plural, singular
from autoalign.scoring.parse import lexicon, load_spacy, number_value, parse_prompt
from autoalign.scoring.questions import Fact, SpacyQuestions, facts_from_parse
from autoalign.types import Question

_TUPLE = re.compile(r"^\s*(?P<broad>[\w ]+?)\s*-\s*(?P<detailed>-|[\w ]*?)\s*\((?P<args>.*)\)\s*$")
_DROP = {"a", "an", "the", "of", "'s", "’s", "be", "-", ",", "and", "'", '"'}
# prepositions that name the same place relation (the matching rule's only synonyms)
SPATIAL_SYNONYMS = (
    frozenset({"next", "beside", "by", "near", "alongside", "adjacent", "close"}),
    frozenset({"on", "atop", "upon", "onto", "top"}),
    frozenset({"in", "inside", "within", "into"}),
    frozenset({"under", "beneath", "below", "underneath"}),
    frozenset({"above", "over"}),
)


# British spellings read as the American ones on both sides (``matching="current"``): "colourful" is "colorful". A
# lemma that begins with a key is read with the value in its place ("greyish" -> "grayish", "stylised" -> "stylized").
SPELLING_VARIANTS = {
    "colour": "color", "grey": "gray", "centre": "center", "theatre": "theater", "metre": "meter", "litre": "liter",
    "fibre": "fiber", "sombre": "somber", "lustre": "luster", "jewellery": "jewelry", "aluminium": "aluminum",
    "favourite": "favorite", "armour": "armor", "harbour": "harbor", "neighbour": "neighbor", "flavour": "flavor",
    "vapour": "vapor", "odour": "odor", "honour": "honor", "humour": "humor", "parlour": "parlor", "rumour": "rumor",
    "moustache": "mustache", "pyjama": "pajama", "aeroplane": "airplane", "doughnut": "donut", "plough": "plow",
    "mould": "mold", "cosy": "cozy", "catalogue": "catalog", "programme": "program", "tyre": "tire", "kerb": "curb",
    "stylis": "styliz", "personalis": "personaliz", "customis": "customiz", "organis": "organiz", "realis": "realiz",
    "symbolis": "symboliz", "miniaturis": "miniaturiz", "modernis": "moderniz", "ageing": "aging",
}
_SPELLING = re.compile(r"^(?:" + "|".join(sorted(SPELLING_VARIANTS, key=len, reverse=True)) + ")")
# round36: the rule of round 36 (no picture tags); round35: the rule before round 36 (no spelling variants, plurals,
# relation objects)
MATCHINGS = ("current", "round36", "round35")


def american(word: str) -> str:
    """``word`` with a British spelling of :data:`SPELLING_VARIANTS` at its start read as the American one."""
    return _SPELLING.sub(lambda m: SPELLING_VARIANTS[m.group(0)], word)

# place relations that say the same with their two things swapped ("the wave is behind the man": "the man is in front
# of the wave"), read so by ``matching="current"``
CONVERSE_PLACES = (
    (frozenset({"front"}), frozenset({"behind"})),
    (frozenset({"above", "over"}), frozenset({"under", "beneath", "below", "underneath"})),
    (frozenset({"left"}), frozenset({"right"})),
)


def converse_predicate(generated: frozenset[str], human: frozenset[str]) -> bool:
    """Whether a generated place relation between two things, read with the things swapped, says the human one."""
    return any(generated & a and human & b or generated & b and human & a for a, b in CONVERSE_PLACES)


def same_predicate(generated: frozenset[str], human: frozenset[str], synonyms: bool = True) -> bool:
    """The predicate part of the matching rule: a shared lemma, or a shared group of spatial synonyms."""
    return bool(generated & human) or synonyms and any(generated & g and human & g for g in SPATIAL_SYNONYMS)


@dataclass
class HumanTuple:
    item_id: str
    prompt: str
    broad: str
    detailed: str
    args: list[str]
    question: str


def source_of(item_id: str) -> str:
    """The DSG-1k source of an item ("localized_narratives_95" -> "localized_narratives"; TIFA160 ids are one source)."""
    head, _, tail = item_id.rpartition("_")
    return head if head and tail.isdigit() and not head.startswith(("coco", "drawbench", "paintskill", "partiprompt")) else "tifa160"


def split_of(item_id: str) -> str:
    """``tune`` or ``held``: a deterministic ~50/50 split of the prompts by the hash of their id."""
    return "tune" if int(hashlib.sha1(item_id.encode()).hexdigest(), 16) % 2 == 0 else "held"


def read_anns(path: str | Path) -> list[HumanTuple]:
    out = []
    with open(path, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            m = _TUPLE.match(row["tuple"] or "")
            if not m:
                continue
            args = [a.strip() for a in m.group("args").split(",") if a.strip()]
            out.append(
                HumanTuple(
                    item_id=row["item_id"],
                    prompt=row["text"].strip(),
                    broad=m.group("broad").strip(),
                    detailed=m.group("detailed").strip() or "-",
                    args=args,
                    question=row["question_natural_language"].strip(),
                )
            )
    return out


class Lemmas:
    """Content-word lemmas of short texts (cached), by the same spaCy pipeline as the generator.

    ``matching="current"`` (and ``"round36"``) also reads British spellings as American ones (:func:`american`) and a plural head word the
    pipeline leaves unlemmatised after "the" by its lemma after a number ("the sofas" -> "sofas", "two sofas" ->
    "sofa"), and "someone" as "person"; ``"round35"`` is the reading before round 36."""

    def __init__(self, matching: str = "current") -> None:
        if matching not in MATCHINGS:
            raise ValueError(f"matching must be one of {', '.join(MATCHINGS)}, not {matching!r}")
        self.nlp = load_spacy()
        self.matching = matching
        self.cache: dict[str, frozenset[str]] = {}
        self.heads: dict[tuple[str, bool], str] = {}

    def spelled(self, lemma: str) -> str:
        """``lemma`` as the matching rule compares it (American spelling unless ``matching="round35"``)."""
        return american(lemma) if self.matching != "round35" else lemma

    def __call__(self, text: str) -> frozenset[str]:
        text = re.sub(r"_\d+\b", "", text).replace("==", " ")
        hit = self.cache.get(text)
        if hit is None:
            doc = self.nlp(text.lower())
            toks = [t for t in doc if t.lower_ not in _DROP and not t.is_punct]
            hit = frozenset(self.spelled(w) for w in {t.lemma_.lower() for t in toks} | {v for t in toks for v in _verb_stems(t.lower_)})
            self.cache[text] = hit
        return hit

    def head(self, text: str) -> str:
        """The thing a human argument names: the last word, after a possessive ("woman's dress" -> dress)."""
        text = re.sub(r"_\d+\b", "", text).strip()
        text = re.split(r"['’]s\s+", text)[-1]
        words = [w for w in re.findall(r"[\w-]+", text.lower()) if w not in _DROP]
        if not words:
            return ""
        word = words[-1]
        written = re.findall(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text, re.IGNORECASE)
        proper = bool(written) and written[-1][:1].isupper()  # "Jeff Bezos" is no plural
        hit = self.heads.get((word, proper))
        if hit is None:
            doc = self.nlp(f"the {word}")  # read as a noun: "building" is a building, not "build"
            hit = doc[-1].lemma_.lower() if len(doc) > 1 else word
            if self.matching != "round35" and hit == word and is_plural(word) and not proper:
                # "the sofas" keeps its plural; after a number the pipeline reads it as one ("two sofas" -> "sofa"), and
                # that lemma is taken only when it is the word's singular ("news", "series" stay as they are)
                counted = self.nlp(f"two {word}")
                if len(counted) == 2 and counted[-1].lemma_.lower() == singular(word):
                    hit = singular(word)
            if self.matching != "round35" and hit in ("someone", "somebody"):
                hit = "person"  # the generator names the one the pronoun stands for a person ("is there a person?")
            hit = self.spelled(hit)
            self.heads[word, proper] = hit
        return hit


def _verb_stems(word: str) -> set[str]:
    """Lemmas of a lone "-ing" word, which spaCy often reads as a noun ("riding" -> ride, rid; "sitting" -> sit)."""
    if not word.endswith("ing") or len(word) < 6:
        return set()
    stem = word[:-3]
    out = {stem, stem + "e"}
    if len(stem) > 2 and stem[-1] == stem[-2]:
        out.add(stem[:-1])
    return out


def _number(text: str) -> int | None:
    return number_value(text.replace("==", ""))


class Matcher:
    """The matching rule of the module docstring."""

    def __init__(self, lemmas: Lemmas, synonyms: bool = True):
        self.lem = lemmas
        self.synonyms = synonyms  # False: predicates must share a lemma (the rule before SPATIAL_SYNONYMS)
        # the matcher's readings of round 36 (``matching="current"`` and ``"round36"``): an attribute's value among the objects of the
        # thing's relations, a place relation with its two things swapped (``CONVERSE_PLACES``), a global thing-and-look
        # as the look asked of the thing; "round35" reads none of them
        self.round36_readings = lemmas.matching != "round35"
        # round 37's reading (``matching="current"`` only): a picture tag that DSG hung on a thing, asked of the picture
        self.picture_tags = lemmas.matching == "current"

    def _names(self, fact: Fact) -> frozenset[str]:
        """Lemmas of the generated thing's name ("bathroom sink" -> {bathroom, sink})."""
        return self.lem(fact.question.answer) | {fact.args[0], self.lem.spelled(fact.args[0])}

    def _named(self, head: str, facts: list[Fact]) -> set[str]:
        """The generated things a human argument names: its head word, and every generated entity whose name holds that
        word, as for entity rows ("the Statue of Liberty": head word "liberty", the generated thing "statue" named
        "Statue of Liberty")."""
        return {head} | {f.args[0] for f in facts if f.category == "entity" and head in self._names(f)}

    def _thing(self, fact: Fact, head: str, named: set[str]) -> bool:
        """Whether ``fact`` is about the human argument with head word ``head``, which names ``named`` (:meth:`_named`)."""
        return fact.args[0] in named or head in self.lem(fact.args[0])

    def _relation_object(self, head: str, named_by: set[str], value: str, facts: list[Fact]) -> Fact | None:
        """An attribute whose value the generator named as what the thing has or is in: (beer bottles, reflection) is
        "do the beer bottles have reflection?", (word, chalk) "is the word written in chalk?". The value's head word is
        the object's key, and each of its other words is said of that object (in its name or one of its attributes:
        (zebras, black and white stripes) needs "are the stripes black and white?" too); "is the table on the wooden
        floor?" says nothing of the table's wood."""
        lem = self.lem
        words = [w for w in re.findall(r"[\w-]+", re.sub(r"_\d+\b", "", value).lower()) if w not in _DROP]
        if not words:
            return None
        value_head = lem.head(value)
        for f in facts:
            if f.category != "relation" or len(f.args) < 3 or not f.args[2] or not self._thing(f, head, named_by):
                continue
            obj = f.args[2]
            if lem.spelled(obj) != value_head and value_head not in lem(obj):
                continue
            said = set(lem(obj)) | {value_head}
            for g in facts:
                if g.args and g.args[0] == obj and g.category in ("entity", "attribute"):
                    said |= self._names(g) if g.category == "entity" else lem(g.args[1])
            if all(lem(w) & said for w in words[:-1]):
                return f
        return None

    def _global_as_thing(self, want: frozenset[str], facts: list[Fact]) -> Fact | None:
        """A global tuple that names a thing and its look, asked of that thing: (white background) by "is the background
        white?" (DSG's own question for it), one word of the thing's name and the whole value, nothing else. Not a thing
        alone ("is there a silk screen?" is no "is this a silk screen?"), and only a colour: "is the screen made of silk?"
        is no silk screen either."""
        if not want:
            return None
        names = {f.args[0]: self._names(f) for f in facts if f.category == "entity"}
        colours = lexicon()["colors"]
        for f in facts:
            if f.category == "attribute" and f.args[0] in names and f.args[1].lower() in colours:
                value = self.lem(f.args[1])
                thing = want - value
                if value and value <= want and thing and thing <= names[f.args[0]] and len(thing) == 1:
                    return f
        return None

    def _picture_tag(self, value: str, facts: list[Fact]) -> Fact | None:
        """An attribute that is a tag of the picture, which DSG's annotators hung on the prompt's thing and the generator
        asked of the picture: (cat, shallow depth of field) by "does the image have shallow depth of field?", (clown girl,
        masterpiece) by "is the image in masterpiece style?", (gift boxes, stock vector) by "is this a stock vector?". Every
        word of the value must be in the one question of the picture (a shared word is not enough, as no thing ties the
        two): "is the image blue and white?" covers (car, blue), "is the image bluish?" does not."""
        want = self.lem(value)
        if not want:
            return None
        return next((f for f in facts if f.category == "global" and want <= self.lem(f.args[0]) | self.lem(f.question.text)), None)

    def match(self, h: HumanTuple, facts: list[Fact]) -> Fact | None:
        lem = self.lem
        args = h.args
        broad = h.broad
        if broad == "entity" and len(args) >= 2:
            broad = "attribute"
        if broad == "other" and h.detailed == "count":
            broad = "count"
        if broad == "other" and h.detailed == "text rendering":
            text = args[-1].strip("\"'“” ").lower()
            return next((f for f in facts if f.category == "text" and f.question.answer.lower() == text), None)
        if broad == "entity":
            head = lem.head(args[0])
            return next((f for f in facts if f.category == "entity" and head in self._names(f)), None)
        if broad == "global":
            want = lem(" ".join(args))
            hit = next((f for f in facts if f.category == "global" and lem(f.args[0]) & want), None)
            return hit if hit is not None or not self.round36_readings else self._global_as_thing(want, facts)
        if broad == "count":
            head, n = lem.head(args[0]), _number(args[-1])
            named_by = self._named(head, facts)
            return next(
                (f for f in facts if f.category == "count" and self._thing(f, head, named_by) and n is not None and _number(f.args[1]) == n),
                None,
            )
        if broad == "attribute":
            value_text = " ".join(args[1:])
            head, value = lem.head(args[0]), lem(value_text)
            named_by = self._named(head, facts)
            for f in facts:
                if f.category == "attribute" and self._thing(f, head, named_by) and lem(f.args[1]) & value:
                    return f
                if f.category == "entity" and head in self._names(f) and self._names(f) & value:
                    return f
                if f.category == "relation" and self._thing(f, head, named_by) and lem(f.args[1]) & value:
                    return f
            hit = self._relation_object(head, named_by, value_text, facts) if self.round36_readings else None
            if hit is None and self.picture_tags:
                hit = self._picture_tag(value_text, facts)
            return hit
        if broad in ("relation", "action"):
            heads = [lem.head(a) for a in args]
            things = [f for f in facts if f.category == "entity"]
            thing_heads = {x for f in things for x in self._names(f)}
            named = [x for x in heads if x in thing_heads]
            predicate = lem(" ".join(a for a, x in zip(args, heads) if x not in thing_heads)) or lem(args[-1])
            if len(set(named)) >= 2:
                keys = [self._named(x, facts) for x in dict.fromkeys(named)]  # each human thing's generated things
                for f in facts:
                    if f.category != "relation":
                        continue
                    s, o = f.args[0], f.args[2]
                    two = any(s in a and o in b for i, a in enumerate(keys) for j, b in enumerate(keys) if i != j)
                    if two and s != o and same_predicate(lem(f.args[1]), predicate, self.synonyms):
                        return f
                if self.round36_readings:
                    # the same place said from the other thing: (man, wave, in front of) by "is the wave behind the man?"
                    for f in facts:
                        swapped = f.category == "relation" and f.args[0] in keys[1] and f.args[2] in keys[0] and f.args[0] != f.args[2]
                        if swapped and converse_predicate(lem(f.args[1]), predicate):
                            return f
                return None
            if named:
                subject = self._named(named[0], facts)
                for f in facts:
                    if f.category in ("attribute", "relation") and f.args[0] in subject and lem(f.args[1]) & predicate:
                        return f
            return None
        return None


def _generate(gen: SpacyQuestions, prompt: str) -> tuple[list[Fact], float]:
    t0 = time.perf_counter()
    kept = gen.generate(prompt)
    elapsed = time.perf_counter() - t0
    ids = {q.id for q in kept}
    facts = [f for f in facts_from_parse(parse_prompt(prompt)) if f.question.id in ids]
    return facts, elapsed


def _rate(hits: int, n: int) -> dict[str, Any]:
    share = wilson(hits, n)
    ci = [share["ci_low"], share["ci_high"]]
    return {"recall": round(hits / n, 3) if n else None, "n": n, "ci95": [round(c, 3) if c is not None else None for c in ci]}


def recall_report(tuples: list[HumanTuple], facts_by_item: dict[str, list[Fact]], matcher: Matcher) -> tuple[dict[str, Any], list[tuple[HumanTuple, Fact | None]]]:
    by_broad: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_detailed: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    pairs = []
    for h in tuples:
        got = matcher.match(h, facts_by_item[h.item_id])
        pairs.append((h, got))
        hit = int(got is not None)
        for key in (h.broad, "relation+action" if h.broad in ("relation", "action") else None, "all"):
            if key:
                by_broad[key][0] += hit
                by_broad[key][1] += 1
        key = f"{h.broad}/{h.detailed}"
        by_detailed[key][0] += hit
        by_detailed[key][1] += 1
    by_source: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for h, got in pairs:
        for key in ("all", "attribute" if h.broad == "attribute" else "relation+action" if h.broad in ("relation", "action") else None):
            if key:
                by_source[source_of(h.item_id)][key][0] += int(got is not None)
                by_source[source_of(h.item_id)][key][1] += 1
    report = {
        "by_source": {src: {k: _rate(*v) for k, v in sorted(cats.items())} for src, cats in sorted(by_source.items())},
        "by_category_broad": {k: _rate(*v) for k, v in sorted(by_broad.items())},
        "by_category_detailed": {k: _rate(*v) for k, v in sorted(by_detailed.items(), key=lambda kv: -kv[1][1])},
    }
    return report, pairs


# ---- colour binding ---------------------------------------------------------------------------------


def read_colour_prompts(paths: Iterable[str]) -> list[str]:
    """Prompts from T2I-CompBench colour files (one per line) and DrawBench's CSV (category Colors)."""
    out: list[str] = []
    for path in paths:
        p = Path(path)
        if p.suffix == ".csv":
            with open(p, newline="", encoding="utf-8") as fh:
                out += [r["Prompts"].strip() for r in csv.DictReader(fh) if (r.get("Category") or "").strip() == "Colors"]
        else:
            out += [line.strip() for line in p.read_text(encoding="utf-8").splitlines() if line.strip()]
    return list(dict.fromkeys(out))


def colour_swap(prompt: str) -> str | None:
    """The prompt with its first two different colour words exchanged, or None."""
    colours = lexicon()["colors"]
    words = list(re.finditer(r"[A-Za-z]+", prompt))
    found = [m for m in words if m.group(0).lower() in colours]
    first = found[0] if found else None
    second = next((m for m in found if first is not None and m.group(0).lower() != first.group(0).lower()), None)
    if first is None or second is None:
        return None
    a, b = first.group(0), second.group(0)
    return prompt[: first.start()] + b + prompt[first.end() : second.start()] + a + prompt[second.end() :]


def colour_binding(prompts: list[str], gen: SpacyQuestions) -> dict[str, Any]:
    told = n = 0
    misses = []
    for p in prompts:
        swapped = colour_swap(p)
        if swapped is None:
            continue
        n += 1
        a = {q.text for q in gen.generate(p) if q.aspect in ("attribute", "number")}
        b = {q.text for q in gen.generate(swapped) if q.aspect in ("attribute", "number")}
        if a - b:
            told += 1
        elif len(misses) < 5:
            misses.append(p)
    return {"pairs": n, "told_apart": told, "rate": round(told / n, 3) if n else None, "examples_not_told_apart": misses}


# ---- the LLM (DSG) generator on the same prompts -----------------------------------------------------

_WORD = re.compile(r"[\w'-]+")
_QUESTION_WORDS = {"is", "are", "was", "were", "do", "does", "did", "there", "what", "which", "where", "who", "how",
                   "many", "much", "this", "these", "it", "image", "picture", "show", "shown", "have", "has"}


def facts_from_questions(questions: list[Question], lemmas: Lemmas) -> list[Fact]:
    """DSG-style questions (the LLM generator's: aspect, answer, span, dependency ids) as the tuples the matching
    rule reads, so that they are matched exactly as the offline generator's facts are.

    * entity: the thing is the answer ("apples"), its key the answer's head word;
    * attribute / number: of the entity question(s) it depends on, value (count) the answer; a question that names no
      dependency depends on the asked things its span or question names; an attribute that depends on no entity is a
      global fact (the picture's), as DSG's global tuples are; a count on none counts its span's head word;
    * relation (also a question of another aspect that depends on two things: "what is the man petting?" -> "horse"):
      between the entity questions it depends on, the predicate the words of its span (else of its question)
      that name neither thing; an answer that names another asked thing is the object when only one thing is depended
      on ("what are the apples on?" -> "plate"); with one thing only, an action of that thing;
    * text: the text is the answer without its quotes.

    An answer of "yes" / "no" (the reply did not follow the instructions) is replaced by the span's words.
    """
    by_id = {q.id: q for q in questions}
    keys: dict[str, str] = {}  # entity question id -> thing key
    for q in questions:
        if q.aspect == "entity":
            keys[q.id] = lemmas.head(_value(q)) or lemmas.head(q.span)
    facts: list[Fact] = []

    def things_of(q: Question) -> list[str]:
        """The entity questions that ``q`` depends on, directly or through other questions (in order, once)."""
        out: list[str] = []
        todo, seen = list(q.depends_on), set()
        while todo:
            d = todo.pop(0)
            if d in seen or d not in by_id:
                continue
            seen.add(d)
            if d in keys:
                out.append(d)
            else:
                todo += by_id[d].depends_on
        return out

    for q in questions:
        value = _value(q)
        parents = things_of(q)
        if not parents and q.aspect in ("attribute", "number", "relation"):
            # the reply named no dependency: the asked things its span or question names ("what color are the geese?")
            said = lemmas(f"{q.span} {q.text}")
            parents = [i for i, k in keys.items() if k and k in said and i != q.id]
        aspect = "relation" if q.aspect in ("attribute", "number") and len(parents) >= 2 else q.aspect
        if aspect == "entity":
            if keys[q.id]:
                facts.append(Fact("entity", "whole", (keys[q.id],), q))
        elif aspect == "text":
            text = value.strip("\"'“”‘’ ")
            if text:
                facts.append(Fact("text", "", (text,), replace(q, answer=text)))
        elif aspect in ("attribute", "number"):
            if not parents:
                if aspect == "attribute" and value:
                    facts.append(Fact("global", "", (value,), q))
                elif aspect == "number" and lemmas.head(q.span):
                    facts.append(Fact("count", "", (lemmas.head(q.span), value), q))  # "three colour balls", no ball asked
                continue
            facts.append(Fact("count" if aspect == "number" else "attribute", "", (keys[parents[0]], value), q))
        elif aspect == "relation":
            if len(parents) < 2:
                answer_key = lemmas.head(value)
                other = [i for i, k in keys.items() if k == answer_key and i not in parents and i != q.id]
                parents = parents + other[:1]
            if not parents:
                continue
            names = set().union(*(lemmas(by_id[p].answer) | {keys[p]} for p in parents))
            predicate = _predicate(q.span, names, lemmas) or _predicate(q.text, names, lemmas)
            obj = keys[parents[1]] if len(parents) > 1 else ""
            facts.append(Fact("relation", "", (keys[parents[0]], predicate or value, obj), q))
    return facts


def _value(q: Question) -> str:
    answer = q.answer.strip()
    return q.span.strip() if answer.lower() in ("", "yes", "no") else answer


def _predicate(text: str, names: set[str], lemmas: Lemmas) -> str:
    """The words of ``text`` that name none of the things (``names``: their lemmas), nor ask the question."""
    words = [w for w in _WORD.findall(text.lower()) if w not in _QUESTION_WORDS and w not in _DROP]
    return " ".join(w for w in words if not (lemmas(w) & names))


def _llm_options(pairs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            print(f"error: --llm-option wants KEY=VALUE (got {pair!r})", file=sys.stderr)
            raise SystemExit(2)
        try:
            out[key.strip()] = json.loads(raw)
        except ValueError:
            out[key.strip()] = raw
    return out


def _read_done(path: Path) -> dict[str, dict[str, Any]]:
    """Prompts already answered in an earlier run's ``--questions-out`` (a rerun continues it)."""
    done: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
                done[row["item_id"]] = row
            except (ValueError, KeyError, TypeError):
                continue  # a line cut short by a stopped run: asked again
    return done


def _prompt_recall(pairs: list[tuple[HumanTuple, Fact | None]]) -> dict[str, list[int]]:
    """Per prompt: [hits, tuples]."""
    out: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for h, f in pairs:
        out[h.item_id][0] += int(f is not None)
        out[h.item_id][1] += 1
    return out


def paired_difference(a: list[tuple[HumanTuple, Fact | None]], b: list[tuple[HumanTuple, Fact | None]],
                      n_boot: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Recall of ``b`` minus recall of ``a`` over the same tuples, with a 95 % bootstrap interval over prompts (the
    tuples of one prompt are resampled together)."""
    ra, rb = _prompt_recall(a), _prompt_recall(b)
    items = sorted(ra)
    if not items:
        return {"difference": None, "ci95": [None, None], "prompts": 0, "tuples": 0}
    arr = np.array([[ra[i][0], rb[i][0], ra[i][1]] for i in items], dtype=float)
    diff = (arr[:, 1].sum() - arr[:, 0].sum()) / arr[:, 2].sum()
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(items), size=(n_boot, len(items)))
    boot = (arr[idx, 1].sum(axis=1) - arr[idx, 0].sum(axis=1)) / arr[idx, 2].sum(axis=1)
    lo, hi = np.quantile(boot, [0.025, 0.975])
    wins = sum(1 for i in items if rb[i][0] > ra[i][0])
    losses = sum(1 for i in items if rb[i][0] < ra[i][0])
    return {"difference": round(float(diff), 3), "ci95": [round(float(lo), 3), round(float(hi), 3)], "prompts": len(items),
            "tuples": int(arr[:, 2].sum()), "prompts_better": wins, "prompts_worse": losses}


def compare_llm(args: argparse.Namespace, tuples: list[HumanTuple], prompts: dict[str, str], matcher: Matcher) -> dict[str, Any]:
    """The LLM generator (``LLMQuestions``, offline fallback on failure) and the offline one on the same prompts: a
    seeded sample of ``--prompts`` prompts of ``--part`` (all of it with 0)."""
    from autoalign import registry

    items = sorted(i for i in prompts if split_of(i) == args.part)
    if args.prompts and args.prompts < len(items):
        items = sorted(random.Random(args.seed).sample(items, args.prompts))
    llm_spec = RoleSpec(args.llm_backend, args.llm_model or None, _llm_options(args.llm_option))
    llm = registry.get("llm", args.llm_backend)(llm_spec)
    gen = registry.get("questions", "llm")(RoleSpec("llm", None, {"filter": True}))
    offline = SpacyQuestions(RoleSpec("spacy", None, {"filter": True}))
    offline.generate("warm up the spaCy pipeline")
    out_path = Path(args.questions_out) if args.questions_out else None
    done = _read_done(out_path) if out_path else {}
    rows: list[dict[str, Any]] = []
    for n, item in enumerate(items, 1):
        row = done.get(item)
        if row is None or row.get("prompt") != prompts[item]:
            calls = getattr(llm, "calls", 0)
            t0 = time.perf_counter()
            questions = gen.generate(prompts[item], lambda: llm)
            row = {"item_id": item, "prompt": prompts[item], "seconds": round(time.perf_counter() - t0, 2),
                   "requests": getattr(llm, "calls", 0) - calls, "fell_back": bool(gen.fell_back),
                   "questions": [q.to_dict() for q in questions]}
            if out_path:
                out_path.parent.mkdir(parents=True, exist_ok=True)
                with open(out_path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(row) + "\n")
            print(f"[{n}/{len(items)}] {item}: {row['seconds']} s, {row['requests']} request(s), "
                  f"{'fell back' if row['fell_back'] else f'{len(questions)} questions'}", file=sys.stderr, flush=True)
        rows.append(row)
    facts_llm, facts_offline, facts_replies = {}, {}, {}
    for row in rows:
        item = row["item_id"]
        facts_offline[item], _ = _generate(offline, prompts[item])
        if row["fell_back"]:
            facts_llm[item] = facts_offline[item]  # the fallback is the offline generator
        else:
            facts_llm[item] = facts_replies[item] = facts_from_questions([Question.from_dict(q) for q in row["questions"]], matcher.lem)
    part_tuples = [h for h in tuples if h.item_id in set(items)]
    reply_tuples = [h for h in part_tuples if h.item_id in facts_replies]
    report_llm, pairs_llm = recall_report(part_tuples, facts_llm, matcher)
    report_off, pairs_off = recall_report(part_tuples, facts_offline, matcher)
    report_replies, _ = recall_report(reply_tuples, facts_replies, matcher)
    seconds = [r["seconds"] for r in rows]
    n = len(rows)
    fell_back = sum(r["fell_back"] for r in rows)
    first_try = sum(1 for r in rows if not r["fell_back"] and r["requests"] == 1)
    return {
        "file": args.anns, "generator": "llm", "part": args.part, "seed": args.seed, "prompts": n,
        "human_tuples": len(part_tuples), "llm": {"backend": args.llm_backend, "model": getattr(llm, "model", args.llm_model),
                                                 "options": {k: v for k, v in llm_spec.options.items() if k != "api_key"}},
        "llm_generator": report_llm, "offline_generator": report_off, "llm_replies_only": report_replies,
        "paired_llm_minus_offline": {
            cat: paired_difference([p for p in pairs_off if _in(p[0], cat)], [p for p in pairs_llm if _in(p[0], cat)], seed=args.seed)
            for cat in ("all", "entity", "attribute", "relation+action")
        },
        "questions_per_prompt": {"llm": round(sum(len(f) for f in facts_llm.values()) / n, 2) if n else None,
                                 "offline": round(sum(len(f) for f in facts_offline.values()) / n, 2) if n else None,
                                 "dsg": round(len(part_tuples) / n, 2) if n else None},
        "seconds_per_prompt": {"median": round(statistics.median(seconds), 2) if seconds else None,
                               "mean": round(statistics.fmean(seconds), 2) if seconds else None,
                               "max": round(max(seconds), 2) if seconds else None},
        "replies": {"valid_first_request": wilson(first_try, n), "valid_after_retries": wilson(n - fell_back, n),
                    "fell_back_to_offline": wilson(fell_back, n)},
    }


def _in(h: HumanTuple, cat: str) -> bool:
    if cat == "all":
        return True
    if cat == "relation+action":
        return h.broad in ("relation", "action")
    return h.broad == cat


# ---- the command ------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--anns", required=True, help="DSG annotations CSV (tifa160-dev-anns.csv).")
    ap.add_argument("--colour-prompts", nargs="*", default=[], help="T2I-CompBench colour .txt files and/or DrawBench.csv.")
    ap.add_argument("--filter", choices=["on", "off", "both"], default="both", help="The answer-consistency filter.")
    ap.add_argument("--sample-questions", type=int, default=0, help="Print N generated questions (of --part) to check by hand.")
    ap.add_argument("--sample-matches", type=int, default=0, help="Print N matched (human, generated) pairs to check by hand.")
    ap.add_argument("--seed", type=int, default=17, help="Seed of the --sample-* draws (another seed: a fresh sample).")
    ap.add_argument("--part", choices=["tune", "held"], default="tune", help="Which part the samples come from.")
    ap.add_argument("--lexical-predicates", action="store_true", help="Match relation predicates by shared lemmas only (no spatial synonyms).")
    ap.add_argument("--matching", choices=MATCHINGS, default="current",
                    help="current: British spellings read as American, a plural head word read as its singular, 'someone' "
                         "as 'person', an attribute's value found as the object of the thing's relation, a place relation "
                         "read with its two things swapped (behind / in front of), a global 'white background' as 'is the "
                         "background white?', a picture tag hung on a thing ((cat, shallow depth of field)) as asked of the "
                         "picture; round36: the rule of round 36 (no picture tags); round35: the rule before round 36.")
    ap.add_argument("--misses", action="store_true",
                    help="Print the tuning part's uncovered human tuples with the generated questions (tuning part only: "
                         "the held-out part's misses are never printed).")
    ap.add_argument("--tune-only", action="store_true",
                    help="Generate and score the tuning part only (the held-out part's prompts are never generated, nor its "
                         "figures computed): for work between two held measurements. No --results-json, no --part held.")
    ap.add_argument("--json", action="store_true", help="Print JSON.")
    ap.add_argument("--results-json", default="", help="Also write the figures in the results-page shape to this path (docs/results/...).")
    ap.add_argument("--generator", choices=["spacy", "llm"], default="spacy",
                    help="llm: DSG's own method, the LLM generator of [questions] backend = 'llm' (an OpenAI-compatible server), "
                         "measured with the offline generator on the same prompts of --part.")
    ap.add_argument("--prompts", type=int, default=0, help="With --generator llm: a random sample (--seed) of N prompts of --part; 0: all.")
    ap.add_argument("--llm-backend", default="openai", help="With --generator llm: the [llm] backend (registry role 'llm').")
    ap.add_argument("--llm-model", default="", help="With --generator llm: the model name (else AUTOALIGN_LLM_MODEL).")
    ap.add_argument("--llm-option", action="append", default=[], metavar="KEY=VALUE",
                    help="With --generator llm: an [llm] option (base_url, response_format, timeout, max_tokens, json_retries, ...).")
    ap.add_argument("--questions-out", default="",
                    help="With --generator llm: append each prompt's LLM questions to this JSONL file; a rerun continues it.")
    args = ap.parse_args(argv)

    tuples = read_anns(args.anns)
    if not tuples:
        print(f"error: no DSG tuples read from {args.anns}", file=sys.stderr)
        raise SystemExit(2)
    if args.tune_only:
        if args.results_json or args.part == "held" or args.generator == "llm":
            ap.error("--tune-only reads the tuning part only: no --results-json, --part held or --generator llm")
        tuples = [h for h in tuples if split_of(h.item_id) == "tune"]
    parts = ("tune",) if args.tune_only else ("tune", "held", "all")
    prompts = {h.item_id: h.prompt for h in tuples}
    matcher = Matcher(Lemmas(args.matching), synonyms=not args.lexical_predicates)
    if args.generator == "llm":
        out = compare_llm(args, tuples, prompts, matcher)
        print(json.dumps(out, indent=1) if args.json else _format_llm(out))
        if args.results_json:
            command = "python -m autoalign.benchmarks.dsg_questions " + " ".join(argv if argv is not None else sys.argv[1:])
            atomic_write_json(Path(args.results_json), results_page_llm(out, command))
        return out
    settings = {"on": [True], "off": [False], "both": [False, True]}[args.filter]
    out: dict[str, Any] = {"file": args.anns, "prompts": len(prompts), "human_tuples": len(tuples), "split": "sha1(item_id) % 2: even = tune" + (" (tuning part only)" if args.tune_only else ""),
                           "matching": args.matching}
    samples: dict[str, Any] = {}
    for use_filter in settings:
        gen = SpacyQuestions(RoleSpec("spacy", None, {"filter": use_filter}))
        gen.generate("warm up the spaCy pipeline")
        facts_by_item, times = {}, []
        for item, prompt in prompts.items():
            facts_by_item[item], dt = _generate(gen, prompt)
            times.append(dt)
        key = "filter_on" if use_filter else "filter_off"
        res: dict[str, Any] = {"ms_per_prompt_median": round(1000 * statistics.median(times), 2)}
        for part in parts:
            part_tuples = [h for h in tuples if part == "all" or split_of(h.item_id) == part]
            items = {h.item_id for h in part_tuples}
            report, pairs = recall_report(part_tuples, facts_by_item, matcher)
            report["prompts"] = len(items)
            report["questions_per_prompt"] = round(sum(len(facts_by_item[i]) for i in items) / len(items), 2)
            report["dsg_questions_per_prompt"] = round(len(part_tuples) / len(items), 2)
            res[part] = report
            if part == args.part:
                samples[key] = (pairs, [(prompts[i], f) for i in sorted(items) for f in facts_by_item[i]])
            if part == "tune":
                samples[key + "/tune"] = pairs
        out[key] = res
    if args.colour_prompts:
        out["colour_binding"] = colour_binding(read_colour_prompts(args.colour_prompts), SpacyQuestions(RoleSpec("spacy", None, {})))
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        _print(out)
    if args.results_json:
        command = "python -m autoalign.benchmarks.dsg_questions " + " ".join(argv if argv is not None else sys.argv[1:])
        atomic_write_json(Path(args.results_json), results_page(out, command))
    key = "filter_on" if True in settings else "filter_off"
    pairs, generated = samples[key]
    rng = random.Random(args.seed)
    if args.sample_matches:
        matched = [(h, f) for h, f in pairs if f is not None]
        print(f"\n# {args.sample_matches} matched pairs ({args.part} part, {key}): human tuple => generated question")
        for h, f in rng.sample(matched, min(args.sample_matches, len(matched))):
            print(f"  {h.broad}/{h.detailed} ({', '.join(h.args)})  =>  {f.question.text}   [{h.prompt}]")
    if args.misses:
        _print_misses(samples[key + "/tune"], facts_by_item)  # facts_by_item: the last setting run, the one of key
    if args.sample_questions:
        print(f"\n# {args.sample_questions} generated questions ({args.part} part, {key})")
        for prompt, f in rng.sample(generated, min(args.sample_questions, len(generated))):
            print(f"  {f.question.text:50s} [{prompt}]")
    return out


def _cell(rate: dict[str, Any]) -> str:
    if rate.get("recall") is None:
        return "-"
    lo, hi = rate["ci95"]
    return f"{rate['recall']:.3f} [{lo:.3f}, {hi:.3f}] n={rate['n']}"


def results_page(out: dict[str, Any], command: str) -> dict[str, Any]:
    """The figures in the results page's generic shape (title, command, measures, tables)."""
    tables = []
    for key in ("filter_off", "filter_on"):
        if key not in out:
            continue
        res = out[key]
        cats = ["all", "entity", "attribute", "relation+action", "global", "other"]  # other: counts and text rendering
        rows = []
        for part in ("tune", "held", "all"):
            broad = res[part]["by_category_broad"]
            rows.append([part, res[part]["prompts"], res[part]["questions_per_prompt"], res[part]["dsg_questions_per_prompt"]]
                        + [_cell(broad[c]) if c in broad else "-" for c in cats])
        tables.append({"name": f"recall of the human DSG tuples ({key.replace('_', ' ')}; median {res['ms_per_prompt_median']} ms a prompt)",
                       "columns": ["part", "prompts", "questions/prompt", "DSG questions/prompt"] + cats, "rows": rows})
        src_rows = []
        for part in ("tune", "held"):
            for src, r in res[part]["by_source"].items():
                src_rows.append([part, src] + [_cell(r[c]) if c in r else "-" for c in ("all", "attribute", "relation+action")])
        tables.append({"name": f"by source ({key.replace('_', ' ')})", "columns": ["part", "source", "all", "attribute", "relation+action"],
                       "rows": src_rows})
    return {
        "title": f"Offline question generator against human DSG tuples: {Path(out['file']).name}",
        "command": command,
        "measures": (
            "Recall of the human-checked DSG tuples (one row of the annotation file each) by the facts the offline (spaCy) "
            "generator writes, by the tuple-atom matching rule of benchmarks/dsg_questions.py (thing head words as lemmas, "
            "a shared value or predicate lemma, spatial synonym groups; matching "
            f"'{out.get('matching', 'current')}': 'current' also reads British spellings as American, a plural head word "
            "as its singular, 'someone' as 'person', an attribute's value as the object of the thing's relation, a place "
            "relation with its two things swapped and a global thing-and-look as the thing's look, and an attribute whose every "
            "value word is asked of the picture (a picture tag such as (cat, shallow depth of field)) as covered by that question; "
            "'round36' reads all but the last, 'round35' none). Items are split by sha1(item_id) % 2: the tuning "
            "part was read while writing rules, the held part only measured. 95 % Wilson intervals over tuples (tuples of "
            "one prompt are not independent, so the intervals are somewhat too narrow)."
        ),
        "tables": tables,
    }


def results_page_llm(out: dict[str, Any], command: str) -> dict[str, Any]:
    """The LLM generator against the offline one on the same prompts, in the results page's generic shape."""
    cats = ["all", "entity", "attribute", "relation+action", "global", "other"]
    rows = []
    for key, label in (("llm_generator", "LLM (fallback: offline)"), ("llm_replies_only", "LLM replies only"),
                       ("offline_generator", "offline (spacy)")):
        broad = out[key]["by_category_broad"]
        rows.append([label] + [_cell(broad[c]) if c in broad else "-" for c in cats])
    paired = [[cat, d["difference"], f"[{d['ci95'][0]}, {d['ci95'][1]}]", d["prompts"], d["tuples"], d["prompts_better"], d["prompts_worse"]]
              for cat, d in out["paired_llm_minus_offline"].items() if d["difference"] is not None]
    rep = out["replies"]
    share = lambda m: f"{m['value']:.3f} [{m['ci_low']:.3f}, {m['ci_high']:.3f}] n={m['n']}" if m["value"] is not None else "-"  # noqa: E731
    sec, qpp = out["seconds_per_prompt"], out["questions_per_prompt"]
    src_rows = []
    for src in sorted(set(out["llm_generator"]["by_source"]) | set(out["offline_generator"]["by_source"])):
        a, b = out["llm_generator"]["by_source"].get(src, {}), out["offline_generator"]["by_source"].get(src, {})
        src_rows.append([src, _cell(a["all"]) if "all" in a else "-", _cell(b["all"]) if "all" in b else "-"])
    return {
        "title": f"LLM question generator (DSG's method) against the offline one: {Path(out['file']).name}, {out['part']} part",
        "command": command,
        "measures": (
            f"Recall of the human-checked DSG tuples of {out['prompts']} prompts of the {out['part']} part (a random sample, seed "
            f"{out['seed']}, when fewer than the part) by the LLM question generator ([questions] backend = 'llm', model "
            f"{out['llm']['model']}), and by the offline generator on the same prompts. The LLM's questions are read as tuples "
            "from their aspect, answer, span and dependency ids (facts_from_questions) and matched by the same tuple-atom "
            "rule. 'LLM (fallback: offline)' is what a user gets (a prompt whose replies all failed is answered by the "
            "offline generator); 'LLM replies only' counts the prompts the LLM answered. Intervals: Wilson over tuples; "
            "the paired difference's by a bootstrap over prompts."
        ),
        "tables": [
            {"name": "recall of the human DSG tuples", "columns": ["generator"] + cats, "rows": rows},
            {"name": "paired difference, LLM minus offline (same tuples)",
             "columns": ["category", "difference", "95 % CI (bootstrap over prompts)", "prompts", "tuples", "prompts better", "prompts worse"],
             "rows": paired},
            {"name": "replies and time", "columns": ["measure", "value"],
             "rows": [["valid JSON on the first request", share(rep["valid_first_request"])],
                      ["valid after retries", share(rep["valid_after_retries"])],
                      ["fell back to the offline generator", share(rep["fell_back_to_offline"])],
                      ["seconds per prompt (median / mean / max)", f"{sec['median']} / {sec['mean']} / {sec['max']}"],
                      ["questions per prompt (LLM / offline / DSG's)", f"{qpp['llm']} / {qpp['offline']} / {qpp['dsg']}"]]},
            {"name": "by source, all tuples", "columns": ["source", "LLM (fallback: offline)", "offline"], "rows": src_rows},
        ],
    }


def _format_llm(out: dict[str, Any]) -> str:
    page = results_page_llm(out, "")
    lines = [page["title"]]
    for table in page["tables"]:
        lines.append(f"\n== {table['name']}\n  " + " | ".join(table["columns"]))
        lines += ["  " + " | ".join(str(c) for c in row) for row in table["rows"]]
    return "\n".join(lines)


def _print_misses(pairs: list[tuple[HumanTuple, Fact | None]], facts_by_item: dict[str, list[Fact]]) -> None:
    """The tuning part's uncovered tuples, grouped by prompt, with what the generator wrote."""
    by_item: dict[str, list[HumanTuple]] = defaultdict(list)
    for h, f in pairs:
        if f is None:
            by_item[h.item_id].append(h)
    print(f"\n# uncovered human tuples (tuning part): {sum(map(len, by_item.values()))}")
    for item, hs in by_item.items():
        print(f"\n[{hs[0].prompt}]")
        for h in hs:
            print(f"  MISS {h.broad}/{h.detailed} ({', '.join(h.args)})")
        print("  generated: " + " | ".join(f.question.text for f in facts_by_item[item]))


def _print(out: dict[str, Any]) -> None:
    print(f"{out['file']}: {out['prompts']} prompts, {out['human_tuples']} human tuples; split {out['split']}; matching {out.get('matching', 'current')}")
    for key in ("filter_off", "filter_on"):
        if key not in out:
            continue
        res = out[key]
        print(f"\n== {key}  (median {res['ms_per_prompt_median']} ms per prompt)")
        for part in ("tune", "held", "all"):
            if part not in res:
                continue  # (--tune-only)
            r = res[part]
            broad = "  ".join(f"{k} {v['recall']:.2f} (n={v['n']})" for k, v in r["by_category_broad"].items())
            print(f"  [{part}] {r['prompts']} prompts, questions/prompt {r['questions_per_prompt']} (DSG {r['dsg_questions_per_prompt']})")
            print(f"     {broad}")
            detailed = "  ".join(f"{k} {v['recall']:.2f} ({v['n']})" for k, v in r["by_category_detailed"].items())
            print(f"     {detailed}")
            by_src = "  ".join(f"{k} {v['all']['recall']:.2f}" for k, v in r["by_source"].items())
            print(f"     by source: {by_src}")
    if "colour_binding" in out:
        c = out["colour_binding"]
        print(f"\ncolour binding: {c['told_apart']}/{c['pairs']} swapped pairs told apart ({c['rate']})")


if __name__ == "__main__":
    main()
