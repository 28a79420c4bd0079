"""What a reading of one parse collects, and how a thing, an attribute, a global tag or a relation is recorded."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from autoalign.scoring.parse.records import Attribute, GlobalTag, Noun, Relation
from autoalign.scoring.parse.tokens import (
    _is_noun,
    _prep_relation,
)


class _ReaderState:
    """The reading's collections, shared by the readers of things, attributes and relations (one per parse)."""

    def __init__(self, doc, lex):
        self.doc = doc
        self.lex = lex
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

    def _add_global(self, value: str, kind: str, index: int, parent: int | None = None, countable: bool = True,
                    tag: bool = False) -> GlobalTag:
        """Record a global tag once; the tag recorded for ``value`` (the earlier one when the prompt says it twice)."""
        existing = next((g for g in self.globals if g.value == value and g.kind == kind), None)
        if existing is not None:
            return existing
        recorded = GlobalTag(value=value, kind=kind, index=index, parent=parent, countable=countable, tag=tag)
        self.globals.append(recorded)
        return recorded

    def add_attr(self, noun: Noun, value: str, kind: str, index: int, phrase: str = "") -> None:
        key = (noun.index, phrase or value)
        if key in self._attr_seen or not value:
            return
        self._attr_seen.add(key)
        noun.attrs.append(Attribute(value=value, kind=kind, index=index, phrase=phrase or value))
        word = value
        if kind == "color":
            noun.colors.append(word)
        else:
            noun.attributes.append(word)
        noun.modifier_start.setdefault(word, index)

    def _relation(self, subject: int, word: str, obj: int, kind: str, tag: str, finite: str, mutual: int | None = None,
                  also: tuple[int, ...] = ()) -> None:
        """Record a relation; ``subject == obj`` only for "each other", whose end index is ``mutual`` (the span reaches it)."""
        if subject not in self.nouns or obj not in self.nouns or subject == obj and mutual is None or subject in also:
            return
        if self.nouns[subject].lemma in self.lex["backdrops"]:
            return  # ("people in the background behind her": the people are behind her, the background is not)
        if any(r.subject == subject and r.obj == obj and r.word == word for r in self.relations):
            return
        s, o = self.nouns[subject], self.nouns[obj]
        start = min(s.index - (len(s.phrase.split()) - 1), o.start)
        end = max(o.end, o.index + 1, s.index + 1, mutual or 0)
        self.relations.append(Relation(subject=subject, word=word, obj=obj, kind=kind, verb_tag=tag, start=start, end=end, finite=finite,
                                       also=tuple(i for i in also if i in self.nouns)))

    def _verb_has_object(self, verb, skip: Collection[str] = ()) -> bool:
        for c in verb.children:
            if c.dep_ in ("dobj", "attr", "dative") and (_is_noun(c) or c.lower_ in ("it", "them")):
                return True
            if c.dep_ in ("prep", "agent") and c.lower_ not in skip:
                rel = _prep_relation(c, self.lex)
                if rel is not None and (rel[1].i in self.nouns or rel[1].lower_ in ("it", "them")):
                    return True
        return False
