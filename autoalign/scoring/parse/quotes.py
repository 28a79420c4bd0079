"""Quoted text: what a prompt asks to be written ('a sign that says "hello"'), and the thing it is written on."""

from __future__ import annotations

import re
from typing import Any

from autoalign.scoring.parse.records import Noun, Quote
from autoalign.scoring.parse.tokens import _lemma

# "double", “curly” or 'single' quotes (a single quote only when it is not an apostrophe)
_QUOTE = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<![\w'])'([^']+)'(?!\w)")


# a text whose quotes were lost, set off by two spaces on each side after a word that names text or says it ("vines in
# the shape of text  open your mind  sprouting", "a book with  knowledge is power  painted on it"); no sentence end in it
_SPACED = re.compile(r"\b(\w+)  (?! )([^\s.!?\"“”][^.!?\"“”\n]{0,78}?[^\s.!?\"“”])  (?=\S)")
_SAYING = frozenset({"with", "says", "saying", "reads", "reading", "say", "read", "that"})
_DETERMINERS = frozenset({"a", "an", "the", "some", "two", "three", "many", "his", "her", "its", "their", "my", "our", "your"})


def _spaced_quotes(text: str, lex: dict[str, Any]) -> list[tuple[str, int, int, str]]:
    if "  " not in text:
        return []
    out = []
    for m in _SPACED.finditer(text):
        before, words = m.group(1).lower(), m.group(2).lower().split()
        if before == "with" and (len(words) < 2 or words[0] in _DETERMINERS):
            continue  # "a cat with  a hat  and a dog": a thing between stray spaces, no text
        if before in lex["text_nouns"] or before in _SAYING:
            out.append((m.group(2), m.start(2), m.end(2), m.group(2)))
    return out


# capitalised words (or numbers) to the end of the prompt or of its fragment, after a word of ``unquoted_text_nouns``
_CAPITALISED = re.compile(
    r"\b(\w+) ((?:[A-Z][\w'’-]*|\d+)(?: (?:[A-Z][\w'’-]*|\d+|and|of|the|in|on|a|to|for)(?= ))*(?: (?:[A-Z][\w'’-]*|\d+))?)\s*(?=$|[,.;!?])"
)


def _unquoted(text: str, lex: dict[str, Any]) -> list[tuple[str, int, int, str]]:
    """ "death metal logo Ritual Disembowlment", "a sign saying Welcome Home": the capitalised words after a noun that
    bears text, or after a verb of saying, are that text."""
    out = []
    for m in _CAPITALISED.finditer(text):
        before = m.group(1).lower()
        if (before in lex["unquoted_text_nouns"] or before in _SAYING - {"with", "that"} or before in ("titled", "entitled")) and any(w[:1].isupper() for w in m.group(2).split()):
            out.append((m.group(2), m.start(2), m.end(2), m.group(2)))
    return out


def _holder_with(text_noun, things: set[int], bearers: frozenset[str] | set[str] = frozenset()) -> int | None:
    """ "a wooden sign carved with the word 'welcome' hanging on a cabin door": the thing a participle after it says
    the text was put on with ("carved with", "engraved with") bears the text, as does a thing the text is "with" right
    after it when it is a thing that bears text (``bearers``: "a blackboard with the word 'hello'"); None otherwise
    (", with the text ...": the picture's; "a painting of a cornfield with the words ...": over the field, in the image)."""
    if text_noun.dep_ != "pobj" or text_noun.head.lower_ != "with":
        return None
    verb = text_noun.head.head
    if verb.i in things and _lemma(verb) in bearers and not any(t.text == "," for t in text_noun.doc[verb.i : text_noun.head.i]):
        # "a blackboard with the word 'multiplication'": the thing that has the text bears it (not ", with the text ...",
        # set off by a comma: the picture's)
        return verb.i
    if verb.pos_ != "VERB" or verb.tag_ != "VBN" or verb.dep_ != "acl":
        return None
    return verb.head.i if verb.head.i in things else None


def _writing_verb(doc, start: int, lex: dict[str, Any]):
    """The verb of writing right before a quote that starts at character ``start`` ("writing", "paints", "spray
    painting"; ``text_nouns.writing_verbs``), else None."""
    before = [t for t in doc if t.idx + len(t) <= start and not t.is_punct and not t.is_quote]
    if not before:
        return None
    verb = before[-1]
    # (a participle after the bearer names the bearer: "a mug printed 'I love NY'" is on the mug)
    return verb if verb.pos_ == "VERB" and verb.tag_ != "VBN" and _lemma(verb) in lex["writing_verbs"] else None


def listed_together(text: str, quote: Quote, start: int) -> bool:
    """Whether a quote that opens at character ``start`` follows ``quote`` in one list ("the words 'good' and 'morning'",
    "'a', 'b' or 'c'"): nothing between them but commas, spaces and one "and", "or" or "&"."""
    return text[quote.char_end : start].strip(" ,").lower() in ("and", "or", "&", "")


def read_quotes(text: str, doc: Any, nouns: list[Noun], lex: dict[str, Any]) -> list[Quote]:
    """The quotes of ``text`` (the text ``doc`` was parsed from), each with the thing it is written on."""
    quotes: list[Quote] = []
    found = [((m.group(1) or m.group(2) or m.group(3) or ""), m.start(), m.end(), m.group(0)) for m in _QUOTE.finditer(text)]
    unquoted = [u for u in _unquoted(text, lex) if not any(a <= u[1] < b for _, a, b, _ in found)] if not found else []
    for qtext, start, end, raw in sorted(found + _spaced_quotes(text, lex) + unquoted, key=lambda f: f[1]):
        qtext = qtext.strip()
        if not qtext:
            continue
        before = [n for n in nouns if doc[n.index].idx < start]
        # the quote is written on the last noun before it ("a sign that says ..."), unless that noun is inside it
        owner = before[-1].index if before else None
        between = text[doc[owner].idx + len(doc[owner]) : start].strip(" :,").lower().split() if owner is not None else []
        if owner is not None and between and between[-1] in _SAYING - {"with"} and _lemma(doc[owner]) not in lex["text_bearers"]:
            # "a handwritten note on a fridge that says 'buy milk'": the bearer of the text said (``text_nouns.bearers``)
            # named before the place, not the place
            sentence = doc[owner].sent.start
            bearer = next((n.index for n in reversed(before) if n.index >= sentence and _lemma(doc[n.index]) in lex["text_bearers"]), None)
            owner = bearer if bearer is not None else owner
        if owner is not None and all(w in ("called", "named") for w in between) and doc[owner].dep_ == "pobj" and doc[owner].head.lower_ == "for":
            # "a logo for the company 'Bright Dawn'", "a logo for a shop called 'Bean There'": the quote names the company,
            # and is written on the logo it is for (a thing that bears text), not on the company
            holder = doc[owner].head.head
            if holder.i != owner and _lemma(holder) in lex["text_bearers"] and any(n.index == holder.i for n in nouns):
                owner = holder.i
        writer = _writing_verb(doc, start, lex)
        if writer is not None:
            # "a robot writing 'hello' on a whiteboard": written on the whiteboard, never on the robot; else in the image
            onto = [n for n in nouns if doc[n.index].idx >= end and doc[n.index].sent.start == writer.sent.start
                    and doc[n.index].dep_ == "pobj" and doc[n.index].head.lower_ in ("on", "onto", "across", "over", "in")]
            owner = onto[0].index if onto else None
        elif owner is not None and _lemma(doc[owner]) in lex["text_nouns"] and all(w in _SAYING for w in between):
            # "the word 'START' written on a sidewalk", "text that says 'no parking' painted on a brick wall": the word
            # is the text; it is written on what follows
            after = [n for n in nouns if doc[n.index].idx >= end and doc[n.index].dep_ == "pobj" and doc[n.index].head.lower_ in ("on", "onto", "across", "over")]
            holder = _holder_with(doc[owner], {n.index for n in nouns}, lex["text_bearers"])
            owner = holder if holder is not None else after[0].index if after else None
        if re.search(r"\b(?:shape|form) of (?:the |a )?(?:\w+ )?$", text[:start].lower()):
            # "fur in the shape of word 'hello'": the quote is the shape the fur takes, written by nothing on a thing
            # (asked "is 'hello' written in the image?", never "... written on the fur?")
            owner = None
        if quotes and listed_together(text, quotes[-1], start):
            # "the words 'good' and 'morning' on a mug": quotes listed together are written on one thing
            owner = quotes[-1].noun
        quotes.append(Quote(text=qtext, noun=owner, char_start=start, char_end=end, raw=raw))
    return quotes


_LOOK_STOPS = frozenset({"ADP", "DET", "VERB", "AUX", "PRON", "CCONJ", "SCONJ", "PART", "NUM", "PUNCT", "SPACE"})


def text_looks(doc: Any, char_end: int, lex: dict[str, Any]) -> tuple[list[tuple[str, str, str]], tuple[int, int]] | None:
    """How a quote that ends at character ``char_end`` is lettered, as the words right after it say (``text_looks``):
    "... 'stay home' in bold red font" -> [("bold red font", "font", "in bold red font")]; "... 'open' written in neon
    pink" -> [("neon pink", "color", "in neon pink")]; "'good' and 'morning' in rainbow colors" -> [("rainbow", "color",
    "in rainbow colors")]. Each look is (value, kind, phrase); with the token span the phrase takes. None where the words
    after the quote say no such look ("written in blue icing", "in gold glitter": a colour before a thing)."""
    toks = [t for t in doc if t.idx >= char_end]
    j = 0
    if j < len(toks) and toks[j].lower_ in lex["text_look_participles"]:
        j += 1
        if j < len(toks) and toks[j].lower_ == "out":
            j += 1
    if j >= len(toks) or toks[j].lower_ != "in":
        return None
    j += 1
    start = toks[j].i if j < len(toks) else len(doc)
    if j < len(toks) and toks[j].lower_ in ("a", "an"):
        j += 1
    colours, lettering, shades = lex["colors"] | lex["text_look_colours"], lex["lettering"], lex["colour_modifiers"]
    run = []
    for t in toks[j : j + 7]:
        hyphen = t.text == "-" and run and t.whitespace_ == "" and not run[-1].whitespace_
        if t.pos_ in _LOOK_STOPS and not hyphen and t.lower_ not in colours and t.lower_ not in lettering and t.lower_ != "and":
            break
        if not (t.is_alpha or hyphen or "-" in t.text):
            break
        run.append(t)
    while run and run[-1].lower_ == "and":
        run.pop()  # ("'hi' in red and a cat ...")
    # a font: the run up to its last lettering word ("bold red font", "flowing cursive script", "a minimalist sans-serif font")
    last = max((k for k, t in enumerate(run) if t.lower_ in lettering or _lemma(t) in lettering), default=None)
    if last is not None and "and" not in [t.lower_ for t in run[:last]]:
        end = run[last].i + 1
        if end < len(doc) and doc[end].pos_ in ("NOUN", "PROPN") and doc[end].lower_ not in lettering:
            return None  # ("in script letters stickers": a thing)
        value = doc[run[0].i : end].text.lower()
        words = doc[start:end].text.lower()
        return [(value, "font", f"in {words}")], (start, end)
    # colours only ("in red", "in neon pink", "in purple and green", "in rainbow colors")
    looks, shade, k = [], [], 0
    while k < len(run):
        t = run[k]
        if t.lower_ in shades and k + 1 < len(run) and run[k + 1].lower_ in colours:
            shade.append(t.lower_)
        elif t.lower_ in colours:
            looks.append(" ".join([*shade, t.lower_]))
            shade = []
        elif t.lower_ == "and" and looks and k + 1 < len(run):
            pass
        elif t.lower_ in ("color", "colors", "colour", "colours") and looks and k == len(run) - 1:
            k += 1
            break
        else:
            break
        k += 1
    if not looks or k < len(run) and run[k - 1].lower_ not in ("color", "colors", "colour", "colours"):
        return None  # ("in gold glitter", "in red paint": a colour before a thing)
    end = run[k - 1].i + 1
    if start != run[0].i:
        return None  # ("in a red": no colour said so)
    if end < len(doc) and doc[end].pos_ in ("NOUN", "PROPN"):
        return None
    said = doc[start:end].text.lower()
    if len(looks) == 1:
        return [(looks[0], "color", f"in {said}")], (start, end)
    return [(c, "color", f"in {c}") for c in looks], (start, end)
