"""The reading of one prompt: mend the parse, then read things, attributes, relations, global tags and quotes."""

from __future__ import annotations

import logging
import re

from autoalign.inflect import singular
from autoalign.scoring.parse.attributes import _AttributesReader
from autoalign.scoring.parse.lexicon import (
    DEFAULT_SPACY_MODEL,
    _english_form,
    _english_word,
    _lemma_index,
    _reads_as_adjective,
    lexicon,
    load_spacy,
)
from autoalign.scoring.parse.mend import _join_hyphens, _join_participle_looks, _join_widths, _mend_parse
from autoalign.scoring.parse.quotes import _spaced_quotes, listed_together, read_quotes, text_looks
from autoalign.scoring.parse.records import Attribute, GlobalTag, Noun, Parse, Quote, Relation
from autoalign.scoring.parse.relations import _RelationsReader
from autoalign.scoring.parse.salvage import salvage
from autoalign.scoring.parse.stand_ins import parse_with_stand_ins
from autoalign.scoring.parse.things import _ThingsReader
from autoalign.scoring.parse.tokens import _in, _lemma

logger = logging.getLogger(__name__)

# a possessive written without its apostrophe ("a mans shirt", "womens shoes"): no plural of these is spelt so
_BARE_POSSESSIVE = re.compile(r"\b(m[ae]n|wom[ae]n|child|children|people)s(?= [a-z])", re.I)
# a user prompt's aspect-ratio flag ("--ar 16:9", "--aspect 2:3"): said of the picture, though the flag is dropped
_ASPECT = re.compile(r"(?<!\S)(?:--|—)(?:ar|aspect)\s+(\d{1,2})\s*:\s*(\d{1,2})(?!\d)", re.I)
_HD = re.compile(r"(?<!\S)(?:--|—)hd(?!\S)", re.I)
_STYLE_FLAG = re.compile(r"(?<!\S)(?:--|—)style\s+([a-z]{3,})(?![\w-])", re.I)


def _flag_tags(prompt: str) -> list[str]:
    """What a user prompt's flags say of the picture, though the flags themselves are dropped: "--ar 16:9" (its aspect
    ratio), "--hd" (its resolution), "--style gothic" (its style)."""
    out = []
    aspect = _ASPECT.search(prompt)
    if aspect is not None:
        out.append(f"aspect ratio {aspect.group(1)}:{aspect.group(2)}")
    if _HD.search(prompt):
        out.append("hd")
    style = _STYLE_FLAG.search(prompt)
    if style is not None:
        out.append(f"{style.group(1).lower()} style")
    return out


_WEIGHT = re.compile(r"::\s*-?\d*(?:\.\d+)?")
# a stock picture's title: "Set of seven brown paper bags Stock photo © veralub" -- the stock label is its own sentence (the
# picture's frame), the credit after "©" no thing
_STOCK = re.compile(r"(?<=[\w.])[\s\-–|]+(?=stock\s+(?:photo|photograph|photography|vector|image|illustration|footage)s?\b)", re.I)
_STOCK_ID = re.compile(r"(?<=\w)\s*[-–]\s*\d{5,}\b")  # "Stock Vector - 3976107": the picture's number in the stock
# "close up" written as two words before "of" or a frame noun: one word, the picture's frame
_CLOSE_UP = re.compile(r"\b(close)[ ](up)(?=\s+(?:of|shot|photo|photograph|picture|image|view|portrait|shots|photos)\b)", re.I)
# a resolution ("8k", "4 k", "1080p", "uhd") right after a word of a name, ending the phrase or the prompt
# "a Victorian style living room", "disney style character": a style written apart before a thing's name (a word, "style",
# a word that is no stop word), joined as if hyphenated (_join_style)
_STYLE_BEFORE = re.compile(r"\b([A-Za-z][\w-]*) style (?=([A-Za-z]+)\b)", re.I)
# "8 k", "4 k": a resolution written with a space (DiffusionDB's users often do), read as the one word "8k"
_SPACED_K = re.compile(r"(?<![\w.,])(\d{1,2}) k\b(?![\w'’-])")
_GLUED_RESOLUTION = re.compile(r"(?<=[a-z])(\s+)(\d{1,2}\s?k|\d{3,4}p|u?hd)(?=\s*(?:[,.;|]|$)|\s+[a-z]+\s*(?:[,.;|]|$))", re.I)


def _set_off_resolution(m: re.Match) -> str:
    """Commas around a glued resolution (:data:`_GLUED_RESOLUTION`); none after a preposition ("a tv in hd": how it is).
    In "underground fantasy village dark 8k cinematic", a describing word right before the resolution, after its noun,
    is a tag too (:func:`_set_off_look_before`)."""
    text = m.string
    before = text[: m.start()].split()
    if before and before[-1].lower() in ("in", "at", "on", "with", "of", "by", "and", "or", "a", "an", "the", "ultra", "full", "quad", "super"):
        return m.group(0)  # (nor inside a resolution's own name: "8k ultra hd", "full hd")
    after = "," if text[m.end() :].strip()[:1].isalpha() else ""
    return "," + m.group(1) + m.group(2) + after


