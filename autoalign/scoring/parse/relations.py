"""Relations between two things: prepositions ("on", "in front of"), verbs with objects ("holding"), parts ("with"), "each other"."""

from __future__ import annotations

from typing import Any

from autoalign.scoring.parse.lexicon import lexicon
from autoalign.scoring.parse.referents import _ReferentsReader
from autoalign.scoring.parse.salvage import salvage
from autoalign.scoring.parse.tokens import (
    _anchor,
    _conjuncts,
    _in,
    _is_noun,
    _lemma,
    _negated,
    _particle,
    _prep_relation,
    _reciprocal_end,
    _shows_number,
    _side_word,
    _subject_of,
    _to_place,
    _verb_words,
)


class _RelationsReader(_ReferentsReader):
    """Reads ``self.relations``."""

    def read_relations(self) -> None:
        """Every relation of the parse: each token that can start one is read by its own rule, then the relations
        that follow from others (repairs, second attachments, places of objects and of "with" things, chains)."""
        for tok in self.doc:
            with salvage(f"the relations of {tok.text!r}", self.doc.text):
                self._relations_from(tok)
        for step in (self._repaired_relations, self._second_attachments, self._object_places, self._with_places, self._chained_places,
                     self._placed_with):
            with salvage(step.__name__.strip("_").replace("_", " "), self.doc.text):
                step()

    def _relations_from(self, tok) -> None:
        """The relations a token starts, by the one rule for what it is."""
        if tok.dep_ in ("prep", "agent"):
            self._preposition_relations(tok)
        elif tok.dep_ == "dobj" and _reciprocal_end(tok) and tok.head.pos_ == "VERB":  # "two elephants touching each other"
            self._reciprocal_verb_relations(tok)
        elif tok.i in self.nouns and _to_place(tok):  # "sitting next to vase", "airplane is left to backpack"
            self._to_place_relations(tok)
        elif tok.dep_ == "dobj" and tok.lower_ in ("it", "them") and tok.head.pos_ == "VERB":
            self._pronoun_object_relations(tok)
        elif tok.dep_ in ("dobj", "dative") and _is_noun(tok) and tok.head.pos_ == "VERB" and tok.dep_ != "conj":
            if any(t.text in (".", "!", "?") for t in tok.doc[tok.head.i + 1 : tok.i]):
                return  # "person wear jeans. person beside person": an object is never past the full stop after its verb
            self._verb_object_relations(tok)

    # -- a preposition: "on", "next to", "in front of", "with" (a part), "sitting on" (a verb's)
    def _preposition_relations(self, tok) -> None:
        """The relations a preposition (or a passive's "by") states, from what it hangs on to its object."""
        lex = self.lex
        if tok.lower_ == "by" and tok.i in self.skip:
            return  # "a silk screen by harry clarke, deviantart, ...": an artist (read with the frames), no place
        rel = _prep_relation(tok, lex)
        anchor = _anchor(tok)
        if rel is None or tok.lower_ in lex["non_spatial_prepositions"] and tok.lower_ != "of" and not self._sought(tok, anchor):
            return  # "during the party" is a time, not a place
        words, obj = rel
        lead = self._pose_lead(tok)
        if lead is not None:
            words = f"{lead.lower_} {words}"  # "held level with the shoulder", "parallel to the floor": the place is said by both
            if anchor.i == lead.i:  # "with the hand level with the head": the hand is level with it
                anchor = next((c for c in lead.children if c.dep_ == "compound" and c.i in self.nouns), anchor)
            if anchor.i == lead.i and (lead.dep_ in ("acomp", "oprd") and lead.head.pos_ in ("VERB", "AUX") or lead.dep_ in ("amod", "oprd") and lead.head.i in self.nouns):
                # "the arms are parallel to the floor", "arms parallel to the floor": said of the verb's subject, or of the
                # thing the word describes, as "close to" is ("are the arms parallel to the floor?", not "are the arms
                # parallel?")
                anchor = lead.head
        if obj.i in self.misread_verbs:
            obj = self.doc[self.misread_verbs[obj.i]]  # "with an umbrella walks": with the umbrella
        if tok.lower_ == "with" and anchor.dep_ == "dobj" and anchor.head.pos_ == "VERB" and _lemma(obj) in lex["tools"]:
            anchor = anchor.head  # "eating a salad with a fork": what she eats with (``tools``), no part of the salad
        if anchor.pos_ == "VERB" and anchor.tag_ == "VBN" and _lemma(anchor) in lex["writing_verbs"] and obj.pos_ == "PRON":
            return  # "a blackboard with 'Math 101' written on it": the text's bearer (read with the quote), no relation
        writer = self._writer_before(tok, anchor)
        if writer is not None:
            anchor = writer  # "a robot writing 'hello' on a whiteboard": the robot writes on it, is not on it
        if tok.lower_ == "with" and any(
            c.dep_ == "prep" and any(p.dep_ == "pobj" and p.pos_ == "PRON" for p in c.children) for c in obj.children
        ):
            return  # "eating a hot dog with people around him": the people are around him, not the dog's
        if tok.lower_ == "with" and anchor.pos_ in ("VERB", "AUX", "ADJ") and self._absolute(obj):
            return  # "standing with legs crossed", "hangs down with hand near knee": how the part is, not "standing with it"
        if tok.lower_ == "with" and _in(anchor, lex["body_parts"]) and _in(obj, lex["body_parts"]) and self._absolute(obj):
            return  # "kneeling on the right knee with the left foot flat": how the foot is, not "does the knee have a foot?"
        mutual = _reciprocal_end(obj)  # "sitting next to each other": the things are next to one another
        stands_for = obj.pos_ == "PRON"  # "it": the one thing it stands for, not the things listed with it
        obj = self._pronoun_stands_for(tok, anchor, obj)
        if obj is None:
            return
        if anchor.lower_ in lex["colors"] and anchor.dep_ == "pobj" and anchor.i not in self.nouns:
            self._coloured_anchor_relations(anchor, words, obj)
            return
        if tok.lower_ == "of" and anchor.pos_ == "VERB" and _lemma(anchor) in self.not_things["quantity"]:
            return  # "peacock birds set of two 11 quot": a count of the birds (read with them), not a relation
        anchor = self._place_anchor(tok, anchor)
        if anchor is None or _negated(anchor):
            return  # ("a cat not sitting on a mat": not asked)
        if _is_noun(anchor) and anchor.i in self.nouns and self.nouns[anchor.i].lemma in lex["backdrops"] and tok.lower_ != "of":
            # "people in the background behind her": the place is of what is in the backdrop (read before: the same
            # sentence, earlier words)
            subjects = [self.doc[r.subject] for r in self.relations if r.obj == anchor.i and r.kind == "prep"]
            if subjects:
                self._record_place(tok, subjects, words, obj, "prep", "", "", mutual, stands_for)
            return
        if _is_noun(anchor) and anchor.i in self.nouns:
            if tok.lower_ == "of":
                if anchor.i in self.depictions:
                    for o in _conjuncts(obj):
                        self._relation(o.i, "in", anchor.i, "prep", "", "")  # "a painting of pangolins": in it
                held_in = self._container_word(anchor, obj)
                if held_in:
                    for o in _conjuncts(obj):
                        if o.i in self.nouns:
                            self._relation(o.i, held_in, anchor.i, "prep", "", "")  # "a bowl of ice cream": the ice cream is in it
                return  # "the side of ..." is no spatial relation
            subjects = self._thing_subjects(tok, anchor, obj)
            kind, tag, finite = ("part" if words == "with" else "prep"), "", ""
        elif anchor.pos_ in ("VERB", "AUX"):
            reading = self._verb_reading(tok, anchor, obj, words)
            if reading is None:
                return
            subjects, words, kind, tag, finite = reading
        else:
            return
        self._record_place(tok, subjects, words, obj, kind, tag, finite, mutual, stands_for)

    def _writer_before(self, tok, anchor):
        """The verb of writing (``text_nouns.writing_verbs``) hung on the thing ``anchor`` whose object is a quote, when the place ``tok`` after it, which the tagger hung on the thing, says where the text is written
        ("a robot writing 'hello' on a whiteboard"); else None."""
        if tok.lower_ not in ("on", "onto", "across", "in", "over") or anchor.i not in self.nouns or tok.i < anchor.i:
            return None
        return next((
            c for c in anchor.children
            if c.dep_ in ("acl", "relcl") and c.i < tok.i and _lemma(c) in self.lex["writing_verbs"]
            and any(d.dep_ == "dobj" and d.i > 0 and self.doc[d.i - 1].is_quote for d in c.children)
        ), None)

    def _container_word(self, anchor, obj) -> str:
        """ "in" / "on" when ``anchor`` is a container of ``obj`` ("a bowl of ice cream", "a plate of cookies";
        ``containers``), else ""."""
        if obj.i not in self.nouns or obj.i == anchor.i:
            return ""
        lemma = self.nouns[anchor.i].lemma
        return next((word for word, things in self.lex["containers"].items() if lemma in things), "")

    def _pose_lead(self, tok):
        """The word of how a thing is held right before the preposition that goes with it ("level" of "level with",
        "parallel" of "parallel to"; ``pose_prepositions``), when it is no thing of its own; else None."""
        if tok.i == 0:
            return None
        lead = self.doc[tok.i - 1]
        if tok.lower_ not in self.lex["pose_prepositions"].get(lead.lower_, ()):
            return None
        # ("the hand level with the head": the thing at "level" is the hand, named by its part; "a spirit level" is a thing)
        return None if lead.i in self.nouns and self.nouns[lead.i].lemma == _lemma(lead) else lead

    def _pronoun_stands_for(self, tok, anchor, obj):
        """The thing a pronoun object of a preposition stands for ("on it": the plate; "around him": the man), the object
        itself when it is no pronoun, None when the parse gives no believable one."""
        if obj.pos_ != "PRON":
            return obj
        part = anchor if _is_noun(anchor) else _subject_of(anchor)
        if obj.lower_ in ("them", "him", "her") and part is not None and _in(part, self.lex["body_parts"]):
            # "The right leg is kicked out in front of them": the person whose leg it is, not the last thing named
            return next((self.doc[i] for i, n in self.nouns.items() if n.lemma == "person"), None)
        if obj.lower_ in ("it", "them"):
            has_dobj = anchor.pos_ in ("VERB", "AUX") and any(c.dep_ == "dobj" for c in anchor.children)
            if has_dobj:
                return self._verb_subject(anchor)
            return self._antecedent(anchor, tok.lower_ in ("on", "in", "inside", "onto", "into"))
        if obj.lower_ in ("him", "her", "himself", "herself"):
            # "a man eating a hot dog with people around him": the man; "She is holding a phone. There are people behind
            # her.": who the sentence before is about
            return self._main_subject(obj) or self._earlier_person(obj)
        return obj

    def _coloured_anchor_relations(self, anchor, words: str, obj) -> None:
        """ "a man dressed in green next to a dog": next to the man, not to his colour."""
        verb = anchor.head.head
        subject = self._verb_subject(verb) if verb.pos_ in ("VERB", "AUX") else None
        if subject is not None:
            for o in _conjuncts(obj) if obj.dep_ not in ("conj", "appos") else [obj]:
                self._relation(subject.i, words, o.i, "prep", "", "")

    def _place_anchor(self, tok, anchor):
        """The token the place phrase is about, past a preposition it hangs on ("with a beer in his hand": the beer), a
        motion's path ("travelling across the land towards ..."), and a quantity ("a flock of geese in front of ...");
        None when that leads to no thing."""
        part = self._absolute_place(tok, anchor) if anchor.pos_ in ("VERB", "AUX", "ADJ") else None
        if part is not None:
            return part  # "left arm hangs down with hand near knee": the hand is near the knee (the tagger hung it on the verb)
        if anchor.pos_ == "ADP" and anchor.dep_ == "prep" and tok.lower_ != "of":
            # "with a beer in his hand": the beer is in the hand
            held = next((c for c in anchor.children if c.dep_ == "pobj"), None)
            if held is None or held.i not in self.nouns:
                return None
            anchor = held
        if (
            tok.lower_ in self.lex["motion_prepositions"] and anchor.dep_ == "pobj" and anchor.head.dep_ == "prep"
            and _anchor(anchor.head).pos_ == "VERB"
        ):
            # "travelling across the land towards a mountain": the travelling goes there; also across a
            # quantity of it ("across a vast expanse of land towards ..."), so before the thing after "of"
            anchor = _anchor(anchor.head)
        if _is_noun(anchor) and anchor.i not in self.nouns and tok.lower_ != "of" and self._is_purpose(anchor):
            # "a basket for easter with painted eggs", "jars for storage on a shelf": the thing the occasion or use is
            # for has them or stands there, not the occasion ("in red and orange" is read with the colours)
            if any(c.dep_ == "pobj" and c.lower_ in self.lex["colors"] for c in tok.children):
                return None
            return self._purpose_owner(anchor)
        if _is_noun(anchor) and anchor.i not in self.nouns:
            # "a photograph of a bed with a laptop", "a flock of geese in front of ...": the thing after "of"
            of = next((c for c in anchor.children if c.dep_ == "prep" and c.lower_ == "of"), None)
            pictured = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
            if pictured is None or pictured.i not in self.nouns or tok.lower_ == "of":
                return None
            anchor = pictured
        return anchor

    def _thing_subjects(self, tok, anchor, obj) -> list[Any]:
        """The things a place phrase hung on a thing is about: the thing, or all of a list before it."""
        # "a woman in a black jacket and a pizza": a thing named after the place is not in it
        subjects = [g for g in self._group(anchor) if g.i < tok.i] or [anchor]
        if any(g.i < anchor.i and self._placed(g) for g in subjects):
            # "a cup on a table and a cat on the floor": a list of things each with its own place; only the
            # last thing is on the floor ("a pear, an orange and two bananas in a bowl": all in the bowl)
            subjects = [anchor]
        if tok.lower_ == "with" and anchor.dep_ == "conj" and len(subjects) > 1:
            # "there are buildings, trees and a sky with clouds": what the last of a list has is its own (not "do the
            # buildings have clouds?"), where a place after a list is the place of all of it
            subjects = [anchor]
        held = self._held_with(anchor, tok, obj)
        if held is not None:
            subjects = [held]  # "a woman with piercings all over her face": the piercings are over it
        return subjects

    def _verb_reading(self, tok, anchor, obj, words: str) -> tuple[list[Any], str, str, str, str] | None:
        """(subjects, words, kind, verb tag, finite lemma) of a place phrase hung on a verb: a place of the verb's
        subject ("sitting on a bench": kind ``verb``), of its object ("holding a cup in his hand") or a part
        ("a man with ..."); None when the verb has no believable subject or the phrase is a material."""
        lex = self.lex
        if _lemma(anchor) in lex["seeing_verbs"] and any(c.dep_ == "nsubj" and c.pos_ == "PRON" for c in anchor.children):
            # "in this image we can see fruits on the surface": the seer is not in the picture; the seen things are there
            # (a place put first, "In the background I can see a fence and the sky", is the place of what is seen after it)
            seen = next((c for c in anchor.children if c.dep_ == "dobj" and c.i in self.nouns and (c.i < tok.i or tok.i < anchor.i)), None)
            return (self._group(seen), words, "prep", "", "") if seen is not None else None
        if anchor.lemma_ == "be" and tok.i < anchor.i and not any(c.dep_ in ("nsubj", "nsubjpass") for c in anchor.children):
            # "Beside the zebra is a small tree": a place put first, the thing after "is"
            there = next((c for c in anchor.children if c.dep_ in ("attr", "acomp") and c.i > anchor.i and c.i in self.nouns), None)
            return (self._group(there), words, "prep", "", "") if there is not None else None
        if anchor.lemma_ == "be" and any(c.dep_ == "expl" for c in anchor.children):
            # "There are large waves in the water": the things that "are" are there
            there = next((c for c in anchor.children if c.dep_ in ("attr", "nsubj") and c.i in self.nouns and c.i < tok.i), None)
            return (self._group(there), words, "prep", "", "") if there is not None else None
        subject = self._verb_subject(anchor)
        if subject is not None and subject.i == obj.i and _subject_of(anchor) is not None:
            subject = _subject_of(anchor)  # "a toilet with seashells sitting on top of it": the seashells
        if subject is None:
            return None
        subjects = self._acting(subject, anchor)
        dobj = next((c for c in anchor.children if c.dep_ == "dobj" and c.i in self.nouns), None)
        if dobj is None:  # "placing it in the oven": the thing "it" stands for
            dobj = next((self._pronoun_object(c) for c in anchor.children if c.dep_ == "dobj" and c.lower_ in ("it", "them")), None)
        if _lemma(anchor) == "have" and words == "on" and tok.i == anchor.i + 1 and obj.pos_ != "PRON":
            # "a man has on a blue jacket", "the person has on a black coat, a scarf and a bag": he wears it (not "have
            # on", nor "is the person on the coat?")
            return subjects, "wearing", "verb", "VBG", ""
        held = self._held_with(anchor, tok, obj)
        if held is not None:
            # "standing with her hands on her hips": the hands are on the hips, not the woman
            return [held], words, "prep", "", ""
        placed = any(  # (its place in the picture: "in the foreground", "in the background")
            c.dep_ == "prep" and c.lower_ in ("in", "on", "at")
            and any(p.dep_ == "pobj" and (_in(p, lex["state_places"]) or _in(p, lex["backdrops"])) for p in c.children)
            for c in obj.children
        )
        if words == "with" and placed and self._verb_has_object(anchor, ("with",)):
            # "Lightning striking the ocean at night with a lighthouse in the foreground": a thing "with" its own place
            # is set beside the scene, not what the act is done with ("is the lightning striking with the lighthouse?")
            return None
        if words == "with" and _lemma(anchor) in lex["saying_verbs"]:
            # "a birthday card that reads 'happy birthday' with balloons around the text": the card has the balloons
            return subjects, words, "part", "", ""
        if (
            anchor.lemma_ == "be" or _shows_number(anchor) or words == "with" and not self._verb_has_object(anchor)
            or anchor.lower_ in ("left", "right") and words.startswith("to the")  # "is left to bike", "left" read as a verb
        ):
            return subjects, words, ("part" if words == "with" else "prep"), "", ""
        if any(c.dep_ == "dobj" and _reciprocal_end(c) for c in anchor.children):
            return subjects, words, "prep", "", ""  # "two dogs facing each other on a rug": on the rug
        if dobj is not None and dobj.i < tok.i and _lemma(anchor) in lex["placing_verbs"]:
            # "a flag that has a symbol on it", "holding a cup in his hand": the object is there; "wears a fur coat in a
            # sauna": the one wearing it too
            wearing = _lemma(anchor) in lex["worn_colours"]["verbs"]
            return ([*subjects, dobj] if wearing else [dobj]), words, "prep", "", ""
        if dobj is not None and dobj.i < tok.i and any(c.dep_ == "poss" and c.tag_ == "PRP$" for c in obj.children):
            # "showing off a tattoo on his arm": what is on someone's own part is the object, not the one acting
            return [dobj], words, "prep", "", ""
        # "a robot writing 'hello' on a whiteboard": the text is written there; the robot writes on it, is not on it
        written = dobj is not None and _lemma(anchor) in lex["writing_verbs"] and dobj.i > 0 and self.doc[dobj.i - 1].is_quote
        if dobj is not None and dobj.i < tok.i and words in lex["chain_prepositions"]["located"] and not written:
            # "two men sharing a meal next to a food truck": the men are next to it (the verb and its
            # object are asked on their own; "sharing next to" leaves the object out); "playing a guitar in a
            # library": the guitar is there too
            right_after = tok.i == dobj.i + 1  # (not "eating a hot dog with people around him in a line")
            held = [t for t in _conjuncts(dobj) if t.i in self.nouns and t.i < tok.i] if words in ("in", "inside", "at") and right_after else []
            return subjects + [t for t in held if t not in subjects], words, "prep", "", ""
        if anchor.lemma_ in lexicon()["making_verbs"] and tok.lower_ in ("of", "from", "out"):
            return None  # "made of X" is a material
        if _lemma(anchor) in lexicon()["making_verbs"] and any(c.dep_ == "prep" and c.lower_ in ("of", "from", "out") for c in anchor.children):
            # "Agora made from palm columns in a dense palm farm": the thing made is in the farm (not "does the Agora make in")
            return subjects, words, "prep", "", ""
        if _lemma(anchor) in lex["light_verbs"] and any(c.dep_ == "dobj" and _is_noun(c) for c in anchor.children):
            # "doing a handstand with legs split apart", "taking a bath in a tub": the verb says nothing without its
            # object (never "is the person doing with the legs?"); a place is the subject's ("is the person in the tub?")
            return (subjects, words, "prep", "", "") if words in lex["chain_prepositions"]["located"] else None
        if dobj is None and any(c.dep_ == "dobj" and (self._act_noun(c) or _in(c, self.not_things["abstract"])) for c in anchor.children):
            # "four chairs provided seating at the zoo": an object that names no thing (an act, a feeling) leaves the
            # verb saying nothing (never "do the chairs provide at the zoo?"); a place is the subject's
            return (subjects, words, "prep", "", "") if words in lex["chain_prepositions"]["located"] else None
        if _lemma(anchor) in ("hold", "keep") and anchor.tag_ in ("VBD", "VBZ", "VBP", "VB") and dobj is None and words.split()[0] in lex["pose_prepositions"]:
            # "the right arm is raised and held level with the shoulder" (the tagger's "held" a past): how the arm is held,
            # "is the arm level with the shoulder?", never "does the arm hold level with the shoulder?"
            return subjects, words, "prep", "", ""
        vwords, finite = _verb_words(anchor)
        words = " ".join(w for w in (vwords, _particle(anchor), words) if w)
        return subjects, words, "verb", anchor.tag_, finite

    def _record_place(self, tok, subjects: list[Any], words: str, obj, kind: str, tag: str, finite: str,
                      mutual: int | None, stands_for: bool) -> None:
        """Record a preposition's relation of each subject to its object(s): each of a list ("on a table and a chair"),
        one place "between" two things, each of "X and Y next to each other" to the other."""
        if mutual is not None and len(subjects) > 1:
            # "a cat and a dog next to each other": each is next to the other (asked of each, by name)
            self._each_of_other(subjects, words, kind, tag, finite)
            return
        if len(subjects) > 1 and words in ("in", "inside") and obj.i in self.nouns and self.nouns[obj.i].lemma in self.lex["containers"]["in"]:
            # "there is a sofa and a plant in a pot": a thing too big for a pot, a vase, a bowl (``too_big_for_containers``)
            # is not in it; the rest of the list is ("a pear, an orange and two bananas in a bowl": all in the bowl)
            fits = [g for g in subjects if g.i not in self.nouns or self.nouns[g.i].lemma not in self.lex["too_big"]]
            subjects = fits or subjects[-1:]
        for s in subjects:
            objs = [s] if mutual is not None else _conjuncts(obj) if obj.dep_ not in ("conj", "appos") and not stands_for else [obj]
            objs = [o for o in objs if o.i in self.nouns] or objs
            if tok.lower_ == "between" and len(objs) > 1:  # "between the rectangle and the sphere": one place
                self._relation(s.i, words, objs[-1].i, kind, tag, finite, also=tuple(o.i for o in objs[:-1]))
                continue
            for o in objs:
                self._relation(s.i, words, o.i, kind, tag, finite, mutual)

    # -- a verb's object: "holding an umbrella", "touching each other", "throwing it"
    def _reciprocal_verb_relations(self, tok) -> None:
        """ "two elephants touching each other": each one to the other (or the one thing to itself)."""
        if _negated(tok.head):
            return
        subject = self._verb_subject(tok.head)
        if subject is None:
            return
        vwords, finite = _verb_words(tok.head)
        words = " ".join(w for w in (vwords, _particle(tok.head)) if w)
        group = self._group(subject)
        if len(group) > 1:  # "a man and a woman hugging each other": each hugs the other
            self._each_of_other(group, words, "verb", tok.head.tag_, finite)
        else:
            for s in group:
                self._relation(s.i, words, s.i, "verb", tok.head.tag_, finite, _reciprocal_end(tok))

    def _to_place_relations(self, tok) -> None:
        """ "sitting next to vase", "airplane is left to backpack": the thing the parser hung on "to" as an infinitive."""
        side = self.doc[tok.i - 2]
        words = f"to the {side.lower_} of" if side.lower_ in ("left", "right") else f"{side.lower_} to"
        subject = _subject_of(side)  # what is next to / left of it: the clause's subject
        if subject is not None and subject.i not in self.nouns:
            subject = self._pictured(subject)
        if subject is None or subject.i not in self.nouns:
            return
        for s in self._group(subject):
            self._relation(s.i, words, tok.i, "prep", "", "")

    def _pronoun_object_relations(self, tok) -> None:
        """ "a child playing with a frisbee and throwing it": the thing named last before the pronoun."""
        verb, obj = tok.head, self._pronoun_object(tok)
        if _negated(verb):
            return
        subject = self._verb_subject(verb)
        if obj is None or subject is None:
            return
        vwords, finite = _verb_words(verb)
        words = " ".join(w for w in (vwords, _particle(verb)) if w)
        for s in self._group(subject):
            self._relation(s.i, words, obj.i, "verb", verb.tag_, finite)

    def _verb_object_relations(self, tok) -> None:
        """ "a man holding an umbrella": each subject to each object of the verb."""
        verb = tok.head
        if _negated(verb):
            return  # "the arms are not touching the head"
        subject = self._verb_subject(verb)
        if subject is None:
            where = verb.dep_ == "relcl" and any(c.lower_ == "where" for c in verb.children)
            if where and verb.head.i in self.nouns:  # "a house where you can see the bedroom": in the house
                for o in _conjuncts(tok):
                    self._relation(o.i, "in", verb.head.i, "prep", "", "")
            return
        vwords, finite = _verb_words(verb)
        words = " ".join(w for w in (vwords, _particle(verb)) if w)
        tag = verb.tag_
        after = self.doc[verb.i + 1] if verb.i + 1 < len(self.doc) else None
        worn_on = after is not None and after.lower_ == "on" and after.dep_ == "prep" and not any(
            c.dep_ == "pobj" and c.pos_ == "PRON" for c in after.children)
        if _lemma(verb) == "have" and (_particle(verb) == "on" or worn_on):
            # ("the person has on a black coat, a scarf and a bag": the tagger's "on" a preposition of the coat; the
            # scarf and the bag, its objects, are worn too; "a table has on it a vase" is no wearing)
            words, tag, finite = "wearing", "VBG", ""  # "a man has on a blue jacket": he wears it (not "does the man have on ...?")
        for s in self._acting(subject, verb):
            for o in _conjuncts(tok):
                # "eating a slice of pizza", "playing a game of tennis": the thing after "of" (not a purpose:
                # "an app for ordering types of milk")
                if not (verb.dep_ == "pcomp" and verb.head.lower_ == "for"):
                    o = self._pictured(o) or o
                self._relation(s.i, words, o.i, "verb", tag, finite)

    # -- relations that follow from others
    def _repaired_relations(self) -> None:
        """The verbs found while reading things in a mis-parsed name ("a man vacuuming sand", "a raft floats on ...")."""
        for subject, verb, obj in self.repairs:
            self._relation(subject, verb, obj, "verb", "VBG" if verb.endswith("ing") else "VBN", "")
        for subject, words, obj, lemma in self.finite_repairs:
            self._relation(subject, words, obj, "verb", "VBZ", lemma)

    def _chained_places(self) -> None:
        """ "a signpost at an intersection near a waterway": the signpost is near the waterway too."""
        doc, places = self.doc, self.lex["chain_prepositions"]
        for r1 in list(self.relations):
            if r1.kind == "part" or r1.word.split()[-1] not in places["through"]:
                continue
            for r2 in list(self.relations):
                if any(r.subject == r1.subject and r.obj == r2.obj for r in self.relations):
                    continue  # already related ("sitting next to the lamp" in "sitting in a basket next to a lamp")
                if r2.subject == r1.obj and r2.kind == "prep" and r2.word in places["located"] and (doc[r2.subject].dep_ == "pobj" or _to_place(doc[r2.subject])):
                    self._relation(r1.subject, r2.word, r2.obj, "prep", "", "")

    # -- second readings of a place phrase
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
            wearing = _lemma(verb) in self.lex["worn_colours"]["verbs"]  # "a man wears a fur coat in a sauna": he is there too
            if obj.dep_ != "dobj" or verb.pos_ != "VERB" or _lemma(verb) in self.lex["placing_verbs"] and not wearing:
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

    def _acting(self, subject, verb) -> list[Any]:
        """The things a verb is about: all of a list ("a cat and a dog playing"), but a relative clause or participle on a
        thing only the things listed before it ("a table which has objects on it, a box and tools": the table; "peas and
        onions chopped up inside of the bowl": both)."""
        group = self._group(subject)
        if verb.dep_ in ("relcl", "acl") and verb.head.i == subject.i:
            group = [g for g in group if g.i < verb.i] or [subject]
        if len(group) > 1 and not _in(verb, self.lex["text_verbs"]):
            # "a poster with the caption 'hello' and a cat wearing a pirate hat": a text listed with a thing does not
            # act with it (never "is the caption wearing the pirate hat?"), unless the verb is a text's ("say", "read")
            group = [g for g in group if g.i == subject.i or not _in(g, self.lex["text_nouns"])]
        return group

    def _placed_with(self) -> None:
        """ "a fish tank with a fish inside", "a box with a cat inside": a place adverb (``place_adverbs``) right after the
        thing something is "with" puts that thing there (is the fish inside the tank?)."""
        for adv in self.doc:
            if adv.pos_ != "ADV" or adv.lower_ not in self.lex["place_adverbs"] or adv.i < 1:
                continue
            held = self.doc[adv.i - 1]
            if held.i not in self.nouns or held.dep_ != "pobj" or held.head.lower_ != "with":
                continue
            holder = self._place_anchor(held.head, held.head.head)  # ("a photo of a fish tank with a fish inside": the tank)
            if holder is not None and holder.i in self.nouns:
                self._relation(held.i, adv.lower_, holder.i, "prep", "", "")

    def _each_of_other(self, things: list[Any], words: str, kind: str, tag: str, finite: str) -> None:
        """ "X and Y ... each other": a relation of each thing to every other one, named."""
        for s in things:
            for o in things:
                if o.i != s.i:
                    self._relation(s.i, words, o.i, kind, tag, finite)
