"""Small readings of single tokens of the dependency parse: is it a thing, its name, its verb words, its place words."""

from __future__ import annotations

import re
from typing import Any

from autoalign.scoring.parse.lexicon import DEFAULT_SPACY_MODEL, _reads_as_name, _reads_as_noun, lexicon

_VOWELS = "aeiou"


def _is_noun(tok) -> bool:
    """A noun, or an adjective coordinated with one ("a pear, orange, and two bananas": the fruit)."""
    if tok.pos_ in ("NOUN", "PROPN"):
        return True
    if (
        tok.pos_ == "ADJ" and tok.dep_ == "conj" and tok.head.pos_ in ("NOUN", "PROPN") and tok.head.dep_ != "amod"
        and not any(c.dep_ == "amod" for c in tok.children)
    ):
        return True  # (not after a describing word the tagger read as a noun: "chunky, organic, colorful letters")
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
        and all(c.dep_ in ("det", "amod", "compound", "poss", "nummod", "prep", "punct", "advmod") for c in tok.children)
        and (not any(c.dep_ == "advmod" for c in tok.children) or any(c.dep_ == "det" and c.lower_ in ("a", "an") for c in tok.children))
    ):
        return True  # ("with a woolly mammoth outside": "mammoth" read as an adjective, an article makes it a thing)
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
        if c.dep_ == "compound" and c.i < tok.i and c.pos_ != "VERB" and any(ch.isalnum() for ch in c.text):  # (not a "." read as a name)
            out += _compounds(c) + [c]
    return out


def _word(tok) -> str:
    """The word as a question writes it: a common noun that only starts the sentence is lower case ("Woman with ...");
    so is a word the tagger took for a name there that is no name in lower case ("Dog running on the beach")."""
    if tok.is_sent_start and tok.text.istitle() and not tok.ent_type_ and (tok.pos_ != "PROPN" or _alone(tok) and _common_noun(tok.lower_)):
        return tok.lower_
    return tok.text


def _alone(tok) -> bool:
    """Whether a name-read word is a name of one word ("Dog running ..."), not a word of a longer one ("Captain Jack
    Sparrow", "Electric Poltergeist")."""
    after = tok.doc[tok.i + 1] if tok.i + 1 < len(tok.doc) else None
    return tok.dep_ != "compound" and (after is None or after.pos_ != "PROPN" and not after.text.istitle())


def _common_noun(word: str) -> bool:
    """Whether ``word`` (lower case) reads as a noun and not as a name: "dog" does, "ivan" does not."""
    return word.isalpha() and _reads_as_noun(word, DEFAULT_SPACY_MODEL) and not _reads_as_name(word, DEFAULT_SPACY_MODEL)


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
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subject is not None and _lemma(verb) in lexicon()["done_to_verbs"] and not any(c.dep_ == "det" for c in subject.children) and not any(
        c.dep_ in ("dobj", "dative") for c in verb.children
    ):
        return False  # "Twelve cupcakes with pink frosting arranged in a box": a title's participle ("are ... arranged?")
    return (
        verb.tag_ == "VBN" and verb.dep_ == "ROOT"
        and subject is not None and not any(c.dep_ in ("aux", "auxpass") for c in verb.children)
    )


def _done_to(verb) -> bool:
    """ "a poster of a clock, the clock faces painted on the screens", "..., the candles lit on the table": a past form of
    a verb of what is done to a thing (``done_to_verbs``) in a clause after the sentence's own verb, with no object, no
    auxiliary and a noun as its subject, is a participle: how the thing is ("are the candles lit on the table?"). Not
    "he painted the fence" (an object), "they painted on the wall" (a pronoun), nor a sentence's main verb ("The man
    painted on the wall.": what he did)."""
    if verb.tag_ not in ("VBD", "VBN") or _lemma(verb) not in lexicon()["done_to_verbs"]:
        return False
    if any(c.dep_ in ("dobj", "dative", "aux", "auxpass", "ccomp", "xcomp") for c in verb.children):
        return False
    if not (verb.lower_.endswith("ed") or verb.lower_ in _SAME_PAST_PARTICIPLE):
        return False  # ("drew" is no participle: "drawn")
    subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subject is None or subject.pos_ not in ("NOUN", "PROPN") or verb.lower_ == _lemma(verb):
        return False
    # a sentence's main verb is what its subject did ("The man painted on the wall."), unless the tagger hung a
    # verbless fragment before the comma on it ("a poster of a clock, the clock faces painted on ...")
    set_off = subject.left_edge.i > 0 and verb.doc[subject.left_edge.i - 1].text == ","
    fragment = any(c.dep_ == "dep" and c.pos_ in ("NOUN", "PROPN") and c.i < subject.i for c in verb.children)
    # ("3-d letters made from desserts, arranged on a plate": a participle set off after its thing by a comma)
    tag = verb.i > subject.i + 1 and verb.doc[verb.i - 1].text == ","
    return verb.dep_ != "ROOT" or set_off and fragment or tag


# irregular past forms that are also the participle ("lit", "set"), as ``_done_to`` needs them
_SAME_PAST_PARTICIPLE = frozenset({"lit", "set", "put", "laid", "hung", "spread", "stuck", "cut", "built", "made"})


def _verb_words(verb) -> tuple[str, str]:
    """(the verb as a question says it after "is the X", finite lemma or "") for a verb token."""
    if verb.lower_ in lexicon()["pose_states"] and verb.tag_ in ("VB", "VBD", "VBP", "VBN"):
        return verb.lower_, ""  # "knees bent forward" read as a present "bent": a pose ("are the knees bent?"), not "benting"
    if _done_to(verb):
        return verb.lower_, ""
    if verb.tag_ in ("VBG", "VBN") and not _past_read_as_participle(verb):
        return verb.lower_, ""
    lemma = _finite_lemma(verb)
    return ing_form(lemma), lemma