def _set_off_look_before(text: str, model: str) -> str:
    """ "underground fantasy village dark 8k cinematic": a lower-case describing word (:func:`_reads_as_adjective`) after
    a noun, right before a resolution set off by :func:`_set_off_resolution`, is a tag too (English puts a thing's look
    before its name): "village, dark, 8k, cinematic"."""
    def one(m: re.Match) -> str:
        word, noun = m.group(2), m.group(1)
        if not _reads_as_adjective(word.lower(), model) or _reads_as_adjective(noun.lower(), model):
            return m.group(0)
        return f"{noun}, {word},"
    return _LOOK_BEFORE_RESOLUTION.sub(one, text)


_LOOK_BEFORE_RESOLUTION = re.compile(r"\b([a-z]{3,}) ([a-z]{3,}),(?=\s+(?:\d{1,2}\s?k|\d{3,4}p|u?hd)\b)")


_CREDIT = re.compile(r"\s*(?:©|\(c\)|copyright\b)[^,.;:|]*", re.I)


# words after which a side and a body part go on the phrase before them ("above knee level of left leg", "on the left arm")
_JOINING = frozenset(
    "a an the his her their your its my our of on with and or to at from by near above below behind under over across toward "
    "towards in into onto against between beside than like".split()
)


def _split_run_on_pose(text: str, body_parts: set[str]) -> str:  # (body_parts: the parts of a body or a face)
    """ "standing on left leg right leg up and knee bent ... left arm up": a pose text written without any punctuation is
    read one sentence per body part, with a full stop before each side and body part ("left arm", "right leg", "both arms")
    that does not go on the phrase before it (after "of", "on", "the", "and", ...); a text with a comma or a full
    stop inside is left as written."""
    if any(p in text.rstrip(". ") for p in ",.;:") or len(text) < 30:
        return text
    if sum(w.lower().strip(".") in body_parts for w in text.split()) < 2:
        return text  # (a pose text names several parts: "a man raising a glass with right hand" is no pose text)
    words = text.split(" ")
    out = list(words)
    splits = 0

    def part(word: str) -> bool:
        word = word.lower().rstrip(".")
        return word in body_parts or word.rstrip("s") in body_parts

    for k in range(1, len(words) - 1):
        before = words[k - 1].lower()
        if part(words[k]) and part(before) and words[k + 1].lower().endswith("ing"):
            out[k - 1] = words[k - 1] + "."  # "... over chest face looking upward": a part that does something starts anew
            splits += 1
            continue
        if words[k].lower() not in ("left", "right", "both") or not part(words[k + 1]):
            continue
        if before in _JOINING or before in ("left", "right", "both") or not before.isalpha() or before.endswith("ing"):
            continue  # (nor after a verb that takes the part: "a woman waving right hand")
        out[k - 1] = words[k - 1] + "."
        splits += 1
    return " ".join(out) if splits else text


_WORD = re.compile(r"[^\W\d_]+")


def _set_off_name_run(text: str, model: str) -> str:
    """ "a lighthouse on a cliff at dusk greg rutkowski alphonse mucha artgerm highly detailed", "in the forest craig
    mullins mucha watercolor": a user prompt's run of two or more lower-case words of no English (none WordNet's, nor
    their singular, nor a function word) right after a lower-case noun, with no comma between, is a run of names (artists) written as one
    more tag: the artists, as if written "..., by greg rutkowski alphonse mucha artgerm, ...", so that the noun before
    it ends its thing (not "is there dusk greg rutkowski alphonse?", "is there a forest craig?") and the names are the
    picture's style. Only where the pipeline has a lemma index (WordNet's words)."""
    index = _lemma_index(model)
    if not index:
        return text
    nouns = index["noun"]

    stop = load_spacy(model).Defaults.stop_words  # (function words are no WordNet words either: "of the")

    def english(word: str) -> bool:
        return word in stop or len(word) < 3 or _english_form(word, model) or _english_word(singular(word), model)

    words = list(_WORD.finditer(text))
    out, at, k = [], 0, 1
    while k < len(words):
        before = words[k - 1]
        run = []
        j = k
        while j < len(words) and words[j].group().islower() and not english(words[j].group()) and text[words[j - 1].end() : words[j].start()] == " ":
            run.append(words[j])
            j += 1
        # (the noun goes on a phrase before it: "at dusk greg rutkowski", not a tag of names "..., john william waterhouse")
        opened = k >= 2 and text[words[k - 2].end() : before.start()] == " "
        if len(run) >= 2 and opened and before.group().islower() and before.group() in nouns and before.group() not in lexicon()["run_openers"]:
            out.append(text[at : before.end()] + ", by")
            at = before.end()
            end = run[-1].end()
            if end < len(text) and text[end] not in ",.;:|)":
                out.append(text[at:end] + ",")
                at = end
            k = j + 1
            continue
        k += 1
    return "".join(out) + text[at:] if out else text


