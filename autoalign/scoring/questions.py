"""Question generation (role ``questions``): the atomic checks VQ2 asks the VQA model about.

Two generators, chosen by ``[questions] backend``:

``spacy`` (offline, VQ2 style, SeeTRUE §3.1)
    Reads the prompt's parse (:mod:`autoalign.scoring.parse`) and writes one question per answer
    span from the templates in ``prompts/vq2_question_templates.json``::

        "two red apples on a blue plate"
          entity     are there apples?            -> apples
          number     how many apples are there?   -> two     (depends on the apples question)
          attribute  what color are the apples?   -> red     (depends on the apples question)
          entity     is there a plate?            -> plate
          attribute  what color is the plate?     -> blue
          relation   what are the apples on?      -> plate   (depends on apples and plate)

    Then the VQ2 answer-consistency filter: each question is answered on the prompt *text*
    (option ``qa``: ``"rules"``, the default, is a rule-based extractive answerer over the parse;
    ``"llm"`` asks the LLM; see :mod:`autoalign.scoring.text_qa`) and the pair is kept only when
    that answer has token F1 >= 0.54 with the expected answer (option ``min_f1``). Option
    ``filter = false`` keeps every pair. Option ``closed_counts = true`` also asks a count of every
    singular thing ("a red circle" -> "is there one red circle?"), for prompts that name every object
    (:func:`facts_from_parse`); off by default, as in DSG.

``llm`` (DSG style)
    The LLM writes atomic questions with aspect, span, expected answer and dependency ids
    (``prompts/dsg_questions.txt`` + ``prompts/dsg_fewshot.json``) through
    :meth:`~autoalign.models.llm.OpenAILLM.complete_json`. Malformed output is retried by the LLM
    backend; when it still fails, the ``spacy`` generator answers instead, with a logged warning.

Questions are generated once per prompt and generator settings: :func:`cached_questions` keeps
them in memory and in ``$AUTOALIGN_HOME/cache/questions/`` (JSON).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from autoalign import prompts
from autoalign.config import RoleSpec
from autoalign.errors import AutoAlignError
from autoalign.files import atomic_write_json
from autoalign.inflect import indefinite_article, is_plural, is_uncountable, plural
from autoalign.scoring.f1 import ANSWER_F1_THRESHOLD, token_f1
from autoalign.scoring.parse import DEFAULT_SPACY_MODEL, Noun, Parse, lexicon, number_value, parse_prompt, salvage
from autoalign.scoring.parse.lexicon import ABSTRACT_ENDINGS, ADJECTIVE_ENDING, _english_form, _only_adjective
from autoalign.scoring.text_qa import LLMTextAnswerer, RuleTextAnswerer
from autoalign.types import ASPECTS, Question

logger = logging.getLogger(__name__)

# a user prompt's resolution tag ("8k", "4 k", "1080p", "hd")
_RESOLUTION = re.compile(r"\d+\s?k|\d{3,4}\s?p|u?hd|full hd")
# a film or a lens by its width ("35mm film", "85 mm lens"): what the picture was shot on or with
_FILM = re.compile(r"\d+\s?mm (?:film|lens)")

LLMProvider = Callable[[], Any]  # returns an object with complete_json(messages, schema, name)
CACHE_VERSION = "50"  # bump when generated questions change for the same settings (history: git log -S CACHE_VERSION)


# ---- the VQ2 answer-consistency filter -------------------------------------------------------------


def filter_consistent(
    questions: Sequence[Question], text_answers: Sequence[str], min_f1: float = ANSWER_F1_THRESHOLD
) -> tuple[list[Question], list[dict[str, Any]]]:
    """Keep the questions whose answer on the text matches their expected answer (token F1 >= ``min_f1``).

    Returns (kept, dropped) where each dropped entry is ``{"question": Question, "text_answer", "f1"}``.
    Dependencies on dropped questions are removed from the kept ones.
    """
    if len(questions) != len(text_answers):
        raise ValueError(f"{len(questions)} questions but {len(text_answers)} text answers")
    kept, dropped = [], []
    for q, a in zip(questions, text_answers):
        f1 = token_f1(a, q.answer)
        if f1 >= min_f1:
            kept.append(q)
        else:
            dropped.append({"question": q, "text_answer": a, "f1": f1})
    ids = {q.id for q in kept}
    for q in kept:
        q.depends_on = [d for d in q.depends_on if d in ids]
    return kept, dropped


# ---- the offline generator --------------------------------------------------------------------------


# a hyphenated describing word of an "-ing" form ("fire-breathing", "plant-eating"): a look, never a kind
_HYPHEN_ING = re.compile(r"[a-z]+-[a-z]+ing")


def _article(word: str) -> str:
    return indefinite_article(word)


def _entity_kind(noun: Noun, head, parse: Parse) -> str:
    """How a singular thing is asked: "is there a cat?", or without an article for a mass the prompt gives no "a" of
    its own ("the surface of the water": "is there water?") and for a name ("is there Greta Thunberg?"); a bare
    singular noun that is no mass gets one ("cute girl smiling": "is there a girl?", not "is there girl?")."""
    counted = any(c.dep_ == "det" and c.lower_ in ("a", "an", "one", "another", "each", "every") for c in head.children)
    if is_uncountable(noun.phrase) and not counted:
        return "entity_bare"
    if noun.bare and any(head.lower_.endswith(e) and len(head.lower_) >= len(e) + 4 for e in ABSTRACT_ENDINGS):
        # (an ending, not the whole word or most of it: "old ship" asks "is there a ship?")
        return "entity_bare"  # "at various stages of development", "arts and crafts movement": no "a development"
    if noun.bare and head.dep_ == "pobj" and head.head.lower_ == "of" and head.head.head.lemma_.lower() in lexicon()["not_things"]["quantity"]:
        return "entity_bare"  # "a slice of toast", "a piece of driftwood": a mass by the measure before it
    name = head.doc[min(noun.start, head.i) : head.i + 1]
    if noun.bare and noun.phrase[:1].islower() and (
        not any(parse.reads_as_name(t) for t in name if t.pos_ in ("NOUN", "PROPN")) or noun.phrase.islower() and not _writes_articles(parse)
    ):
        # ("person next to van. sky above bush": a prompt that writes no article at all writes its things bare; a
        # lower-case word the tagger reads as a name there, "van", "bush", is a thing: "is there a van?")
        return "entity_singular"
    return "entity_bare" if noun.bare else "entity_singular"


def _writes_articles(parse: Parse) -> bool:
    """Whether the prompt writes an article anywhere ("a", "an", "the")."""
    return any(t.lower_ in ("a", "an", "the") for t in parse.doc)


def _played(noun: Noun, parse: Parse) -> bool:
    """Whether the thing is what someone plays, written without an article ("playing tennis", "play chess")."""
    tok = parse.doc[noun.index]
    return not noun.plural and noun.bare and tok.dep_ == "dobj" and tok.head.lemma_.lower() == "play"


def _act(noun: Noun, parse: Parse) -> bool:
    """Whether the thing is an act its verb does (``acts``: "giving a presentation", "taking a picture", "doing a
    handstand"): no thing to see, asked with its verb ("is the man giving a presentation?"); not with an "of" after it
    ("taking a picture of a bird") nor with a look of its own ("giving a big hug" is still a hug, asked so)."""
    tok = parse.doc[noun.index]
    acts = lexicon()["acts"].get(tok.head.lemma_.lower(), ())
    if tok.dep_ != "dobj" or tok.head.pos_ != "VERB" or noun.lemma not in acts and noun.phrase.lower() not in acts:
        return False
    return not noun.attrs and not noun.numbers and not any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children)


def _fragment_bounds(doc: Any, i: int) -> tuple[int, int]:
    """(start, end) of the fragment holding word ``i``: the words between the ",", ";", "|" or "." around it."""
    start = next((j for j in range(i, -1, -1) if doc[j].text in (",", ";", "|", ".")), -1) + 1
    end = next((j for j in range(i, len(doc)) if doc[j].text in (",", ";", "|", ".")), len(doc))
    return start, end


def _frame_looks(parse: Parse) -> list[tuple[Any, Any]]:
    """ "beautiful artwork by boris groh, vivid, detailed", "..., maco photography, realistic, vibrant": where the last
    thing a describing tag follows is the picture's frame, named in a fragment of its own with no thing in it (the picture
    is the subject), the tag is also the frame's look ("is the artwork vivid?"), as DSG asks it; the picture's question
    ("is the image vivid?") stays. (frame, tag) pairs."""
    doc = parse.doc
    frames = [g for g in parse.globals if g.kind == "frame" and g.index < len(doc)]
    looks = [g for g in parse.globals if g.kind == "style" and g.tag and g.parent is None and " " not in g.value and g.index < len(doc)]
    if not frames or not looks:
        return []
    things = {n.index for n in parse.nouns}
    out = []
    for look in looks:
        tok = doc[look.index]
        if tok.pos_ not in ("ADJ", "VERB") and not ADJECTIVE_ENDING.fullmatch(look.value) or parse.reads_as_noun(look.value) and not _only_adjective(look.value, parse.model):
            continue  # a look, not a style's or a tool's name ("octane", "masterpiece"; "vibrant", only ever a look, is one)
        before = [g for g in frames if g.index < look.index]
        if not before:
            continue
        frame = before[-1]
        start, end = _fragment_bounds(doc, frame.index)
        if end > look.index or any(i in things for i in range(start, look.index)) or doc[frame.index].pos_ != "NOUN":
            continue  # (a thing named in the frame's fragment or after it is what the tag describes)
        out.append((frame, look))
    return out


def _frame_as_subject(parse: Parse) -> list[tuple[Any, str, str]]:
    """ "beautiful artwork by boris groh, vivid", "..., art by charles vess": a frame that shows no thing of its own (no
    "of ...", no thing in its fragment) is the prompt's subject, and what describes it is asked of it, as DSG asks it: the
    artist its "by" names ("is the art by charles vess?") and, where the prompt names no thing at all, a word that is only
    ever a describing word before it ("is the artwork beautiful?"); the picture's questions ("is this beautiful
    artwork?", "... in the style of ...?") stay. (frame, value, phrase) triples."""
    doc = parse.doc
    things = {n.index for n in parse.nouns}
    artists = [g for g in parse.globals if g.kind == "style" and g.value.startswith("style of ") and g.index < len(doc)]
    out = []
    for frame in parse.globals:
        if frame.kind != "frame" or frame.index >= len(doc) or doc[frame.index].pos_ != "NOUN":
            continue
        tok = doc[frame.index]
        start, end = _fragment_bounds(doc, tok.i)
        if any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children) or any(i in things for i in range(start, end)):
            continue  # ("a painting of a fox by ...": the fox is the subject; the artist stays the picture's)
        for c in tok.children:
            if c.dep_ == "amod" and c.i < tok.i and c.is_alpha and _only_adjective(c.lower_, parse.model) and not things:
                # (only where the prompt names no thing at all: "a dog on a table, digital art" is a dog's picture, and
                # "digital" its kind, asked as "is this digital art?")
                out.append((frame, c.lower_, c.lower_))
        for g in artists:
            by = next((a for a in doc[g.index].ancestors if a.lower_ == "by"), None)
            if by is not None and by.head.i == tok.i and start <= g.index < end:
                name = g.value[len("style of "):]
                out.append((frame, name, f"by {name}"))
    return out


