"""Global tags: the picture's frame ("a photo of"), its style ("in the style of Hokusai", "digital art") and time ("at night")."""

from __future__ import annotations

from autoalign.scoring.parse.state import _ReaderState
from autoalign.scoring.parse.tokens import (
    _adjective_conjuncts,
    _is_noun,
    _lemma,
    _with_adverbs,
)


class _FramesReader(_ReaderState):
    """Reads frames, styles and times into ``self.globals``."""

    def _sentence_first_noun(self, tok) -> bool:
        sent = tok.sent
        first = next((t for t in sent if _is_noun(t) and t.dep_ != "compound"), None)
        return first is not None and first.i == tok.i

    def _fragment(self, tok) -> bool:
        """Whether ``tok`` heads a fragment set off by punctuation (", digital art.")."""
        if tok.dep_ not in ("appos", "conj", "npadvmod", "dep", "ROOT", "nmod", "attr"):
            return False
        first = min(t.i for t in tok.subtree)
        return first == 0 or self.doc[first - 1].is_punct

    def _frame(self, tok) -> None:
        """A frame noun ("photo") and its modifiers ("aerial", "black and white", "charcoal")."""
        self.frames.add(tok.i)
        countable = _lemma(tok) not in self.not_things["frame_mass"] and tok.tag_ not in ("NNS", "NNPS")
        mods = [c for c in tok.children if c.dep_ in ("amod", "compound", "nmod") and c.i < tok.i]
        if not countable:  # "digital art": one value, asked as "is this digital art?"
            words = sorted({t.i for m in mods for t in m.subtree} | {tok.i})
            self._add_global(" ".join(self.doc[i].lower_ for i in words), "frame", tok.i, countable=False)
            mods = []
        # a frame said twice ("a matte painting by X, ..., matte painting"): its styles refine the one recorded
        parent = self._add_global(tok.lower_, "frame", tok.i, countable=countable).index if countable else tok.i
        for m in sorted(mods, key=lambda t: t.i):
            if m.dep_ == "compound" and not countable:
                continue
            words = sorted(_adjective_conjuncts(m), key=lambda t: t.i)
            if len(words) > 1:  # "black and white"
                value = self.doc[words[0].i : words[-1].i + 1].text.lower()
                self._add_global(value, "style", m.i, parent=parent)
            elif m.dep_ == "compound" and any(c.dep_ in ("amod", "compound") and c.i < m.i for c in m.children):
                first = min(t.i for t in m.subtree)  # "a high resolution photo": "high resolution", not "resolution"
                self._add_global(self.doc[first : m.i + 1].text.lower(), "style", m.i, parent=parent)
            else:
                value, _ = _with_adverbs(m)
                self._add_global(value, "style", m.i, parent=parent)
        for c in tok.children:  # "painting in the style of Hokusai"
            if c.dep_ == "prep":
                self._style_of(c)

    def _style_of(self, prep) -> bool:
        """ "in the style of X" / "in X style" -> a global style tag."""
        pobj = next((c for c in prep.children if c.dep_ == "pobj"), None)
        if pobj is None or _lemma(pobj) != "style" or prep.lower_ not in ("in", "with"):
            return False
        of = next((c for c in pobj.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        if of is not None:
            inner = next((c for c in of.children if c.dep_ == "pobj"), None)
            if inner is not None:
                sub = [t for t in inner.subtree if t.i >= inner.i or not t.is_punct]
                while sub and sub[-1].is_punct:
                    sub.pop()
                self._add_global("style of " + self.doc[sub[0].i : sub[-1].i + 1].text, "style", pobj.i)
                self.skip.update(t.i for t in sub)
                return True
        mods = [c for c in pobj.children if c.dep_ in ("amod", "compound", "nmod") and c.i < pobj.i]
        if mods:
            first = min(t.i for m in mods for t in m.subtree)
            self._add_global(self.doc[first : pobj.i].text.lower() + " style", "style", pobj.i)
            self.skip.update(range(first, pobj.i))
            return True
        return False

    def _time(self, tok) -> None:
        mods = [c for c in tok.children if c.dep_ in ("amod", "compound") and c.i < tok.i]
        start = min([tok.i] + [t.i for m in mods for t in m.subtree])
        self._add_global(self.doc[start : tok.i + 1].text.lower(), "time", tok.i, countable=bool(mods))