_TEXT_WORD = re.compile(r"[\w'’!?&#$%+-]+")


_TAG_END = re.compile(r"[,.;:!?()\n]")


# a title's last word after it, at the end of its tag or before "style" ("bioshock infinite style")
_SUBTITLE = re.compile(r"\s+([\w'-]+)(?:\s+style)?\s*")


def _subtitle(word: str, model: str) -> bool:
    """Whether a word after a title names no thing of its own: a number, a Roman one, a describing word of WordNet's or
    no English word ("3", "iii", "infinite", "remastered"; not "house": "minecraft house" is a house)."""
    index = _lemma_index(model)
    return word.isdigit() or re.fullmatch(r"[ivx]{1,4}", word) is not None or bool(index) and (
        word in index["adj"] or not _english_form(word, model))


def _set_off_titles(text: str, lex, model: str = DEFAULT_SPACY_MODEL) -> str:
    """ "league of legends fan art, splash art", "a hobbit house, lord of the rings, concept art", "game of thrones dragon
    flying over a castle": the title of a work (``style_tags.titles``: games, films, books, shows) at the start of a tag
    (or its article) is what the picture is of or like, never things ("is there a league?", "is there lord?", "are there
    rings?", "is there thrones dragon?"): read as if written "<rest of the tag> in the style of <title>" ("fan art in the
    style of league of legends", "dragon flying over a castle in the style of game of thrones"). A title inside a tag
    after other words ("gandalf from lord of the rings") is left as read."""
    low = text.lower()
    titles = [t for t in lex["titles"] if t in low]
    if not titles:
        return text
    for title in sorted(titles, key=len, reverse=True):
        m = re.search(r"(?<![\w-])" + re.escape(title) + r"(?![\w-])", text, flags=re.IGNORECASE)
        if m is None:
            continue
        start = max((e.end() for e in _TAG_END.finditer(text, 0, m.start())), default=0)
        ends = _TAG_END.search(text, m.end())
        end = ends.start() if ends else len(text)
        pre, post = text[start : m.start()], text[m.end() : end]
        if pre.strip().lower() not in ("", "a", "an", "the") or "style of" in pre.lower():
            continue
        sub = _SUBTITLE.fullmatch(post)
        if sub and _subtitle(sub.group(1).lower(), model):
            # "bioshock infinite style", "..., dark souls 3, ...": one more word that names no thing (a number, a
            # describing word, no English word) at the end of the tag, or before "style", is the title's own
            # ("is the image in the style of bioshock infinite?", not "is the city infinite?")
            title_end = m.start() + len(m.group()) + sub.end(1)
            text = text[:start] + pre + "in the style of " + text[m.start() : title_end] + text[end:]
            continue
        lead = pre[: len(pre) - len(pre.lstrip())]
        rest = " ".join(w for w in (pre.strip(), post.strip()) if w)
        tag = f"{lead}{rest} in the style of {m.group()}" if post.strip() else f"{lead}in the style of {m.group()}"
        text = text[:start] + tag + (" " if post.endswith(" ") else "") + text[end:]
    return text


# two or more spaces between two words of one sentence, not after punctuation
_SPACED_GAP = re.compile(r"(?<=[\w)])( {2,})(?=[\w(])")


def _set_off_spaced_parts(text: str, lex) -> str:
    """ "Set of eight side chairs, 1950s  Pearwood, vinyl (8)": a stock title that sets its parts off with two spaces
    instead of a comma; the gap is a comma where the title's next part opens with a capital or the part before it ends in
    a number ("are the side chairs from the 1950s?", as after a comma). A gap of a caption's typing ("A  man", "lying
    together", "the pig  is") has a lower-case word after it, and a text set off by two spaces ("with  knowledge is
    power  painted") is a quote (:func:`.quotes._spaced_quotes`): both are left as written."""
    quoted = [(start - 2, end + 2) for _, start, end, _ in _spaced_quotes(text, lex)]
    out, at = [], 0
    for m in _SPACED_GAP.finditer(text):
        if any(a <= m.start(1) < b or a < m.end(1) <= b for a, b in quoted):
            continue
        before = re.findall(r"[\w()]+$", text[: m.start(1)])
        after = re.match(r"[\w(]+", text[m.end(1) :])
        if not before or not after:
            continue
        word, nxt = before[0].strip("()"), after.group(0).strip("(")
        capital = nxt[:1].isupper() and nxt not in ("I", "A") and not nxt.isupper() or nxt.isupper() and len(nxt) > 1
        numbered = any(c.isdigit() for c in word) and nxt[:1].isalpha()
        if not (capital or numbered) or not word or word[:1].isupper() and len(text[: m.start(1)].split()) == 1:
            continue
        out.append(text[at : m.start(1)] + ", ")
        at = m.end(1)
    return "".join(out) + text[at:] if out else text


