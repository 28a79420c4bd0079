"""Tagger slips mended in the parse itself, before it is read (the reading then sees the sentence as written)."""

from __future__ import annotations

from autoalign.inflect import is_plural, singular
from autoalign.scoring.parse.lexicon import (
    _ing_verb,
    _lemma_index,
    _no_english_verb,
    _only_adjective,
    _reads_as_adjective,
    _reads_as_noun,
    _reads_as_seen_noun,
    _verb_of_ing,
    adjective_name,
    load_spacy,
)
from autoalign.scoring.parse.salvage import salvage
from autoalign.scoring.parse.tokens import _in, _lemma, _next, ing_form


def _join_hyphens(doc):
    """Make "wrap-around", "yin-yang" and "3-D" one word each (the parse of the word's head is kept)."""
    spans = [
        doc[t.i - 1 : t.i + 2]
        for t in doc
        if t.text == "-" and 0 < t.i < len(doc) - 1 and not doc[t.i - 1].whitespace_ and not t.whitespace_
        and (doc[t.i - 1].is_alpha or doc[t.i - 1].is_digit) and doc[t.i + 1].is_alpha  # ("3-D", "8-bit", "3-seater")
    ]
    if spans:
        from spacy.util import filter_spans

        with doc.retokenize() as retok:
            for span in filter_spans(spans):
                retok.merge(span)
    return doc


def _join_widths(doc):
    """Make "35mm" one word again (the tokenizer splits a number from "mm"): a film's or a lens's width, a look of the
    thing after it ("a 35mm camera": "is the camera 35mm?", not "are there 35 mm cameras?"), a style word alone."""
    spans = [
        doc[t.i - 1 : t.i + 1] for t in doc
        if t.lower_ == "mm" and t.i > 0 and doc[t.i - 1].like_num and not doc[t.i - 1].whitespace_ and doc[t.i - 1].text.isdigit()
    ]
    if spans:
        with doc.retokenize() as retok:
            for span in spans:
                after = doc[span.end] if span.end < len(doc) else None
                noun = after is not None and after.pos_ in ("NOUN", "PROPN")
                retok.merge(span, attrs={"TAG": "JJ", "POS": "ADJ"} if noun else {"TAG": "NN", "POS": "NOUN"})
    return doc


def _tree_ok(doc) -> bool:
    """Whether every word reaches its sentence's root by its heads (no loop: spaCy's own code crashes on one)."""
    for t in doc:
        seen, at = 0, t
        while at.head.i != at.i:
            at, seen = at.head, seen + 1
            if seen > len(doc):
                return False
    return True


def _saved(doc, tags: bool = False) -> list[tuple]:
    """Each word's head and dependency (and, with ``tags``, its tag and part of speech), for :func:`_put_back`."""
    return [(t.head.i, t.dep_, t.tag_, t.pos_) if tags else (t.head.i, t.dep_) for t in doc]


def _put_back(doc, saved: list[tuple]) -> bool:
    """When a mend left the heads of ``doc`` in a loop (:func:`_tree_ok`), put back what :func:`_saved` kept;
    whether it did."""
    if _tree_ok(doc):
        return False
    for t, kept in zip(doc, saved):
        t.head, t.dep_ = doc[kept[0]], kept[1]
        if len(kept) == 4:
            t.tag_, t.pos_ = kept[2], kept[3]
    return True


def _join_participle_looks(doc, words, pairs=frozenset()):
    """Make "heart shaped", "moroccan inspired", "pirate themed" one describing word of the thing after it (``words``:
    the participles that take such a word before them), not a heart that shapes the box ("is the box heart shaped?");
    and the listed ``pairs`` of a word and a participle of making ("hand drawn", "sun dried")."""
    spans, tags = [], []
    for t in doc:
        paired = t.i >= 1 and f"{doc[t.i - 1].lower_} {t.lower_}" in pairs
        if (t.lower_ not in words and not paired) or t.i < 1 or t.tag_ not in ("VBN", "JJ", "VBD", "VBG"):
            continue
        # "a powerful - looking vehicle": a hyphen set off by spaces joins the look as one without them does
        hyphen = t.i >= 2 and doc[t.i - 1].text == "-" and doc[t.i - 1].whitespace_ and doc[t.i - 2].whitespace_
        before = doc[t.i - 2] if hyphen else doc[t.i - 1]
        if not before.is_alpha or before.pos_ in ("DET", "NUM", "PRON", "ADP", "CCONJ", "AUX", "VERB") or before.like_num:
            continue
        if not before.whitespace_ or any(s.end > before.i for s in spans + tags):
            continue
        nxt = doc[t.i + 1] if t.i + 1 < len(doc) else None
        if paired and nxt is not None and nxt.pos_ == "ADJ" and nxt.dep_ == "amod" and nxt.head.i > nxt.i and t.head.i == nxt.head.i:
            nxt = nxt.head  # "nine hand painted ceramic plates": the plates' look, past the describing word between
            if nxt.pos_ in ("NOUN", "PROPN") and not any(s.end > before.i for s in spans + tags):
                spans.append(doc[before.i : t.i + 1])
            continue
        if t.i + 1 < len(doc) and doc[t.i + 1].pos_ in ("NOUN", "PROPN"):
            spans.append(doc[before.i : t.i + 1])
        elif (t.i + 1 == len(doc) or doc[t.i + 1].text in (",", ";")) and (before.i == 0 or doc[before.i - 1].text == ","):
            # "a mystical cat, occult inspired, dark": a tag of its own, one describing word of the picture's subject
            tags.append(doc[before.i : t.i + 1])
    if not spans and not tags:
        return doc
    saved = _saved(doc)  # (put back if the joins below would make a loop in the tree)
    for span in tags:
        before, t = span[0], span[-1]
        head = t if t.head.i == t.i or t.head.i >= span.start and t.head.i < span.end else t.head
        for w in span:
            if w.i != t.i:
                _rehang(w, t, "npadvmod")
        if head.i != t.i and head.pos_ in ("NOUN", "PROPN"):
            _rehang(t, head, "amod")
    for span in spans:
        before, t, after = span[0], span[-1], doc[span.end]
        while (after.dep_ == "compound" or after.pos_ == "ADJ" and after.dep_ == "amod") and after.head.i > after.i and after.head.pos_ in ("NOUN", "PROPN"):
            after = after.head  # "hand drawn flower icons": the look is the icons' (the last word of their name)
        for c in list(before.children):
            if c.dep_ == "nummod" and c.i < before.i:
                c.head = after  # "12 hand drawn flower icons": the number counts the icons
        if len(span) == 3:
            span[1].head, span[1].dep_ = t, "punct"
        if after.head.i == t.i:  # "a pirate themed party" read as a sentence (pirate themes party): the thing heads it
            rest = [c for c in t.children if c.i != after.i and not span.start <= c.i < span.end]
            subject = next((c for c in rest if c.dep_.startswith("nsubj")), None)
            if t.head.i == t.i and subject is not None and before.head.i not in (t.i, after.i):
                # "a woman at a pirate themed party": the woman heads the sentence, the party is where "at" points
                subject.head, subject.dep_ = subject, "ROOT"
                after.head, after.dep_ = before.head, before.dep_
                for c in rest:
                    if c is not subject:
                        c.head = subject
            else:
                after.head, after.dep_ = (after, "ROOT") if t.head.i == t.i else (t.head, t.dep_)
                for c in rest:
                    c.head = after
        before.head, before.dep_ = t, "npadvmod"
        t.head, t.dep_ = after, "amod"
    if _put_back(doc, saved):
        # "colors looking sculpture ... paper" with the sculpture under the participle's own object: no join
        return doc
    with doc.retokenize() as retok:
        for span in spans + tags:
            retok.merge(span, attrs={"TAG": "JJ", "POS": "ADJ"})
    return doc


# ---- tagger slips mended in the parse itself (the reading below then sees the sentence as written) ------------



def _rehang(tok, head, dep: str) -> None:
    """Hang ``tok`` on ``head``; never under a word of its own subtree (a loop in the tree crashes spaCy's own code)."""
    if head.i != tok.i and any(a.i == tok.i for a in head.ancestors):
        return
    tok.head = head
    tok.dep_ = dep


def _describe_instead(word, thing, dep_of=lambda c: c.dep_) -> None:
    """``word``'s object ``thing`` takes ``word``'s place in the tree (its head and relation, or the sentence's root),
    ``word``'s other children move to ``thing`` (each with ``dep_of(child)``), and ``word`` describes ``thing`` ("left
    arm", "multicolored fur", "adorable corgi": a describing word the tagger read as the head of its thing)."""
    if word.head.i == word.i:
        _rehang(thing, thing, "ROOT")
    else:
        _rehang(thing, word.head, word.dep_)
    for c in list(word.children):
        if c.i != thing.i:
            _rehang(c, thing, dep_of(c))
    _rehang(word, thing, "amod")


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