def _time_said_of_it(noun: Noun, parse: Parse) -> bool:
    """ "It is an overcast day", "it was a cold night": a time word said of "it" (``time_words``)."""
    tok = parse.doc[noun.index]
    if noun.plural or noun.lemma not in lexicon()["time_words"] or tok.dep_ != "attr" or tok.head.lemma_ != "be":
        return False
    return any(c.dep_ in ("nsubj", "expl") and c.lower_ == "it" for c in tok.head.children)


def _proper_name(noun: Noun, head, parse: Parse) -> bool:
    """A name the prompt writes capitalised and without an article ("Greta Thunberg", "Mona Lisa"): the questions name
    it as written, "is Mona Lisa wearing a hat?", not "is the Mona Lisa wearing a hat?"."""
    return noun.bare and not noun.plural and parse.reads_as_name(head) and all(w[:1].isupper() for w in noun.phrase.split())


def _without(name: str, word: str) -> str:
    """A thing's name without one of its describing words ("leather jacket" - "leather" = "jacket")."""
    words = name.split()
    lower = [w.lower() for w in words]
    if len(words) > 1 and word.lower() in lower:
        del words[lower.index(word.lower())]
    return " ".join(words)


@dataclass
class Fact:
    """One DSG tuple read from the parse, with the question that asks it (same order, same id).

    ``category``: entity | attribute | count | relation | global | text;
    ``detailed``: whole (entity); color, size, material, shape, texture, state, type (attribute);
    spatial, action, part (relation); frame, style, time (global);
    ``args``: (thing,) | (thing, value) | (thing, number) | (subject, predicate, object) | (value,).
    """

    category: str
    detailed: str
    args: tuple[str, ...]
    question: Question


