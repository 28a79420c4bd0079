"""Who a word is about: a verb's subject, what "it" / "him" stands for, the things a list names, the thing after "a group of"."""

from __future__ import annotations

from typing import Any

from autoalign.scoring.parse.lexicon import lexicon
from autoalign.scoring.parse.state import _ReaderState
from autoalign.scoring.parse.tokens import (
    _conjuncts,
    _in,
    _is_noun,
    _lemma,
    _measure_of_stuff,
    _prep_relation,
    _subject_of,
)


class _ReferentsReader(_ReaderState):
    """Resolves the things a relation is about."""

    def _group(self, tok) -> list[Any]:
        """The things a relation of ``tok`` is about: all of "a pear, an orange and two bananas in a bowl"."""
        first = tok
        while first.dep_ in ("conj", "appos") and _is_noun(first.head):
            first = first.head
        group = [t for t in _conjuncts(first) if t.i in self.nouns]
        if tok.i in self.nouns and not any(t.i == tok.i for t in group):
            return [tok]  # (a run of tags is no list: the thing alone)
        parts = self.lex["body_parts"]
        if _lemma(tok) in parts and first.i != tok.i and _lemma(first) not in parts:
            # "Someone is stretching, the head between the arms": a part set beside its person is where the part is, not
            # the person ("is the person between the arms?")
            return [t for t in group if _lemma(t) in parts] or [tok]
        return group or [tok]

    def _placed(self, tok) -> bool:
        """Whether a thing has a place phrase of its own ("a cup on a table")."""
        lex = self.lex
        return any(
            c.dep_ == "prep" and c.lower_ not in ("with", "of") and c.lower_ not in lex["non_spatial_prepositions"]
            and (rel := _prep_relation(c, lex)) is not None and rel[1].i in self.nouns
            for c in tok.children
        )

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

    def _verb_subject(self, verb):
        """The thing a verb is about, or None when the parse gives no believable one.

        A finite verb needs its own subject ("a boy grips a ball"; not "a suit and tie with a beer",
        where "tie" was read as a verb). A participle after a thing that is itself inside "in / with /
        at" another thing is about the outer thing ("a man at a food truck viewing the menu").
        """
        if verb.i in self.implied:
            return verb  # "standing on left leg": the person the pose is about (read at the verb)
        subject = _subject_of(verb)
        if subject is not None and subject.i not in self.nouns:
            subject = self._pictured(subject)  # "a group of giraffes are gathered ...": the giraffes
        if subject is None:
            return self._previous_subject(verb)  # "A surfer is wearing a wet suit. He is standing on ...": the surfer
        if subject.i not in self.nouns:
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
        # (but "arms relaxed with hands touching at the feet": a body part with its own "-ing" word does it itself)
        own_part = (
            prep.lower_ == "with" and prep.head.pos_ in ("VERB", "AUX", "ADJ") and _lemma(subject) in lexicon()["body_parts"]
            and not any(c.dep_ in ("amod", "compound") for c in subject.children) and self._absolute(subject)
        )  # (not "a bird with triangle-shaped body standing next to a river": the bird stands)
        if participle and not own_part and subject.dep_ in ("pobj", "dobj") and (subject.dep_ == "dobj" or prep.lower_ in ("in", "with", "at", "on") or made_of):
            # "a tornado made of tigers crashing into ...": what the thing is made of does not act; the thing does
            outer = subject.head if subject.dep_ == "dobj" else prep.head  # "a man wearing a hat holding ..."
            if outer.pos_ == "VERB" and outer.dep_ == "acl":  # "a man sitting on a motorcycle smoking ..."
                outer = outer.head
            if _is_noun(outer) and outer.i in self.nouns:
                return outer
        return subject

    def _part_for_owner(self, about, pron, verb) -> bool:
        """Whether a body part named as the sentence before's subject cannot be what "he" / "she" / "they" stands for:
        "he" and "she" are someone, never an arm; "Their arms are bent. They are looking down" is the person whose arms
        they are (the part has an owner's word); and no part looks, smiles or gazes ("They are looking down" asked of the
        arms). Without an owner, "The arms are bent. They are close to the body." is about the arms."""
        parts = self.lex["body_parts"]
        if _lemma(about) not in parts and about.lower_ not in parts:
            return False
        if pron.lower_ in ("he", "she"):
            return True
        owned = any(c.dep_ == "poss" for c in about.children)
        return owned or _lemma(verb) in self.lex["person_verbs"]

    def _pictured(self, tok):
        """The thing after "of" of a quantity noun that is not itself a thing ("a group of giraffes"), or None."""
        if not _is_noun(tok) or tok.i in self.nouns or _lemma(tok) not in self.not_things["quantity"] and not _measure_of_stuff(tok, self.lex):
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

    def _earlier_person(self, pron):
        """Who "him" / "her" is when its own sentence names nobody acting: the thing the sentence before is about (its
        main verb's subject, through "he" / "she" there: :meth:`_previous_subject`), singular; None otherwise."""
        if pron.sent.start == 0:
            return None
        root = self.doc[pron.sent.start - 1].sent.root
        about = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass") and c.i in self.nouns), None)
        if about is None:
            about = self._previous_subject(root, ("he", "she"))
        return about if about is not None and not self.nouns[about.i].plural else None

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

    def _previous_subject(self, verb, pronouns: tuple[str, ...] = ("he", "she", "they")):
        """Who "he" / "she" / "they" as the subject of a sentence's main verb is in a paragraph: the thing the sentence
        before is about (its main verb's subject, or the thing a verbless sentence names first), when the number agrees
        ("they": plural); None otherwise ("it" is left alone unless ``pronouns`` names it: "It is an overcast day")."""
        own = verb
        while own.dep_ in ("conj", "xcomp", "advcl") and own.head.pos_ in ("VERB", "AUX") and own.head.i != own.i:
            own = own.head
        pron = next((c for c in own.children if c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in pronouns), None)
        if pron is None or own.dep_ != "ROOT" or own.sent.start == 0:
            return None
        before = self.doc[own.sent.start - 1].sent
        root = before.root
        about = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass") and c.i in self.nouns), None)
        if about is None and any(c.dep_ in ("nsubj", "nsubjpass") and c.lower_ == pron.lower_ for c in root.children):
            about = self._previous_subject(root, (pron.lower_,))  # "... two birds. They are laying down. They are brown."
        elif about is None:
            about = root if root.i in self.nouns else next((t for t in before if t.i in self.nouns), None)
        if about is None:
            return None
        part = _in(about, self.lex["body_parts"])
        one_person = pron.lower_ == "they" and self.nouns[about.i].lemma == "person"  # "Someone is ... They are leaning ...": singular "they"
        if self._part_for_owner(about, pron, own) or self.nouns[about.i].plural != (pron.lower_ == "they") and not one_person:
            # "Someone is in a wide stance. The left leg is far in front. They are leaning to the right.": after a sentence
            # about a body part that cannot be "they" / "he" / "she", the pronoun is the person the pose is of, named
            # before
            return self._posing_person(own) if part else None
        return about

    def _posing_person(self, verb):
        """The one person named before ``verb``'s sentence (a thing of lemma "person": "someone", "the person"), or None."""
        people = [i for i in self.nouns if i < verb.sent.start and self.nouns[i].lemma == "person" and not self.nouns[i].plural]
        return self.doc[max(people)] if people else None