def _mend_wearer_verb(doc, lex) -> None:
    """ "yoda wearing a bad disguise walking down times square": the tagger hung "walking" on the disguise; a worn thing
    does not walk (``wearer_verbs``), the one who wears it does: the "-ing" word is rehung on the wearer ("is yoda
    walking down ...?", not "is the disguise walking down?")."""
    ing = {ing_form(v): v for v in lex["wearer_verbs"]}
    for p in doc:
        if p.tag_ in ("NN", "NNP") and p.lower_ in ing and p.dep_ == "dobj" and _lemma(p.head) == "wear" and p.i > 0:
            # "a bear wearing a scarf walking through the snow" read as one name, "scarf walking": the worn thing is the
            # word before it, the "-ing" word the wearer's verb
            worn = doc[p.i - 1]
            if worn.head.i != p.i or worn.dep_ != "compound" or worn.pos_ != "NOUN":
                continue
            wear = p.head
            for c in list(p.children):
                if c.i < worn.i and c.dep_ in ("det", "amod", "poss", "nummod", "compound"):
                    _rehang(c, worn, c.dep_)
            _rehang(worn, wear, "dobj")
            p.tag_, p.pos_, p.lemma_ = "VBG", "VERB", ing[p.lower_]
            p.dep_ = "acl"  # (rehung on the wearer below)
        elif (
            p.tag_ == "VBG" and p.dep_ == "acl" and _lemma(p) == "wear" and p.head.dep_ == "pobj" and p.head.head.dep_ == "prep"
            and p.head.head.head.pos_ == "VERB" and any(c.dep_ == "nsubj" and c.pos_ in ("NOUN", "PROPN") for c in p.head.head.head.children)
        ):
            # "An infant is sitting on a bed wearing glasses": the one who sits wears them, not the bed
            _rehang(p, p.head.head.head, "advcl")
            continue
        elif p.tag_ != "VBG" or p.dep_ != "acl" or _lemma(p) not in lex["wearer_verbs"]:
            continue
        worn = p.head if p.head.dep_ == "dobj" else doc[p.i - 1]
        made = worn.head.head if worn.dep_ == "pobj" and worn.head.lower_ in ("of", "from") else None
        if made is not None and made.tag_ == "VBN" and made.dep_ == "acl" and _lemma(made) in lex["making_verbs"]:
            worn = made.head  # "a man wearing a suit made of leaves sitting in an office": the suit is what is worn
        wear = worn.head
        if worn.dep_ != "dobj" or _lemma(wear) != "wear" or wear.i > worn.i:
            continue
        if wear.dep_ in ("acl", "relcl") and wear.head.pos_ in ("NOUN", "PROPN"):
            _rehang(p, wear.head, "acl")  # (the wearer is the noun "wearing" describes)
        else:
            _rehang(p, wear, "advcl")  # ("a man is wearing a hat walking ...": the wearer is the verb's subject)


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
    describing word, so a "pronoun" with an article of its own is a noun (not "the other", "the one": ``pronoun``).
    "Someone" / "somebody" as a subject or object is a person in the picture (asked "is there a person?")."""
    for tok in doc:
        if tok.pos_ == "PRON" and tok.lower_ in ("someone", "somebody") and tok.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj"):
            tok.pos_, tok.tag_, tok.lemma_ = "NOUN", "NN", tok.lower_  # "Someone is stretching": a person in the picture
            continue
        if tok.pos_ != "PRON" or tok.tag_ != "PRP" or not tok.is_alpha or _in(tok, lex["not_things"]["pronoun"]):
            continue
        if not any(c.dep_ == "det" and c.lower_ in ("a", "an", "the") and c.i < tok.i for c in tok.children):
            continue
        plural = is_plural(tok.text)
        tok.pos_, tok.tag_ = "NOUN", "NNS" if plural else "NN"
        tok.lemma_ = singular(tok.lower_) if plural else tok.lower_


def _mend_noun_in_noun_place(doc, lex, model: str) -> None:
    """ "interacting with a woolly mammoth" ("mammoth" tagged a describing word), "Grape vines in the shape of ..."
    ("vines" a verb): a word in a noun's place (a subject or an object) with an article or a noun compound of its own
    before it is a noun, when it reads as a thing one saw ("I saw a mammoth here"); a describing or degree word before it
    describes it ("is the mammoth woolly?"). Not words of place or amount ("to the left", "one behind the other":
    ``not_attributes``), and not a caption's head ("a small purple square to the left of ...": the world's captions keep
    the questions its models were trained on, ``tests/test_world_questions_frozen.py``)."""
    for tok in doc:
        if tok.pos_ in ("NOUN", "PROPN", "PRON", "NUM") or not tok.is_alpha or tok.lower_ in lex["not_attributes"]:
            continue
        if tok.lower_ in lex["direction_verbs"]["directions"] or tok.dep_ not in ("nsubj", "nsubjpass", "dobj", "pobj"):
            continue
        before = [c for c in tok.children if c.i < tok.i]
        article = any(c.dep_ == "det" and c.lower_ in ("a", "an", "the") for c in before)
        compound = any(c.dep_ == "compound" and c.pos_ in ("NOUN", "PROPN") for c in before)
        if not (article or compound) or not _reads_as_seen_noun(tok.lower_, model):
            continue
        plural = tok.tag_ == "VBZ" or is_plural(tok.text)
        tok.pos_, tok.tag_ = "NOUN", "NNS" if plural else "NN"
        tok.lemma_ = singular(tok.lower_) if plural else tok.lower_
        for c in before:
            if c.dep_ in ("advmod", "amod") and c.pos_ in ("ADV", "ADJ") and c.is_alpha and not _reads_as_seen_noun(c.lower_, model):
                c.pos_, c.tag_, c.dep_ = "ADJ", "JJ", "amod"  # "a woolly mammoth": woolly describes it


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


def _mend_body_side(doc, lex) -> None:
    """ "... with their right arm up and left arm bent": "left" / "right" right before a body part is its side, not a verb
    ("left arm" read as the verb "left" and its object): the part takes the verb's place, the side describes it."""
    for side in doc:
        part = _next(side)
        if side.lower_ not in ("left", "right") or part is None or part.lower_ not in lex["body_parts"] or part.pos_ != "NOUN":
            continue
        if side.head.i == part.i:
            side.dep_ = "amod"
        elif part.head.i == side.i:
            _describe_instead(side, part)
        else:
            continue
        side.pos_, side.tag_ = "ADJ", "JJ"


def _mend_leading_noun(doc, model: str) -> None:
    """ "monitor on table. bench on table.": a sentence read as an order ("monitor!") whose verb is its first word (or
    comes right after the nouns of its name: "Grape vines in the shape of ...", read as "grape" and a verb "vines"), with
    nothing but a place phrase after it (no subject, object or auxiliary) and a word that reads as a noun on its own, is
    a thing and its place; an "-ing" word after the place phrase is what the thing does ("train at station opening its
    doors": the train opens its doors)."""
    for sent in doc.sents:
        tok = sent.root
        names = [c for c in tok.children if c.dep_ == "compound" and c.pos_ == "NOUN"]  # "Grape vines in the shape of ..."
        first = min([tok.i] + [c.i for c in names])
        if tok.tag_ not in ("VB", "VBZ") or first != sent.start or tok.i - first != len(names) or tok.i + 1 >= sent.end:
            continue
        doing = [c for c in tok.children if c.dep_ == "advcl" and c.tag_ == "VBG" and c.i > tok.i + 2]
        if doc[tok.i + 1].dep_ != "prep" or any(c.dep_ not in ("prep", "punct", "compound") and c not in doing for c in tok.children):
            continue
        plural = tok.tag_ == "VBZ"
        if not _reads_as_noun(singular(tok.lower_) if plural else tok.lower_, model):
            continue
        tok.pos_, tok.tag_ = "NOUN", "NNS" if plural else "NN"
        tok.lemma_ = singular(tok.lower_) if plural else tok.lower_
        for c in doing:
            c.dep_ = "acl"


def _mend_part_read_as_verb(doc, lex) -> None:
    """ "face looking upward", "hand resting on the knee": a sentence that starts with a part of the body read as an order
    ("face!") whose "-ing" word follows is the part and what it does."""
    for sent in doc.sents:
        tok = sent.root
        if tok.i != sent.start or tok.tag_ not in ("VB", "VBP") or tok.lower_ not in lex["tag_parts"] or tok.i + 1 >= sent.end:
            continue
        doing = doc[tok.i + 1]
        if doing.tag_ != "VBG" or doing.head.i != tok.i or any(c.dep_ in ("nsubj", "dobj") for c in tok.children):
            continue
        _order_as_doer(tok, doing)


def _order_as_doer(tok, doing) -> None:
    """A sentence-opening word the tagger read as an order, with the "-ing" word after it as its child, re-hung as the
    noun doing it: the "-ing" word becomes the root and takes the word's other children."""
    for c in list(tok.children):
        if c.i != doing.i:
            _rehang(c, doing, c.dep_)
    _rehang(doing, doing, "ROOT")
    _rehang(tok, doing, "nsubj")
    tok.pos_, tok.tag_, tok.lemma_ = "NOUN", "NN", tok.lower_


def _mend_capital_noun_read_as_order(doc, model: str) -> None:
    """ "Cow eating grass on a meadow, vector illustration": a capitalised first word read as an order ("Cow!") with an
    "-ing" word right after it is the thing doing it when the same words written in lower case read so ("cow eating
    grass": a cow and what it does), not a verb with no thing at all."""
    for sent in doc.sents:
        tok = sent.root
        if tok.i != sent.start or tok.tag_ not in ("VB", "VBP") or not tok.text[:1].isupper() or tok.i + 1 >= sent.end:
            continue
        doing = doc[tok.i + 1]
        if doing.tag_ != "VBG" or doing.head.i != tok.i or any(c.dep_ in ("nsubj", "dobj", "aux") for c in tok.children):
            continue
        words = doc[sent.start : min(sent.end, sent.start + 4)].text
        again = load_spacy(model)(words[:1].lower() + words[1:])
        if again[0].pos_ != "NOUN" or again[1].tag_ != "VBG" or again[1].head.i != 0:
            continue
        _order_as_doer(tok, doing)


def _mend_part_participle(doc, lex) -> None:
    """ "hand touching face", "foot touching ground": an "-ing" word the tagger read as a describing word of the thing
    after it ("a touching face"), right after a body part, is what the part does to that thing."""
    parts = lex["body_parts"]
    for t in doc:
        if t.i < 1 or t.i + 1 >= len(doc) or not t.lower_.endswith("ing") or t.dep_ != "amod" or t.head.i != t.i + 1:
            continue
        part, thing = doc[t.i - 1], doc[t.i + 1]
        if not _in(part, parts) or thing.pos_ not in ("NOUN", "PROPN"):
            continue
        if part.head.i == thing.i:  # "right foot touching ground" read as the ground's foot: the foot takes its place
            _rehang(part, part if thing.head.i == thing.i else thing.head, thing.dep_)
        if any(a.i in (t.i, thing.i) for a in part.ancestors):
            continue  # (a tree the rehanging would loop: left as read)
        if part.pos_ not in ("NOUN", "PROPN"):  # ("hand/VB touching face": the part read as a verb)
            part.pos_, part.tag_ = "NOUN", "NNS" if part.lower_.endswith("s") else "NN"
            part.lemma_ = _lemma(part) if _lemma(part) in parts else part.lower_
        for c in list(t.children):
            _rehang(c, thing, c.dep_)
        _rehang(t, part, "acl")
        t.tag_, t.pos_ = "VBG", "VERB"
        _rehang(thing, t, "dobj")


def _mend_weight_subject(doc, lex) -> None:
    """ "both arms in front and weight is on elbows": the tagger made "weight" one more thing after "front" and "arms" the
    subject of "is on elbows"; the weight is what is on the elbows (no "are the arms on the elbows?")."""
    for verb in doc:
        if verb.lemma_ != "be" or verb.i < 1:
            continue
        weight = doc[verb.i - 1]
        subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        if subject is None or weight.dep_ != "conj" or _lemma(weight) not in lex["pose_nouns"]["weight"] or subject.i >= weight.i:
            continue
        _rehang(weight, verb, "nsubj")
        subject.dep_ = "dep"


def _mend_noun_read_as_past(doc, model: str) -> None:
    """ "Rubber latex maid at the store, chic hat": a noun the tagger read as a past verb whose subject is the bare noun
    before it ("latex maid" read as "latex maided") is the last word of one name, when the word has no past form of its
    own (its lemma is the word itself: not "cut", "set", "put" with an object) and reads as a noun alone."""
    for sent in doc.sents:
        tok = sent.root
        if tok.tag_ != "VBD" or tok.lemma_.lower() != tok.lower_ or tok.lower_.endswith("ed") or tok.i == sent.start:
            continue
        subject = doc[tok.i - 1]
        if subject.head.i != tok.i or subject.dep_ != "nsubj" or subject.pos_ != "NOUN" or any(c.dep_ == "det" for c in subject.children):
            continue
        if any(c.dep_ in ("dobj", "attr", "aux", "ccomp", "xcomp") for c in tok.children) or not _reads_as_noun(tok.lower_, model):
            continue
        for c in list(subject.children):
            if c.i < subject.i:
                _rehang(c, tok, c.dep_)
        _rehang(subject, tok, "compound")
        tok.pos_, tok.tag_ = "NOUN", "NN"