class _Builder:
    """Numbers questions and fills templates; the same yes/no question is asked once."""

    def __init__(self) -> None:
        lex = lexicon()
        self.templates = lex["templates"]
        self.yes_no = lex["yes_no_templates"]
        self.facts: list[Fact] = []
        self._seen: dict[str, Fact] = {}
        self.names: set[str] = set()  # proper names, asked without "the" ("is Greta Thunberg holding the cup?")

    def add(
        self,
        category: str,
        detailed: str,
        args: tuple[str, ...],
        kind: str,
        aspect: str,
        answer: str,
        span: str,
        depends_on: list[str],
        open_kind: str = "",
        **slots: str,
    ) -> Question:
        text = " ".join(self.yes_no[kind].format(**slots).split())
        for name in self.names:
            text = re.sub(rf"\bthe {re.escape(name)}\b", name, text)
        existing = self._seen.get(text)
        if existing is not None:  # the same question twice ("an apple and an apple"): ask once
            return existing.question
        open_question = self.templates[open_kind].format(**slots) if open_kind else ""
        q = Question(
            id=f"q{len(self.facts) + 1}",
            text=text,
            answer=answer,
            aspect=aspect,
            span=span,
            depends_on=list(depends_on),
            open_question=open_question,
        )
        fact = Fact(category, detailed, args, q)
        self.facts.append(fact)
        self._seen[text] = fact
        return q


def _number_value(word: str) -> int | None:
    return number_value(word)


def _one_list(parse: Parse, members: list[Noun]) -> bool:
    """Whether groups of one thing are the members of one list joined by "and" / "or" ("two red flowers and three white
    flowers": a total of five), not a count said again in another sentence or tag ("Set of five mugs, 5 coffee mugs",
    "Three apples. 3 red apples": five mugs and three apples, never ten or six)."""
    doc = parse.doc
    first = doc[members[0].index]
    listed, stack = set(), [first]
    while stack:
        t = stack.pop()
        listed.add(t.i)
        stack.extend(c for c in t.children if c.dep_ in ("conj", "appos"))
    if not all(m.index in listed for m in members):
        return False
    return any(t.dep_ == "cc" for t in doc[first.i : max(m.index for m in members)])


