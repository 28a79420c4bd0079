"""Attributes: what is said about one thing (colours, materials, sizes, states, "made of", actions without an object)."""

from __future__ import annotations

import re

from autoalign.inflect import indefinite_article
from autoalign.scoring.parse.lexicon import ADJECTIVE_ENDING, _reads_as_seen_noun, lexicon
from autoalign.scoring.parse.records import Noun
from autoalign.scoring.parse.referents import _ReferentsReader
from autoalign.scoring.parse.tokens import (
    _adjective_conjuncts,
    _compounds,
    _in,
    _is_noun,
    _kind,
    _lemma,
    _negated,
    _next,
    _particle,
    _phrase,
    _shading,
    _shows_number,
    _subject_of,
    _verb_words,
    _with_adverbs,
)


def _copula(verb) -> bool:
    """A linking verb with a describing word ("looks sad", "seems tired", "appears happy"; the tagger reads some as a
    predicate of the object's kind: "the man seems happy")."""
    return verb.lemma_ in ("look", "seem", "appear", "become", "remain", "stay", "feel") and any(
        c.dep_ in ("acomp", "oprd") and c.pos_ == "ADJ" for c in verb.children
    )


# a size written as a tag of its own ("72 x 18 x 30 in", "37 1/2 x 16 1/2 x 17 3/8 in", "12 cm tall", "50 x 70 cm")
_SIZE_NUMBER = r"\d+(?:[.,]\d+)?(?:\s+\d+/\d+|/\d+)?"
_SIZE_UNIT = r"(?:in|ins|inch|inches|cm|mm|m|ft|feet|foot|\"|''|”)"
_SIZE_DIMENSIONS = rf"{_SIZE_NUMBER}(?:\s*{_SIZE_UNIT})?(?:\s*(?:x|×|by)\s*{_SIZE_NUMBER}(?:\s*{_SIZE_UNIT})?)+"
_SIZE = (rf"(?:{_SIZE_DIMENSIONS}"
         rf"|{_SIZE_NUMBER}\s*{_SIZE_UNIT}\s+(?:tall|high|wide|long|deep|across|in diameter|in length|in height|in width))")
# set off as a tag: after a comma, a sentence end or two spaces; to a comma, a sentence end or the end of the prompt
_SIZE_SPAN = re.compile(
    rf"(?:(?<=[,.;:|] )|(?<=[,;|])|(?<=  ))(?P<size>{_SIZE})(?:\s*\(\s*(?P<second>{_SIZE})\s*\))?\s*(?=$|[,;|]|\.(?:\s|$))",
    re.IGNORECASE,
)
# a decade written as a tag of its own ("1960s", "1880s")
_DECADE_TAG = re.compile(r"(?:1[5-9]|20)\d0s")
# a resolution tag's word ("4k uhd", "hdr"): the picture's, never a thing's look ("is the castle uhd?")
_RESOLUTION_WORD = re.compile(r"\d+k|\d{3,4}p|u?hd|hdr|fhd|qhd")