def _mend_noun_read_as_final_past(doc, model: str) -> None:
    """ "a cat sitting on a cat bed": the last word read as the sentence's past verb ("bed", with "a cat" sitting as its
    subject), when it has no past form of its own and reads as a noun alone, ends the name of the thing before it (the
    cat bed, on which the cat sits), not "is the cat sitting on another cat?", "is the cat bedding?"."""
    for sent in doc.sents:
        tok = sent.root
        if tok.tag_ not in ("VBD", "VBN") or tok.lemma_.lower() != tok.lower_ or tok.i < 2:
            continue
        if any(t.pos_ != "PUNCT" for t in doc[tok.i + 1 : sent.end]):
            continue  # (the sentence's last word)
        before = doc[tok.i - 1]
        if before.pos_ != "NOUN" or before.dep_ != "pobj" or not any(c.dep_ == "det" for c in before.children):
            continue
        subject = next((c for c in tok.children if c.dep_ == "nsubj" and c.pos_ in ("NOUN", "PROPN")), None)
        if subject is None or any(c.dep_ in ("dobj", "attr", "aux", "auxpass") for c in tok.children) or not _reads_as_noun(tok.lower_, model):
            continue
        saved = _saved(doc, tags=True)
        prep = before.head
        for c in list(tok.children):
            if c.i != subject.i:
                c.head = subject
        subject.head, subject.dep_ = subject, "ROOT"
        tok.head, tok.dep_ = prep, "pobj"
        for c in list(before.children):
            c.head = tok
        before.head, before.dep_ = tok, "compound"
        tok.tag_, tok.pos_ = "NN", "NOUN"
        _put_back(doc, saved)


def _mend_look_between_nouns(doc, lex, model: str) -> None:
    """ "kitchen tiled backsplash", "brick lined path through a garden": a sentence that opens with a bare noun, then a
    past form that WordNet also lists as a describing word ("tiled", "lined", "paneled"), then a bare noun, is a title of
    one thing with its look ("is the kitchen backsplash tiled?"), not the first thing doing something to the second
    ("does the kitchen tile the backsplash?"); a verb things do to things (``relation_verbs``: "dog chased cat"), a verb of
    making ("Artist painted mural") and a past form that is no describing word are left as read."""
    for sent in doc.sents:
        verb = sent.root
        if verb.tag_ not in ("VBD", "VBN") or not verb.lower_.endswith("ed") or verb.i == sent.start or verb.i + 1 >= sent.end:
            continue
        first, obj = doc[verb.i - 1], doc[verb.i + 1]
        if first.i != sent.start or first.pos_ != "NOUN" or first.head.i != verb.i or obj.pos_ != "NOUN" or obj.dep_ != "dobj" or obj.head.i != verb.i:
            continue
        makes = lex["making_verbs"] | lex["drawing_verbs"]  # ("Artist painted mural": a doer's act)
        if any(c.dep_ == "det" for c in (*first.children, *obj.children)) or verb.lemma_.lower() in lex["relation_verbs"] | makes:
            continue
        if verb.lower_ not in _lemma_index(model).get("adj", ()):
            continue
        saved = _saved(doc, tags=True)
        for c in list(verb.children):
            if c.i not in (first.i, obj.i):
                c.head = obj
        obj.head, obj.dep_ = obj, "ROOT"
        verb.head, verb.dep_, verb.tag_, verb.pos_ = obj, "amod", "VBN", "ADJ"
        first.head, first.dep_ = obj, "compound"
        _put_back(doc, saved)


def _mend_part_after_place_with_own_pose(doc, lex) -> None:
    """ "legs bent at the knees and arms raised", "bent at knee and body hunched over": a body part read as a second
    object of a place ("at the knees and arms") that has a pose word of its own right after it begins a clause of its own:
    the part does the pose ("are the arms raised?", "is the body hunched?"), not "are the legs bent at the arms?", "is the
    knee hunched?"."""
    parts = lex["body_parts"]
    for part in doc:
        place = part.head
        if part.dep_ != "conj" or not _in(part, parts) or place.dep_ != "pobj":
            continue
        if not _in(place, parts) or place.head.dep_ != "prep" or part.i + 1 >= len(doc):
            continue
        pose = doc[part.i + 1]
        if pose.tag_ not in ("VBN", "VBD") or pose.head.i not in (place.i, part.i, place.head.head.i):
            continue
        verb = place.head.head
        if verb.pos_ not in ("VERB", "ADJ", "AUX") or verb.i > part.i:
            continue
        saved = _saved(doc)
        if pose.head.i != verb.i:
            pose.head, pose.dep_ = verb, "conj"
        part.head, part.dep_ = pose, "nsubj"
        for c in list(part.children):
            if c.dep_ == "cc":
                c.head = verb
        _put_back(doc, saved)


def _mend_with_limb_on_small_part(doc, lex) -> None:
    """ "a girl kneeling on the left knee cap with the arms up": a limb or a larger part (``body_parts.whole``: arms,
    legs, head) after "with", hung on a part that is no whole of it (a knee, a foot, a hand: no ``whole`` word) that is
    the place of a verb, is said of the one who does the verb ("the girl is kneeling with the arms up"), not had by the
    smaller part ("does the knee cap have arms?")."""
    parts, whole = lex["body_parts"], lex["whole_parts"]
    for prep in doc:
        part = prep.head
        if prep.lower_ != "with" or prep.dep_ != "prep" or part.dep_ != "pobj" or part.head.dep_ != "prep" or prep.i != part.i + 1:
            continue
        if part.lower_ in lex["phrase_prep_nouns"]:
            continue  # ("with the hand level with the head": a pose word's own "with")
        names = [part, *[c for c in part.children if c.dep_ == "compound"]]
        if not any(_in(t, parts) for t in names) or any(_in(t, whole) for t in names):
            continue
        limb = next((c for c in prep.children if c.dep_ == "pobj"), None)
        verb = part.head.head
        if limb is None or not _in(limb, whole) or verb.pos_ != "VERB" or verb.i > part.i:
            continue
        saved = _saved(doc)
        _rehang(prep, verb, "prep")
        _put_back(doc, saved)


def _mend_verb_read_as_plural(doc, lex, model: str) -> None:
    """ "The metallic kettle whistles as the wooden spoon stirs the tea", "The pot simmers on the stove while the spatula
    stirs the soup": a plural noun right after a singular noun hung on it, whose singular is a verb of WordNet's, that
    opens a clause with "as", "while" or "when" (``clause_openers``; right after it, or after its place) is the first sentence's verb ("does
    the kettle whistle?"), not a thing ("are there kettle whistles?"); the clause is the verb's."""
    verbs, openers = _lemma_index(model).get("verb", ()), lex["clause_openers"]
    for tok in doc:
        if tok.tag_ != "NNS" or tok.i < 1 or not tok.is_lower or not tok.lower_.endswith("s") or tok.lower_.endswith("ss"):
            continue
        before = doc[tok.i - 1]
        if before.tag_ != "NN" or before.dep_ != "compound" or before.head.i != tok.i or tok.lower_[:-1] not in verbs:
            continue
        mark = next((t for t in doc[tok.i + 1 :] if t.lower_ in openers or t.tag_.startswith("VB") or t.text in (",", ";", ".")), None)
        if mark is None or mark.lower_ not in openers:
            continue  # (a verb or a stop before any "as": "the coffee cups on the table are ...")
        if mark.dep_ == "prep" and mark.head.i == tok.i and tok.dep_ == "nsubj" and tok.head.pos_ == "VERB" and tok.head.i > mark.i:
            clause, subject = tok.head, next((c for c in mark.children if c.dep_ == "pobj"), None)  # ("whistles as the spoon stirs")
        elif mark.dep_ == "mark" and tok.dep_ == "ROOT" and mark.head.dep_ == "advcl" and mark.head.head.i == tok.i:
            clause, subject = mark.head, None  # ("simmers on the stove while the spatula stirs")
        else:
            continue
        saved = _saved(doc, tags=True)
        root = tok.head if tok.dep_ != "ROOT" else tok
        for c in list(tok.children):
            if c.i < tok.i and c.dep_ in ("det", "amod") and c.i < before.i:
                _rehang(c, before, c.dep_)  # "The metallic": the kettle's
        _rehang(tok, tok, "ROOT")
        if root.i != tok.i:
            for c in list(root.children):
                if c.dep_ == "punct" and c.i > clause.i:
                    _rehang(c, tok, "punct")
        _rehang(before, tok, "nsubj")
        _rehang(clause, tok, "advcl")
        _rehang(mark, clause, "mark")
        if subject is not None:
            _rehang(subject, clause, "nsubj")
        tok.tag_, tok.pos_, tok.lemma_ = "VBZ", "VERB", tok.lower_[:-1]
        _put_back(doc, saved)


def _mend_ing_joined_to_place(doc) -> None:
    """ "A child is jumping on a trampoline and laughing": an "-ing" verb joined by "and" to the object of a preposition,
    with no subject nor object of its own, is joined to the "-ing" verb the preposition hangs on (the child is laughing),
    not said of the place ("is the trampoline laughing?")."""
    for tok in doc:
        place = tok.head
        if tok.tag_ != "VBG" or tok.dep_ != "conj" or place.dep_ != "pobj" or place.i > tok.i or place.head.dep_ != "prep":
            continue
        verb = place.head.head
        if verb.tag_ != "VBG" or verb.pos_ != "VERB" or any(c.dep_ in ("nsubj", "dobj", "nsubjpass") for c in tok.children):
            continue
        if not any(c.dep_ == "cc" and c.lower_ == "and" and place.i < c.i < tok.i for c in place.children):
            continue
        saved = _saved(doc)
        _rehang(tok, verb, "conj")
        for c in list(place.children):
            if c.dep_ == "cc" and place.i < c.i < tok.i:
                _rehang(c, verb, "cc")
        _put_back(doc, saved)