def _number_word(value: int) -> str:
    words = {v: k for k, v in lexicon()["count_words"].items() if k.isalpha() and k not in ("single", "pair", "dozen")}
    return words.get(value, str(value))


def _name_part(tok) -> bool:
    """Whether a describing word may be part of the thing's name ("lily pad"): not coordinated with another
    describing word ("a measly and underdeveloped pine"), not one of a run of describing words ("adorable cute silly
    puppy") and not read as an adverb."""
    after = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    if after is not None and after.dep_ == "amod" and after.head.i == tok.head.i:
        return False
    return tok.pos_ != "ADV" and tok.dep_ != "conj" and not any(c.dep_ in ("cc", "conj") for c in tok.children)


def _plural_name(name: str) -> str:
    """A thing's name with its last word in the plural ("bumble bee" -> "bumble bees"); a name already plural stays."""
    words = name.split()
    if not words or is_plural(words[-1]):
        return name
    return " ".join(words[:-1] + [plural(words[-1])])


def facts_from_parse(parse: Parse, closed_counts: bool = False) -> list[Fact]:
    """The DSG tuples of the parse, each with its yes/no question (and short-answer form), before filtering.

    ``closed_counts`` (option ``closed_counts``, off by default): for prompts that name *every* object,
    as the shapes world's captions do, a singular thing ("a red circle") also gets a count tuple,
    asked "is there one red circle?" (answer "one"; the thing named with its describing words, so the
    count is of what the prompt names). DSG and TIFA ask no count for "a", rightly for open-world
    prompts: "a cat on a bench" says nothing about other cats."""
    b = _Builder()
    text = parse.doc.text
    entity_id: dict[int, str] = {}
    same_name = Counter(n.phrase.lower() for n in parse.nouns)
    b.names = {n.phrase for n in parse.nouns if _proper_name(n, parse.doc[n.index], parse) and same_name[n.phrase.lower()] == 1}
    # one way of asking each name: "person has kite. kite near person" asks "is there a kite?" once, whichever way the
    # tagger read each "kite"
    counted_names = {n.phrase.lower() for n in parse.nouns if not n.plural and _entity_kind(n, parse.doc[n.index], parse) == "entity_singular"}

    games: set[int] = set()  # things that are a game played or an act ("playing tennis", "giving a talk"): no entity, nor a place of their own

    def entity_kind(noun: Noun) -> str:
        return "entity_singular" if noun.phrase.lower() in counted_names else _entity_kind(noun, parse.doc[noun.index], parse)

    def be(noun: Noun) -> str:
        return "are" if noun.plural else "is"

    def name(noun: Noun) -> str:
        """How later questions name a thing: "the leg", or "the left leg" when two things share a name."""
        if same_name[noun.phrase.lower()] < 2:
            return noun.phrase
        before = [a.value for a in noun.attrs if a.phrase == a.value and a.index < noun.index]
        return " ".join(before + [noun.phrase])

    def the(noun: Noun) -> str:
        """A relation's object: "the plate" (also for "lamp near sofa"), but "soccer", "water", "Greta Thunberg" as the prompt
        writes them without an article."""
        if noun.index in games and not noun.bare:  # an act: "is the man giving a presentation?"
            return f"{_article(name(noun))} {name(noun)}" if not noun.plural else name(noun)
        return name(noun) if noun.bare and (noun.plural or entity_kind(noun) == "entity_bare") else f"the {name(noun)}"

    def objects(rel_obj: Noun, others: list[Noun], subject: Noun) -> str:
        """A relation's objects: "the plate and the cup", "another person" for one of the subject's own name ("person
        next to person")."""
        if not others and name(rel_obj).lower() == name(subject).lower():
            return f"other {name(rel_obj)}" if rel_obj.plural else f"another {name(rel_obj)}"
        return " and ".join(the(n) for n in others + [rel_obj])

    def modifier_span(noun: Noun, index: int) -> str:
        return parse.span_text(min(index, noun.index), max(index, noun.index) + 1)

    # global tags first: "is this a photo?" is asked before what the photo shows
    global_id: dict[int, str] = {}
    for tag in parse.globals:
        with salvage(f"the global tag {tag.value!r}", text):
            span = parse.span_text(tag.index, tag.index + 1) if tag.kind != "style" or tag.parent is None else ""
            if tag.kind == "frame":
                if tag.countable and tag.value in lexicon()["not_things"]["vague_frame"]:
                    continue  # "a studio shot of ...": "is this a studio shot?" (below); a bare "is this a shot?" asks nothing
                kind = "frame" if tag.countable else "frame_mass"
                if not tag.countable and parse.doc[tag.index].tag_ in ("NNS", "NNPS") and tag.value == parse.doc[tag.index].lower_:
                    kind = "frame_plural"  # "photos of nine different breeds of dogs": "are these photos?"
                q = b.add("global", "frame", (tag.value,), kind, "global", tag.value, span or tag.value, [], value=tag.value, article=_article(tag.value))
                global_id[tag.index] = q.id
            elif tag.kind == "style" and tag.parent is not None:
                frame = next((g for g in parse.globals if g.index == tag.parent and g.kind == "frame"), None)
                if frame is None:
                    raise ValueError(f"style {tag.value!r} refines no recorded frame (token {tag.parent})")
                value = f"{tag.value} {frame.value}"
                kind = "frame_style" if frame.countable else "frame_mass"
                deps = [global_id[tag.parent]] if tag.parent in global_id else []
                b.add("global", "style", (tag.value,), kind, "global", tag.value, tag.value, deps, value=value, article=_article(value))
            elif tag.kind == "style" and tag.tag and tag.value.startswith("aspect ratio "):
                ratio = tag.value.removeprefix("aspect ratio ")  # "--ar 16:9": "is the image in a 16:9 aspect ratio?"
                b.add("global", "style", (tag.value,), "style_aspect", "global", ratio, ratio, [], value=ratio, article=_article(ratio))
            elif tag.kind == "style":
                kind = "style_of" if tag.value.startswith("style of ") or tag.value.endswith(" style") else "style"
                if kind == "style" and parse.doc[tag.index].pos_ in ("NOUN", "PROPN", "NUM"):
                    kind = "style_noun"
                    head = parse.doc[tag.index]
                    words, had = lexicon()["style_tag_words"], lexicon()["style_had"]
                    named = " " not in tag.value and head.is_lower and not _english_form(head.lower_, parse.model)
                    if tag.tag and (head.lower_ in had or head.lower_ not in words and head.lemma_.lower() not in words and not named):
                        # "stunning volumetric lighting": what the picture has, not a style ("..., fromsoftware": a name
                        # of no English word is a style, "is the image in fromsoftware style?")
                        kind = "style_has"
                    elif " " not in tag.value and ADJECTIVE_ENDING.fullmatch(tag.value):
                        kind = "style"  # "atmospheric", "psychedelic": a look ("is the image atmospheric?"), not a style name
                head = parse.doc[tag.index]
                words = tag.value.split()
                if tag.tag and _RESOLUTION.fullmatch(tag.value):
                    kind = "style_resolution"  # "8k", "4 k", "hd": "is the image in 8k resolution?"
                elif tag.tag and len(words) == 3 and words[1] == "on" and words[0] in lexicon()["media_paints"]:
                    kind = "frame_mass"  # "..., oil on canvas": "is this oil on canvas?"
                elif tag.tag and _FILM.fullmatch(tag.value):
                    kind = "style_film" if tag.value.endswith("film") else "style_lens"  # "35mm film", "85mm lens"
                elif kind == "style" and tag.tag and head.tag_ == "VBG" and any(
                    c.dep_ == "dobj" and not any(t.text == "," for t in parse.doc[head.i : c.i]) for c in head.children
                ):
                    # "glowing eyes": what the picture has, not "is the image glowing eyes?" (but not "trending on
                    # artstation, 4k": a tag after a comma is no object of the one before)
                    kind = "style_has"
                b.add("global", "style", (tag.value,), kind, "global", tag.value, tag.value, [], value=tag.value, article=_article(tag.value))
            else:
                kind = "time_countable" if tag.countable else "time"
                b.add("global", "time", (tag.value,), kind, "global", tag.value, tag.value, [], value=tag.value, article=_article(tag.value))
    # what is said of the picture's frame: its looks ("is the artwork vivid?"), then the frame as the prompt's subject
    # ("is the art by charles vess?"); (frame, value, how the question says it)
    said_of_frames = [(frame, look.value, look.value) for frame, look in _frame_looks(parse)] + _frame_as_subject(parse)
    for frame, value, phrase in said_of_frames:
        with salvage(f"{phrase!r} of the frame {frame.value!r}", text):
            word = parse.doc[frame.index].lower_
            deps = [global_id[frame.index]] if frame.index in global_id else []
            b.add("attribute", "state", (word, value), "attribute", "attribute", value, value, deps,
                  noun=word, value=phrase, be="are" if is_plural(word) else "is", article=_article(value), do="does")

    for noun in parse.nouns:
        with salvage(f"the thing {noun.phrase!r}", text):
            head = noun.phrase
            if noun.plural:
                q = b.add("entity", "whole", (noun.lemma,), "entity_plural", "entity", head, noun.chunk, [], noun=head)
            elif _played(noun, parse) and entity_kind(noun) == "entity_bare" or _act(noun, parse):
                games.add(noun.index)
                continue  # "a man playing tennis": a game, no thing to see ("is the man playing tennis?" is asked below)
            elif _time_said_of_it(noun, parse):
                # "It is an overcast day.": the time it is ("is it day?", then "is the day overcast?"), not "is there a day?"
                q = b.add("entity", "whole", (noun.lemma,), "time", "entity", head, noun.chunk, [], value=head)
            else:
                kind = entity_kind(noun)
                q = b.add("entity", "whole", (noun.lemma,), kind, "entity", head, noun.chunk, [], noun=head, article=_article(head))
            entity_id[noun.index] = q.id
            parent = [q.id]
            repeated = same_name[head.lower()] > 1  # "a red apple and a green apple": bind the attribute to the thing
            for number in noun.numbers:
                value = _number_value(number)
                at = noun.modifier_start.get(number, noun.start)
                described = name(noun)
                kind = "number_one" if value == 1 else "number"
                if kind == "number" and not noun.plural and not repeated:
                    kind = "number_plural"  # "a set of four cute bumble bee": "are there four bees?" (the short answer's as written)
                b.add("count", "count", (noun.lemma, str(value if value is not None else number)), kind, "number", number,
                      modifier_span(noun, at), parent, "" if repeated else "number", noun=described, number=number,
                      nouns=_plural_name(described))
            if closed_counts and not noun.plural and not noun.bare and not noun.numbers:
                words = noun.chunk.split()
                described = " ".join(words[1:] if words[0].lower() in ("a", "an", "the") else words)
                b.add("count", "count", (noun.lemma, "1"), "number_one", "number", "one", noun.chunk, parent, noun=described, number="one")
            for attr in noun.attrs:
                span = modifier_span(noun, attr.index)
                simple = attr.phrase == attr.value and attr.index < noun.index
                # "left hand on the hip": the side of a body part is which part it is ("is there a left hand?"), not a
                # look of it ("is the hand left?")
                side = attr.value.lower() in ("left", "right") and noun.lemma in lexicon()["body_parts"]
                if (repeated or side) and simple:
                    kind = "attribute_bound_plural" if noun.plural else "attribute_bound_singular"
                    b.add("attribute", attr.kind, (noun.lemma, attr.value), kind, "attribute", attr.value, span, parent,
                          value=attr.value, noun=head, article=_article(attr.value))
                    continue
                kind, open_kind, described, value, word = "attribute", "", name(noun), attr.phrase, attr.value
                material = lexicon()["material_adjectives"].get(attr.value.lower(), attr.value) if attr.kind == "material" else ""
                if attr.kind == "material" and simple and (not material.endswith(("en", "ic", "y", "ed")) or material.lower() in lexicon()["material_nouns"]):
                    kind = "attribute_material"  # "is the table made of wood?", also for "a wooden table" (but "is the rug woolly?", "is the hat knitted?")
                    described = _without(described, attr.value)  # "the jacket made of leather", not "the leather jacket ..."
                    value = word = material
                elif attr.kind == "owner" or attr.kind == "type" and simple and not repeated and _name_part(parse.doc[attr.index]) and parse.reads_as_noun(attr.value) and not _only_adjective(attr.value.lower(), parse.model) and not _HYPHEN_ING.fullmatch(attr.value.lower()):
                    # a noun read as an adjective before the name ("an owl family", "a lily pad"): asked as
                    # DSG asks a type, "is the pad a lily pad?" (not "is the pad lily?"); a word that is only ever a
                    # describing word is a look ("a bare tree": "is the tree bare?", not "is the tree a bare tree?")
                    kind = "attribute_type_plural" if noun.plural else "attribute_type_singular"
                    described = _without(described, attr.value)
                if attr.kind == "had":
                    kind = "attribute_has"  # "mystical cat, glowing eyes": "does the cat have glowing eyes?"
                if not repeated and simple:
                    open_kind = {"color": "color", "attribute_material": "material"}.get(attr.kind if attr.kind == "color" else kind, "")
                b.add("attribute", attr.kind, (noun.lemma, word), kind, "attribute", attr.value, span, parent, open_kind,
                      noun=described, value=value, be=be(noun), article=_article(value), do="do" if noun.plural else "does")
    # totals of groups of the same thing with counts: "two red flowers and three white flowers" -> five flowers
    groups: dict[str, list[Noun]] = {}
    for noun in parse.nouns:
        groups.setdefault(noun.lemma, []).append(noun)
    for lemma, members in groups.items():
        with salvage(f"the total of {lemma!r}", text):
            values = [_number_value(n.numbers[0]) if n.numbers else None for n in members]
            if len(members) < 2 or any(v is None for v in values) or not _one_list(parse, members):
                continue
            total = sum(v for v in values if v is not None)
            names = [n.phrase for n in members if n.plural] or [members[0].phrase]
            word = _number_word(total)
            b.add("count", "count", (lemma, str(total)), "number", "number", word, parse.span_text(members[0].start, members[-1].end),
                  [entity_id[members[0].index]], noun=names[0], number=word)
    for rel in parse.relations:
        with salvage(f"the relation {rel.word!r}", text):
            subject, obj = parse.noun_at(rel.subject), parse.noun_at(rel.obj)
            if subject is None or obj is None:
                continue
            if rel.subject in games:
                continue  # "kids playing soccer in a park": the kids are in the park, not the game
            deps = list(dict.fromkeys(entity_id[i] for i in (rel.subject, *rel.also, rel.obj) if i not in games))
            others = [n for n in (parse.noun_at(i) for i in rel.also) if n is not None]
            span = parse.span_text(rel.start, rel.end)
            args = (subject.lemma, rel.word, obj.lemma)
            do = "do" if subject.plural else "does"
            if rel.obj == rel.subject:  # "two elephants touching each other" (the span reaches "each other")
                b.add("relation", "action" if rel.kind == "verb" else "spatial", args, "relation", "relation", subject.phrase, span, deps,
                      noun=name(subject), prep=rel.word, object="each other", be=be(subject))
                continue
            if rel.kind == "part":
                thing = obj.phrase if obj.plural or entity_kind(obj) == "entity_bare" else f"{_article(obj.phrase)} {obj.phrase}"
                b.add("relation", "part", args, "part", "relation", obj.phrase, span, deps, noun=name(subject), object=thing, do=do)
            elif rel.finite:
                words = rel.word.split()
                verb, prep = rel.finite, " ".join(words[1:])
                kind = "relation_finite_prep" if prep else "relation_finite"
                b.add("relation", "action", args, kind, "relation", obj.phrase, span, deps, noun=name(subject), verb=verb, prep=prep,
                      object=objects(obj, others, subject), do=do)
            else:
                detailed = "action" if rel.kind == "verb" else "spatial"
                b.add("relation", detailed, args, "relation", "relation", obj.phrase, span, deps, noun=name(subject), prep=rel.word,
                      object=objects(obj, others, subject), be=be(subject))
    loose = sum(1 for q in parse.quotes if q.noun is None or parse.noun_at(q.noun) is None)
    for quote in parse.quotes:
        with salvage(f"the quote {quote.text!r}", text):
            owner = parse.noun_at(quote.noun) if quote.noun is not None else None
            span = quote.raw or f'"{quote.text}"'
            if owner is not None:
                said = b.add("text", "text", (owner.lemma, quote.text), "text_on", "text", quote.text, span, [entity_id[owner.index]], "text_on",
                      noun=owner.phrase, text=quote.text)
            else:
                # "what text is written in the image?" has one answer: with two such texts ("the words 'giraffe' and
                # 'toothbrush'") it cannot check either, so neither is put to the answer-consistency filter
                said = b.add("text", "text", (quote.text,), "text", "text", quote.text, span, [], "text" if loose < 2 else "", text=quote.text)
            for look in quote.looks:
                # "a poster that says 'stay home' in bold red font": how the text is lettered, where no word names it
                b.add("attribute", look.kind, ("text", look.value), "text_look", "attribute", look.value, span, [said.id], text=quote.text,
                      value=look.phrase)
    return b.facts


