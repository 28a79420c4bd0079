"""What a reading of one parse collects, and how a thing, an attribute, a global tag or a relation is recorded."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from autoalign.scoring.parse.lexicon import DEFAULT_SPACY_MODEL, _no_english_verb, _reads_as_adjective
from autoalign.scoring.parse.records import Attribute, GlobalTag, Noun, Relation
from autoalign.scoring.parse.tokens import (
    _is_noun,
    _lemma,
    _next,
    _prep_relation,
    ing_form,
)


class _ReaderState:
    """The reading's collections, shared by the readers of things, attributes and relations (one per parse)."""

    def __init__(self, doc, lex, model: str = DEFAULT_SPACY_MODEL):
        self.doc = doc
        self.lex = lex
        self.model = model  # the spaCy pipeline that read ``doc`` (for readings of words out of context)
        self.not_things = lex["not_things"]
        self.nouns: dict[int, Noun] = {}
        self.globals: list[GlobalTag] = []
        self.frames: set[int] = set()
        self.color_nouns: set[int] = set()
        self.shared_colours: list[tuple[Any, Any]] = []  # (a colour read as a noun, the thing after its "and")
        self.skip: set[int] = set()  # nouns that are neither things nor globals (meta words)
        self.relations: list[Relation] = []
        self._attr_seen: set[tuple[int, str]] = set()
        self.repairs: list[tuple[int, str, int]] = []  # (subject, verb, object) of mis-parsed "X verbing Y"
        self.finite_repairs: list[tuple[int, str, int, str]] = []  # (subject, words, object, lemma): "a raft floats on ..."
        self.misread_verbs: dict[int, int] = {}  # a verb read as a plural noun -> the thing before it ("raft floats")
        self.implied: set[int] = set()  # verbs that stand for the person a subjectless pose is about ("standing on left leg")
        self.lettered: set[int] = set()  # verbs whose "in ..." is a text's lettering ("written in cursive")
        self.not_describing: set[int] = set()  # modifiers that are a verb of another thing ("a man vacuuming sand")
        self.claimed_numbers: set[int] = set()  # numbers that count a thing named before them ("birds set of two")
        self.depictions: set[int] = set()  # pictures on a thing ("a vase with a painting of ..."): things, not the frame
        self.sites: list[Any] = []  # named places where the picture is ("a street in Paris"): no things, a state of what is there

    def _add_global(self, value: str, kind: str, index: int, parent: int | None = None, countable: bool = True,
                    tag: bool = False) -> GlobalTag:
        """Record a global tag once; the tag recorded for ``value`` (the earlier one when the prompt says it twice)."""
        existing = next((g for g in self.globals if g.value == value and g.kind == kind), None)
        if existing is not None:
            return existing
        recorded = GlobalTag(value=value, kind=kind, index=index, parent=parent, countable=countable, tag=tag)
        self.globals.append(recorded)
        return recorded

    def _is_purpose(self, tok) -> bool:
        """Whether ``tok`` heads what a thing is made or sold for, after "for" (``not_things.purpose``: "a set of nine labels
        for the summer season", "balloons for a birthday party", "arrows for your design"): an occasion or a use, which no
        picture shows; no thing, but a state of the thing it is hung on (``_purpose_states``). A noun that owns it
        ("for Valentine's day", "for mother's day") is part of it."""
        if tok.dep_ == "poss" and tok.pos_ in ("NOUN", "PROPN") and tok.head.i > tok.i:
            tok = tok.head
        if tok.dep_ != "pobj" or tok.head.lower_ != "for" or tok.pos_ not in ("NOUN", "PROPN"):
            return False
        return tok.lemma_.lower() in self.not_things["purpose"] or tok.lower_ in self.not_things["purpose"]

    def _purpose_owner(self, tok):
        """The thing whose purpose ``tok`` (:meth:`_is_purpose`) names: the thing its "for" hangs on, or the thing after
        the "of" of a quantity word it hangs on ("a set of nine labels for the summer season": the labels), or the thing
        named right before "for" inside that thing's phrase ("a kitchen with white appliances and shelving units for
        storage": the units); None when "for" hangs on no thing ("packed for the trip") or on a noun read as a verb ("the
        spoon bake the lasagna for the party")."""
        anchor = tok.head.head if tok.dep_ == "pobj" else None
        if anchor is None or anchor.i > tok.i:
            return None
        if anchor.i not in self.nouns:
            anchor = next((o for p in anchor.children if p.dep_ == "prep" and p.lower_ == "of" for o in p.children if o.dep_ == "pobj"), anchor)
        if anchor.i not in self.nouns or anchor.i >= tok.head.i or any(c.dep_ in ("nsubj", "dobj") for c in anchor.children):
            return None
        before = self.doc[tok.head.i - 1]
        return before if before.i in self.nouns and before.i != anchor.i and before in anchor.subtree else anchor

    def add_attr(self, noun: Noun, value: str, kind: str, index: int, phrase: str = "") -> None:
        key = (noun.index, phrase or value)
        if key in self._attr_seen or not value:
            return
        if kind == "state" and self._person_act_of_part(noun.lemma, value.split()[0]):
            return  # "arms raised above the head with palms touching, looking up": not "are the arms looking up?"
        verb = self.doc[index] if kind == "state" and 0 <= index < len(self.doc) else None
        if verb is not None and verb.tag_ == "VBP" and verb.is_lower and verb.lemma_ == verb.lower_ and _no_english_verb(verb.lower_, self.model) and not _reads_as_adjective(verb.lower_, self.model):
            return  # "an elf queen wearing a crown, art nouveau, gold leaf, klimt": a name read as a verb ("is the queen klimting?")
        self._attr_seen.add(key)
        noun.attrs.append(Attribute(value=value, kind=kind, index=index, phrase=phrase or value))
        word = value
        if kind == "color":
            noun.colors.append(word)
        else:
            noun.attributes.append(word)
        noun.modifier_start.setdefault(word, index)

    def _person_act_of_part(self, part: str, verb: str) -> bool:
        """Whether ``verb`` (a word as the question says it: "looking", "smile") is one only someone does
        (``person_verbs``) and ``part`` a body part that does not do it (all but the head's: "the face is looking up")."""
        lex = self.lex
        if part not in lex["body_parts"] or part in lex["person_verb_parts"]:
            return False
        return verb in lex["person_verbs"] or any(verb == ing_form(v) for v in lex["person_verbs"])

    def _relation(self, subject: int, word: str, obj: int, kind: str, tag: str, finite: str, mutual: int | None = None,
                  also: tuple[int, ...] = ()) -> None:
        """Record a relation; ``subject == obj`` only for "each other", whose end index is ``mutual`` (the span reaches it)."""
        if subject not in self.nouns or obj not in self.nouns or subject == obj and mutual is None or subject in also:
            return
        if kind == "verb" and self._person_act_of_part(self.nouns[subject].lemma, finite or word.split()[0]):
            return  # "Their arms ... looking down at the floor": no "are the arms looking at the floor?"
        if kind == "verb" and finite and _no_english_verb(finite.lower(), self.model):
            return  # "Diana ... in the forest craig mullins mucha watercolor": a name read as a verb ("does Diana mullin ...?")
        if self.nouns[subject].lemma in self.lex["backdrops"]:
            return  # ("people in the background behind her": the people are behind her, the background is not)
        if any(r.subject == subject and r.obj == obj and r.word == word for r in self.relations):
            return
        own, whole = self.nouns[subject].phrase.lower(), self.nouns[obj].phrase.lower()
        if kind != "part" and whole.startswith(own + " ") and whole[len(own) + 1 :] in self.lex["body_parts"]:
            return  # "flying drone robot ... on drone robot body": the thing's own body, no place of the thing
        s, o = self.nouns[subject], self.nouns[obj]
        start = min(s.index - (len(s.phrase.split()) - 1), o.start)
        end = max(o.end, o.index + 1, s.index + 1, mutual or 0)
        self.relations.append(Relation(subject=subject, word=word, obj=obj, kind=kind, verb_tag=tag, start=start, end=end, finite=finite,
                                       also=tuple(i for i in also if i in self.nouns)))

    def _absolute(self, obj) -> bool:
        """Whether ``obj``, after "with" on a verb, starts a clause of its own that says how it is ("with legs crossed",
        "with hand near knee", "with their legs widely apart", "with a red light indicating error"): a body part with a
        pose word, a participle, an adverb or a place right after it, or any thing with an "-ing" participle of its own."""
        after = _next(obj)
        if after is None:
            return False
        with_ = obj.head if obj.dep_ == "pobj" else None
        set_off = with_ is not None and with_.i > 0 and self.doc[with_.i - 1].text == ","
        if after.tag_ == "VBG" and after.dep_ == "acl" and after.head.i == obj.i and set_off:
            return True  # (", with a red light indicating error"; not "a library filled with kids reading books")
        if obj.lower_ not in self.lex["body_parts"] and _lemma(obj) not in self.lex["body_parts"]:
            return False
        places = ("near", "on", "in", "at", "across", "over", "under", "behind", "above", "below", "between", "beside", "by",
                  "against", "around", "toward", "towards", "to", "on top", "close")
        return (after.lower_ in self.lex["pose_states"] or after.tag_ in ("VBG", "VBN") or after.pos_ == "ADV"
                or after.lower_ in places)

    def _absolute_place(self, prep, head):
        """The body part of an absolute "with" on ``head`` that a place phrase ``prep`` right after it is about ("hangs
        down with hand near knee": the hand, which the tagger hung "near knee" on the verb with), or None."""
        before = self.doc[prep.i - 1] if prep.i > 0 else None
        if (
            before is not None and before.i in self.nouns and before.dep_ == "pobj" and before.head.lower_ == "with"
            and before.head.head.i == head.i and self._absolute(before)
        ):
            return before
        return None

    def _verb_has_object(self, verb, skip: Collection[str] = ()) -> bool:
        for c in verb.children:
            if c.dep_ in ("dobj", "attr", "dative") and (_is_noun(c) or c.lower_ in ("it", "them")):
                return True
            if c.dep_ in ("prep", "agent") and c.lower_ not in skip and self._absolute_place(c, verb) is None:
                rel = _prep_relation(c, self.lex)
                if rel is not None and (rel[1].i in self.nouns or rel[1].lower_ in ("it", "them")) and not (c.lower_ == "with" and self._absolute(rel[1])):
                    return True  # (not "standing with legs crossed": the person is standing)
        return False