def _mend_only_adjective_read_as_noun(doc, lex, model: str) -> None:
    """ "A triangular orange picture frame", "its diamond shade and triangular base": a word that is only ever a describing
    word (WordNet lists it as one and never as a noun: "triangular", "pyramidal", "conical") read as a noun right before
    a thing's name describes that thing ("is the picture frame triangular?"), never a thing ("is there a triangular?")."""
    for tok in doc:
        if tok.pos_ != "NOUN" or not tok.is_alpha or not tok.is_lower or tok.i + 1 >= len(doc) or tok.lower_.endswith("ing"):
            continue  # (a name is left as read: "New York", "the United States"; so is an "-ing" name: "an operating room")
        if not _only_adjective(tok.lower_, model):
            continue
        target = doc[tok.i + 1]
        if adjective_name(tok.text, target.text, lex):
            continue  # ("a hot dog", "the milky way": one name)
        rest = doc[target.i + 1 :]
        if target.pos_ == "VERB" and target.tag_ in ("VB", "VBP") and target.dep_ == "ROOT" and all(t.is_punct for t in rest) and (
            target.lower_ in _lemma_index(model).get("noun", ()) and tok.head.i != target.i and tok.head.head.i == target.i
        ):
            # "a rectangular shelf and a pyramidal bookend" (read "... pyramidal bookend" as the shelf's verb): the last
            # word is the thing, listed where the describing word stood
            saved = _saved(doc, tags=True)
            subject = tok.head
            _rehang(subject, subject, "ROOT")
            for c in list(target.children):
                if c.i != subject.i:
                    _rehang(c, subject, c.dep_)
            _rehang(target, subject, tok.dep_)
            for c in list(tok.children):
                _rehang(c, target, c.dep_)
            _rehang(tok, target, "amod")
            tok.tag_, tok.pos_, tok.lemma_ = "JJ", "ADJ", tok.lower_
            target.tag_, target.pos_, target.lemma_ = "NN", "NOUN", target.lower_
            _put_back(doc, saved)
            continue
        while target.dep_ in ("compound", "amod") and target.head.i > target.i:
            target = target.head  # ("triangular orange picture frame": the frame; not past a name of its own, "nmod")
        if target.pos_ not in ("NOUN", "PROPN") or target.i <= tok.i or _in(target, lex["frame_nouns"]):
            continue  # (a picture word keeps its reading: "its oval crystals and triangular frame")
        saved = _saved(doc, tags=True)
        if any(a.i == tok.i for a in target.ancestors):
            _describe_instead(tok, target)
        else:
            _rehang(tok, target, "amod")
        tok.tag_, tok.pos_, tok.lemma_ = "JJ", "ADJ", tok.lower_
        _put_back(doc, saved)


def _mend_noun_read_as_look_before_tags(doc, model: str) -> None:
    """ "portrait of a fox wearing a scarf, cute, fluffy", "a tiny dragon sitting on a teacup, adorable, whimsical": a
    word WordNet knows only as a noun, after an article and a verb or preposition, read as a describing word right before
    a comma (the tagger takes the tags after it for its thing), is the thing the verb or preposition takes ("is the fox
    wearing the scarf?", "is the dragon on the teacup?")."""
    index = _lemma_index(model)
    if not index or "," not in doc.text:
        return
    for tok in doc:
        if tok.tag_ != "JJ" or not tok.is_alpha or not tok.is_lower or tok.i < 2 or tok.i + 1 >= len(doc) or doc[tok.i + 1].text != ",":
            continue
        det, head = doc[tok.i - 1], doc[tok.i - 2]
        if det.lower_ not in ("a", "an", "the") or tok.lower_ not in index.get("noun", ()) or tok.lower_ in index.get("adj", ()):
            continue
        if head.pos_ not in ("ADP", "VERB") or any(c.dep_ in ("pobj", "dobj") and c.i != tok.i for c in head.children if c.i < tok.i):
            continue
        saved = _saved(doc, tags=True)
        for c in list(head.children):  # (a tag the tagger hung on the preposition instead: "..., pixar style")
            if c.i > tok.i and c.dep_ in ("pobj", "dobj"):
                _rehang(c, tok, "appos")
        _rehang(tok, head, "pobj" if head.pos_ == "ADP" else "dobj")
        _rehang(det, tok, "det")
        tok.tag_, tok.pos_, tok.lemma_ = "NN", "NOUN", tok.lower_
        _put_back(doc, saved)


def _mend_adjective_on_verb(doc) -> None:
    """ "cute girl smiling while crying": a describing word hung on the verb after the thing it stands before (the thing
    the verb's subject) describes the thing."""
    for adj in doc:
        verb = adj.head
        if adj.dep_ != "amod" or adj.pos_ != "ADJ" or verb.pos_ != "VERB" or verb.i < adj.i:
            continue
        thing = next((t for t in doc[adj.i + 1 : verb.i] if t.pos_ in ("NOUN", "PROPN") and t.head.i == verb.i), None)
        if thing is None or thing.dep_ not in ("nsubj", "nsubjpass") or any(t.pos_ not in ("ADJ", "NOUN", "PROPN", "PUNCT") for t in doc[adj.i + 1 : thing.i]):
            continue
        _rehang(adj, thing, "amod")