def questions_from_parse(parse: Parse, closed_counts: bool = False) -> list[Question]:
    """Every question the templates write for the parse, before filtering (one per :class:`Fact`)."""
    return [f.question for f in facts_from_parse(parse, closed_counts)]


class SpacyQuestions:
    """Offline VQ2-style question generation with the answer-consistency filter (module docstring)."""

    def __init__(self, spec: RoleSpec, device: Any = None):
        self.spec = spec
        self.spacy_model = spec.model or DEFAULT_SPACY_MODEL
        self.qa = str(spec.options.get("qa", "rules"))
        if self.qa not in ("rules", "llm"):
            from autoalign.config import ConfigError

            raise ConfigError(f"[questions] qa must be 'rules' or 'llm' (got {self.qa!r})")
        self.filter = bool(spec.options.get("filter", True))
        self.min_f1 = float(spec.options.get("min_f1", ANSWER_F1_THRESHOLD))
        self.closed_counts = bool(spec.options.get("closed_counts", False))  # see facts_from_parse
        self.last_dropped: list[dict[str, Any]] = []  # what the filter removed on the last call (reports, tests)

    def generate(self, prompt: str, llm: LLMProvider | None = None) -> list[Question]:
        candidates = questions_from_parse(parse_prompt(prompt, self.spacy_model), self.closed_counts)
        # the filter checks the short-answer pairs (VQ2's wh-question + span); a question with no
        # short-answer form has nothing to check and is kept
        checked = [q for q in candidates if q.open_question]
        if not self.filter or not checked:
            self.last_dropped = []
            return candidates
        if self.qa == "llm":
            if llm is None:
                raise AutoAlignError("[questions] qa = 'llm' needs an LLM, but none was passed to the question generator")
            answerer: Any = LLMTextAnswerer(llm())
        else:
            answerer = RuleTextAnswerer(self.spacy_model)
        texts = [q.open_question for q in checked]
        if self.qa == "llm":  # (an LLM that fails is a service's failure, reported as such, not the text's)
            answered = answerer.answer(prompt, texts)
        else:
            answered = [""] * len(checked)  # the rules failed on this text: the questions they check are dropped
            with salvage("the answer-consistency filter", prompt):
                answered = answerer.answer(prompt, texts)
        answers = dict(zip((q.id for q in checked), answered))
        kept, dropped = filter_consistent(candidates, [answers.get(q.id, q.answer) for q in candidates], self.min_f1)
        for d in dropped:
            logger.debug("VQ2 filter dropped %r (text answer %r, F1 %.2f)", d["question"].text, d["text_answer"], d["f1"])
        self.last_dropped = dropped
        return kept