def _quote_unquoted_text(text: str, lex) -> str:
    """ "a note on a fridge that says buy milk", "a road sign saying slow children at play beside a school", "a cake with
    the words happy birthday sarah written in frosting": lower-case words after a verb of saying whose text bearer
    (``text_nouns.bearers``) is named just before it, or after a text noun ("the words"), up to the end of the fragment, a
    participle of writing (``writing_participles``) or a place ("beside a school"), are the text, read as if quoted
    (not "does the fridge buy milk?", "are the children slow?"). A verb with an article or a word of its own after it
    ("reading a book", "reads quietly" without a bearer) is left as read."""
    says = lex["unquoted_after"]
    if not says.search(text):
        return text
    bearers, stops = lex["text_bearers"], lex["writing_participles"]
    places, articles = lex["unquoted_places"], lex["unquoted_articles"]
    out, at = [], 0
    for m in says.finditer(text):
        if m.start() < at:
            continue
        if m.group("verb"):
            before = re.findall(r"[\w-]+", text[max(0, m.start() - 60) : m.start()].lower())
            before = [w for w in before if w not in ("that", "which", "and")]
            near = before[-4:] if m.group("verb") not in lex["unquoted_bearer_next"] else before[-1:]
            if not any(w in bearers or w.rstrip("s") in bearers for w in near):
                continue
        words, end = [], m.end()
        for w in _TEXT_WORD.finditer(text, m.end()):
            if text[end : w.start()].strip() or len(words) >= 8:
                break  # (a comma, a stop or a quote ends the text)
            low = w.group().lower()
            after = _TEXT_WORD.match(text, w.end() + 1) if w.end() < len(text) and text[w.end()] == " " else None
            if low in stops and words or low in places and after is not None and after.group().lower() in articles:
                break
            words.append(w)
            end = w.end()
        if not words or words[0].group().lower() in articles | places | lex["unquoted_not_first"]:
            continue
        if any(t.group()[:1].isupper() for t in words) and not all(t.group()[:1].isupper() or not t.group().isalpha() for t in words):
            continue  # (capitalised text is read as before; a mixed run is no text to quote)
        out.append(text[at : words[0].start()] + '"' + text[words[0].start() : end] + '"')
        at = end
    return "".join(out) + text[at:] if out else text


# "a slide titled Diffusion Models", "a book called Deep Learning": a naming verb, then a run of capitalised words (small
# words inside it: "Lord of the Flies")
_NAMED_RUN = re.compile(r"\b(?P<verb>titled|entitled|called|named)\s+(?P<run>[A-Z][\w'’-]*(?:\s+(?:(?:of|the|and|to|a|in|on|for)\s+)*[A-Z0-9][\w'’-]*)*)")


def _quote_titles(text: str, lex) -> str:
    """ "a presentation slide titled Diffusion Models", "a textbook called Deep Learning on a desk": the capitalised words
    after a naming verb ("titled", "entitled", "called", "named") said of a thing that bears text (``text_nouns.bearers``
    and ``text_nouns.titled``: a book, a slide, a poster) are its title, written on it, read as if quoted ("is 'Diffusion
    Models' written on the slide?"), not things ("are there Diffusion Models?"). A name of anything else ("a dog named
    Max") is left as read."""
    bearers = lex["text_bearers"] | lex["titled_things"]
    out, at = [], 0
    for m in _NAMED_RUN.finditer(text):
        before = re.findall(r"[\w-]+", text[max(0, m.start() - 40) : m.start()].lower())
        before = [w for w in before if w not in ("that", "which", "is", "was", "and")]
        if not before or not (before[-1] in bearers or singular(before[-1]) in bearers):
            continue
        out.append(text[at : m.start("run")] + '"' + m.group("run") + '"')
        at = m.end("run")
    return "".join(out) + text[at:] if out else text