def _particle(verb) -> str:
    # not "over and over" (a repetition, not a particle: "tasting it over and over"); not a word after another thing
    # than the verb's object ("leaning toward the right with their right arm up": the arm is up, the person not "leaning
    # up"; "picking the cup up" keeps it)
    objects = {t.i for c in verb.children if c.dep_ in ("dobj", "dative") for t in c.subtree}
    prt = [
        c.lower_ for c in verb.children
        if c.dep_ == "prt" and not any(g.dep_ == "cc" for g in c.children)
        and not any(t.pos_ in ("NOUN", "PROPN", "PRON") and t.i not in objects for t in verb.doc[verb.i + 1 : c.i])
    ]
    return " ".join(prt)


def _conjuncts(tok) -> list[Any]:
    """``tok`` and the nouns coordinated with it ("a pear, orange, and two bananas"). A list set off by commas with no
    "and" / "or" anywhere is a user prompt's run of tags ("groceries in the air, Kodak, Fuji film, IMAX"; "chic hat, hip
    skirt, groceries in the air"), not a list of things: ``tok`` alone."""
    out, stack = [], [tok]
    while stack:
        t = stack.pop()
        out.append(t)
        stack.extend(c for c in t.children if c.dep_ in ("conj", "appos") and _is_noun(c))
    listed = [t for t in out if t.dep_ == "conj" and t.i != tok.i]
    span = tok.doc[tok.i : max(t.i for t in out)]
    if not any(t.dep_ == "cc" for t in span) and (len(listed) > 1 or any(t.text == "," for t in span)):
        # (also two, or one set off by an appositive comma: "chic hat, hip skirt, groceries in the air" is no list of
        # things in the air; "glowing chaos magic, occult" no list of what glows)
        out = [tok]
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


def _phrase_prep(tok, lex) -> tuple[str, Any] | None:
    """(the preposition after it, its object) when ``tok`` is the noun of a three-word preposition ("in line with the
    shoulder": ("with", shoulder)); ``phrase_prep_nouns`` in the word lists."""
    after = lex["phrase_prep_nouns"].get(_lemma(tok))
    if after is None or tok.dep_ != "pobj" or tok.head.lower_ not in ("in", "at") or any(c.dep_ in ("det", "amod", "compound") for c in tok.children):
        return None
    prep = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == after), None)
    inner = next((c for c in prep.children if c.dep_ == "pobj"), None) if prep is not None else None
    return (after, inner) if inner is not None else None


def _prep_relation(prep, lex) -> tuple[str, Any] | None:
    """(preposition words, object noun) of a ``prep`` token, joining "next to", "in front of", "on top of"."""
    pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
    if pobj is None:
        pcomp = next((c for c in prep.children if c.dep_ == "pcomp" and c.pos_ == "ADP"), None)  # "from behind X"
        pobj = next((c for c in pcomp.children if c.dep_ == "pobj"), None) if pcomp is not None else None
        of = next((c for c in prep.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        if pobj is None and of is not None and prep.lower_ in lex["compound_prep_nouns"]:  # "inside of the bowl"
            pobj = next((c for c in of.children if c.dep_ == "pobj"), None)
            if pobj is not None:
                return f"{prep.lower_} of", pobj
        if pobj is None:
            return None
    if _lemma(pobj) in lex["not_things"]["quantity"] and prep.lower_ not in ("in", "into", "inside", "within", "among", "of") or _measure_of_stuff(pobj, lex):
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
    phrase = _phrase_prep(pobj, lex)
    if phrase is not None:  # "in line with X", "in contact with X"
        return f"{words} {pobj.lower_} {phrase[0]}", phrase[1]
    if _lemma(pobj) in lex["compound_prep_nouns"]:  # "in front of X", "to the left of X"
        of = next((c for c in pobj.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        inner = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
        if inner is not None and _measure_of_stuff(inner, lex):  # "in front of a body of water": the water
            stuff_of = next((c for c in inner.children if c.dep_ == "prep" and c.lower_ == "of"), None)
            inner = next((c for c in stuff_of.children if c.dep_ == "pobj"), inner) if stuff_of is not None else inner
        if inner is not None:
            det = next((c.lower_ for c in pobj.children if c.dep_ == "det"), "")
            return " ".join(w for w in (words, det, pobj.lower_, "of") if w), inner
    return words, pobj


def _negated(tok) -> bool:
    """Whether the prompt says ``tok`` is not so: "not joined", "is not clear", "not sitting on ..." (a ``neg`` on the word,
    or on the "be" / linking verb whose describing word it is). A negated fact is not asked (its question would expect
    "yes")."""
    if any(c.dep_ == "neg" for c in tok.children):
        return True
    return tok.dep_ in ("acomp", "attr", "oprd") and any(c.dep_ == "neg" for c in tok.head.children)


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
        if _in(tok, words) and not (kind == "material" and tok.tag_ == "VBG"):  # ("ironing clothes": no iron)
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
    objs = [c for c in verb.children if c.dep_ in ("dobj", "npadvmod") and c.i > verb.i]  # ("says 12:42", read as an adverb)
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


def _measure_of_stuff(tok, lex) -> bool:
    """ "a boat on a body of water", "a stretch of sand": a measure word (``stuff_measures``) whose "of" takes a bare
    singular noun names only that much of the stuff, no thing of its own; the stuff is the thing ("is the boat on the
    water?", not "is there a body?"). "the body of a car", "a body of a man" are bodies."""
    if _lemma(tok) not in lex["stuff_measures"]:
        return False
    of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    inner = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
    return inner is not None and inner.tag_ == "NN" and not any(c.dep_ in ("det", "poss", "nummod") for c in inner.children)