# ---- the LLM (DSG) generator ------------------------------------------------------------------------

DSG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "questions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": ["string", "integer"]},
                    "question": {"type": "string"},
                    "aspect": {"type": "string", "enum": [*ASPECTS, "text"]},
                    "answer": {"type": "string"},
                    "span": {"type": "string"},
                    "depends_on": {"type": "array", "items": {"type": ["string", "integer"]}},
                },
                "required": ["id", "question", "aspect", "answer", "span", "depends_on"],
            },
        }
    },
    "required": ["questions"],
}


def dsg_messages(prompt: str) -> list[dict[str, str]]:
    """The chat messages asking for DSG questions: instructions, few-shot pairs, the prompt."""
    messages = [{"role": "system", "content": prompts.load("dsg_questions.txt")}]
    for example in json.loads(prompts.load("dsg_fewshot.json")):
        messages.append({"role": "user", "content": f"Prompt: {example['prompt']}"})
        messages.append({"role": "assistant", "content": json.dumps({"questions": example["questions"]})})
    messages.append({"role": "user", "content": f"Prompt: {prompt}"})
    return messages


def questions_from_dsg(data: dict[str, Any]) -> list[Question]:
    """Questions from a DSG reply; ids become strings, unknown/self dependencies are dropped."""
    out: list[Question] = []
    seen: set[str] = set()
    for item in data.get("questions", []):
        qid, text = str(item["id"]).strip(), str(item["question"]).strip()
        if not qid or not text or qid in seen:
            continue
        seen.add(qid)
        out.append(
            Question(
                id=qid,
                text=text,
                answer=str(item["answer"]).strip(),
                aspect=str(item["aspect"]),
                span=str(item["span"]).strip(),
                depends_on=[str(d) for d in item.get("depends_on", [])],
            )
        )
    for q in out:
        q.depends_on = [d for d in q.depends_on if d in seen and d != q.id]
    return out