def _join_prefixed_looks(text: str, lex, model: str) -> str:
    """ "post apocalyptic city", "retro futuristic car", "award winning photo": a prefix written apart from the describing
    word after it (``style_tags.prefixes``, a describing word of WordNet's, none of its nouns), or a pair of
    ``style_tags.joined``, is one describing word, as if hyphenated ("post-apocalyptic"; not "is there a post?", "is the
    tiger winning the photo?")."""
    low = text.lower()
    if not any(f"{p} " in low for p in lex["style_prefixes"]) and not any(j in low for j in lex["joined_pairs"]):
        return text
    index = _lemma_index(model)
    adjectives, nouns = index.get("adj", ()), index.get("noun", ())
    stop = load_spacy(model).Defaults.stop_words  # ("post under sky": no describing word)
    firsts = sorted(lex["style_prefixes"] | {p.split()[0] for p in lex["joined_pairs"]})
    prefixed = re.compile(r"\b(" + "|".join(firsts) + r") ([a-z]+)\b", re.I)

    def join(m: re.Match) -> str:
        first, second = m.group(1).lower(), m.group(2)
        if f"{first} {second}" in lex["joined_pairs"] or first in lex["style_prefixes"] and second in adjectives and second not in nouns and second not in stop:
            return f"{m.group(1)}-{second}"
        return m.group(0)

    return prefixed.sub(join, text)


def _join_style(text: str, lex, model: str) -> str:
    """ "a Victorian style living room", "Gothic style buildings", "disney style character": a style written apart before a
    thing's name is one describing word of that thing, as if hyphenated ("is there a Victorian-style living room?"), not a
    "style living room" whose "Victorian" is lost; not after a stop word ("in style", "the style") nor before one ("the
    style of ...", "pixar style, 3d"), nor before a picture's name ("a van gogh style painting": the picture's style)."""
    stop = load_spacy(model).Defaults.stop_words

    def join(m: re.Match) -> str:
        before, after = m.group(1).lower(), m.group(2).lower()
        if before in stop or after in stop or after in lex["frame_nouns"] or singular(after) in lex["frame_nouns"]:
            return m.group(0)
        words = text[: m.start()].split()
        previous = words[-1:] if len(words) > 1 and not words[-2].endswith((".", "!", "?")) else []  # (not a sentence's first)
        if previous and previous[0][:1].isupper() and m.group(1)[:1].isupper() and previous[0].lower() not in stop:
            return m.group(0)  # ("a Van Gogh style field": a name of two words, left as read)
        return f"{m.group(1)}-style "

    return _STYLE_BEFORE.sub(join, text)


def _set_off_text(doc, index: int, lex) -> bool:
    """Whether the thing at ``index`` is a text (``text_nouns``) after a "with" set off by a comma."""
    tok = doc[index]
    with_ = tok.head
    return _in(tok, lex["text_nouns"]) and with_.lower_ == "with" and with_.i > 0 and doc[with_.i - 1].text == ","


def _texts_with_a_doer(doc, relations: list[Relation], quotes: list[Quote], lex) -> list[Relation]:
    """ "a robot standing with the words 'hello world' in a speech bubble": a quoted text (``text_nouns``) that a thing
    doing something is "with" is written in the picture, nothing the thing does with it ("is the robot standing with the
    words?"); a place right after the quote is the text's ("are the words in the speech bubble?", not "is the robot
    standing in the speech bubble?")."""
    out = list(relations)
    for r in relations:
        if r.kind != "verb" or not r.word.endswith(" with") or not _in(doc[r.obj], lex["text_nouns"]):
            continue
        end = doc[r.obj].idx + len(doc[r.obj].text)
        quote = next((q for q in quotes if 0 <= q.char_start - end <= 1), None)
        if quote is None:
            continue
        out.remove(r)
        verb = r.word.split()[0]
        for other in relations:
            prep = doc[other.obj].head if other.obj < len(doc) else None
            if other in out and other.subject == r.subject and other.kind == "verb" and other.word.split()[0] == verb and prep is not None \
                    and prep.dep_ == "prep" and 0 <= prep.idx - quote.char_end <= 1:
                placed = Relation(subject=r.obj, word=prep.lower_, obj=other.obj, kind="prep", start=r.obj, end=other.obj + 1)
                if any(x.subject == placed.subject and x.obj == placed.obj and x.word == placed.word for x in out):
                    out.remove(other)
                else:
                    out[out.index(other)] = placed
    return out


class _Reader(_ThingsReader, _AttributesReader, _RelationsReader):
    """One reading of one parse: things first, then their attributes, then the relations between them."""