def _mend_adjective_read_as_past(doc, model: str) -> None:
    """ "studio shot multicolored fur in the shape of ...": a word the tagger read as a past verb that WordNet knows as a
    describing word and never as a verb ("multicolored", "bearded"), or a describing word it gave an object (which no
    describing word takes), right before that object, describes it; the object takes the word's place in the sentence
    ("is the fur multicolored?")."""
    for tok in doc:
        if tok.tag_ not in ("VBD", "VBN", "JJ") or not tok.is_lower or not tok.is_alpha:
            continue
        # (a describing word takes no object: one the tagger gave one is read so too, "multicolored/JJ yarn/dobj")
        if tok.tag_ != "JJ" and not (_no_english_verb(tok.lower_, model) and _no_english_verb(tok.lemma_.lower(), model) and _reads_as_adjective(tok.lower_, model)):
            continue
        obj = next((c for c in tok.children if c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN") and c.i > tok.i), None)
        if obj is None or any(t.head.i != obj.i or t.dep_ not in ("amod", "compound") for t in doc[tok.i + 1 : obj.i]):
            continue
        saved = _saved(doc, tags=True)
        _describe_instead(tok, obj, lambda c: c.dep_ if c.dep_ not in ("nsubj", "nsubjpass") else "dep")
        tok.tag_, tok.pos_ = "JJ", "ADJ"
        _put_back(doc, saved)


def _mend_leading_adjective(doc) -> None:
    """ "adorable cute silly happy corgi puppy, enamel pin": a describing word that starts a sentence, read as the
    sentence's head with the thing after it as its object, describes that thing (the thing heads the sentence)."""
    for sent in doc.sents:
        adj = sent.root
        if adj.pos_ != "ADJ" or adj.i != sent.start:
            continue
        thing = next((c for c in adj.children if c.dep_ in ("dobj", "attr", "npadvmod") and c.pos_ in ("NOUN", "PROPN")), None)
        if thing is None or any(t.head.i != thing.i or t.dep_ not in ("amod", "compound") for t in doc[adj.i + 1 : thing.i]):
            continue  # ("happy is the dog": a verb between)
        _describe_instead(adj, thing)  # (what hung on the describing word now hangs on the thing: ", enamel pin")


def _mend_frame_verb(doc, lex) -> None:
    """ "Studio shot of words made from hotdogs": a frame noun ("shot") read as a verb whose subject is the noun right
    before it and that is followed by "of" is the frame, that noun its compound ("a studio shot")."""
    for tok in doc:
        if tok.pos_ != "VERB" or tok.lower_ not in lex["frame_nouns"] or tok.i < 1 or tok.i + 1 >= len(doc):
            continue
        before, after = doc[tok.i - 1], doc[tok.i + 1]
        if before.head.i != tok.i or before.dep_ != "nsubj" or before.pos_ != "NOUN" or after.lower_ != "of" or after.head.i != tok.i:
            continue
        if any(c.dep_ in ("aux", "auxpass", "dobj") for c in tok.children):
            continue  # "a man is shot of ..." / "shot a deer" are verbs
        if tok.head.i != tok.i:
            continue
        tok.pos_, tok.tag_, tok.lemma_ = "NOUN", "NN", tok.lower_
        _rehang(before, tok, "compound")


def _mend_frame_tag_verb(doc, lex) -> None:
    """ "Saturn's Son devouring Him, painting by francisco goya": a frame noun that opens a fragment and is followed by
    "by" (``frame_nouns``: "painting", "drawing", "sketch") is the picture's frame and its artist, not what the thing
    before the comma does ("is the Son painting?")."""
    for tok in doc:
        if tok.pos_ not in ("VERB", "AUX") or tok.lower_ not in lex["frame_nouns"] or tok.i < 1 or tok.i + 1 >= len(doc):
            continue
        if doc[tok.i - 1].text != "," or doc[tok.i + 1].lower_ != "by":
            continue
        tok.pos_, tok.tag_, tok.lemma_ = "NOUN", "NN", tok.lower_
        if tok.head.i != tok.i:
            _rehang(tok, tok.head, "appos")


def _mend_film_still(doc, lex) -> None:
    """ "35mm film still of a woman in a diner", "a movie still from ...": "still" read as an adverb on the film is the
    frame (a picture from a film), the film its compound (``film_still_nouns``), not "is there a film?"."""
    for still in doc:
        if still.lower_ != "still" or still.pos_ != "ADV" or still.i < 1:
            continue
        film = doc[still.i - 1]
        if film.lower_ not in lex["film_still_nouns"] or film.pos_ not in ("NOUN", "PROPN") or film.dep_ == "nsubj":
            continue
        still.pos_, still.tag_, still.lemma_ = "NOUN", "NN", "still"
        if film.head.i == film.i:
            _rehang(still, still, "ROOT")
        else:
            _rehang(still, film.head, film.dep_)
        for c in list(film.children):
            if c.i != still.i and not (c.i < film.i and c.dep_ in ("det", "nummod", "compound", "amod")):
                _rehang(c, still, c.dep_)  # "... of a woman": of the still
        _rehang(film, still, "compound")


def _mend_made_of_participle(doc, lex) -> None:
    """ "a man made of swirling smoke": an "-ing" word after "made of" read as a verb with the material its object
    describes the material ("swirling smoke"), which is what the thing is made of (not "is the man swirling smoke?")."""
    for ing in doc:
        if ing.tag_ != "VBG" or ing.dep_ != "pcomp" or ing.head.lower_ not in ("of", "from") or ing.i + 1 >= len(doc):
            continue
        prep, material = ing.head, doc[ing.i + 1]
        if _lemma(prep.head) not in lex["making_verbs"] or material.head.i != ing.i or material.dep_ != "dobj" or material.pos_ != "NOUN":
            continue
        if any(c.dep_ == "det" for c in material.children):
            continue  # "made of recycling the cans" would be an act
        _rehang(material, prep, "pobj")
        for c in list(ing.children):
            if c.i != material.i:
                _rehang(c, material, c.dep_)
        _rehang(ing, material, "amod")
        ing.pos_ = "ADJ"


def _without_articles(doc) -> bool:
    """No "a", "an" or "the" anywhere: a relation list or a shop's title, not a sentence."""
    return not any(t.lower_ in ("a", "an", "the") for t in doc)


def _mend_listed_verb(doc, lex) -> None:
    """ "person ride boat. bear walk past grass": in a list of short sentences written without articles (a relation
    list), a verb of ``relation_verbs`` between two things that the tagger read as a noun compound ("person ride boat",
    "bear walk") is the verb ("does the person ride the boat?"), not one long name ("is there a person ride boat?").
    One such sentence alone is a relation too when it is written all in lower case and places the thing with a
    preposition ("bus park behind bus": a bus parked behind another, not "is there a bus park?"); a title is
    capitalised ("Car park near the beach")."""
    if not _without_articles(doc):
        return
    alone = len(list(doc.sents)) < 2
    if alone and doc.text != doc.text.lower():
        return
    for sent in doc.sents:
        words = [t for t in sent if not t.is_punct]
        if len(words) not in (3, 4) or (alone and len(words) != 4):
            continue
        subject, verb, last = words[0], words[1], words[-1]
        if verb.lower_ not in lex["relation_verbs"] or verb.pos_ not in ("NOUN", "PROPN") or verb.i != subject.i + 1:
            continue
        if subject.pos_ not in ("NOUN", "PROPN") or last.pos_ not in ("NOUN", "PROPN"):
            continue
        if len(words) == 4 and (words[2].pos_ != "ADP" or last.head.i != words[2].i):
            continue
        verb.pos_, verb.tag_, verb.lemma_ = "VERB", "VBP", verb.lower_
        _rehang(verb, verb, "ROOT")
        _rehang(subject, verb, "nsubj")
        if len(words) == 3:
            _rehang(last, verb, "dobj")
        else:
            _rehang(words[2], verb, "prep")


def _mend_ing_thing_after_preposition(doc, lex) -> None:
    """ "roof on building", "truck near building": an "-ing" word that names a thing (``ing_things``: a building, a
    ceiling, a painting) taken by a preposition, with nothing of a verb's after it (no object, place or adverb), is that
    thing, where the other thing is ("is the roof on the building?"), not what the thing does ("is the roof building?")."""
    for tok in doc:
        if tok.tag_ != "VBG" or tok.lower_ not in lex["ing_things"] or tok.dep_ not in ("pcomp", "pobj", "dep"):
            continue
        if tok.head.pos_ != "ADP" or tok.head.i != tok.i - 1 or list(tok.children):
            continue
        tok.tag_, tok.pos_, tok.lemma_, tok.dep_ = "NN", "NOUN", tok.lower_, "pobj"


def _mend_title_noun(doc, lex) -> None:
    """ "gift set three candles", "books set anthony horowitz collection", "USB icon sign nine buttons": in a title
    written without articles, a noun of a shop's title that is also a verb (``title_nouns``: set, sign, pack, kit) right
    after a noun is that noun's name (a gift set, a books set), not its verb ("does the gift set the candles?"); what
    follows is a thing of its own. Not a verb of a relation list (``relation_verbs``: "person hold box")."""
    if not _without_articles(doc[1:]):  # (a title may open with "the": "the famous five books set enid blyton collection")
        return
    for tok in doc:
        if tok.lower_ not in lex["title_nouns"] or tok.lower_ in lex["relation_verbs"] or tok.i == 0:
            continue
        before = doc[tok.i - 1]
        if tok.dep_ == "acl" and tok.head.i == before.i and before.pos_ == "NOUN" and tok.tag_ in ("VBN", "VBD"):
            # ("books set enid blyton collection" read as books that were set: the set is the thing, the books its name)
            obj = next((c for c in tok.children if c.dep_ == "dobj"), None)
            if obj is None or any(c.dep_ in ("aux", "auxpass", "neg", "prt", "prep") for c in tok.children) or any(c.dep_ == "det" for c in obj.children):
                continue
            saved = _saved(doc, tags=True)
            _rehang(tok, tok, "ROOT") if before.head.i == before.i else _rehang(tok, before.head, before.dep_)
            _rehang(before, tok, "compound")
            _rehang(obj, tok, "appos")
            tok.tag_, tok.pos_, tok.lemma_ = "NN", "NOUN", tok.lower_
            _put_back(doc, saved)
            continue
        if before.pos_ not in ("NOUN", "PROPN") or before.head.i != tok.i or before.dep_ not in ("nsubj", "compound"):
            continue
        if tok.pos_ != "VERB" and not (tok.dep_ == "ROOT" and before.dep_ == "nsubj"):
            continue
        if not any(c.dep_ in ("dobj", "appos") for c in tok.children) or any(c.dep_ in ("aux", "neg", "prt") for c in tok.children):
            continue
        tok.tag_, tok.pos_, tok.lemma_ = "NN", "NOUN", tok.lower_
        before.dep_ = "compound"


def _mend_colour_before_look(doc, lex) -> None:
    """ "cream spotted leggings", "a red colored sofa", "olive striped shirt": a colour word right before a describing
    word made of a past participle (spotted, striped, colored) that stands before its thing is that thing's colour, not
    a thing ("is there cream?") nor a look of the participle; a participle of ``coloured_words`` adds nothing to it."""
    for tok in doc:
        if tok.lower_ not in lex["colors"] or tok.i + 2 >= len(doc):
            continue
        look, thing = doc[tok.i + 1], doc[tok.i + 2]
        if look.tag_ not in ("VBN", "VBD", "JJ") or not look.lower_.endswith("ed") or thing.tag_ not in ("NN", "NNS"):
            continue
        if tok.head.i not in (look.i, thing.i) or (tok.head.i == thing.i and tok.dep_ == "amod" and tok.pos_ == "ADJ"):
            continue
        saved = _saved(doc, tags=True)
        if look.dep_ == "ROOT" or (look.head.i != thing.i and thing.head.i == look.i):
            _describe_instead(look, thing, lambda c: c.dep_ if c.dep_ not in ("nsubj", "dobj") else "amod")
        look.tag_, look.pos_ = "VBN", "ADJ"
        tok.tag_, tok.pos_, tok.lemma_ = "JJ", "ADJ", tok.lower_
        _rehang(tok, thing, "amod")
        _put_back(doc, saved)


def _mend_split_look(doc, lex) -> None:
    """ "two elephants are small and one is large", "four apples are green and two are red": when a clause joined to a
    look of counted things says a look of "one", "the other" or a number of them, the things are split and the first
    look is said of some of them only: it is not asked of them all ("are the elephants small?")."""
    for verb in doc:
        if verb.lemma_ != "be" or verb.dep_ not in ("ROOT", "conj"):
            continue
        subject = next((c for c in verb.children if c.dep_ == "nsubj"), None)
        looks = [c for c in verb.children if c.dep_ == "acomp"]
        if subject is None or not looks or subject.pos_ not in ("NOUN", "PROPN"):
            continue
        split = [
            c for c in verb.children if c.dep_ == "conj" and c.lemma_ == "be"
            and any(s.dep_ == "nsubj" and (s.lower_ in ("one", "other", "others", "rest") or s.like_num) and not s.head.i == subject.i
                    for s in c.children)
        ]
        if not split:
            continue
        for look in looks + [a for c in split for a in c.children if a.dep_ == "acomp"]:
            look.dep_ = "dep"


def _mend_place_read_as_frame_modifier(doc, lex) -> None:
    """ "a castle on a hill, 8k, photo": a picture word (``frame_nouns``) read as the object of a preposition, with the
    place written before it hung on it across commas (a list "hill, 8k, photo"), is a tag of the picture; the place is
    the preposition's object ("is the castle on the hill?", not "is the castle on the photo?")."""
    for frame in doc:
        if frame.dep_ != "pobj" or frame.lower_ not in lex["frame_nouns"] or frame.head.pos_ != "ADP":
            continue
        place = next((c for c in frame.children if c.dep_ in ("nmod", "compound") and c.i < frame.i and c.pos_ in ("NOUN", "PROPN")), None)
        if place is None or not any(t.text == "," for t in doc[place.i + 1 : frame.i]):
            continue
        saved = _saved(doc)
        prep = frame.head
        _rehang(place, prep, "pobj")
        _rehang(frame, place, "appos")
        _put_back(doc, saved)


def _mend_frame_read_as_doer(doc, lex) -> None:
    """ "a close-up of a baseball player catching a ball": a picture word (``frame_nouns``) with an "of" read as the
    subject of an "-ing" verb is the picture; the thing after "of" is the one doing it ("is the baseball player catching
    the ball?"), as in "a photo of a baseball player catching a ball"."""
    for frame in doc:
        verb = frame.head
        if frame.dep_ != "nsubj" or not _in(frame, lex["frame_nouns"]) or verb.tag_ != "VBG" or verb.dep_ != "ROOT" or verb.i < frame.i:
            continue
        if any(c.dep_ in ("aux", "auxpass") for c in verb.children):
            continue  # ("a photo of a cat is hanging on the wall": said of the photo)
        of = next((c for c in frame.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        doer = next((c for c in of.children if c.dep_ == "pobj" and c.pos_ in ("NOUN", "PROPN")), None) if of is not None else None
        if doer is None or doer.i > verb.i:
            continue
        saved = _saved(doc)
        _rehang(frame, frame, "ROOT")
        for c in list(verb.children):
            if c.dep_ == "punct" and c.i > verb.i:
                _rehang(c, frame, "punct")
        _rehang(verb, doer, "acl")
        _put_back(doc, saved)


def _mend_upside_down_place(doc) -> None:
    """ "the boat is upside down on the beach": "down" of "upside down" says how the thing is turned, not where it is; the
    place after it is the thing's ("is the boat on the beach?", not "is the boat down on the beach?")."""
    for down in doc:
        if down.lower_ != "down" or down.i < 1 or doc[down.i - 1].lower_ != "upside" or down.head.i == down.i:
            continue
        for c in list(down.children):
            if c.dep_ == "prep" and c.i > down.i:
                _rehang(c, down.head, "prep")


def _mend_adjective_name(doc, lex) -> None:
    """ "a hot dog on a plate", "the milky way over a lake": a describing word and a noun that together name one kind of
    thing (``adjective_names``) are one name ("is there a hot dog?"), the describing word no look ("is the dog hot?")."""
    for adj in doc:
        noun = adj.head
        # "a single cloud in the sky", "a single red rose": "single" says how many, no look ("is the cloud single?"); it
        # stays in the name ("is there a single cloud?"), as DSG's annotators keep it
        single = adj.lower_ == "single" and adj.dep_ == "amod" and noun.tag_ in ("NN", "NNP") and noun.i > adj.i and all(
            t.head.i == noun.i and t.dep_ in ("amod", "compound") for t in doc[adj.i + 1 : noun.i])
        if single:
            adj.dep_, adj.pos_, adj.tag_ = "compound", "NOUN", "NN"
            continue
        if adj.dep_ != "amod" or adj.head.i != adj.i + 1 or adj.head.pos_ not in ("NOUN", "PROPN"):
            continue
        if not adjective_name(adj.lower_, noun.lower_, lex):
            continue
        adj.dep_, adj.pos_, adj.tag_ = "compound", "NOUN", "NN"


def _mend_noun_after_look_read_as_past(doc, lex, model: str) -> None:
    """ "a single rose in a vase", "a single red rose": a past verb whose subject is a describing word opened by an
    article ("a single", "the red", "a single red") is a noun of that phrase (the rose), when it reads as a noun alone: an
    article and describing words open a noun phrase, never a sentence."""
    for tok in doc:
        if tok.tag_ != "VBD" or tok.dep_ != "ROOT" or tok.i < 2:
            continue
        look = doc[tok.i - 1]
        first = tok.i - 1  # ("a single red rose": every describing word after the article)
        while first - 1 > 0 and doc[first - 1].tag_ == "JJ":
            first -= 1
        if not (look.tag_ == "JJ" or look.lower_ in lex["colors"] and first < tok.i - 1) or look.dep_ != "nsubj" or look.head.i != tok.i or doc[first - 1].lower_ not in ("a", "an", "the"):
            continue
        if any(c.dep_ in ("dobj", "attr", "aux", "auxpass", "acomp", "xcomp", "ccomp") for c in tok.children) or not _reads_as_noun(tok.lower_, model):
            continue
        saved = _saved(doc, tags=True)
        tok.pos_, tok.tag_, tok.lemma_ = "NOUN", "NN", tok.lower_
        for word in doc[first : tok.i]:
            _rehang(word, tok, "amod")
        _rehang(doc[first - 1], tok, "det")
        _put_back(doc, saved)


def _mend_frame_participle(doc, lex) -> None:
    """ "a matte painting by marc simonetti": a frame word in "-ing" ("painting", "drawing") read as a verb on a describing
    word before it (a texture, material or colour: "matte", "oil", "pastel") and followed by "by" / "of" or nothing is the
    frame, that word its modifier (not "is the matte painting?")."""
    kinds = lex["attribute_kinds"]
    describing = kinds["texture"] | kinds["material"] | lex["colors"] | {"oil", "acrylic", "pastel", "ink", "pencil", "charcoal"}
    for tok in doc:
        if tok.pos_ != "VERB" or tok.tag_ != "VBG" or tok.lower_ not in lex["frame_nouns"] or tok.dep_ != "acl" or tok.i < 1:
            continue
        word, after = doc[tok.i - 1], _next(tok)
        if tok.head.i != word.i or word.lower_ not in describing or any(c.dep_ in ("dobj", "aux") for c in tok.children):
            continue
        if after is not None and not (after.is_punct or after.lower_ in ("by", "of")):
            continue
        head, dep = (word.head, word.dep_) if word.head.i != word.i else (None, "ROOT")
        for c in list(word.children):
            if c.i != tok.i:
                _rehang(c, tok, c.dep_)
        if head is None:
            _rehang(tok, tok, "ROOT")
        else:
            _rehang(tok, head, dep)
        _rehang(word, tok, "amod")
        word.pos_, word.tag_ = "ADJ", "JJ"
        tok.pos_, tok.tag_, tok.lemma_ = "NOUN", "NN", tok.lower_


def _mend_coordinated_colour(doc, lex) -> None:
    """ "a black and orange body": a colour word read as a noun coordinated with a colour that describes a thing is a
    colour of that thing too (not "is there an orange?")."""
    for tok in doc:
        first = tok.head
        if tok.dep_ != "conj" or tok.pos_ not in ("NOUN", "PROPN") or tok.lower_ not in lex["colors"]:
            continue
        if first.dep_ != "amod" or first.lower_ not in lex["colors"] or first.head.i <= tok.i or first.head.pos_ not in ("NOUN", "PROPN"):
            continue
        if any(c.dep_ in ("det", "amod", "compound", "prep") for c in tok.children):
            continue  # "a red and a blue car": a thing of its own
        tok.pos_, tok.tag_, tok.lemma_ = "ADJ", "JJ", tok.lower_


def _mend_singular_subject_list(doc) -> None:
    """ "A woman in a white shirt and a black skirt is standing ...": a thing joined by "and" to a singular verb's subject
    (the verb says "is") after that subject's place phrase is the place's too (the skirt is what she is in, not a second
    one standing)."""
    for tok in doc:
        first = tok.head
        if tok.dep_ != "conj" or tok.pos_ not in ("NOUN", "PROPN") or tok.tag_ != "NN" or first.dep_ != "nsubj":
            continue
        verb = first.head
        if not (verb.tag_ == "VBZ" or any(a.dep_ == "aux" and a.lower_ in ("is", "was") for a in verb.children)):
            continue
        pobj = next((o for p in first.children if p.dep_ == "prep" and p.i < tok.i for o in p.children if o.dep_ == "pobj"), None)
        if pobj is not None and pobj.i < tok.i and pobj.pos_ == "NOUN":
            _rehang(tok, pobj, "conj")


def _mend_state_place_preps(doc, lex) -> None:
    """ "birds in flight in front of the mountains", "zebras in the wild near a river": a place phrase the tagger hung on a
    state place (``state_places``, no thing) is where the thing in that state is ("are the birds in front of the
    mountains?"); "of" stays ("in the middle of the picture")."""
    for tok in doc:
        prep = tok.head
        if tok.dep_ != "pobj" or prep.lower_ not in ("in", "at", "on") or not _in(tok, lex["state_places"]):
            continue
        anchor = prep.head
        if anchor.i == prep.i or anchor.pos_ not in ("NOUN", "PROPN", "VERB"):
            continue
        _rehang_places(tok, anchor)
    for tok in doc:
        # "a golfer mid swing on a green course": the act a thing is in the middle of (``phase_words``) is its state, and
        # the place after it the thing's ("is the golfer on the course?")
        if tok.i == 0 or doc[tok.i - 1].lower_ not in lex["phase_words"] or tok.dep_ != "appos" or tok.head.pos_ not in ("NOUN", "PROPN"):
            continue
        _rehang_places(tok, tok.head)


def _rehang_places(tok, anchor) -> None:
    """The place phrases after ``tok`` hung on ``anchor`` instead ("of", "to" and "with" stay: "in the middle of ...")."""
    for c in list(tok.children):
        if c.dep_ == "prep" and c.i > tok.i and c.lower_ not in ("of", "to", "with"):
            _rehang(c, anchor, "prep")


def _mend_tag_part_participle(doc, lex) -> None:
    """ "a furry caterpillar, screaming evil face, dark fantasy": an "-ing" word of a look (``ing_looks``: "screaming",
    "grinning", "glowing", ...) that opens a tag before a described part (``tag_parts``, no article) is the part's look, not
    the subject doing it to the part ("is the caterpillar screaming the face?") nor the subject's own state ("is the
    caterpillar screaming?"); the part is the tag. A verb that does something to the part ("flapping huge wings") is
    left as read."""
    for verb in doc:
        if verb.tag_ != "VBG" or verb.i == 0 or doc[verb.i - 1].text != "," or verb.lower_ not in lex["ing_looks"]:
            continue
        k = verb.i + 1
        while k < len(doc) and doc[k].pos_ == "ADJ":
            k += 1
        if k == verb.i + 1 or k >= len(doc) or not _in(doc[k], lex["tag_parts"]) or doc[k].head.i == doc[k].i:
            continue  # (a bare "glowing eyes" the tagger reads right; a part that heads the sentence is left)
        part = doc[k]
        if part.head.i == verb.i:  # "screaming [evil face]" read as what is screamed: the part takes the verb's place
            head = verb.head
            if head.i == verb.i:
                continue
            _rehang(part, head, "appos")
            for c in list(verb.children):
                if c.i != part.i and c.dep_ != "punct":
                    _rehang(c, part, c.dep_)
        _rehang(verb, part, "amod")


def _mend_lone_adjective_tag(doc, model: str) -> None:
    """ "a haunted castle, gothic, dark, 8k": a lower-case one-word tag (set off by commas) that the tagger read as a name
    or a noun, but that is a describing word (:func:`_reads_as_adjective`), is one: a look ("is the castle gothic?", "is
    the image dark?"), not a thing or what the picture has ("does the image have dark?"). A noun stays a noun ("...,
    pupa, ...", "..., snow")."""
    for tok in doc:
        if tok.pos_ not in ("NOUN", "PROPN") or tok.tag_ in ("NNS", "NNPS") or not (tok.is_lower and tok.is_alpha) or tok.i == 0:
            continue
        if doc[tok.i - 1].text != "," or tok.i + 1 < len(doc) and doc[tok.i + 1].text not in (",", ";", "."):
            continue
        if _reads_as_adjective(tok.lower_, model):
            tok.tag_, tok.pos_ = "JJ", "ADJ"
            if tok.dep_ in ("compound", "nsubj", "dobj", "pobj", "appos", "conj", "ROOT", "dep", "npadvmod"):
                tok.dep_ = "amod" if tok.head.i != tok.i and tok.head.pos_ in ("NOUN", "PROPN") else tok.dep_


def _mend_kind_participle(doc, lex) -> None:
    """ "seven kittens of different colors playing on the grass": a participle the tagger hung on a kind after "of"
    (``kind_nouns``: "colors", "breeds", "sizes") is what the things of those kinds do ("are the kittens playing on the
    grass?"), not the colours."""
    for verb in doc:
        kind = verb.head
        if verb.dep_ != "acl" or verb.tag_ not in ("VBG", "VBN") or kind.lower_ not in lex["kind_nouns"] or kind.dep_ != "pobj":
            continue
        of = kind.head
        if of.lower_ != "of" or of.head.pos_ not in ("NOUN", "PROPN") or of.head.i == kind.i:
            continue
        _rehang(verb, of.head, "acl")


def _mend_listed_subject(doc, lex) -> None:
    """ "the left hand is on the right hip and the right elbow is bent": a body part read as one more object of the
    clause before ("on the hip and the elbow") right before a verb with no subject is that verb's subject ("is the elbow
    bent?", no "is the hand on the elbow?")."""
    for verb in doc:
        if verb.pos_ not in ("AUX", "VERB") or verb.i < 2 or any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in verb.children):
            continue
        part = doc[verb.i - 1]
        if part.dep_ != "conj" or part.pos_ != "NOUN" or not _in(part, lex["body_parts"]) or part.head.dep_ != "pobj":
            continue
        if not any(c.dep_ == "det" or c.dep_ == "poss" for c in part.children) or verb.head.i == part.i:
            continue
        _rehang(part, verb, "nsubjpass" if verb.tag_ == "VBN" else "nsubj")


def _mend_pose_after_degree(doc, lex) -> None:
    """ "bent forward with the torso almost parallel to the ground": a pose word with its place ("parallel to the
    ground") after a body part and words of degree (``pose_degrees``) is the part's, as it is without them ("the torso
    parallel to the ground": "is the torso parallel to the ground?"); the tagger hangs it on the verb before."""
    degrees, parts = lex["pose_degrees"], lex["body_parts"]
    for tok in doc:
        if tok.lower_ not in lex["pose_states"] or not any(c.dep_ == "prep" and c.i > tok.i for c in tok.children):
            continue
        j = tok.i - 1
        while j > 0 and doc[j].lower_ in degrees and j > tok.i - 3:
            j -= 1
        part = doc[j]
        if j == tok.i - 1 or tok.head.i == part.i or not _in(part, parts) or part.pos_ != "NOUN":
            continue
        saved = _saved(doc)
        _rehang(tok, part, "amod")
        for k in range(j + 1, tok.i):
            _rehang(doc[k], tok, "advmod")
        _put_back(doc, saved)


def _mend_measure_apart(doc, lex) -> None:
    """ "standing with feet shoulder width apart": the parts before a measure named by a body part ("shoulder width",
    "hip width": ``pose_nouns.measures``) and "apart" are the thing, apart ("are the feet apart?"), not one compound
    ("is there a feet shoulder width?")."""
    for m in doc:
        if m.lower_ not in lex["pose_nouns"]["measures"] or m.i < 2 or m.i + 1 >= len(doc) or doc[m.i + 1].lower_ != "apart":
            continue
        b, p = doc[m.i - 1], doc[m.i - 2]
        if (
            _in(b, lex["body_parts"]) and b.head.i != m.i and p.tag_ == "NNS" and _in(p, lex["body_parts"]) and p.head.i == b.i
            and p.dep_ == "compound" and m.head.i != b.i
        ):
            # "standing with the legs shoulder width apart", read as "the legs shoulder" (one thing) and "width" a verb:
            # the legs are the thing, apart by a shoulder's width
            saved = _saved(doc, tags=True)
            p.head, p.dep_ = (p, "ROOT") if b.head.i == b.i else (b.head, b.dep_)
            for c in list(b.children):
                if c.i < p.i:
                    c.head = p
            b.head, b.dep_ = m, "compound"
            m.head, m.dep_, m.tag_, m.pos_ = p, "npadvmod", "NN", "NOUN"
            doc[m.i + 1].head, doc[m.i + 1].dep_ = p, "advmod"
            _put_back(doc, saved)
            continue
        if not _in(b, lex["body_parts"]) or b.head.i != m.i or p.tag_ != "NNS" or not _in(p, lex["body_parts"]) or p.head.i not in (m.i, b.i):
            continue
        if m.head.i == m.i:
            _rehang(p, p, "ROOT")
        else:
            _rehang(p, m.head, m.dep_)
        _rehang(m, p, "npadvmod")
        _rehang(doc[m.i + 1], p, "advmod")


def _mend_ing_noun(doc) -> None:
    """ "a cake with pink frosting": an "-ing" word right after a describing word that a preposition takes, with no
    object of its own, is a noun (the frosting), not what the thing does ("is the cake frosting?")."""
    for tok in doc:
        if tok.tag_ != "VBG" or tok.i < 2 or tok.dep_ not in ("pcomp", "pobj"):
            continue
        look, prep = doc[tok.i - 1], doc[tok.i - 2]
        if look.tag_ != "JJ" or look.head.i != tok.i or prep.pos_ != "ADP" or tok.head.i != prep.i:
            continue
        if any(c.dep_ in ("dobj", "prep", "advmod", "prt") for c in tok.children):
            continue  # ("with bare hands holding", "by quickly running away": a verb)
        tok.tag_, tok.pos_, tok.dep_ = "NN", "NOUN", "pobj"
        tok.lemma_ = tok.lower_
        look.dep_ = "amod"


def _mend_ing_noun_after_pobj(doc, model: str) -> None:
    """ "a cake with 'congrats' written in pink icing": an "-ing" word that WordNet has as a noun, right after a
    describing word the tagger took for what the preposition takes, with nothing of a verb's after it, is that noun
    (the icing, pink), not the sentence's verb ("is the cake icing?"). The verb's subject heads the sentence then."""
    nouns = _lemma_index(model).get("noun", ())
    for look in doc:
        if look.tag_ != "JJ" or look.dep_ != "pobj" or look.head.pos_ != "ADP" or look.i + 1 >= len(doc):
            continue
        tok = doc[look.i + 1]
        if tok.tag_ != "VBG" or tok.lower_ not in nouns or any(c.dep_ in ("dobj", "prep", "advmod", "prt", "acomp") for c in tok.children):
            continue
        saved = _saved(doc)
        if tok.dep_ == "ROOT":
            subject = next((c for c in tok.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            if subject is None:
                continue
            subject.head, subject.dep_ = subject, "ROOT"
            for c in list(tok.children):
                if c.i != subject.i:
                    c.head = subject
        elif tok.head.i != look.i and list(tok.children):
            continue  # (a word of its own place in the sentence: left as read)
        tok.head, tok.dep_ = look.head, "pobj"
        tok.tag_, tok.pos_, tok.lemma_ = "NN", "NOUN", tok.lower_
        look.head, look.dep_ = tok, "amod"
        _put_back(doc, saved)


def _mend_appos_compound(doc) -> None:
    """ "the text 'born to code' in retro font": a noun set right after another with no comma between, read as an
    apposition of the thing the phrase belongs to, is the head of the name the first noun opens ("retro font"), where
    the first noun stood (not "is there a retro?", "is the text in the retro?")."""
    for tok in doc:
        if tok.dep_ != "appos" or tok.pos_ != "NOUN" or tok.i < 1 or list(tok.children):
            continue
        first = doc[tok.i - 1]
        if first.pos_ != "NOUN" or first.dep_ not in ("pobj", "dobj") or not first.whitespace_ or first.tag_ != "NN":
            continue
        if tok.head.i == first.i or any(c.i > first.i for c in first.children):
            continue
        saved = _saved(doc)
        tok.head, tok.dep_ = first.head, first.dep_
        for c in list(first.children):
            c.head = tok
        first.head, first.dep_ = tok, "compound"
        _put_back(doc, saved)


def _mend_modifier_across_comma(doc, lex, model: str) -> None:
    """ "a knight standing in a ruined cathedral, fromsoftware, gloomy": a noun the tagger hung as a describing word on a
    word after a comma ends its own thing there ("the cathedral", ruined), and the word after the comma is a tag of its
    own, not the thing ("is the knight standing in the fromsoftware?"). A describing word with the thing right after it
    stays one ("a big, red ball")."""
    for tok in doc:
        if tok.dep_ not in ("amod", "compound", "nmod") or not tok.is_alpha or not tok.is_lower or tok.i + 2 >= len(doc):
            continue
        head = tok.head
        if doc[tok.i + 1].text != "," or head.i <= tok.i + 1:
            continue
        if tok.lower_ not in _lemma_index(model).get("noun", ()) or not _reads_as_noun(tok.lower_, model):
            continue
        saved = _saved(doc, tags=True)
        start = max((t.i for t in doc[tok.sent.start : tok.i] if t.text in (",", ";")), default=tok.sent.start - 1) + 1
        root = tok.sent.root
        if head.pos_ not in ("NOUN", "PROPN") and root.i > tok.i + 1 and start == tok.sent.start and not any(
            t.pos_ in ("NOUN", "PROPN") or t.pos_ == "VERB" and t.dep_ != "amod" for t in doc[start : tok.i]
        ):
            # "a ruined cathedral, gloomy, fromsoftware": the first fragment names the thing, the prompt's head
            for t in doc[start : tok.i]:
                if not start <= t.head.i <= tok.i:
                    t.head = tok
            tok.head, tok.dep_ = tok, "ROOT"
            root.head, root.dep_ = tok, "appos"
            tok.tag_, tok.pos_ = "NN", "NOUN"
            _put_back(doc, saved)
            continue
        gap = doc[tok.i + 2 : head.i]
        if head.pos_ not in ("NOUN", "PROPN") or gap and _in(head, lex["frame_nouns"]) or gap and (
            _reads_as_adjective(tok.lower_, model) or any(t.head.i != head.i or t.dep_ not in ("amod", "compound", "nummod") for t in gap)
        ):
            # (the comma right before the thing: "a big, red ball" has the look next to the ball; "a red, wooden box":
            # a describing word before another; "in a river, long exposure": the river, and a tag; "a caterpillar, pupa,
            # macro photo": a frame of its own)
            continue
        for c in list(head.children):
            if c.i < tok.i:
                c.head = tok  # ("a ruined": the cathedral's)
        tok.head, tok.dep_ = (tok, "ROOT") if head.head.i == head.i else (head.head, head.dep_)
        if head.head.i == head.i:
            for c in list(head.children):
                if c.i > head.i:
                    c.head = tok
        head.head, head.dep_ = tok, "appos"
        tok.tag_, tok.pos_ = "NN", "NOUN"
        _put_back(doc, saved)


def _mend_look_with_object(doc, lex) -> None:
    """ "swirling whisps sparkling chaos magic", "a lake shimmering golden light": an "-ing" look that never takes an
    object (``ing_looks.never_transitive``) describes the noun read as its object ("is the chaos magic sparkling?"), not
    what the thing does to it ("are the whisps sparkling the chaos magic?")."""
    for tok in doc:
        if tok.tag_ != "VBG" or tok.lower_ not in lex["never_transitive_looks"]:
            continue
        obj = next((c for c in tok.children if c.dep_ == "dobj" and c.pos_ in ("NOUN", "PROPN") and c.i > tok.i), None)
        if obj is None or any(c.dep_ in ("det", "poss") for c in obj.children):
            continue
        saved = _saved(doc)
        head, dep = tok.head, tok.dep_
        if head.i == tok.i:
            obj.head, obj.dep_ = obj, "ROOT"
        else:
            obj.head, obj.dep_ = head, ("appos" if head.pos_ in ("NOUN", "PROPN") else dep)
        for c in list(tok.children):
            if c.i != obj.i:
                c.head = obj
        tok.head, tok.dep_ = obj, "amod"
        _put_back(doc, saved)


def _mend_noun_ing_compound(doc, lex, model: str) -> None:
    """ "a tall statue standing to the left in a park", "a rock singing to sailors", "an ice cream cone melting in the
    desert": an "-ing" word of a verb that heads a phrase opened by an article or a describing word, with a noun right
    before it read as its compound, is what that noun does (the statue, standing), not one thing named by both ("is
    there a statue standing?"). Not an "-ing" word that names a thing (``ing_things``: "a brick building"), a frame, or
    an activity named with its noun (``ing_activities``: "the ice skating")."""
    for tok in doc:
        if not tok.lower_.endswith("ing") or tok.tag_ not in ("NN", "VBG") or tok.pos_ not in ("NOUN", "VERB") or tok.i < 2:
            continue
        if tok.dep_ not in ("pobj", "dobj", "nsubj", "nsubjpass", "ROOT", "conj", "appos", "attr"):
            continue
        prev = doc[tok.i - 1]
        if prev.dep_ != "compound" or prev.head.i != tok.i or prev.pos_ not in ("NOUN", "PROPN") or not prev.is_alpha:
            continue
        if tok.lower_ in lex["ing_things"] or _in(tok, lex["frame_nouns"]) or f"{prev.lower_} {tok.lower_}" in lex["ing_activities"]:
            continue
        if not _verb_of_ing(tok.lower_, model) or not any(c.dep_ in ("det", "amod", "poss", "nummod") and c.i < prev.i for c in tok.children):
            continue
        saved = _saved(doc, tags=True)
        root = tok.head.i == tok.i
        prep = tok.head if tok.dep_ == "pobj" else None
        prev.head, prev.dep_ = (prev, "ROOT") if root else (tok.head, tok.dep_)
        comma = next((t.i for t in doc[tok.i + 1 :] if t.text == ","), len(doc))
        for c in list(tok.children):
            if c.i < prev.i or root and c.i > comma:
                c.head = prev  # ("a volcano erupting, with the text 'magma'": the picture's text, not how it erupts)
        tok.head, tok.dep_ = prev, "acl"
        doer = prep.head if prep is not None and prep.head.i != prep.i else None
        if doer is not None and (doer.pos_ in ("NOUN", "PROPN") and prep.lower_ != "of" or doer.pos_ == "VERB" and prep.lower_ in lex["where_one_is"]):
            # "a knight in shining armor kneeling before a sword", "sitting on a rock singing to sailors": the one the
            # place belongs to does it, not the place (but "looking at a volcano erupting": the volcano)
            tok.head, tok.dep_ = doer, ("acl" if doer.pos_ in ("NOUN", "PROPN") else "advcl")
        tok.tag_, tok.pos_, tok.lemma_ = "VBG", "VERB", _ing_verb(tok.lower_, model) or tok.lower_[:-3]
        _put_back(doc, saved)


def _mend_doer_read_as_measure(doc) -> None:
    """ "A man ironing clothes on the roof": a noun before an "-ing" word the tagger read as a look of the noun after it
    ("ironing clothes"), hung on it as a measure ("man" as an adverbial noun), is the one doing it, the noun after it its
    object (not "are the clothes ironing?"), when the doer has its article (wherever the tagger hung it)."""
    for tok in doc:
        if tok.tag_ != "VBG" or tok.dep_ != "amod" or tok.i < 1:
            continue
        obj, doer = tok.head, doc[tok.i - 1]
        if obj.i != tok.i + 1 or obj.pos_ != "NOUN" or doer.head.i != tok.i or doer.dep_ not in ("npadvmod", "nsubj") or doer.pos_ not in ("NOUN", "PROPN"):
            continue
        if not any(c.dep_ == "det" and c.i < doer.i for c in [*obj.children, *doer.children]):
            continue  # ("A man ironing clothes"; not "for adult coloring book")
        saved = _saved(doc)
        doer.head, doer.dep_ = (doer, "ROOT") if obj.head.i == obj.i else (obj.head, obj.dep_)
        for c in list(obj.children):
            if c.i < doer.i or obj.head.i == obj.i and c.dep_ == "punct":
                c.head = doer
        obj.head, obj.dep_ = tok, "dobj"
        tok.head, tok.dep_ = doer, "acl"
        _put_back(doc, saved)


def _mend_noun_read_as_plural_verb(doc, model: str) -> None:
    """ "a ramen shop at night in the rain": a noun read as a plural's verb ("shop") right after a subject of one thing
    (an article "a" or "an" before it) is the head of that thing's name (the ramen shop), not what it does ("does the
    ramen shop in the rain?"); a verb for a subject of one thing would end in "-s"."""
    nouns = _lemma_index(model).get("noun", ())
    for tok in doc:
        if tok.tag_ != "VBP" or tok.i < 2 or tok.lower_ not in nouns or not tok.is_lower:
            continue
        subject = doc[tok.i - 1]
        if subject.dep_ != "nsubj" or subject.head.i != tok.i or subject.pos_ != "NOUN":
            continue
        det = next((c for c in subject.children if c.dep_ == "det" and c.lower_ in ("a", "an")), None)
        if det is None or any(c.dep_ in ("dobj", "aux", "neg") for c in tok.children):
            continue
        saved = _saved(doc, tags=True)
        det.head = tok
        for c in list(subject.children):
            if c.dep_ in ("amod", "compound") and c.i < subject.i:
                c.head = tok
        subject.head, subject.dep_ = tok, "compound"
        tok.tag_, tok.pos_, tok.lemma_ = "NN", "NOUN", tok.lower_
        _put_back(doc, saved)


def _mend_part_with_pose_head(doc, lex) -> None:
    """ "kneeling on the right knee, the torso upright and both hands resting on the thigh": a pose word (``pose_states``)
    read as a noun with a body part as its compound is how the part is held (the torso, upright), not one thing ("is
    there a torso upright?", "is the figure kneeling the torso upright?")."""
    for tok in doc:
        if tok.pos_ != "NOUN" or tok.lower_ not in lex["pose_states"] or tok.lower_ in lex["pose_nouns"]["measures"] or tok.i < 1:
            continue  # ("above knee level": a measure, read with its part)
        part = doc[tok.i - 1]
        if part.dep_ != "compound" or part.head.i != tok.i or not _in(part, lex["body_parts"]):
            continue
        saved = _saved(doc, tags=True)
        part.head, part.dep_ = (part, "ROOT") if tok.head.i == tok.i else (tok.head, "npadvmod" if tok.dep_ == "dobj" else tok.dep_)
        for c in list(tok.children):
            if c.i < part.i or c.dep_ in ("cc", "conj"):
                c.head = part
        tok.head, tok.dep_, tok.tag_, tok.pos_ = part, "amod", "JJ", "ADJ"
        _put_back(doc, saved)


def _mend_capital_look_in_name(doc) -> None:
    """ "the Golden Gate Bridge at sunset", "a walk in Central Park": a describing word written with a capital inside a
    run of capitalised words, after a lower-case word, is the first word of a name ("is there the Golden Gate Bridge?"),
    no look ("is the Gate Bridge golden?"). A word that opens its sentence, or follows another capital ("A Red Car On The
    Road", title case), is left as read."""
    for tok in doc:
        if tok.pos_ != "ADJ" or not tok.is_title or not tok.is_alpha or tok.is_sent_start or tok.i == 0 or tok.i + 1 >= len(doc):
            continue
        before, after = doc[tok.i - 1], doc[tok.i + 1]
        if not (before.is_lower or before.is_punct and before.text not in (".", "!", "?")) or not after.is_title or after.pos_ != "PROPN":
            continue
        head = tok.head
        if head.i <= tok.i or head.pos_ != "PROPN" or not head.is_title or not all(doc[i].is_title for i in range(tok.i, head.i + 1)):
            continue
        saved = _saved(doc, tags=True)
        tok.tag_, tok.pos_ = "NNP", "PROPN"
        _rehang(tok, head, "compound")
        _put_back(doc, saved)


def _mend_parse(doc, lex, model: str):
    """Mend the tagger's known slips in ``doc`` (each mend on its own: one that fails is logged and skipped)."""
    mends = (
        ("leading nouns read as verbs", lambda: _mend_leading_noun(doc, model)),
        ("nouns read as a plural's verb", lambda: _mend_noun_read_as_plural_verb(doc, model)),
        ("nouns read as past verbs", lambda: _mend_noun_read_as_past(doc, model)),
        ("last nouns read as past verbs", lambda: _mend_noun_read_as_final_past(doc, model)),
        ("parts of the body read as verbs", lambda: _mend_part_read_as_verb(doc, lex)),
        ("capitalised things read as an order", lambda: _mend_capital_noun_read_as_order(doc, model)),
        ("a body's weight read as one more thing", lambda: _mend_weight_subject(doc, lex)),
        ("what a part does read as a look", lambda: _mend_part_participle(doc, lex)),
        ("describing words read as a past verb", lambda: _mend_adjective_read_as_past(doc, model)),
        ("describing words hung on a verb", lambda: _mend_adjective_on_verb(doc)),
        ("leading describing words read as the head", lambda: _mend_leading_adjective(doc)),
        ("frames read as verbs", lambda: _mend_frame_verb(doc, lex)),
        ("frames opening a tag read as verbs", lambda: _mend_frame_tag_verb(doc, lex)),
        ("frames read as participles", lambda: _mend_frame_participle(doc, lex)),
        ("film stills read as adverbs", lambda: _mend_film_still(doc, lex)),
        ("participles after made of", lambda: _mend_made_of_participle(doc, lex)),
        ("nouns after an article and a look read as past verbs", lambda: _mend_noun_after_look_read_as_past(doc, lex, model)),
        ("names of a describing word and a noun", lambda: _mend_adjective_name(doc, lex)),
        ("places after upside down", lambda: _mend_upside_down_place(doc)),
        ("pictures read as the doer of an -ing verb", lambda: _mend_frame_read_as_doer(doc, lex)),
        ("places read as a picture word's modifier", lambda: _mend_place_read_as_frame_modifier(doc, lex)),
        ("things in -ing after a preposition", lambda: _mend_ing_thing_after_preposition(doc, lex)),
        ("a title's nouns read as verbs", lambda: _mend_title_noun(doc, lex)),
        ("colours before a describing participle", lambda: _mend_colour_before_look(doc, lex)),
        ("looks of things split by a count", lambda: _mend_split_look(doc, lex)),
        ("verbs of relation lists read as names", lambda: _mend_listed_verb(doc, lex)),
        ("looks between two nouns read as a verb", lambda: _mend_look_between_nouns(doc, lex, model)),
        ("parts after a place with a pose of their own", lambda: _mend_part_after_place_with_own_pose(doc, lex)),
        ("a limb after a smaller part's with", lambda: _mend_with_limb_on_small_part(doc, lex)),
        ("a verb read as a plural", lambda: _mend_verb_read_as_plural(doc, lex, model)),
        ("an -ing verb joined to a place", lambda: _mend_ing_joined_to_place(doc)),
        ("an only-describing word read as a noun", lambda: _mend_only_adjective_read_as_noun(doc, lex, model)),
        ("a noun read as a look before tags", lambda: _mend_noun_read_as_look_before_tags(doc, model)),
        ("listed places", lambda: _mend_listed_place(doc, lex)),
        ("split names", lambda: _mend_split_name(doc, lex, model)),
        ("capitalised looks inside a name", lambda: _mend_capital_look_in_name(doc)),
        ("pronoun nouns", lambda: _mend_pronoun_noun(doc, lex)),
        ("nouns in a noun's place", lambda: _mend_noun_in_noun_place(doc, lex, model)),
        ("agent participles", lambda: _mend_agent_participle(doc)),
        ("doers read as a measure of a look", lambda: _mend_doer_read_as_measure(doc)),
        ("-ing words read as a noun's compound head", lambda: _mend_noun_ing_compound(doc, lex, model)),
        ("worn colours", lambda: _mend_worn_colour(doc, lex)),
        ("verbs of a wearer hung on what is worn", lambda: _mend_wearer_verb(doc, lex)),
        ("coordinated verbs", lambda: _mend_coordinated_verb(doc, model)),
        ("text verbs", lambda: _mend_text_verb(doc, lex["text_nouns"])),
        ("sides of the body", lambda: _mend_body_side(doc, lex)),
        ("coordinated colours", lambda: _mend_coordinated_colour(doc, lex)),
        ("lists after a singular subject", lambda: _mend_singular_subject_list(doc)),
        ("places hung on a state", lambda: _mend_state_place_preps(doc, lex)),
        ("looks of a tag's part read as verbs", lambda: _mend_tag_part_participle(doc, lex)),
        ("one-word describing tags read as nouns", lambda: _mend_lone_adjective_tag(doc, model)),
        ("participles hung on a kind", lambda: _mend_kind_participle(doc, lex)),
        ("body parts listed before their own verb", lambda: _mend_listed_subject(doc, lex)),
        ("pose words after a degree", lambda: _mend_pose_after_degree(doc, lex)),
        ("parts a measure apart", lambda: _mend_measure_apart(doc, lex)),
        ("parts with a pose word read as one thing", lambda: _mend_part_with_pose_head(doc, lex)),
        ("-ing nouns after a describing word", lambda: _mend_ing_noun(doc)),
        ("-ing nouns after a describing word read as a noun", lambda: _mend_ing_noun_after_pobj(doc, model)),
        ("names read as an apposition", lambda: _mend_appos_compound(doc)),
        ("looks read as taking an object", lambda: _mend_look_with_object(doc, lex)),
        ("things read as a describing word across a comma", lambda: _mend_modifier_across_comma(doc, lex, model)),
    )
    for step, mend in mends:
        with salvage(f"mending {step}", doc.text):
            mend()
    return doc