class LLMQuestions:
    """DSG-style questions from the LLM, falling back to :class:`SpacyQuestions` when it fails."""

    def __init__(self, spec: RoleSpec, device: Any = None):
        self.spec = spec
        fallback_opts = {"qa": "rules", **{k: v for k, v in spec.options.items() if k in ("min_f1", "filter")}}
        self.fallback = SpacyQuestions(RoleSpec("spacy", spec.options.get("spacy_model"), fallback_opts))
        self.fell_back = False  # did the last call use the fallback? (reports, tests)

    def generate(self, prompt: str, llm: LLMProvider | None = None) -> list[Question]:
        from autoalign.models.llm import LLMError

        self.fell_back = False
        if llm is None:
            reason = "no LLM was passed to the question generator"
        else:
            try:
                questions = questions_from_dsg(llm().complete_json(dsg_messages(prompt), DSG_SCHEMA, "dsg_questions"))
                if questions:
                    return questions
                reason = "the LLM returned no usable questions"
            except LLMError as exc:
                reason = str(exc)
        logger.warning("LLM question generation failed (%s); using the spaCy generator instead", reason)
        self.fell_back = True
        return self.fallback.generate(prompt)


# ---- caching ---------------------------------------------------------------------------------------

_memory: dict[str, list[dict[str, Any]]] = {}
_memory_lock = threading.Lock()