class _AttributesReader(_ReferentsReader):
    """Reads each thing's attributes into its :class:`Noun`."""

    def _describe(self, noun: Noun, tok) -> None:
        for adj in _adjective_conjuncts(tok):
            if adj.i in self.frames or _in(adj, self.not_things["style"]) or adj.i in self.not_describing or self._intensifier(adj):
                continue
            if _negated(adj):
                if adj.dep_ in ("acomp", "attr") and adj.head.lemma_ == "be" and adj.pos_ == "ADJ" and adj.i == tok.i:
                    # "the background is not clear": asked as said, "is the background not clear?" (expects yes)
                    self.add_attr(noun, f"not {adj.lower_}", _kind(adj, self.lex), adj.i)
                continue  # (never as "is the background clear?")
            if adj.like_num or (adj.lower_ in self.lex["not_attributes"] and adj.dep_ != "amod"):
                continue
            if adj.lower_ in self.lex["to_prepositions"] and (after := _next(adj)) is not None and after.lower_ == "to":
                continue  # "the suitcase was next to ...", "close to ...": a place (a relation), not a look
            if _shading(adj, self.lex):
                continue  # "a dark blue scarf": "dark" shades the colour, it is not the scarf's kind
            hue, dash, coloured = adj.lower_.rpartition("-")
            if dash and coloured in self.lex["coloured_words"] and hue in self.lex["colors"]:
                self.add_attr(noun, hue, "color", adj.i)  # "a gold-colored vase": "is the vase gold?"
                continue
            if adj.lower_ in self.lex["coloured_words"] and adj.i > 0 and self.doc[adj.i - 1].lower_ in self.lex["colors"]:
                continue  # "a silver coloured car": the colour is the look ("is the car silver?"), not "is the car coloured?"
            if adj.lower_ in self.lex["not_attributes"] and adj.lower_ not in self.lex["compound_prep_nouns"]:
                continue  # "multiple skiers", "other players"
            if adj.lower_ in self.lex["praise_words"]:
                continue  # "the best pizza": a judgement no picture shows, not "is the pizza best?"
            value, first = _with_adverbs(adj)
            words = value.split()
            while len(words) > 1 and words[0] in self.lex["praise_words"]:
                words.pop(0)  # "the best sexy action movie": "is the action movie sexy?"
            value = " ".join(words)
            if adj.pos_ == "VERB" and (way := self._direction(adj)):
                value = f"{value} {way}"  # "the arm is bent and facing down": "is the arm facing down?"
            self.add_attr(noun, value, _kind(adj, self.lex), first)

    def read_attributes(self) -> None:
        doc = self.doc
        for colour, thing in self.shared_colours:
            if thing.i in self.nouns:
                self.add_attr(self.nouns[thing.i], colour.lower_, "color", colour.i)
        for noun in list(self.nouns.values()):
            tok = doc[noun.index]
            upside = tok.i >= 2 and doc[tok.i - 2].lower_ == "upside" and doc[tok.i - 1].lower_ == "down"
            if upside:
                # "an upside down umbrella", "upside down castle": one describing phrase ("is the umbrella upside down?"),
                # whatever the tagger made of its two words (not "is the umbrella upside?")
                self.add_attr(noun, "upside down", "state", tok.i - 2)
            for c in sorted(tok.children, key=lambda t: t.i):
                if upside and c.i in (tok.i - 2, tok.i - 1):
                    continue
                if c.dep_ == "amod" and c.pos_ in ("ADJ", "VERB", "NOUN", "PROPN") and not c.like_num:
                    if (c.i > tok.i and tok.dep_ == "pobj" or noun.lemma in self.lex["backdrops"]) and any(t.text == "," for t in doc[min(c.i, tok.i) : max(c.i, tok.i)]):
                        # "a lighthouse on a cliff, moody", "..., photorealistic, dark background": a describing word set off
                        # by a comma after a place, or before a backdrop, is a tag of its own (read by _tagged_looks); a
                        # backdrop's own look stands right before it
                        continue
                    self._describe(noun, c)
                elif c.dep_ == "poss" and c.pos_ in ("NOUN", "PROPN") and any(a.dep_ == "det" and a.lower_ in ("a", "an") for a in c.children):
                    # "a kid's bedroom": what kind of bedroom (asked "is the bedroom a kid's bedroom?"); the kid is asked too
                    self.add_attr(noun, f"{_phrase(c).lower()}'s", "owner", c.i)
                elif c.dep_ == "prep" and c.lower_ == "in" and self._style_of_thing(noun, c):
                    pass
                elif c.dep_ == "prep" and c.lower_ == "in":
                    self._in_colours(noun, c)
                elif c.dep_ == "prep" and c.lower_ == "with" and any(_lemma(p) in ("color", "colour") for p in c.children if p.dep_ == "pobj"):
                    self._in_colours(noun, c)  # "an object with different colors": "is the object in different colors?"  # "the text 'magma' in red", "a set of labels in blue and yellow"
                elif c.dep_ == "relcl" and c.lemma_ == "be":  # "a pinata which is orange"
                    for a in c.children:
                        if a.dep_ in ("acomp", "attr") and a.pos_ in ("ADJ", "VERB"):
                            self._describe(noun, a)
            quantity = tok.head.head if tok.dep_ == "pobj" and tok.head.lower_ == "of" else None
            if quantity is not None and _lemma(quantity) in self.lex["layouts"] and quantity.i not in self.nouns and noun.plural:
                # "a row of five cars", "an arrangement of seven bottles": how the things are laid out ("are the cars in a
                # row?"), a look of theirs (the quantity word is no thing)
                word = _lemma(quantity)
                self.add_attr(noun, word, "state", quantity.i, phrase=f"in {indefinite_article(word)} {word}")
            if quantity is not None and _lemma(quantity) in self.not_things["quantity"] and quantity.i not in self.nouns:
                # "a set of nine labels for the summer season in blue and yellow": the colours hung on the quantity
                # word are the counted things' ("are the labels in blue?")
                for c in quantity.children:
                    if c.dep_ == "prep" and c.lower_ == "in" and c.i > tok.i:
                        self._in_colours(noun, c)
            # "the car is big and red", "the beach is crowded", "a child looks sad" (a linking verb)
            if tok.dep_ in ("nsubj", "nsubjpass") and (tok.head.lemma_ == "be" or _copula(tok.head)):
                self._predicate(noun, tok.head)
            if (
                tok.dep_ == "nsubjpass"
                and tok.head.tag_ == "VBN"
                and tok.head.lower_ not in self.lex["not_attributes"]
                and not self._verb_has_object(tok.head)
            ):
                way = self._direction(tok.head)  # "the head is turned to the right"
                self.add_attr(noun, f"{tok.head.lower_} {way}" if way else tok.head.lower_, "state", tok.head.i)
        self._pronoun_predicates()
        self._state_places()
        self._site_states()
        self._purpose_states()
        self._phase_states()
        self._tagged_looks()
        for noun in list(self.nouns.values()):
            if noun.lemma in self.lex["body_parts"] or doc[noun.index].lower_ in self.lex["body_parts"]:
                self._pose(noun)
                self._pose_of_be(noun)
        for noun in list(self.nouns.values()):
            self._kinds(noun)
            self._lettering(noun)
            self._shape(noun)
            self._as_kind(noun)
            self._epithet(noun)
            self._aside(noun)
        # verbs: a colour as the object ("dressed in green"), "made of X", and actions without objects
        for verb in doc:
            if verb.pos_ not in ("VERB", "AUX") or verb.lemma_ == "be" and verb.dep_ != "acl":
                continue
            if _in(verb, self.not_things["meta"]) or verb.lower_ in self.lex["not_attributes"]:
                continue  # "trending on artstation", "the airplane is left to ..."
            if verb.lower_ in self.lex["body_parts"]:
                continue  # "buttocks almost sitting": a body part read as a verb
            if verb.i in self.nouns or verb.i in self.lettered or verb.i in self.skip:
                continue  # "next to vase": a thing the tagger read as a verb; "written in cursive" (read as lettering); "by remedies varo" (a name)
            if _negated(verb):
                continue  # "the legs are close but not joined"
            before = doc[verb.i - 1] if verb.i > 0 else None
            absolute = before is not None and before.dep_ == "pobj" and before.head.lower_ == "with" and before.i in self.nouns and self._absolute(before)
            subject = _subject_of(verb) if verb.dep_ not in ("amod",) else None
            if subject is None and verb.dep_ != "amod":
                subject = self._previous_subject(verb)  # "There are two birds on the ground. They are laying down."
            quoted = subject is not None and subject.i < verb.i and sum(t.is_quote for t in self.doc[subject.i : verb.i]) % 2 == 1
            if (subject is None or subject.i not in self.nouns or quoted) and verb.tag_ == "VBN" and _lemma(verb) in lexicon()["making_verbs"]:
                # "Studio shot of words 'the food is terrible' made from hotdogs": the quote read as a sentence hides
                # what is made; it is the last thing before the participle
                subject = self._last_thing_before(verb)
            if absolute:
                subject = before  # "standing with legs crossed", "with the left leg sticking out": the part's, not the person's
            if subject is None or subject.i not in self.nouns:
                continue
            noun = self.nouns[subject.i]
            if _lemma(verb) in lexicon()["making_verbs"] and (verb.tag_ == "VBN" or self._made_participle(verb)):
                noun = self._likeness_of(noun)  # ("a statue of a man made of bronze": the statue is)
            vwords, _ = _verb_words(verb)
            prt = _particle(verb)
            if prt:
                vwords = f"{vwords} {prt}"
            handled = self._made_by(noun, verb)
            for c in verb.children:
                target = None
                if c.dep_ in ("prep", "agent") or c.dep_ == "prt" and c.lower_ == "out":  # ("made out of", "out" a particle)
                    target = next((p for p in c.children if p.dep_ == "pobj"), None)
                    of = next((p for p in c.children if p.dep_ == "prep" and p.lower_ == "of"), None)
                    if target is None and c.lower_ == "out" and of is not None:  # "made out of fire"
                        target = next((p for p in of.children if p.dep_ == "pobj"), None)
                    if target is None:  # "dressed in black" with the colour hung on "in" as a describing word
                        target = next((p for p in c.children if p.dep_ == "amod" and p.lower_ in self.lex["colors"]), None)
                    words = f"{vwords} out of" if c.lower_ == "out" and of is not None else f"{vwords} {c.lower_}"
                    if c.dep_ == "prt":
                        words = f"{vwords} of"  # (the particle is in vwords already)
                elif c.dep_ in ("dobj", "oprd", "acomp") and c.lower_ in self.lex["colors"]:
                    target, words = c, vwords
                if target is None:
                    continue
                if c.lower_ == "in" and _lemma(target) in ("color", "colour") and any(
                    self._colours_source(o) is not None for p in target.children if p.lower_ == "of" for o in p.children
                ):
                    self._in_colours(noun, c)  # "pencils arranged in the colors of the rainbow": the pencils' colours
                    handled = True
                    continue
                both = [t for t in target.children if t.dep_ == "conj" and t.lower_ in self.lex["colors"]]
                if target.lower_ in self.lex["colors"] and target.i not in self.nouns and both and c.lower_ == "in" and verb.tag_ != "VBN":
                    # "zebras grazing in black and white": the picture's colouring, not what the zebras graze in
                    # ("dressed in black and white", a participle, is the thing's colour)
                    self._add_global(" and ".join([target.lower_] + [t.lower_ for t in both]), "style", target.i)
                elif target.lower_ in self.lex["colors"] and target.i not in self.nouns:
                    self.add_attr(noun, target.lower_, "color", target.i, phrase=f"{words} {target.lower_}")
                    handled = True
                elif _lemma(verb) in lexicon()["making_verbs"] and c.lower_ in ("of", "from", "out") and self._made_participle(verb):
                    # a participle as written ("made from"), also where the tagger read a sentence ("letters made from X")
                    words = f"{verb.lower_}{' ' + prt if prt else ''}{words[len(vwords):]}"
                    # "made from palm columns and oyster shell concrete": each material the thing's
                    # (joined by "and", not a list of tags after it: "made from hotdogs, museum quality, framed photo")
                    joined = [t for t in target.conjuncts if _is_noun(t) and t.i > target.i and not any(w.text == "," for w in self.doc[target.i : t.i])]
                    for material in [target, *joined]:
                        value = _phrase(material)
                        self.add_attr(noun, value, "material", material.i, phrase=f"{words} {value}")
                        if _in(material, self.lex["attribute_kinds"]["material"]) and (material is target or not _compounds(material)):
                            self.nouns.pop(material.i, None)  # "made of denim": denim is what it is made of, not a thing
                    handled = True
            # "a dog resting after a long walk": a time after an -ing verb is no object (the dog is resting)
            times = self.lex["time_prepositions"] if verb.tag_ == "VBG" else frozenset()
            if handled or self._verb_has_object(verb, times):
                continue
            if verb.dep_ in ("amod", "aux", "auxpass", "prep"):
                continue
            if any(c.dep_ == "xcomp" and (c.pos_ == "VERB" or c.pos_ == "AUX" and verb.lemma_ in ("seem", "appear")) and any(a.lower_ == "to" for a in c.children) for c in verb.children):
                # "trying to pull off a trick": the action is the verb after "to" (but "planes parked waiting"); "a bug
                # which seems to be on the ground" says where the bug is, no "is the bug seeming?"
                continue
            if verb.i + 1 < len(doc) and doc[verb.i + 1].text in ('"', "“", "'", ":"):
                continue  # "a sign that says "hello"": what it says is its text, not an action
            if _shows_number(verb):
                continue  # "a clock that reads 12:43": what it shows, not an action
            if _copula(verb):
                continue  # "looks sad": the look is the attribute (read above), not "is the child looking?"
            if _lemma(verb) in self.lex["light_verbs"]:
                continue  # "a monkey doing linkbuilding": not "is the monkey doing?"
            if _lemma(verb) in self.not_things["quantity"] and (after := _next(verb)) is not None and after.lower_ == "of":
                continue  # "peacock birds set of two": a quantity read as a verb, not "are the birds set?"
            if _lemma(verb) in ("look", "seem", "appear") and any(c.dep_ == "prep" and c.lower_ == "like" for c in verb.children):
                continue  # "a font that looks like handwriting": a likeness, no "is the font looking?"
            if verb.tag_ in ("VBG", "VBN") or verb.dep_ in ("ROOT", "conj", "relcl", "acl", "advcl"):
                way = self._direction(verb)  # "head looking forward": "is the head looking forward?", not "... looking?"
                self.add_attr(noun, f"{vwords} {way}" if way else vwords, "state", verb.i)

    def _direction(self, verb) -> str:
        """Which way a verb of turning goes, as written right after it ("looking forward", "facing down", "leaning
        left", "leaning to the right"; a degree word may come first: "looking straight ahead"), or ""."""
        return self._direction_end(verb)[0]

    def _direction_end(self, verb) -> tuple[str, int]:
        """(:meth:`_direction`, the index of its last word; ``verb.i`` when there is none)."""
        words = self.lex["direction_verbs"]
        if _lemma(verb) not in words["words"] and verb.lower_ not in words["words"]:
            return "", verb.i
        doc, j = self.doc, verb.i + 1
        if _particle(verb):
            j += 1  # (the particle is in the verb's words already: "looking up")
        start = j
        while j < len(doc) and doc[j].lower_ in ("slightly", "straight", "a", "bit", "little", "far", "more", "somewhat"):
            j += 1
        if j < len(doc) and doc[j].lower_ in words["directions"] and j not in self.nouns:
            # "looking straight ahead" keeps its degree word; "turned slightly left" says "turned left"
            return (doc[start : j + 1].text.lower() if doc[start].lower_ == "straight" else doc[j].lower_), j
        if j + 2 < len(doc) and doc[j].lower_ in ("to", "towards", "toward") and doc[j + 1].lower_ == "the" and doc[j + 2].lower_ in words["sides"] and j + 2 not in self.nouns:
            return doc[j : j + 3].text.lower(), j + 2  # "leaning to the right" (the side is no thing: not "is there a right?")
        return "", verb.i

    def _predicate(self, noun: Noun, verb, colours_only: bool = False) -> None:
        """What a "be" / linking verb says of its subject ``noun``: "the car is big and red", "the cocktails are in black and
        white" (with ``colours_only``, only colours: what "it" stands for is a guess, a colour a safe one)."""
        for c in verb.children:
            if c.dep_ == "advmod" and c.lower_ == "down" and c.i > 0 and self.doc[c.i - 1].lower_ == "upside" and not colours_only:
                self.add_attr(noun, "upside down", "state", c.i - 1)  # "the car is upside down"
            said = c.dep_ in ("acomp", "attr") or c.dep_ == "oprd" and c.pos_ == "ADJ" and _copula(verb)  # ("seems happy")
            if said and c.pos_ in ("ADJ", "VERB") and not (colours_only and c.lower_ not in self.lex["colors"]):
                self._describe(noun, c)
            elif c.dep_ == "prep" and c.lower_ == "in":
                self._in_colours(noun, c)

    def _pronoun_predicates(self) -> None:
        """ "There are two birds on the ground. They are brown and black.": a "be" sentence whose subject is "he" / "she" /
        "they" describes the thing the sentence before is about (:meth:`_previous_subject`); "It is in black and white
        colors" too, for a colour only."""
        for pron in self.doc:
            verb = pron.head
            if pron.dep_ != "nsubj" or pron.lower_ not in ("he", "she", "they", "it") or not (verb.lemma_ == "be" or _copula(verb)):
                continue
            about = self._previous_subject(verb, ("it",) if pron.lower_ == "it" else ("he", "she", "they"))
            if about is not None and about.i in self.nouns:
                self._predicate(self.nouns[about.i], verb, colours_only=pron.lower_ == "it")

    def _likeness_of(self, noun: Noun) -> Noun:
        """ "a sculpture of a horse made of ice", "a figurine of letter W made from wire": a thing shown by a made likeness
        (``likenesses``: the object of its "of") is made of nothing; the likeness is what the material makes ("is the
        sculpture made of ice?", not "is the horse made of ice?"). ``noun`` itself otherwise."""
        tok = self.doc[noun.index]
        while tok.dep_ == "conj" and tok.head.i != tok.i:
            tok = tok.head
        of = tok.head if tok.dep_ == "pobj" else None
        work = of.head if of is not None and of.lower_ == "of" and of.head.i != of.i else None
        if work is None or work.i not in self.nouns or _lemma(work) not in self.lex["likenesses"]:
            return noun
        return self.nouns[work.i]

    def _made_participle(self, verb) -> bool:
        """ "made from wood" as a participle; also "Agora made from palm columns", which the tagger reads as a sentence
        in the past tense (no object: "she made from scratch" aside, a past "made" with an object made something)."""
        return verb.tag_ == "VBN" or verb.tag_ == "VBD" and not any(c.dep_ in ("dobj", "ccomp", "xcomp") for c in verb.children)

    def _in_colours(self, noun: Noun, prep) -> None:
        """ "the text 'magma' in red", "bookmarks in black and white", "the words in rainbow colors": the colours after
        "in" (not a thing of their own) are the thing's, asked "is the text in red?"."""
        pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
        if pobj is None:  # "in blue and yellow" with the colours hung on "in" as describing words
            pobj = next((c for c in prep.children if c.dep_ == "amod" and c.lower_ in self.lex["colors"]), None)
        if pobj is None or pobj.i in self.nouns or _negated(prep.head):
            return
        if pobj.lower_ in self.lex["colors"]:
            words = [pobj, *[c for c in pobj.subtree if c.dep_ == "conj" and c.lower_ in self.lex["colors"]]]
        elif _lemma(pobj) in ("color", "colour"):
            words = [c for c in pobj.subtree if c.i < pobj.i and c.lower_ in self.lex["colors"]]
            described = [c for c in pobj.children if c.dep_ == "amod" and c.i < pobj.i and c.pos_ == "ADJ"]
            of = next((c for c in pobj.children if c.dep_ == "prep" and c.lower_ == "of"), None)
            source = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
            if not words and source is not None and (by := self._colours_source(source)) is not None and by.i == prep.i:
                # "pencils in the colors of the rainbow": "are the pencils in the colors of the rainbow?"
                value = self.doc[prep.i + 1 : source.i + 1].text.lower()
                self.add_attr(noun, value, "color", pobj.i, phrase=f"in {value}")
                return
            if not words and described:
                # "an object with different colors", "balloons in bright colours": how many or how bright the colours are
                value = self.doc[described[0].i : pobj.i + 1].text.lower()
                self.add_attr(noun, value, "color", described[0].i, phrase=f"in {value}")
                return
        else:
            return
        for w in sorted(words, key=lambda t: t.i):
            if w.i not in self.nouns:
                self.add_attr(noun, w.lower_, "color", w.i, phrase=f"in {w.lower_}")

    def _kinds(self, noun: Noun) -> None:
        """ "nine different breeds of dogs", "spheres of different sizes": the kinds a describing word picks are the
        thing's ("are the dogs of different breeds?", "are the spheres of different sizes?"; ``kind_nouns``)."""
        tok, kinds = self.doc[noun.index], self.lex["kind_nouns"]
        found = []
        if tok.dep_ == "pobj" and tok.head.lower_ == "of" and tok.head.head.i != tok.i:
            found.append(tok.head.head)  # "different breeds of dogs"
        for prep in tok.children:
            if prep.dep_ == "prep" and prep.lower_ == "of":
                found += [c for c in prep.children if c.dep_ == "pobj"]  # "spheres of different sizes"
        for kind in found:
            if kind.lower_ not in kinds or kind.i in self.nouns and kind.i != noun.index:
                continue
            which = [c for c in kind.children if c.dep_ == "amod" and c.pos_ == "ADJ" and not c.like_num and c.i < kind.i]
            if not which or any(t.pos_ in ("NOUN", "PROPN") for t in self.doc[min(c.i for c in which) : kind.i]):
                continue  # (no thing inside the kind's words: "a diorama of a tiny bakery, cute, pastel colors")
            value = self.doc[min(c.i for c in which) : kind.i + 1].text.lower()
            self.add_attr(noun, value, "type", min(c.i for c in which), phrase=f"of {value}")

    def _as_kind(self, noun: Noun) -> None:
        """ "black-white cat as a gangster", "a teddy bear as a doctor": the thing is of that kind ("is the cat a
        gangster?")."""
        for c in self.doc[noun.index].children:
            kind = next((p for p in c.children if p.dep_ == "pobj" and p.i in self.nouns), None) if c.dep_ == "prep" and c.lower_ == "as" else None
            if kind is None:
                continue
            det = next((d.lower_ for d in kind.children if d.dep_ == "det" and d.lower_ in ("a", "an")), "")
            value = _phrase(kind) if kind.pos_ == "PROPN" else _phrase(kind).lower()
            self.add_attr(noun, value, "type", kind.i, phrase=f"{det} {value}".strip())

    def _epithet(self, noun: Noun) -> None:
        """ "Diana the huntress in the forest", "Alexander the Great": a noun opened by "the" right after a name, with no
        comma between (an epithet), says what the named one is ("is Diana a huntress?"); what follows it is the named
        one's ("is Diana in the forest?", not "is the huntress in the forest?"). The epithet is still asked as a thing, as
        DSG's annotators ask it ("is there a huntress?")."""
        tok = self.doc[noun.index]
        if tok.pos_ != "PROPN":
            return
        for c in tok.children:
            if c.dep_ != "appos" or c.i not in self.nouns or c.pos_ != "NOUN":
                continue
            det = next((d for d in c.children if d.dep_ == "det"), None)
            if det is None or det.lower_ != "the" or det.i != tok.i + 1:
                continue
            value = self.doc[det.i + 1 : c.i + 1].text
            self.add_attr(noun, value, "type", c.i, phrase=f"{indefinite_article(value)} {value}")
            for p in list(c.children):
                if p.dep_ in ("prep", "acl", "relcl") and p.i > c.i:
                    p.head = tok  # ("Diana the huntress in the forest": Diana is in the forest)

    def _aside(self, noun: Noun) -> None:
        """ "A lone person - perhaps a lifeguard - appears on the beach": a thing named between dashes right after another
        (an aside, maybe opened by a word of doubt) says what that one is ("is the person a lifeguard?")."""
        doc, i = self.doc, noun.index + 1
        if i >= len(doc) or doc[i].text not in ("-", "—", "–", "--"):
            return
        j = i + 1
        while j < len(doc) and doc[j].pos_ == "ADV":
            j += 1  # ("perhaps", "probably", "maybe")
        end = next((k for k in range(j, min(j + 5, len(doc))) if doc[k].text in ("-", "—", "–", "--")), None)
        if end is None or end - 1 not in self.nouns or end - 1 == noun.index or any(t.pos_ in ("VERB", "AUX", "ADP") for t in doc[j : end]):
            return
        kind = doc[end - 1]
        det = next((d.lower_ for d in kind.children if d.dep_ == "det" and d.lower_ in ("a", "an")), "")
        value = _phrase(kind).lower()
        self.add_attr(noun, value, "type", kind.i, phrase=f"{det or indefinite_article(value)} {value}")

    def _state_places(self) -> None:
        """ "In the center of the image, we can see cake", "in the front there is a leaf", "zebras in the wild": where
        in the picture a thing is, or how it is, is its attribute ("is the cake in the center of the image?"); the place
        and the picture are no things (``state_places``)."""
        lex = self.lex
        for prep in self.doc:
            if prep.dep_ != "prep" or prep.lower_ not in ("in", "at", "on"):
                continue
            place = next((c for c in prep.children if c.dep_ == "pobj"), None)
            doing = next((c for c in prep.children if c.dep_ == "pcomp" and c.tag_ == "VBG"), None)
            if place is None and doing is not None:  # "in crawling position": the position, the object of "crawling"
                place = next((c for c in doing.children if c.dep_ == "dobj"), None)
            if place is None or place.i in self.nouns:
                continue
            if place.i < prep.i:
                continue
            if self._pose_place(place) is not None:
                pass  # "in an overly stride stance": the person's state ("is the person in an overly stride stance?")
            elif _lemma(place) not in lex["state_places"] and place.lower_ not in lex["state_places"]:
                continue
            of = next((c for c in place.children if c.dep_ == "prep" and c.lower_ == "of"), None)
            whole = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
            if of is not None and (whole is None or whole.i in self.nouns or _lemma(whole) not in lex["picture_words"]):
                continue  # "on the edge of the table": a place on a thing, a relation
            phrase = self.doc[prep.i : (whole if whole is not None else place).i + 1].text.lower()
            for thing in self._things_placed_by(prep.head):
                # (the value without the preposition and at the thing's own index: no describing word of its name)
                self.add_attr(self.nouns[thing.i], phrase.split(" ", 1)[1], "state", thing.i, phrase=phrase)

    def _site_states(self) -> None:
        """ "a street in Paris", "a cafe in rome": a named place (``sites``) is where the thing it is hung on
        is, a state of that thing ("is the street in Paris?"); after "from" ("a man from Texas") it says where one comes
        from, which no picture tells (nothing asked)."""
        for site in self.sites:
            prep = site.head
            if prep.lower_ not in ("in", "at"):
                continue
            name = self.doc[min([site.i, *(c.i for c in _compounds(site))]) : site.i + 1].text
            for thing in self._things_placed_by(prep.head):
                self.add_attr(self.nouns[thing.i], name, "state", thing.i, phrase=f"{prep.lower_} {name}")

    def _purpose_states(self) -> None:
        """ "a set of nine labels for the summer season", "balloons for a birthday party": what a thing is made or sold for
        (``purposes``) is a state of the thing the "for" is hung on, directly or through a quantity word's "of" ("are the
        labels for the summer season?"); a possessive pronoun is left out ("arrows for your design": "are the arrows for
        design?"). Hung on a verb ("packed for the trip"), nothing is asked."""
        for purpose in self.doc:
            if purpose.dep_ != "pobj" or purpose.i in self.nouns or not self._is_purpose(purpose):
                continue
            prep, thing = purpose.head, self._purpose_owner(purpose)
            if thing is None:
                continue
            words = [t for t in self.doc[prep.i + 1 : purpose.i + 1] if not (t.tag_ == "PRP$" or t.dep_ == "poss" and t.pos_ == "PRON")]
            if not words:
                continue
            phrase = "for " + " ".join(t.text if t.pos_ == "PROPN" else t.lower_ for t in words).replace(" 's", "'s")
            value = " ".join(t.lower_ for t in words if t.dep_ != "det").replace(" 's", "'s")
            self.add_attr(self.nouns[thing.i], value, "state", thing.i, phrase=phrase)
            for c in purpose.children:  # "posters for the summer festival in red and orange": the posters' colours
                if c.dep_ == "prep" and c.lower_ == "in":
                    self._in_colours(self.nouns[thing.i], c)

    def _phase_states(self) -> None:
        """ "a golfer mid swing", "a dancer in mid jump", "the poser is mid swing", "arms are head level": the thing is in
        the middle of an act, or held at a measure named by a body part; its state ("is the golfer mid swing?", "is the
        dancer in mid jump?", "are the arms at head level?"), the act or the measure no thing of its own."""
        for tok in self.doc:
            if tok.i in self.nouns:
                continue
            phase, part = self._phase(tok), self._held_at(tok)
            if phase is not None:
                value = f"{phase.lower_} {tok.lower_}"
            elif part is not None:
                value = f"{part.lower_} {tok.lower_}"
            else:
                continue
            if tok.dep_ == "pobj" and tok.head.lower_ in ("in", "at", "into"):
                things, phrase = self._things_placed_by(tok.head.head), f"{tok.head.lower_} {value}"
            elif tok.dep_ == "appos" and tok.head.i in self.nouns:
                things, phrase = [tok.head], value
            elif tok.dep_ in ("attr", "acomp", "npadvmod") and tok.head.lemma_ == "be":
                things, phrase = self._things_placed_by(tok.head), value if part is None else f"at {value}"
            else:
                continue
            for thing in things:
                self.add_attr(self.nouns[thing.i], value, "state", thing.i, phrase=phrase)

    def _through_of(self, tok):
        """ "a group of horses standing in a row": a word that is no thing ("group", "flock") stands for the things after
        its "of"; any other word is itself."""
        if tok.i in self.nouns or tok.pos_ not in ("NOUN", "PROPN"):
            return tok
        return next((o for p in tok.children if p.dep_ == "prep" and p.lower_ == "of" for o in p.children if o.dep_ == "pobj" and o.i in self.nouns), tok)

    def _things_placed_by(self, anchor) -> list:
        """The things a place phrase hung on ``anchor`` places: the thing itself, what "we can see", what "there is", or
        the verb's subject."""
        anchor = self._through_of(anchor)
        if anchor.i in self.nouns:
            return [anchor]  # (not the things listed with it: "right arm down on side, left arm out")
        if _lemma(anchor) in self.lex["seeing_verbs"] or anchor.lemma_ == "be":
            first = [c for c in anchor.children if c.dep_ in ("dobj", "attr", "nsubj") and c.i in self.nouns]
        elif anchor.pos_ == "VERB" and (subject := _subject_of(anchor)) is not None and self._through_of(subject).i in self.nouns:
            first = [self._through_of(subject)]
        else:
            return []
        out = list(first)
        for t in first:
            out += [c for c in t.conjuncts if c.i in self.nouns and c not in out]
        return out

    def _style_of_thing(self, noun: Noun, prep) -> bool:
        """ "a futuristic laboratory in the style of moebius": a style hung on a thing (not on a picture word) is that
        thing's style too ("is the laboratory in the style of moebius?"), as "painted by" names a thing's artist; it stays
        the picture's style ("is the image in the style of moebius?")."""
        pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
        if pobj is None or _lemma(pobj) != "style":
            return False
        tok = self.doc[noun.index]
        if tok.dep_ == "pobj" and tok.head.lower_ != "of":
            return False  # ("a castle on a hill in the style of monet": a place the tagger hung it on, not the subject)
        tag = next((g for g in self.globals if g.kind == "style" and g.index == pobj.i and g.value.startswith("style of ")), None)
        if tag is None:
            return False
        name = tag.value[len("style of "):]
        self.add_attr(noun, name, "style", pobj.i, phrase=f"in the style of {name}")
        return True

    def _made_by(self, noun: Noun, verb) -> bool:
        """ "clown girl, gothic, painted by francis bacon, adrian ghenie and james jean": the artists of a participle of
        making hung on a thing (read as the picture's styles before) are also who made the thing, as DSG asks it ("is the
        girl painted by francis bacon?"), not a bare "is the girl painted?"."""
        if verb.tag_ != "VBN" or verb.lower_ not in self.lex["artist_heads"]:
            return False
        by = next((c for c in verb.children if c.dep_ in ("agent", "prep") and c.lower_ == "by"), None)
        if by is None:
            return False
        first = min(t.i for t in verb.subtree)
        if first > 0 and self.doc[first - 1].text == ",":
            # a tag set off by a comma ("a castle on a cliff, painted by ..."): the prompt's subject, the root of its sentence
            root = verb.sent.root
            if root.i not in self.nouns:
                return False
            noun = self.nouns[root.i]
        elif verb.head.i != noun.index:
            return False  # (a participle of some other word: "climatic atmosphere made by studio ghibli")
        inside = {t.i for t in by.subtree}
        names = [g for g in self.globals if g.kind == "style" and g.value.startswith("style of ") and g.index in inside]
        for g in names:
            name = g.value[len("style of "):]
            self.add_attr(noun, name, "artist", g.index, phrase=f"{verb.lower_} by {name}")
        return bool(names)

    def _tagged_looks(self) -> None:
        """ "aliens praying inside an alien church, atmospheric, highly detailed, yellow and blue, 8k": a user prompt's tag
        that only describes (adjectives, participles, colours: "highly detailed", "yellow and blue", "gothic") says how
        the thing named last before it looks, as DSG's annotators ask it ("is the church highly detailed?"); a tag read
        as a look of the picture stays one too ("is the image highly detailed?"). A tag that names something ("octane
        render", "8k", "artstation"), holds a number or a thing, or a name is not a look of a thing."""
        colours, describing = self.lex["colors"], ("JJ", "JJR", "JJS", "VBN", "RB", "RBR", "RBS", "CC")
        fragments = self._fragments()
        sized = self._tagged_sizes(fragments)
        for k, fragment in enumerate(fragments[1:], start=1):
            words = [t for t in fragment if not t.is_punct]
            listed = any(t.dep_ == "cc" for t in words[0].sent)  # ("cutting cloth, paper, and other thin material": a list)
            if words and words[0].i in sized:
                continue  # (a size, read below)
            if len(words) == 1 and _DECADE_TAG.fullmatch(words[0].lower_) and words[0].i not in self.nouns:
                # "set of six dining chairs, 1960s, walnut": a decade set off as a tag says when the subject is from ("are
                # the dining chairs from the 1960s?"), as DSG's annotators ask it
                thing = self._tag_subject(fragments, 1, fragments[1])
                if thing is not None:
                    decade = words[0].lower_.strip("'")
                    self.add_attr(self.nouns[thing.i], decade, "state", words[0].i, phrase=f"from the {decade}")
                continue
            materials = self.lex["attribute_kinds"]["material"]
            # (a stock title's part may open with a capital: "side chairs, 1950s  Teak, leather")
            a_material = words[0].pos_ == "NOUN" and words[0].tag_ == "NN" and _lemma(words[0]) in materials or (
                words[0].pos_ == "PROPN" and words[0].is_title and words[0].lower_ in materials
            )
            if len(words) == 1 and not listed and words[0].i in self.nouns and a_material and _lemma(words[0]) not in self.lex["scene_materials"]:
                # "set of eight side chairs, 1950s, walnut, leather", "a mask, porcelain, intricate": a tag that is only a
                # material names what the subject is made of ("are the side chairs made of leather?"), no thing of its own
                thing = self._tag_subject(fragments, 1, fragments[1])  # (the subject of the tags, past any tag between)
                if thing is not None and thing.i != words[0].i:
                    self.add_attr(self.nouns[thing.i], words[0].lower_, "material", words[0].i, phrase=f"made of {words[0].lower_}")
                    self.nouns.pop(words[0].i, None)
                continue
            # "two pairs of running shoes, pink and grey": a tag of colours only, one of them read as a thing ("is there a
            # grey?"), is the look of the thing before it, as any colour tag is; not an item of a list of things ("a pear,
            # orange, and two bananas"), nor "black and white" (the picture's colouring: "portrait of a fisherman, black and
            # white, film grain")
            sentence = words[0].sent if words else []
            coloured = bool(words) and all(t.lower_ in colours or t.tag_ == "CC" for t in words) and words[-1].lower_ in colours and not any(
                t.dep_ == "cc" and t not in fragment for t in sentence
            ) and [t.lower_ for t in words] != ["black", "and", "white"]
            if not words or len(words) > 5 or any(t.i in self.nouns and not coloured or not t.text.replace("-", "").isalpha() for t in words):
                continue
            content = [t for t in words if t.tag_ not in ("RB", "RBR", "RBS", "CC")]
            if len(words) > 1 and _lemma(words[-1]) in ("color", "colour", "tone", "hue") and all(
                t.tag_ in ("JJ", "JJR", "JJS", "VBN", "RB") or t.lower_ in colours for t in words[:-1]
            ):
                # "clown girl, gothic, rich deep colours": the colours of the prompt's subject ("is the girl in rich deep
                # colours?"), the picture's look too
                thing = self._tag_subject(fragments, k, words)
                if thing is not None:
                    value = self.doc[words[0].i : words[-1].i].text.lower()
                    self.add_attr(self.nouns[thing.i], value, "color", words[0].i, phrase=f"in {value} {words[-1].lower_}")
                continue
            part = self._tagged_part(words)
            if part:
                # whose part: the head of the prompt's first fragment ("two wolves in a forest, glowing eyes": the wolves)
                inside = {t.i for t in fragments[0]}
                thing = next((t for t in fragments[0] if t.i in self.nouns and (t.head.i not in inside or t.head.i == t.i)), None)
                if thing is not None:
                    # "mystical cat ..., glowing eyes": the subject's own part with its look ("does the cat have glowing
                    # eyes?"), not the picture's ("does the image have glowing eyes?")
                    self.globals = [g for g in self.globals if not (g.tag and g.index in {t.i for t in words})]
                    self.add_attr(self.nouns[thing.i], part, "had", words[0].i)
                continue
            lone = len(words) == 1 and words[0].is_lower and ADJECTIVE_ENDING.fullmatch(words[0].lower_) is not None
            # "a fox in the snow, occult", "..., sci fi, artstation": a genre's name set off as a tag describes as a
            # describing word does ("is the fox occult?"), though the tagger reads it as a noun or a name
            lone = lone or " ".join(t.lower_ for t in words) in self.lex["genre_tags"]
            if not content or not (lone or all(t.tag_ in describing or t.lower_ in colours for t in words)):
                continue
            if " ".join(t.lower_ for t in words) in self.lex["style_tag_phrases"]:
                continue  # "a fisherman, black and white, film grain": the picture's colouring, not the fisherman's
            if any(_RESOLUTION_WORD.fullmatch(t.lower_) for t in words):
                continue  # "a castle on a hill, 4k uhd": the picture's resolution, no look of the castle
            if len(content) == 1 and _in(content[0], self.lex["style_had"]):
                continue  # "portrait of a cowboy, bokeh": what the picture has, no look of the cowboy
            if len(words) == 1 and not lone and not coloured and not _in(words[0], self.lex["style_tag_words"]) and _reads_as_seen_noun(words[0].lower_, self.model):
                continue  # "a furry caterpillar, pupa": a thing's name the tagger read as a describing word, no look
            if any(t.i in self.skip and t.tag_ == "NNP" and not lone for t in words):
                continue  # a name
            thing = self._tag_subject(fragments, k, words)
            if thing is None:
                continue
            kind = "color" if all(t.lower_ in colours for t in content) else "state"
            self.add_attr(self.nouns[thing.i], self.doc[words[0].i : words[-1].i + 1].text.lower(), kind, words[0].i)
            if coloured:
                for t in words:
                    self.nouns.pop(t.i, None)  # (a colour of the tag, no thing: "is there a grey?")

    def _tagged_sizes(self, fragments: list) -> set[int]:
        """ "walnut sideboard with four drawers, 72 x 18 x 30 in", "brass desk lamp, 45 cm high", "side chairs, vinyl (8).
        37 1/2 x 16 1/2 x 17 3/8 in (95.3 x 42 x 44 cm)": a size set off as a tag (after the prompt's first fragment,
        between commas, sentence ends or two spaces) is the size of the prompt's subject, the first thing of its first
        fragment that hangs on no other thing ("is the sideboard 72 x 18 x 30 in?", as DSG's annotators ask a size),
        never of a part; a size in brackets after it is a second size. The tokens the sizes take (no thing, no look of
        their own: "45 cm high" asks no "is the lamp high?")."""
        doc = self.doc
        if not fragments or not any(t.like_num for t in doc):
            return set()
        inside = {t.i for t in fragments[0]}
        # (a maker's name before the thing is no subject: "GIANNI ROSSI Set of six side chairs" sizes the chairs)
        names = {i for i in inside if i in self.nouns and doc[i].pos_ == "PROPN" and not doc[i].is_lower}
        thing = next((t for t in fragments[0] if t.i in self.nouns and t.i not in names
                      and not any(a.i in inside and a.i in self.nouns and a.i not in names for a in t.ancestors)), None)
        first_end = fragments[0][-1].idx + len(fragments[0][-1])
        taken: set[int] = set()
        for m in _SIZE_SPAN.finditer(doc.text):
            if thing is None or m.start() < first_end:
                continue
            for group in ("size", "second"):
                if m.group(group) is None:
                    continue
                span = doc.char_span(m.start(group), m.end(group), alignment_mode="expand")
                if span is None:
                    continue
                ids = {t.i for t in span}
                noun = self.nouns[thing.i]
                noun.attrs = [a for a in noun.attrs if a.index not in ids]
                noun.attributes = [w for w in noun.attributes if noun.modifier_start.get(w) not in ids]
                value = " ".join(m.group(group).split())
                self.add_attr(noun, value, "size", span.start, phrase=value)
                taken |= ids
                for i in ids:
                    self.nouns.pop(i, None)
        return taken

    def _tag_subject(self, fragments: list, k: int, words: list):
        """The thing a describing tag (fragment ``k``) is about: the thing named last before it, in the prompt's first
        fragment or a described thing of the fragment right before ("..., wispy particles, pychedelic"), not a place named
        on the way ("groceries in the air, Kodak, photoreal") nor a backdrop; None if there is none."""
        thing = self._last_thing_before(words[0])
        if thing is None or thing.i not in self.nouns:
            return None
        if self.nouns[thing.i].lemma in self.lex["backdrops"] and thing not in fragments[0]:
            # "multicolored fur in a furry frame, white background, centered": a backdrop set off as a tag of its own is no
            # subject of the tag after it; the prompt's subject, the first thing of its first fragment that hangs on no other
            # thing, is ("a lone wolf howling on a hill, dark background, eerie": "is the wolf eerie?")
            inside = {t.i for t in fragments[0]}
            thing = next((t for t in fragments[0] if t.i in self.nouns and not any(a.i in inside and a.i in self.nouns for a in t.ancestors)), thing)
        if _in(thing, self.lex["tag_parts"]):
            # "an elf queen with long silver hair and blue eyes, elegant": a part the thing is "with" is no subject of a
            # tag; the thing that has it is ("is the elf queen elegant?", not "are the eyes elegant?")
            first = thing
            while first.dep_ == "conj" and first.head.i != first.i:
                first = first.head
            owner = first.head.head if first.dep_ == "pobj" and first.head.lower_ == "with" else None
            if owner is not None and owner.i not in self.nouns:  # ("a portrait of an elf queen with ...": the queen's)
                owner = next((o for p in owner.children if p.dep_ == "prep" and p.lower_ == "of" for o in p.children if o.dep_ == "pobj"), None)
            if owner is not None and owner.i in self.nouns:
                thing = owner
        # "a cabin in the woods, cozy", "a knight in shining armor, hyper-realistic": a place hung on a thing is no subject
        # of a tag; the thing it is the place of is ("is the cabin cozy?", not "are the woods cozy?")
        while thing.dep_ == "pobj" and thing.head.dep_ == "prep":
            held = thing.head.head
            # (the tagger reads "made" after a thing as a past tense now and then: "sculpture of letter W made from ... wire")
            participle = held.tag_ in ("VBN", "VBD") and held.dep_ == "acl" and held.head.i in self.nouns
            if thing.head.lower_ == "of" and not (participle and _lemma(held) in self.lex["making_verbs"]):
                break  # ("a bowl of ramen, steaming": the ramen; only what a thing is "made of", "built of" is climbed)
            if thing.head.lower_ == "with" and not (participle and not any(self.nouns[held.head.i].lemma in v for v in self.lex["containers"].values())):
                break  # ("a bowl filled with cherries, juicy": a container's contents are what a tag describes)
            if held.i in self.nouns:
                thing = held
            elif participle:
                # "a cat shrouded in smoke whisps, ..., twisted", "a girl covered in flowers, ethereal", "an elephant made of
                # flowers, colorful", "a station overgrown with plants, moody": what a past participle makes a thing of,
                # covers or surrounds it with is no subject of a tag; the thing it describes is
                thing = held.head
            else:
                break
        if thing.pos_ == "PROPN" and (thing.text[:1].isupper() or thing.ent_type_) or thing.ent_type_ in ("PERSON", "GPE", "ORG", "WORK_OF_ART"):
            return None  # a name has no look of a tag ("a view of Évora, hyperealistic": the picture is, not "is Évora ...?")
        acts = self.lex["acts"].get(_lemma(thing.head), ())
        if thing.dep_ == "dobj" and (_lemma(thing) in acts or self.nouns[thing.i].phrase.lower() in acts) and not any(
            c.dep_ == "prep" and c.lower_ == "of" for c in thing.children
        ):
            return None  # "an astronaut taking a selfie, colorful": an act has no look of a tag, and stays an act
        before = fragments[k - 1]
        listed = thing in before and not any(t.pos_ == "ADP" for t in before) and any(c.dep_ == "amod" for c in thing.children)
        if thing not in fragments[0] and not listed or self.nouns[thing.i].lemma in self.lex["backdrops"]:
            return None
        return thing

    def _tagged_part(self, words: list) -> str:
        """ "glowing eyes", "long flowing hair": a tag that is a body part with describing words before it (the part's
        look), as written; "" otherwise."""
        *looks, part = words
        if not looks or not (_lemma(part) in self.lex["tag_parts"] or part.lower_ in self.lex["tag_parts"]):
            return ""
        if not all(t.tag_ in ("JJ", "VBG", "VBN", "RB") or t.lower_ in self.lex["colors"] for t in looks):
            return ""
        return self.doc[words[0].i : part.i + 1].text.lower()

    def _last_thing_before(self, tok):
        """The last thing before ``tok`` in its sentence, outside quotes (None if there is none)."""
        quotes = 0
        for i in range(tok.i - 1, tok.sent.start - 1, -1):
            t = self.doc[i]
            if t.is_quote:
                quotes += 1
            elif i in self.nouns and quotes % 2 == 0:
                return t
        return None

    def _shape(self, noun: Noun) -> None:
        """ "a cloud in the shape of a heart", "in the form of a dragon", "a pool shaped like a guitar": the shape is the
        thing's ("is the cloud in the shape of a heart?"), the heart is no thing of its own."""
        if noun.index not in self.nouns:
            return  # (another thing's shape, read before it)
        for c in self.doc[noun.index].children:
            shape, words = None, ""
            if c.dep_ == "prep" and c.lower_ == "in":
                form = next((p for p in c.children if p.dep_ == "pobj" and p.lower_ in ("shape", "form")), None)
                of = next((p for p in form.children if p.dep_ == "prep" and p.lower_ == "of"), None) if form is not None else None
                shape = next((p for p in of.children if p.dep_ == "pobj"), None) if of is not None else None
                words = f"in the {form.lower_} of" if form is not None else ""
            elif c.dep_ in ("acl", "amod") and c.lower_ == "shaped":
                like = next((p for p in c.children if p.dep_ == "prep" and p.lower_ in ("like", "as")), None)
                shape = next((p for p in like.children if p.dep_ == "pobj"), None) if like is not None else None
                words = f"shaped {like.lower_}" if like is not None else ""
                if shape is not None:
                    self.lettered.add(c.i)  # ("shaped like a guitar" says the shape: no bare "is the pool shaped?")
                    for p in list(c.children):
                        if p.dep_ == "prep" and p.lower_ == "with" and p.i > like.i:
                            p.head = self.doc[noun.index]  # ("a cake shaped like a 7 with pink frosting": the cake's frosting)
            if shape is None or shape.i == noun.index:
                continue
            value = _phrase(shape).lower()
            det = next((d.lower_ for d in shape.children if d.dep_ == "det" and d.lower_ in ("a", "an", "the")), "")
            self.add_attr(noun, value, "shape", shape.i, phrase=" ".join(w for w in (words, det, value) if w))
            self.nouns.pop(shape.i, None)  # ("is there a heart?" is not what the prompt says)

    def _lettering(self, noun: Noun) -> None:
        """ "the text 'las vegas' in bold block letters", "the word 'multiplication' written in flowing cursive": how the
        text is lettered is the text's ("is the text in bold block letters?"), the letters no thing (``lettering``)."""
        tok = self.doc[noun.index]
        if tok.lower_ not in self.lex["text_nouns"]:
            return
        doc = self.doc
        heads = [tok, *[c for c in tok.children if c.dep_ == "appos"]]  # (the quoted words hang on the noun)
        verbs = [v for h in heads for v in h.children if v.dep_ == "acl" and v.pos_ == "VERB"]
        preps = [p for h in heads + verbs for p in h.children if p.dep_ == "prep"]
        quote = doc[tok.i + 1] if tok.i + 1 < len(doc) and doc[tok.i + 1].is_quote else None
        end = next((t.i for t in doc[tok.i + 2 : tok.i + 14] if t.is_quote), None) if quote is not None else None
        if end is not None:  # "the words 'feed the nation' in simple letters", the quote read as a clause: the "in" after it
            after = [t for t in doc[end + 1 : end + 3] if t.dep_ == "prep"]
            preps += after[:1]
        for prep in preps:
            pobj = next((c for c in prep.children if c.dep_ == "pobj"), None) if prep.lower_ == "in" else None
            if pobj is None or pobj.lower_ not in self.lex["lettering"] and _lemma(pobj) not in self.lex["lettering"]:
                continue
            if any(c.dep_ in ("det", "poss") for c in pobj.children):
                continue  # "the words in a typography poster": a thing they are in, not how they are lettered
            first = min(t.i for t in pobj.subtree if t.i <= pobj.i)
            last = max(t.i for t in pobj.subtree)
            value = doc[first : last + 1].text.lower()
            self.add_attr(noun, value, "font", first, phrase=f"in {value}")
            for t in pobj.subtree:
                self.nouns.pop(t.i, None)
            if prep.head.pos_ == "VERB":
                self.lettered.add(prep.head.i)  # "written in cursive": said by the lettering, no state of its own

    def _pose_of_be(self, noun: Noun) -> None:
        """ "legs are a little more than shoulder length apart": a pose word hung on the "be" a body part is the subject of
        is the part's state."""
        tok = self.doc[noun.index]
        if tok.dep_ != "nsubj" or tok.head.lemma_ != "be":
            return
        for c in tok.head.children:
            if c.dep_ == "advmod" and c.lower_ in self.lex["pose_states"] and c.i > tok.i:
                if c.i - 1 != tok.i and c.i - 1 in self.nouns and self.nouns[c.i - 1].lemma in self.lex["body_parts"]:
                    continue  # "the left leg is bent ..., the right leg straight": the word right after a part is its own (``_pose``)
                self.add_attr(noun, c.lower_, "state", c.i)

    def _pose(self, noun: Noun) -> None:
        """ "left arm bent", "arms straight and together", "right knee slightly bent": the pose words right after a body
        part (past degree adverbs, across "and") are its states."""
        doc, states = self.doc, self.lex["pose_states"]
        j = noun.index + 1
        while j < len(doc):
            tok = doc[j]
            if j + 2 < len(doc) and _in(tok, self.lex["body_parts"]) and doc[j + 1].lower_ in self.lex["pose_nouns"]["measures"] and doc[j + 2].lower_ == "apart":
                # "feet shoulder width apart": how far apart ("are the feet shoulder width apart?")
                self.add_attr(noun, doc[j : j + 3].text.lower(), "state", j)
                j += 3
                continue
            if tok.pos_ == "ADV" and tok.lower_ not in states or tok.lower_ in ("and", ",") or j == noun.index + 1 and tok.lemma_ == "be":
                j += 1
                continue
            nxt = doc[j + 1] if j + 1 < len(doc) else None
            # "head slightly left and down": a side after the part (not the side of the next part, "..., left arm up") is
            # where it is turned
            side = tok.lower_ in ("left", "right") and j > noun.index + 1 and (
                nxt is None or not _in(nxt, self.lex["body_parts"]))
            if (tok.lower_ not in states and not side) or j in self.nouns or any(c.dep_ == "pobj" for c in tok.children):
                return  # ("arms behind the back": a place, read as a relation)
            part = doc[noun.index]
            if part.dep_ == "pobj" and part.head.head.i == tok.head.i and tok.head.i != part.i and tok.dep_ in ("advcl", "conj", "dep"):
                return  # "arms raised above the head bent at the elbows": said of what the place's verb does, the arms
            way, end = self._direction_end(tok)  # "head turned left": "is the head turned left?" (not also "... left?")
            if side:
                self.add_attr(noun, tok.lower_, "state", j, phrase=f"to the {tok.lower_}")  # "is the head to the left?"
                j += 1
                continue
            self.add_attr(noun, f"{tok.lower_} {way}" if way else tok.lower_, "state", j)
            j = end + 1