def _tags_naming_a_thing(doc, globals_: list[GlobalTag], nouns: list[Noun]) -> list[GlobalTag]:
    """ "a futuristic woman wrapped with leaves, artstation, extremely detailed woman, 4k": a tag that names a thing of
    the prompt again, after describing words only, says how that thing looks ("is the woman extremely detailed?"), not
    what the picture has ("does the image have extremely detailed woman?")."""
    kept = []
    for g in globals_:
        head = doc[g.index] if g.tag and g.kind == "style" and 0 <= g.index < len(doc) else None
        words = g.value.split()
        if head is None or head.tag_ not in ("NN", "NNS") or len(words) < 2 or words[-1] != head.lower_:
            kept.append(g)
            continue
        thing = next((n for n in nouns if n.lemma == head.lemma_.lower() and n.index != head.i), None)
        looks = doc[head.i - len(words) + 1 : head.i]
        if thing is None or not all(t.tag_ in ("JJ", "JJR", "JJS", "RB", "RBR", "RBS", "VBN") for t in looks):
            kept.append(g)
            continue
        value = " ".join(words[:-1])
        if not any(a.value == value for a in thing.attrs):
            thing.attrs.append(Attribute(value=value, kind="state", index=looks[0].i, phrase=value))
            thing.attributes.append(value)
    return kept


def _add_look(owner: Noun, value: str, kind: str, index: int, phrase: str) -> None:
    """A look read after the parse (a bracketed one, a quoted text's) given to its thing: its attribute, and the word in
    its colours or other describing words."""
    owner.attrs.append(Attribute(value=value, kind=kind, index=index, phrase=phrase))
    (owner.colors if kind == "color" else owner.attributes).append(value)


def _look_words(nouns: list[Noun], by_index: dict[int, Noun], owner: Noun | None, span: set[int]) -> set[int]:
    """The words of a look (token indices ``span``) are no look of any other thing than ``owner`` (their attributes are
    taken away) and no things of their own: the indices of the nouns to drop."""
    for n in nouns:
        if n is not owner:
            n.attrs = [a for a in n.attrs if a.index not in span]
    return {i for i in span if i in by_index and (owner is None or i != owner.index)}


def _bracketed_looks(doc, nouns: list[Noun], lex) -> list[Noun]:
    """A product title's colours or materials in brackets right after a thing ("three ceramic vases (matte white / sage
    green)", "two velvet cushions (mustard yellow)", "pair of table lamps (brass, opal glass)"): looks of that thing
    ("are the vases sage green?", "are the table lamps made of brass?"), never things of their own ("is there a
    matte?", "is there a mustard yellow?"). Only where every part between "/", ",", "and" ends in a colour or a
    material word ("(natural / charcoal)", "(blue stripe)" are left as read)."""
    by_index = {n.index: n for n in nouns}
    colours = lex["colors"] | lex["text_look_colours"]
    materials = lex["attribute_kinds"]["material"] | lex["material_nouns"] | lex["bracketed_materials"]
    dropped: set[int] = set()
    for open_ in (t for t in doc if t.text == "(" and t.i > 0):
        owner = by_index.get(open_.i - 1)
        close = next((t.i for t in doc[open_.i + 1 : open_.i + 12] if t.text == ")"), None)
        if owner is None or close is None or close == open_.i + 1:
            continue
        parts: list[list] = [[]]
        for t in doc[open_.i + 1 : close]:
            if t.text in ("/", ",", "&") or t.lower_ == "and":
                parts.append([])
            else:
                parts[-1].append(t)
        if any(not part or len(part) > 3 or not all(t.is_alpha for t in part) for part in parts):
            continue
        looks = []
        for part in parts:
            value = " ".join(t.lower_ for t in part)
            if part[-1].lower_ in colours:
                looks.append((value, "color", value, part[0].i))
            elif part[-1].lower_ in materials or _lemma(part[-1]) in materials:
                looks.append((value, "material", f"made of {value}", part[0].i))
            elif len(part) == 1 and value in lex["bracketed_looks"]:
                looks.append((value, "state", value, part[0].i))  # "candle holders (vintage)"
            else:
                break
        else:
            for value, kind, phrase, index in looks:
                if not any(a.value == value for a in owner.attrs):
                    _add_look(owner, value, kind, index, phrase)
            dropped |= _look_words(nouns, by_index, owner, set(range(open_.i + 1, close)))
    return [n for n in nouns if n.index not in dropped] if dropped else nouns