def cache_key(prompt: str, spec: RoleSpec) -> str:
    blob = json.dumps([CACHE_VERSION, prompt, spec.backend, spec.model, spec.options], sort_keys=True, default=str)
    # editing the templates or the word lists invalidates the cache
    blob += prompts.load("vq2_question_templates.json") + prompts.load("question_words.json")
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def _disk_path(key: str) -> Path:
    from autoalign.models.loading import autoalign_home

    return autoalign_home() / "cache" / "questions" / f"{key}.json"


def cached_questions(
    prompt: str,
    spec: RoleSpec,
    generator: Any,
    llm: LLMProvider | None = None,
    disk: bool = True,
) -> list[Question]:
    """``generator.generate(prompt, llm)`` once per (prompt, generator settings); copies are returned.

    A generator that fell back (``fell_back``) is not cached on disk, so a later run with a working
    LLM asks again.
    """
    key = cache_key(prompt, spec)
    with _memory_lock:
        hit = _memory.get(key)
    if hit is None and disk:
        path = _disk_path(key)
        if path.exists():
            try:
                hit = json.loads(path.read_text(encoding="utf-8"))["questions"]
            except (OSError, ValueError, KeyError):
                logger.warning("ignoring unreadable question cache file %s", path)
    if hit is None:
        questions = generator.generate(prompt, llm)
        hit = [q.to_dict() for q in questions]
        if disk and not getattr(generator, "fell_back", False):
            path = _disk_path(key)
            try:
                atomic_write_json(path, {"prompt": prompt, "questions": hit}, indent=1)
            except OSError as exc:
                logger.warning("cannot write question cache %s: %s", path, exc)
    with _memory_lock:
        _memory[key] = hit
    return [Question.from_dict(d) for d in hit]


def clear_cache() -> None:
    """Forget the in-memory question cache (tests)."""
    with _memory_lock:
        _memory.clear()
