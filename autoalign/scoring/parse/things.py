"""Things: which nouns are things (not meta words, frames, colours or times), their names, numbers and compounds."""

from __future__ import annotations

import re

from autoalign.inflect import is_plural, singular
from autoalign.inflect import plural as plural_of
from autoalign.scoring.parse.frames import _FramesReader
from autoalign.scoring.parse.lexicon import _english_form, _verb_of_ing, abstract_word, adjective_name, number_value
from autoalign.scoring.parse.records import Noun
from autoalign.scoring.parse.tokens import (
    _compounds,
    _determined,
    _in,
    _is_noun,
    _kind,
    _lemma,
    _measure_of_stuff,
    _name_tail,
    _next,
    _phrase,
    _phrase_prep,
    _prep_relation,
    _shading,
    _subject_of,
    _word,
    ing_form,
)

# a decade ("1960s", "70s", "'60s"): when a thing is from, never a count of it
_DECADE = re.compile(r"'?(?:1[5-9]|20)?\d0'?s")


class _ThingsReader(_FramesReader):
    """Reads ``self.nouns`` (with the verb repairs found on the way)."""

    def read_nouns(self) -> None:
        doc, lex, nt = self.doc, self.lex, self.not_things
        for tok in doc:
            if tok.dep_ == "prep":
                self._style_of(tok)
        self.read_style_tags()
        for tok in doc:
            if tok.lower_ == "like" and tok.dep_ == "prep" and tok.head.pos_ in ("VERB", "ADJ") and _lemma(tok.head) not in lex["looking_verbs"]:
                # "sleeping like a baby", "forearm bent across eyes like blocking": a likeness of how it is done, neither a
                # thing nor a state ("looks like fingers", "shaped like a star" say what a thing is or looks like)
                self.skip.update(t.i for t in tok.subtree if t.i != tok.i)
            if _lemma(tok) in lex["works"] and tok.pos_ in ("NOUN", "PROPN"):
                looks = any(c.dep_ == "amod" for c in tok.children)  # ("a still from the best scary horror movie" keeps its look)
                if tok.dep_ == "pobj" and tok.head.lower_ == "from" and _lemma(tok.head.head) in lex["frame_nouns"] and not looks:
                    # "film still from David Lynch's remake of a western": where the picture comes from, no thing in it
                    end = next((t.i for t in doc[tok.i :] if t.text in (",", ";", ".")), len(doc))
                    self.skip.update(t.i for t in tok.subtree if t.i < end)  # (not a thing set off after it by a comma)
                for c in tok.children:
                    if c.dep_ == "poss" and c.pos_ == "PROPN":
                        self.skip.update(t.i for t in c.subtree)  # "Van Gogh's painting", "Lynch's remake": who made it, no thing
        for tok in doc:
            if tok.i in self.skip:
                continue
            if self._intensifier(tok):
                continue  # "hyper realistic": asked with the style word after it
            if tok.pos_ == "ADJ" and _in(tok, nt["style"]) and not (tok.dep_ == "amod" and tok.head.i in self.frames and tok.i < tok.head.i):
                before = doc[tok.i - 1] if tok.i > 0 else None
                raised = before is not None and self._intensifier(before)
                self._add_global(f"{before.lower_} {tok.lower_}" if raised else tok.lower_, "style", tok.i)
                continue
            if tok.dep_ == "ROOT" and tok.pos_ != "NOUN" and tok.lower_ in lex["frame_nouns"] and not any(c.dep_.startswith("nsubj") for c in tok.children):
                self._frame(tok)  # a sentence that is only a frame the tagger did not read as a noun: "Comic.", "painting in the style of X."
                continue
            if not _is_noun(tok):
                continue
            if _in(tok, nt["style"]):
                self._add_global(tok.lower_, "style", tok.i)
                continue
            if tok.dep_ in ("compound", "amod"):
                continue  # part of its head's name ("coffee cup") or a describing word ("a wrap-around porch")
            if _name_tail(tok) is not None:
                continue  # "a teddy bear" read as "teddy" with a clause "bear": the name's first word
            lem = _lemma(tok)
            has_of = any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children)
            if lem in lex["compound_prep_nouns"] and tok.dep_ == "pobj" and has_of:
                continue  # "front" in "in front of"
            if _phrase_prep(tok, lex) is not None:
                continue  # "line" in "in line with the shoulder"
            on_thing = tok.dep_ == "pobj" and tok.head.lower_ in ("with", "on") and tok.head.head.i in self.nouns
            # "a woman taking a photo of a bird": a picture a thing acts on is a thing too, not the frame
            maker = _subject_of(tok.head) if tok.dep_ == "dobj" and tok.head.pos_ == "VERB" else None
            on_thing = on_thing or maker is not None and maker.i in self.nouns and maker.i < tok.i
            if on_thing and lem in lex["frame_nouns"] and has_of and lem not in nt["meta"]:
                # "a vase with a painting of pangolins": a picture on a thing is a thing, what it shows is in it
                self.depictions.add(tok.i)
            # (a lone tag is a frame however the tagger named it: "a portrait of an old sailor, Tintype, 1880s")
            elif lem in lex["frame_nouns"] and (has_of or self._sentence_first_noun(tok) or self._fragment(tok) or self._by_artist(tok)) and (
                not tok.ent_type_ or [tok] in self._fragments()
            ) and not self._placed_picture(tok):
                self._frame(tok)
                continue
            if (
                tok.lower_ in lex["colors"]
                and all(c.lower_ in lex["colour_modifiers"] for c in _compounds(tok))
                and tok.dep_ in ("pobj", "dobj", "oprd", "acomp", "attr")
            ):
                self.color_nouns.add(tok.i)
                # "with neon green and orange face paint": the colour is the paint's, shared across "and"
                # (a colour written as a noun, "cream and cherries", is no colour of the thing after "and")
                self.shared_colours += [
                    (tok, c) for c in tok.children if c.dep_ == "conj" and c.pos_ in ("NOUN", "PROPN")
                    and (tok.tag_ != "NN" or any(m.lower_ in lex["colors"] for m in [*_compounds(c), *c.children] if m.dep_ in ("amod", "compound")))
                ]
                continue
            lone = [tok] in self._fragments()  # "..., realistic, vibrant, twilight, octane": a fragment of its own
            if lem in lex["time_words"] and (tok.dep_ in ("pobj", "npadvmod", "ROOT") or lone) and (tok.dep_ != "pobj" or tok.head.lower_ in ("at", "during", "in", "on", "by")):
                if not self._date_of_an_act(tok):
                    self._time(tok)
                continue
            named_place = lem in nt["position"] and any(c.pos_ == "NOUN" and not _in(c, nt["meta"]) for c in _compounds(tok))
            # "a red frame made of wood", "a golden frame": a frame or edge with a look or a material of its own is a thing
            named_place = named_place or lem in nt["position"] and any(
                c.dep_ == "amod" and _kind(c, lex) in ("color", "material", "texture")
                or c.dep_ == "acl" and _lemma(c) in lex["making_verbs"]
                for c in tok.children
            )
            # "we can see paper art on the table": a work of art placed on a thing is a thing too
            # (art named by its kind, "paper art", "wall art"; an artwork)
            named_place = named_place or (lem == "artwork" or lem == "art" and any(c.dep_ == "compound" for c in tok.children)) and self._placed_picture(tok)
            if lem == "style" or (lem in nt["meta"] or tok.lower_ in nt["meta"]) and not named_place or lem in nt["duration"]:
                continue  # ("a street corner", "a picture frame" are things)
            if self._quote_lettering(tok):
                continue  # "a wall that says 'dream big' in bubble letters": how the quote is lettered, no thing
            if self._vague(tok):
                continue  # "the cosmology of the universe", "grassy areas", "in the foreground area": no thing named
            if self._act_noun(tok):
                continue  # "marveling at its beauty", "healthful eating": an act, not "is there a marveling?"
            if self._phase(tok) is not None:
                continue  # "a golfer mid swing", "in mid air": the thing's state (``_phase_states``), not "is there a swing?"
            if self._held_at(tok) is not None:
                continue  # "arms are head level": where the arms are (``_phase_states``), not "is there a head level?"
            if lem in lex["state_places"] and tok.dep_ == "pobj" and tok.head.lower_ in ("in", "at", "on") and not _compounds(tok) and (
                tok.tag_ == "NNS" or not any(c.dep_ in ("amod", "compound") for c in tok.children)
            ):
                continue  # "zebras in the wild", "looking in three different directions": how they are, not "is there a wild?"
            if (
                lem in lex["picture_words"] and tok.dep_ == "pobj" and tok.head.lower_ == "of" and not _compounds(tok)
                and (_lemma(tok.head.head) in lex["state_places"] or tok.head.head.lower_ in lex["state_places"])
            ):
                continue  # "a bird in the middle of the picture": the picture itself, not "is there a picture?"
            if tok.dep_ == "nmod" and tok.i > 1 and doc[tok.i - 1].text == "-" and doc[tok.i - 2].like_num:
                continue  # "8 - bit retro art": a hyphenated describing word written with spaces, not "are there 8 bits?"
            if self._abstract_of(tok):
                continue  # "at various stages of development", "a symbol of freedom": a quality, not "is there development?"
            if tok.dep_ == "pobj" and lem in lex["manners"].get(tok.head.lower_, ()) and not any(c.dep_ in ("det", "amod", "compound", "poss") for c in tok.children):
                continue  # "written by hand", "on foot": how it is done, not "is there a hand?"
            if lem in nt["outing"] and tok.dep_ == "pobj" and tok.head.lower_ == "for" and not _compounds(tok):
                continue  # "taking his dog for a walk": what they go out for, not "is there a walk?"
            if self._is_purpose(tok):
                continue  # "labels for the summer season": what the labels are for (``_purpose_states``), not "is there a season?"
            if (_in(tok, lex["style_tag_words"]) or tok.i == tok.sent.start) and not _compounds(tok) and self._frame_after(tok):
                continue  # "studio close-up shot of a book", "progress shot of a garage": the frame's kind, not "is there a studio?"
            if lem in nt["pronoun"] and not _compounds(tok):
                continue  # "one behind the other": the thing is named elsewhere
            if (
                tok.lower_ in lex["kind_nouns"] and tok.dep_ == "pobj" and tok.head.lower_ == "of" and _is_noun(tok.head.head)
                and any(c.dep_ == "amod" and c.pos_ == "ADJ" and not c.like_num for c in tok.children)
            ):
                continue  # "spheres of different sizes": which kinds the spheres are (an attribute), not "are there sizes?"
            if self._measure(tok):
                continue  # "37 x 16 in (95.3 x 42 x 44 cm)", "11 quot", "1950s", "(8)": a size or a year, not a thing
            if any(c.dep_ == "det" and c.lower_ == "no" for c in tok.children):
                continue  # "a street with no cars": no cars to ask about
            if self._misread_verb(tok):
                continue
            self._verb_modifier(tok)
            if (lem in nt["quantity"] or _measure_of_stuff(tok, lex)) and has_of and not self._counted_by_of(tok):
                continue  # "a group of giraffes": the giraffes are asked (but "a family of five" is a family)
            if lem in lex["pose_nouns"]["measures"] and tok.dep_ == "pobj" and tok.head.lower_ == "than" and _compounds(tok):
                continue  # "legs more than shoulder length apart": how far apart, no thing
            if lem in lex["pose_nouns"]["measures"] and _next(tok) is not None and _next(tok).lower_ == "apart" and any(_in(c, lex["body_parts"]) for c in _compounds(tok)):
                continue  # "the legs are shoulder width apart": how far apart, no thing
            if self._pose_word(tok):
                continue  # "an extended straight", "flat footed": how a part is held, read as a noun
            if self._pose_place(tok) is not None:
                continue  # "in an overly stride stance": the person's state (``_state_places``), not "is there a stance?"
            if lem in lex["pose_nouns"]["weight"] and tok.tag_ == "NN" and not _compounds(tok) and self._pose_text():
                continue  # "weight is on elbows": the body's weight, not "is there a weight?"
            if self._colours_source(tok) is not None:
                continue  # "pencils in the colors of the rainbow": which colours, not "is there a rainbow?"
            if self._named_site(tok):
                continue  # "a street in Paris": where the street is ("is the street in Paris?"), not "is there Paris?"
            self._add_noun(tok)
            self._verb_compound(tok)
            self._agent_participle(tok)
        self._implied_person()

    @staticmethod
    def _colours_source(tok):
        """The "in" or "by" of "in the colors of the rainbow", "organized by color of the spectrum" when ``tok`` is the
        object of "of" after a colour word that says how a thing is coloured or ordered: the thing ``tok`` names says which
        colours, and is no thing in the picture. None otherwise ("the color of the sky is blue": the sky is a thing)."""
        if tok.dep_ != "pobj" or tok.head.lower_ != "of" or any(c.dep_ in ("amod", "compound") for c in tok.children):
            return None
        colour = tok.head.head
        if colour.lemma_.lower() not in ("color", "colour") or colour.dep_ != "pobj" or colour.head.lower_ not in ("in", "by"):
            return None
        return colour.head

    def _date_of_an_act(self, tok) -> bool:
        """ "smartphones launched in September", "a market on Sunday": a day of the week, or a month that says when a thing
        was done (hung on a past verb), is when it happened, which no picture shows; "a dog in the snow in december" is
        the scene's month, asked ("is it december?")."""
        lem = _lemma(tok)
        if lem not in self.lex["calendar_words"]:
            return False
        if lem.endswith("day"):
            return True
        verb = tok.head.head if tok.dep_ == "pobj" else tok.head
        return verb.tag_ in ("VBN", "VBD")

    def _named_site(self, tok) -> bool:
        """Whether ``tok`` is the name of a city, a country or a region (the tagger's entity type GPE, written with a
        capital) after "in", "at" or "from": the place where the picture is, no thing in it ("a street in Paris", "a man
        from Texas"); recorded in ``sites`` for the things there (``_site_states``). After "of" a name is what a frame
        shows ("an aerial view of downtown Manhattan") and stays a thing. A name the tagger does not mark as a place
        ("Évora", read as a person's), one capitalised word of no English with nothing hung on it, is read as one."""
        if tok.pos_ != "PROPN" or not tok.text[:1].isupper() or tok.dep_ != "pobj" or tok.head.lower_ not in ("in", "at", "from"):
            return False
        # a name the tagger does not know as a place, one capitalised word of no English ("a street in Évora"), is one too
        unknown = not list(tok.children) and tok.text.isalpha() and not _english_form(tok.lower_, self.model)
        if tok.ent_type_ != "GPE" and not unknown:
            return False
        self.sites.append(tok)
        return True

    def _counted_by_of(self, tok) -> bool:
        """ "a family of five", "a set of 3": a quantity word whose "of" takes only a number names the thing counted."""
        of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        inner = [c for c in of.children if c.dep_ == "pobj"] if of is not None else []
        if of is not None and not inner:  # "a family of four walking on the beach", the number read on the verb
            inner = [n for c in of.children if c.dep_ == "pcomp" and c.tag_ == "VBG" for n in c.children if n.dep_ == "nummod" and n.i < c.i]
        return len(inner) == 1 and inner[0].like_num and not any(c.pos_ in ("NOUN", "PROPN") for c in inner[0].children)

    def _quote_lettering(self, tok) -> bool:
        """Whether ``tok`` names the lettering (``lettering``) of a quote right before its "in" ("... says 'dream big' in
        bubble letters")."""
        prep = tok.head
        if tok.dep_ != "pobj" or prep.lower_ != "in" or not _in(tok, self.lex["lettering"]) or prep.i < 2:
            return False
        return self.doc[prep.i - 1].is_quote and not any(c.dep_ == "det" for c in tok.children)

    def _vague(self, tok) -> bool:
        """Whether a noun names no thing to see: a word of thought or time ("the cosmology of the universe", "the time of
        day": ``not_things.abstract``; also after common nouns of its own, "world peace", "business success", but not a
        name's, "Bob Hope"), or a word that says only that something is there ("grassy areas", "the material of the brain",
        "the foreground area": ``not_things.vague``) with no noun of its own naming its kind ("a picnic area", "building
        material" are things)."""
        nt = self.not_things
        if _in(tok, nt["abstract"]) and all(self._plain_compound(c) for c in _compounds(tok)):
            return True
        if not _in(tok, nt["vague"]):
            return False
        return not any(c.pos_ in ("NOUN", "PROPN") and not _in(c, nt["meta"]) and not _in(c, self.lex["state_places"]) for c in _compounds(tok))

    def _plain_compound(self, tok) -> bool:
        """Whether a compound before an abstract word is a plain common noun ("world peace", "business success"): not a
        name ("Bob Hope"), a frame or an "-ing" word the tagger hung on it ("a painting symbolizing hope", read as one
        name)."""
        return tok.pos_ == "NOUN" and tok.is_lower and not tok.lower_.endswith("ing") and not _in(tok, self.lex["frame_nouns"])

    def _act_noun(self, tok) -> bool:
        """Whether a noun is an "-ing" form of a verb standing alone, which names an act, not a thing ("looking at a
        rainbow and marveling at its beauty", "a symbol of healthful eating", "sofas provided comfortable seating"): a
        singular written in lower case, with no noun before it naming its kind ("a dinosaur crossing", "quantum
        computing" are left as read), and no word of ``ing_things`` ("a building", "blue icing", "a wedding")."""
        if tok.tag_ != "NN" or not tok.is_lower or not tok.is_alpha or _compounds(tok):
            return False
        word = tok.lower_
        if word in self.lex["ing_things"] or _in(tok, self.lex["frame_nouns"]) or word in self.lex["time_words"]:
            return False
        return _verb_of_ing(word, self.model)

    def _phase(self, tok):
        """The phase word before a noun that names an act the thing is in the middle of ("mid swing", "in mid air",
        "mid-air"), or None."""
        if not _is_noun(tok) or tok.i == 0:
            return None
        before = self.doc[tok.i - 1]
        if before.text == "-" and tok.i > 1 and not before.whitespace_:
            before = self.doc[tok.i - 2]
        return before if before.lower_ in self.lex["phase_words"] else None

    def _held_at(self, tok):
        """The body part of a measure said of a thing after "be" without "at" ("arms are head level", "the hands are
        shoulder height"), or None; with "at" the measure is read where the thing is named (``_add_noun``)."""
        if _lemma(tok) not in self.lex["pose_nouns"]["measures"] or tok.dep_ not in ("attr", "acomp", "npadvmod") or tok.head.lemma_ != "be":
            return None
        return next((c for c in _compounds(tok) if _in(c, self.lex["body_parts"])), None)

    _ABSTRACT = abstract_word(4)  # (four letters before the ending: "station", "portion" stay things)

    def _abstract_of(self, tok) -> bool:
        """ "trees at various stages of development", "a symbol of freedom": a bare singular word of a quality or an act (by
        its ending) after a thing's "of" is what the thing is of, no thing to see; a name ("the Statue of Liberty") or a
        word with an article or a look of its own ("a model of the Eiffel tower", "a picture of rapid development") is."""
        if tok.dep_ != "pobj" or tok.head.lower_ != "of" or tok.tag_ != "NN" or not tok.is_lower or not self._ABSTRACT.fullmatch(tok.lower_):
            return False
        return _is_noun(tok.head.head) and not any(c.dep_ in ("det", "amod", "compound", "poss", "nummod") for c in tok.children)

    _PLACES = ("on", "above", "over", "under", "below", "beside", "against", "near", "behind")
    _SIDES = ("front", "top", "bottom", "side", "left", "right")  # "in front of", "on the bottom of", "to the left of"
    _PLACED_VERBS = ("be", "hang", "sit", "lean", "rest", "lie", "stand")  # (not "street art painted on the wall": made there)

    def _placed_picture(self, tok) -> bool:
        """ "a painting on the wall", "we can see paper art on the table", "a painting hangs above a sofa": a picture
        word placed on or by a named thing (a place with an article, not the ground it is made on: "oil on canvas") is a
        thing in the picture, not the picture's frame; a picture has no place of its own. Not a picture "of" something."""
        if tok.pos_ not in ("NOUN", "PROPN") or tok.tag_ not in ("NN", "NNS") or tok.ent_type_:
            return False
        if any(c.dep_ == "prep" and c.lower_ == "of" for c in tok.children):
            return False  # "digital art of a cat on a sofa": what it shows is on the sofa, wherever the tagger hung it
        verb = tok.head if tok.dep_ == "nsubj" and _lemma(tok.head) in self._PLACED_VERBS and tok.head.i > tok.i else None
        if tok.dep_ == "dobj" and _lemma(tok.head) in self.lex["seeing_verbs"]:
            verb = tok.head  # "we can see paper art on the table": the place of what is seen
        preps = [c for c in tok.children if c.dep_ == "prep"] + ([c for c in verb.children if c.dep_ == "prep"] if verb is not None else [])
        # (a place said with a compound preposition: "a painting in front of a cow", "on the bottom of a desk", "next to")
        # (said right after the picture word: "a fall landscape with a cottage next to a lake" is the cottage's place)
        preps += [p for c in tok.children if c.dep_ == "advmod" and c.lower_ in ("next", "close") and c.i == tok.i + 1 for p in c.children if p.dep_ == "prep"]
        for prep in preps:
            rel = _prep_relation(prep, self.lex)
            if rel is None:
                continue
            compound = any(f" {w} of" in f" {rel[0]}" for w in self._SIDES) or rel[0].endswith(("next to", "close to"))
            if prep.lower_ not in self._PLACES and not (compound and prep.i in (tok.i + 1, tok.i + 2)):
                continue
            for place in [rel[1]]:
                if not _is_noun(place) or _lemma(place) in self.lex["media_grounds"] or _in(place, self.not_things["meta"]):
                    continue
                if any(c.dep_ in ("det", "poss") for c in place.children):
                    return True
        return False

    def _by_artist(self, tok) -> bool:
        """ "a knight in a field, a woodcut by albrecht durer": a frame noun whose "by" names its artist (read as one) is
        the picture's frame, wherever the tagger hung it."""
        return any(c.lower_ == "by" and c.i in self.skip for c in tok.children)

    def _implied_person(self) -> None:
        """ "standing on left leg, right leg up and knee bent": a pose told from its first word, an "-ing" verb with no
        subject, that names body parts, is a person's (asked "is there a person?", "is the person standing?"); the person
        stands at the verb's token."""
        doc, parts = self.doc, self.lex["body_parts"]
        first = next((t for t in doc if not t.is_punct), None)
        if first is None or first.tag_ != "VBG" or first.i in self.nouns or any(c.dep_.startswith("nsubj") for c in first.children):
            return
        bodily = [n for n in self.nouns.values() if n.lemma in parts or doc[n.index].lower_ in parts]
        if not any(not any(c.dep_ == "compound" and c.pos_ in ("NOUN", "PROPN") for c in doc[n.index].children) for n in bodily):
            return  # no body part ("running in the park with a dog"), or a thing's ("flying drone robot ... on drone robot body")
        self.nouns[first.i] = Noun(index=first.i, phrase="person", plural=False, chunk="person", start=first.i, end=first.i + 1, lemma="person")
        if not any(c.dep_ == "dobj" for c in first.children):  # "holding the Universe in my Hands": no "is the person holding?"
            self.add_attr(self.nouns[first.i], first.lower_, "state", first.i)
        self.implied.add(first.i)

    def _pose_text(self) -> bool:
        """Whether the prompt names a body part (a pose told part by part)."""
        parts = self.lex["body_parts"]
        return any(_in(t, parts) for t in self.doc)

    def _use_word(self, tok, parts: list):
        """The "-ing" word right before a thing that names what it is for ("running shoes", "a sleeping bag", "a coloring
        book"), not what it is doing ("a running man"): read as a noun by the tagger, or a name of the word list
        ``gerund_names``; None if there is none."""
        if tok.i == 0 or parts:
            return None
        word = tok.doc[tok.i - 1]
        if word.head.i != tok.i or word.dep_ not in ("amod", "compound") or not word.lower_.endswith("ing") or len(word) < 6:
            return None
        if word.tag_ == "NN" and word.dep_ == "amod" or f"{word.lower_} {_lemma(tok)}" in self.lex["gerund_names"]:
            return word
        return None

    def _counted_part(self, tok, noun: Noun, parts: list, start: int) -> int:
        """ "a two door garage", "a three bedroom house": a number before a singular noun that names a singular thing
        counts the first noun's things, the second's parts ("is there a garage?", "are there two doors?", "does the
        garage have doors?"), never "are there two door garages?". Returns where the thing's own words start."""
        doc = self.doc
        part = parts[0] if len(parts) == 1 else None
        if noun.plural or tok.tag_ != "NN" or part is None or part.i != tok.i - 1 or part.tag_ != "NN" or part.i == 0:
            return start
        number = doc[part.i - 1]
        if number.dep_ != "nummod" or number.head.i not in (tok.i, part.i) or (number_value(number.text) or 0) < 2:
            return start
        nt, lex = self.not_things, self.lex
        if (
            part.lower_ in lex["body_parts"] or any(_in(part, words) for words in lex["attribute_kinds"].values()) or part.lower_ in lex["colors"]
            or _lemma(part) in lex["not_counted_parts"] or _lemma(part) in nt["unit"] or _lemma(part) in nt["duration"]
        ):
            return start
        noun.numbers = [n for n in noun.numbers if n != number.lower_]
        noun.modifier_start.pop(number.lower_, None)
        noun.phrase = _word(tok)
        self.nouns[part.i] = Noun(
            index=part.i, phrase=plural_of(_word(part)), plural=True, chunk=doc[number.i : part.i + 1].text, start=number.i,
            end=part.i + 1, lemma=_lemma(part), numbers=[number.lower_], modifier_start={number.lower_: number.i},
        )
        self._relation(tok.i, "with", part.i, "part", "", "")
        return start

    def _pose_word(self, tok) -> bool:
        """A word of how a body part is held (``pose_states``: "straight", "flat"), or a body part made a describing
        word ("footed", "legged", "handed": a part + "-ed"), read as a noun in a pose text: no thing."""
        parts, word = self.lex["body_parts"], tok.lower_.rsplit("-", 1)[-1]
        if word in parts or _lemma(tok) in parts or _compounds(tok):
            return False
        # the whole word is the pose word ("a sit-up" is a noun though "up" is a pose word); a part + "-ed" is one after
        # a hyphen too ("flat-footed")
        held = tok.lower_ in self.lex["pose_states"] or word.endswith("ed") and (word[:-2] in parts or word[:-3] in parts)
        return held and self._pose_text()

    def _pose_place(self, tok):
        """The preposition of a pose said as a place ("in an overly stride stance", "in crawling position", the second
        read as "in" + "crawling" with the position its object), when ``tok`` is its noun in a pose text; else None."""
        if _lemma(tok) not in self.lex["pose_nouns"]["abstract"]:
            return None
        head = tok.head
        if tok.dep_ == "dobj" and head.dep_ == "pcomp" and head.tag_ == "VBG":
            head = head.head
        elif tok.dep_ != "pobj":
            return None
        return head if head.lower_ in ("in", "into") and self._pose_text() else None

    def _frame_after(self, tok) -> bool:
        """Whether a frame noun follows ``tok`` with only its own modifiers between, the two joined ("studio | close-up
        shot of ...", "progress shot of ..."): ``tok`` names the frame's kind."""
        frames = self.lex["frame_nouns"]
        for t in tok.doc[tok.i + 1 : tok.i + 5]:
            of = any(c.dep_ == "prep" and c.lower_ == "of" for c in t.children)
            if _lemma(t) in frames and _is_noun(t) and of and (t.head.i == tok.i or tok.head.i == t.i):
                return all(not _is_noun(b) or b.head.i == t.i for b in tok.doc[tok.i + 1 : t.i])
            if t.is_punct and t.text != "-":
                return False
        return False

    def _measure(self, tok) -> bool:
        """A unit after a number ("42 cm", "11 quot": ``unit`` in the word lists), a decade ("1950s"), or a word without
        a letter ("8)"): how big or how old what is named is, not a thing of its own."""
        if not any(ch.isalpha() for ch in tok.text) or re.fullmatch(r"\d{2,4}'?s", tok.lower_):
            return True
        if tok.lower_ not in self.not_things["unit"] and _lemma(tok) not in self.not_things["unit"]:
            return False
        before = tok.doc[tok.i - 1] if tok.i > 0 else None
        return any(c.dep_ == "nummod" or c.like_num for c in tok.children) or before is not None and before.like_num

    def _misread_verb(self, tok) -> bool:
        """Repair "a blue raft floats on white water" read as one plural name "raft floats" (a singular article before
        a plural head): the thing is the name before it, the head its verb ("does the raft float on the water?")."""
        det = next((c for c in tok.children if c.dep_ == "det"), None)
        name = next((c for c in tok.children if c.dep_ == "compound" and c.i == tok.i - 1 and c.tag_ == "NN"), None)
        preps = [c for c in tok.children if c.dep_ == "prep" and c.i > tok.i]
        if tok.tag_ != "NNS" or det is None or det.lower_ not in ("a", "an") or name is None or not preps:
            return False
        self._add_noun(name)
        self.misread_verbs[tok.i] = name.i
        subject = name.i
        if tok.dep_ == "pobj" and tok.head.lower_ == "with" and _is_noun(tok.head.head):
            subject = tok.head.head.i  # "a woman with an umbrella walks in the rain": the woman walks
        lemma = singular(tok.lower_)
        for prep in preps:
            rel = _prep_relation(prep, self.lex)
            if rel is not None and prep.lower_ not in self.lex["non_spatial_prepositions"]:
                self.finite_repairs.append((subject, f"{ing_form(lemma)} {rel[0]}", rel[1].i, lemma))
        return True

    def _verb_modifier(self, tok) -> None:
        """Repair "a man vacuuming sand" read as "sand" with a subject "man" and a describing "vacuuming": the man
        is vacuuming the sand (an -ing modifier between a thing's own subject and it)."""
        subject = next((c for c in tok.children if c.dep_ == "nsubj" and _is_noun(c) and c.i < tok.i), None)
        verb = next((c for c in tok.children if c.dep_ == "amod" and c.tag_ == "VBG" and subject is not None and subject.i < c.i), None)
        if subject is None or verb is None:
            return
        self.not_describing.add(verb.i)
        self.repairs.append((subject.i, verb.lower_, tok.i))

    def _agent_participle(self, tok) -> None:
        """ "snow covered land", "an ivy covered wall": a noun on the participle right before a thing is what the
        participle is done by ("is the land covered by snow?"), not a bare state ("is the land covered?")."""
        for p in tok.children:
            if p.dep_ != "amod" or p.tag_ not in ("VBN", "VBD") or p.i != tok.i - 1:
                continue
            agent = next((c for c in p.children if c.dep_ in ("npadvmod", "nsubj", "compound") and c.i == p.i - 1), None)
            if agent is None or agent.i not in self.nouns:
                continue
            self.not_describing.add(p.i)
            self.repairs.append((tok.i, f"{p.lower_} by", agent.i))

    def _verb_compound(self, tok) -> None:
        """Repair "A car playing soccer" parsed as one name (car <- playing <- soccer): car, and car --playing--> soccer."""
        for verb in tok.children:
            if verb.dep_ != "compound" or verb.pos_ != "VERB" or verb.tag_ not in ("VBG", "VBN"):
                continue
            inner = next((c for c in verb.children if c.dep_ == "compound" and _is_noun(c)), None)
            if inner is None or _in(inner, self.lex["not_things"]["meta"]):
                continue
            self._add_noun(inner)
            self.repairs.append((inner.i, verb.lower_, tok.i))

    def _add_noun(self, tok) -> None:
        doc = self.doc
        chunk = next((c for c in doc.noun_chunks if c.root.i == tok.i), None)
        start, end = (chunk.start, chunk.end) if chunk is not None else (tok.i, tok.i + 1)
        parts = _compounds(tok)
        plural, lemma = tok.tag_ in ("NNS", "NNPS"), _lemma(tok)
        if tok.pos_ not in ("NOUN", "PROPN") and is_plural(tok.text):  # "geese" tagged as an adjective
            plural, lemma = True, singular(tok.text)
        if plural and not is_plural(tok.text) and any(c.dep_ == "det" and c.lower_ in ("a", "an", "another", "each", "every") for c in tok.children):
            plural, lemma = False, tok.lower_  # "in a sauna" tagged as a plural (a Latin "-a"): one, as its article says
        phrase = _phrase(tok)
        use = self._use_word(tok, parts)
        if use is not None:  # "running shoes", "a sleeping bag": what the thing is for is its name, not its state
            phrase = f"{_word(use)} {phrase}"
            self.not_describing.add(use.i)
            self.skip.add(use.i)
        if tok.lower_ in ("someone", "somebody"):  # (a pronoun mended into a thing): asked as "is the person stretching?"
            phrase, lemma = "person", "person"
        tail_of_head = _name_tail(tok.head) if tok.head.i != tok.i else None
        first_word = tok.head if tail_of_head is not None and tail_of_head.i == tok.i else None
        if first_word is not None:  # "a teddy bear" read as "teddy" with a clause "bear": one name
            phrase = f"{_phrase(first_word)} {phrase}"
            start = min([start, first_word.i] + [c.i for c in first_word.children if c.i < first_word.i])
        # ("a red panda", "a black hole": a colour that names a kind with the noun, ``adjective_names``, is no colour)
        named_kind = {c.i for c in parts if adjective_name(c.lower_, tok.lower_, self.lex)}
        # ("the Golden Gate Bridge": a colour written with a capital inside a name, after a lower-case word, is the name's)
        named_kind |= {
            c.i for c in parts
            if c.lower_ in self.lex["colors"] and c.tag_ == "NNP" and c.is_title and c.i > 0 and not c.is_sent_start
            and self.doc[c.i - 1].is_lower and c.i + 1 < len(self.doc) and self.doc[c.i + 1].is_title
        }
        colour_parts = [c for c in parts if (c.lower_ in self.lex["colors"] or _shading(c, self.lex)) and c.i not in named_kind]
        if colour_parts and tok.lower_ not in self.lex["colors"]:
            # "bright orange boots" with "orange" read as a compound: the boots, coloured orange (asked below)
            phrase = " ".join(_word(c) for c in sorted(parts, key=lambda t: t.i) if c not in colour_parts)
            phrase = f"{phrase} {_word(tok)}".strip()
        tail = _next(tok)
        if (
            tail is not None and tail.dep_ == "appos" and tail.pos_ in ("ADV", "ADJ") and not list(tail.children)
            and tok.whitespace_ and not tail.like_num and tail.lower_ not in self.lex["colors"]
        ):
            # "a photo of blue fire hydrant" with "hydrant" read as an adverb set beside the photo: an apposition has
            # a comma; without one the word ends the thing's name ("fire hydrant")
            phrase, lemma, end = f"{phrase} {tail.text}", tail.lower_, max(end, tail.i + 1)
        measured = [c for c in parts if _in(c, self.lex["body_parts"])]
        if lemma in self.lex["pose_nouns"]["measures"] and len(parts) == 1 and measured and tok.dep_ == "pobj" and tok.head.lower_ not in ("of", "than"):
            # "foot at waist level", "above knee level", "shoulder length apart": the place is the part's ("is the foot at
            # the waist?"), never "is there a waist level?"
            phrase, lemma, plural = _word(measured[0]), _lemma(measured[0]), measured[0].tag_ == "NNS"
        of = next((c for c in tok.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        named = next((c for c in of.children if c.dep_ == "pobj"), None) if of is not None else None
        if tok.pos_ == "PROPN" and named is not None and named.pos_ == "PROPN" and not any(c.dep_ == "det" for c in named.children):
            phrase = f"{phrase} of {_phrase(named)}"  # "the Statue of Liberty" is one name, not a statue and a liberty
            self.skip.update(t.i for t in named.subtree)
            end = max(end, named.i + 1)
        self.nouns[tok.i] = Noun(
            index=tok.i,
            phrase=phrase,
            plural=plural,
            chunk=doc[start:end].text,
            start=start,
            end=end,
            lemma=lemma,
        )
        noun = self.nouns[tok.i]
        for c in tok.children:
            if c.i in self.claimed_numbers or c.i in self.skip:
                continue  # (an artist's name read before is no count: "by greg rutkowski and alphonse mucha")
            if c.i + 1 < len(doc) and doc[c.i + 1].text in ('"', "''", "”", "″") and not c.whitespace_:
                continue  # "a 24" side table": inches, the table's size, no count
            if c.i > tok.i and not noun.plural and c.text.isdigit():
                continue  # "an iphone 14", "the witcher 3": a model's number written after its name, no count
            if _DECADE.fullmatch(c.lower_):
                continue  # "1960s walnut", "a 70s car": a decade is when a thing is from, no count
            if c.dep_ in ("nummod",) or (c.like_num and c.dep_ in ("amod", "quantmod", "det")):
                noun.numbers.append(c.lower_)
                noun.modifier_start[c.lower_] = c.i
        of = tok.head if tok.dep_ == "pobj" and tok.head.lower_ == "of" else None
        kinds = of is not None and of.head.lower_ in self.lex["kind_nouns"]  # "seven different styles of Bean Boots"
        if not noun.numbers and of is not None and (_lemma(of.head) in self.not_things["quantity"] or kinds) and of.head.i != tok.i:
            # "nine different breeds of dogs", "a set of six ...": the number of the quantity is the things'
            for c in of.head.children:
                if c.dep_ == "nummod" and c.i < of.head.i:
                    noun.numbers.append(c.lower_)
                    noun.modifier_start[c.lower_] = c.i
            if not noun.numbers and noun.plural and of.head.lower_ in ("couple", "pair") and any(c.lower_ == "a" for c in of.head.children):
                noun.numbers.append("two")  # "a couple of luggage carts", "a pair of shoes": two
                noun.modifier_start["two"] = of.head.i
        after = doc[tok.i + 1 : tok.i + 4]
        counted = _next(after[-1]) if len(after) == 3 else None  # ("a set of eight side chairs": the chairs' number)
        if (
            not noun.numbers and len(after) == 3 and after[0].lower_ == "set" and after[1].lower_ == "of" and number_value(after[2].text) is not None
            and (counted is None or counted.like_num or counted.pos_ not in ("NOUN", "PROPN", "ADJ"))
        ):
            # "blue peacock birds set of two", "serving spoons set of six": the number of the set is the things'
            noun.numbers.append(after[2].lower_)
            noun.modifier_start[after[2].lower_] = after[2].i
            self.claimed_numbers.add(after[2].i)
        start = self._counted_part(tok, noun, parts, start)
        first = doc[start]
        noun.bare = not noun.plural and not (first.pos_ in ("DET", "NUM") or first.tag_ == "PRP$") and not _determined(tok, parts)
        if tok.dep_ == "npadvmod" and tok.head.dep_ == "amod":  # "a snow covered mountain": the article is the mountain's
            noun.bare = not noun.plural and not any(c.dep_ in ("det", "poss", "nummod") for c in tok.children)
        if lemma == "person" and tok.lower_ != "person":
            noun.bare = False  # "someone": "is there a person?"
        for c in parts:  # "wood table", "denim jacket": a material written as a compound (not "ice cream": ``material_names``)
            if f"{c.lower_} {tok.lower_}" in self.lex["material_names"] or c.i in named_kind:
                continue
            # ("death metal logo": "metal" is a word of a name, "death metal", no material)
            named = any(a.dep_ == "compound" and a.pos_ == "NOUN" and a.i < c.i for a in c.children) and c.lower_ not in self.lex["colors"]
            if (_in(c, self.lex["attribute_kinds"]["material"]) or c.lower_ in self.lex["colors"]) and not named:
                self.add_attr(noun, c.lower_, _kind(c, self.lex), c.i)
            for a in c.children:  # "a pink bathroom sink": the colour of the sink
                if a.dep_ == "amod" and a.i < c.i and _kind(a, self.lex) in ("color", "material", "size"):
                    self.add_attr(noun, a.lower_, _kind(a, self.lex), a.i)