def _quote_looks(doc, nouns: list[Noun], quotes: list[Quote], text: str, lex) -> list[Noun]:
    """How a quoted text is lettered, said right after it (:func:`.quotes.text_looks`: "a poster that says 'stay home' in
    bold red font", "a sign with 'open' written in neon pink"): a look of the word that names the text right before the
    quote where one does ("the words 'good' and 'morning' in rainbow colors": "are the words in rainbow colors?"), else
    of the quote itself (``Quote.looks``: 'is the text "stay home" in bold red font?'). The look's words are no things
    ("is there neon?", "is there a sans-serif?"): those nouns are dropped (their relations go with them)."""
    by_index = {n.index: n for n in nouns}
    dropped: set[int] = set()
    for k, quote in enumerate(quotes):
        if k + 1 < len(quotes) and listed_together(text, quote, quotes[k + 1].char_start):
            continue  # ("'good' and 'morning' in rainbow colors": the look follows the list's last quote)
        found = text_looks(doc, quote.char_end, lex)
        if found is None:
            continue
        looks, (start, end) = found
        listed = [quote]
        for prev in reversed(quotes[:k]):
            if not listed_together(text, prev, listed[0].char_start):
                break
            listed.insert(0, prev)
        before = [t for t in doc if t.idx + len(t) <= listed[0].char_start and not t.is_quote]
        named = before[-1] if before else None
        owner = by_index.get(named.i) if named is not None and _in(named, lex["text_nouns"]) else None
        for value, kind, phrase in looks:
            if owner is not None:
                if not any(a.index == start or a.phrase in (phrase, value) or a.value == value for a in owner.attrs):
                    # (not again where the word's own look reads it: "the words ... in simple letters and colors")
                    _add_look(owner, value, kind, start, phrase)
                continue
            for q in listed:
                q.looks.append(Attribute(value=value, kind=kind, index=start, phrase=phrase))
        # (nor are they a look of another thing: "a street sign reading 'Elm St' in white" asks no "is the street sign
        # reading in white?")
        dropped |= _look_words(nouns, by_index, owner, set(range(start, end)))
    return [n for n in nouns if n.index not in dropped] if dropped else nouns


def parse_prompt(prompt: str, model: str = DEFAULT_SPACY_MODEL) -> Parse:
    """Read things, modifiers, relations, global tags and quotes out of ``prompt``.

    Never raises on text (a missing spaCy pipeline is a setting, and raises): a step that fails on an
    unforeseen input is logged and skipped (:mod:`.salvage`), and the parse holds what the other steps read."""
    lex = lexicon()
    nlp = load_spacy(model)
    has_flags = "--" in prompt or "—" in prompt  # a user prompt's flags ("--ar 16:9"): read, then dropped
    flagged = _flag_tags(prompt) if has_flags else []
    text = lex["flag_re"].sub(" ", prompt).rstrip() if has_flags else prompt
    if len(text) > 2 and text[0] == text[-1] == '"' and '""' in text[1:-1]:
        # a prompt pasted as a CSV field ('"two sofas and a 39"" table"'): the field's own quotes are no text to write
        text = text[1:-1].replace('""', '"')
    if "©" in text or "(c)" in text.lower() or "copyright" in text.lower():
        text = _CREDIT.sub("", text)
    if "stock" in text.lower():
        text = _STOCK_ID.sub("", _STOCK.sub(". ", text).replace(".. ", ". "))
    if "lose up" in text.lower():  # "a close up of a cat", "close up photo": the one word "close-up", the picture's frame
        text = _CLOSE_UP.sub(lambda m: m.group(1) + "-" + m.group(2), text)
    if " k" in text:
        text = _SPACED_K.sub(r"\1k", text)
    if _GLUED_RESOLUTION.search(text):
        # "a castle on a hill 8k", "a cyberpunk city 4 k, photo": a resolution after a thing's name, with no comma, is a
        # tag of the picture set off like any other ("is the image in 8k resolution?"), not a word of the name
        text = _GLUED_RESOLUTION.sub(_set_off_resolution, text)
        text = _set_off_look_before(text, model)
    if ":" in text[:40]:  # a shop's heading before a colon ("favorites: set of four buttons"): it labels the page, no thing
        text = lex["heading_re"].sub("", text)
    if "(" in text:  # "knives (optional) with a block": a note on how it is sold, no thing ("is there an optional?")
        text = lex["sale_note_re"].sub("", text)
    if "sale" in text.lower():  # "for sale croquet game": that a thing is sold no picture shows ("is there a sale?")
        text = lex["sale_re"].sub(" ", text).strip()
    if "::" in text:  # a user prompt's weighted parts ("zodiac tarot::2 moon"): the weight is no word, each part its own sentence
        text = _WEIGHT.sub(". ", text)
    if "ns " in text or "ds " in text or "les " in text:
        text = _BARE_POSSESSIVE.sub(r"\1's", text)
    with salvage("splitting a run-on pose text", text):
        text = _split_run_on_pose(text, lex["tag_parts"])
    with salvage("setting off runs of names", text):
        text = _set_off_name_run(text, model)
    with salvage("setting off titles", text):
        text = _set_off_titles(text, lex, model)
    with salvage("quoting unquoted text", text):
        text = _quote_unquoted_text(text, lex)
    if "  " in text:
        with salvage("setting off parts spaced apart", text):
            text = _set_off_spaced_parts(text, lex)
    if "tled " in text or "called " in text or "named " in text:
        with salvage("quoting titles", text):
            text = _quote_titles(text, lex)
    with salvage("joining prefixed looks", text):
        text = _join_prefixed_looks(text, lex, model)
    if " style " in text.lower():
        with salvage("joining a style before a name", text):
            text = _join_style(text, lex, model)
    try:
        doc = parse_with_stand_ins(nlp, text)
    except Exception as exc:  # e.g. a text over spaCy's max_length: nothing to read
        logger.warning("question generation could not parse %r: %s: %s", text[:120], type(exc).__name__, exc)
        return Parse(doc=nlp.make_doc(""), nouns=[], relations=[], quotes=[], globals=[], model=model)
    with salvage("joining hyphenated words", text):
        doc = _join_hyphens(doc)
    if "mm" in text:
        with salvage("joining widths", text):
            doc = _join_widths(doc)
    with salvage("joining looks said with a participle", text):
        doc = _join_participle_looks(doc, lex["participle_looks"], lex["participle_look_pairs"])
    _mend_parse(doc, lex, model)
    reader = _Reader(doc, lex, model)
    for step, read in (("things", reader.read_nouns), ("attributes", reader.read_attributes), ("relations", reader.read_relations)):
        with salvage(step, text):
            read()
    nouns = sorted(reader.nouns.values(), key=lambda n: n.index)
    quotes = []
    with salvage("quotes", text):
        quotes = read_quotes(text, doc, nouns, lex)
    with salvage("the looks of quoted text", text):
        nouns = _quote_looks(doc, nouns, quotes, text, lex)
    if "(" in text:
        with salvage("looks in brackets", text):
            nouns = _bracketed_looks(doc, nouns, lex)
    # nouns inside quotes are text, not objects
    quote_chars = [(q.char_start, q.char_end) for q in quotes]
    nouns = [n for n in nouns if not any(a <= doc[n.index].idx < b for a, b in quote_chars)]
    for n in nouns:  # nor is a word of the text a look of a thing ('vines in the shape of text  open your mind ': not "open")
        n.attrs = [t for t in n.attrs if not (0 <= t.index < len(doc) and any(a <= doc[t.index].idx < b for a, b in quote_chars))]
    kept = {n.index for n in nouns}
    relations = [r for r in reader.relations if r.subject in kept and r.obj in kept and all(i in kept for i in r.also)]
    # "four forks with ... forks": a thing cannot have or be part of a thing of the same name and look ("do the forks have
    # forks?"); placed by one it can ("person next to person": asked of "another person"); "each other" (one index) stays
    phrase = {n.index: (n.phrase.lower(), sorted(a.value for a in n.attrs)) for n in nouns}  # ("the green book on the red book")
    # a body part has no part of its own kind either, whatever its side ("the right leg with the left leg sticking out")
    lemma = {n.index: n.lemma for n in nouns}
    parts = lex["body_parts"]
    relations = [
        r for r in relations
        if r.subject == r.obj or not (r.kind == "part" or r.word in ("with", "having", "has", "have"))
        or phrase[r.subject] != phrase[r.obj] and not (lemma[r.subject] == lemma[r.obj] and lemma[r.subject] in parts)
    ]
    # "fruits with a white background", "a giraffe with a zebra in the background": a backdrop, or a thing placed in one,
    # is no part a thing has ("do the fruits have a background?")
    backdrops = lex["backdrops"]
    in_backdrop = {r.subject for r in relations if lemma[r.obj] in backdrops and r.kind == "prep" and r.word in ("in", "against")}
    relations = [
        r for r in relations
        if not (r.kind == "part" or r.word in ("with", "having")) or r.subject == r.obj
        or not (lemma[r.obj] in backdrops or r.obj in in_backdrop)
    ]
    # "the hubble telescope and the milky way, with the text '...'": a text set off by a comma is the picture's, not the
    # telescope's ("does the telescope have text?")
    relations = [r for r in relations if not (r.kind == "part" and _set_off_text(doc, r.obj, lex))]
    with salvage("texts a doer is with", text):
        relations = _texts_with_a_doer(doc, relations, quotes, lex)
    # "arms parallel to the floor": a pose word said with its place in a relation ("are the arms parallel to the floor?")
    # is not asked again alone ("are the arms parallel?")
    with salvage("pose words said with their place", text):
        poses = lex["pose_prepositions"]
        for n in nouns:
            said = {r.word.split()[0] for r in relations if r.subject == n.index and len(r.word.split()) > 1}
            n.attrs = [a for a in n.attrs if not (a.value in poses and a.value in said)]
    globals_ = reader.globals
    with salvage("tags that name a thing again", text):
        globals_ = _tags_naming_a_thing(doc, globals_, nouns)
    if flagged and len(doc):  # (recorded at the last word: a flag is no word of the text read)
        globals_ = [*globals_, *(GlobalTag(value=v, kind="style", index=len(doc) - 1, tag=True) for v in flagged)]
    return Parse(doc=doc, nouns=nouns, relations=relations, quotes=quotes, globals=globals_, model=model)
