"""Global tags: the picture's frame ("a photo of"), its style ("in the style of Hokusai", "digital art") and time ("at night")."""

from __future__ import annotations

from typing import Any

from autoalign.scoring.parse.lexicon import ADJECTIVE_ENDING, _english_form, _only_adjective, abstract_word
from autoalign.scoring.parse.state import _ReaderState
from autoalign.scoring.parse.tokens import (
    _adjective_conjuncts,
    _in,
    _is_noun,
    _lemma,
    _next,
    _with_adverbs,
)

# a word of a quality, an act or a school of art, by its ending ("movement", "attribution", "surrealism")
_ABSTRACT = abstract_word(3)


class _FramesReader(_ReaderState):
    """Reads frames, styles and times into ``self.globals``."""

    def _intensifier(self, tok) -> bool:
        """ "hyper" in "hyper realistic crazed zealot": a word that only raises the style word right after it."""
        after = _next(tok)
        return tok.lower_ in self.lex["style_intensifiers"] and after is not None and _in(after, self.not_things["style"])

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
        # (not a user prompt's tags read before: "..., highly detailed, hyper realistic, octane render")
        # (nor a word of another fragment: "a furry caterpillar, pupa, macro photo" is no "pupa photo")
        # (nor a style word read with the word that raises it: "ultra realistic portrait" is no "ultra portrait")
        styled = {g.index for g in self.globals if g.kind == "style" and " " in g.value}
        mods = [c for c in tok.children if c.dep_ in ("amod", "compound", "nmod") and c.i < tok.i and c.i not in self.skip
                and not any(t.text in (",", ";", "|") for t in self.doc[c.i : tok.i]) and c.i not in styled and not self._intensifier(c)]
        if _lemma(tok) in self.not_things["vague_frame"]:
            # "progress shot of a garage" read as a sentence ("progress" its subject): the word right before names the
            # shot's kind, asked as "is this a progress shot?" (a bare "is this a shot?" is not asked: see questions.py)
            mods += [c for c in tok.children if c.dep_ == "nsubj" and c.i == tok.i - 1 and c.pos_ in ("NOUN", "PROPN") and c.i not in self.skip]
        if not countable:  # "digital art": one value, asked as "is this digital art?"
            # (only the words of the frame's own fragment: "..., eerie, foggy, horror movie still" is a horror movie still)
            cut = self._fragment_start(tok.i)
            words = sorted({t.i for m in mods for t in m.subtree if t.i >= cut} | {tok.i})
            self._add_global(" ".join(self.doc[i].lower_ for i in words), "frame", tok.i, countable=False)
            mods = []
        # a frame said twice ("a matte painting by X, ..., matte painting"): its styles refine the one recorded
        parent = self._add_global(tok.lower_, "frame", tok.i, countable=countable).index if countable else tok.i
        for m in sorted(mods, key=lambda t: t.i):
            if m.dep_ == "compound" and not countable:
                continue
            words = sorted((t for t in _adjective_conjuncts(m) if t.i not in self.skip), key=lambda t: t.i)
            if len(words) > 1:  # "black and white"
                value = self.doc[words[0].i : words[-1].i + 1].text.lower()
                self._add_global(value, "style", m.i, parent=parent)
            elif m.dep_ == "compound" and any(c.dep_ in ("amod", "compound") and c.i < m.i for c in m.children):
                cut = self._fragment_start(m.i)
                first = min(t.i for t in m.subtree if t.i >= cut)  # "a high resolution photo": "high resolution", not "resolution"
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
                comma = next((t.i for t in sub if t.i > inner.i and t.text in (",", ";", "|")), None)
                if comma is not None:  # "in the style of Alex Grey and Norman Rockwell, fantasy, 8k": the tags after are their own
                    sub = [t for t in sub if t.i < comma]
                first = next((t.i for t in self.doc[of.i + 1 : inner.i] if t.text in (",", ";", "|")), None)
                if first is not None and first > of.i + 1:
                    # "in the style of blade runner, neon, rain" (the tagger took "rain" for the name's head): the name
                    # ends at the first comma, the tags after it are their own
                    sub = list(self.doc[of.i + 1 : first])
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
        # ("Sunday morning": the morning shows, the day of the week does not; calendar_words)
        mods = [c for c in tok.children if c.dep_ in ("amod", "compound") and c.i < tok.i and not (c.lower_ in self.lex["calendar_words"] and c.lower_.endswith("day"))]
        start = min([tok.i] + [t.i for m in mods for t in m.subtree])
        self._add_global(self.doc[start : tok.i + 1].text.lower(), "time", tok.i, countable=bool(mods))

    # -- user prompts' tags: "..., highly detailed, trending on artstation, by greg rutkowski, 8k"
    def _fragments(self) -> list[list[Any]]:
        """The prompt's comma-separated fragments (tokens between ",", ";", "|" and sentence ends)."""
        out: list[list[Any]] = [[]]
        for tok in self.doc:
            if tok.text in (",", ";", "|", "::") or tok.is_sent_start and out[-1]:
                out.append([])
            if tok.text not in (",", ";", "|", "::"):
                out[-1].append(tok)
        return [f for f in out if f]

    def _style_tag(self, fragment: list[Any]) -> bool:
        """Whether a fragment is a tag about the picture: a style word or a resolution ("8k", "4 k"), no verb but
        "trending", "rendered", ... (a word of the list), and no quote."""
        words = self.lex["style_tag_words"]
        if any(t.text in ('"', "“", "”") for t in fragment) or len(fragment) > 6:
            return False
        if self._medium(fragment):
            return True  # "..., oil on canvas": the medium, no oil or canvas in the picture
        if " ".join(t.lower_ for t in fragment) in self.lex["style_tag_phrases"]:
            return True  # "portrait of a fisherman, black and white, film grain": the picture's colouring, no thing "black"
        lone = fragment[0] if len(fragment) == 1 else None
        if lone is not None and lone.tag_ == "VB" and lone.is_lower and lone.is_alpha:
            return True  # "old ship, spooky": a one-word tag the tagger read as a bare verb is a look, not "is the ship spookying?"
        if lone is not None and lone.is_lower and lone.is_alpha and _only_adjective(lone.lower_, self.model) and not (
            any(a.i > lone.i and a.pos_ in ("NOUN", "PROPN") for a in lone.ancestors) or any(t.dep_ == "cc" for t in lone.sent)
        ):
            # "beautiful artwork by boris groh, vivid, masterpiece": a one-word tag that is only ever a describing word
            # (WordNet: an adjective, never a noun), wherever the tagger hung it, is a look of the picture, as a look by
            # its ending is ("is the image vivid?"; and the frame's: "is the artwork vivid?"); not one of a list of looks
            # before a thing's name ("a shiny, new, low riding truck", "happy, angry, surprised and sobbing faces")
            return True
        if any(t.pos_ in ("VERB", "AUX") and not _in(t, words) for t in fragment):
            return False
        if any(t.pos_ == "VERB" and any(c.dep_ == "dobj" and any(d.dep_ == "det" for d in c.children) and not _in(c, words)
                                          and not _in(c, self.lex["frame_nouns"]) for c in t.children) for t in fragment):
            return False  # "a man on a bench, painting a fence": what he does to a thing, no style ("does the image have painting a fence?")
        # "8k", "4 k", "1080p", and a film or a lens by its width ("35mm film", "85 mm lens")
        resolution = any(t.lower_ in ("k", "p", "mm") and i > 0 and fragment[i - 1].like_num for i, t in enumerate(fragment))
        # a one-word tag that by its ending describes ("pychedelic", "atmospheric"): a look of the picture
        looks = len(fragment) == 1 and fragment[0].is_lower and ADJECTIVE_ENDING.fullmatch(fragment[0].lower_) is not None
        return resolution or looks or any(_in(t, words) for t in fragment)

    def _name_tag(self, lone) -> bool:
        """ "a ruined cathedral, fromsoftware, gloomy", "..., beeple": a one-word lower-case tag that is no English word
        (none of WordNet's, nor its singular) names a studio, a site or an artist, a style of the picture ("is the image in
        fromsoftware style?"), not a thing ("is there a fromsoftware?")."""
        if lone is None or not lone.is_alpha or not lone.is_lower or len(lone) < 4 or lone.pos_ not in ("NOUN", "PROPN", "ADJ"):
            return False
        return not _english_form(lone.lower_, self.model)

    def _fragment_start(self, i: int) -> int:
        """Where the comma-separated fragment holding word ``i`` starts (after the last ",", ";" or "|" before it)."""
        return max((t.i for t in self.doc[:i] if t.text in (",", ";", "|")), default=-1) + 1

    def _medium(self, fragment: list[Any]) -> bool:
        """Whether a fragment names the medium as "<paint> on <ground>" ("oil on canvas", "ink on paper": ``media``)."""
        words = [t.lower_ for t in fragment if not t.is_punct]
        return len(words) == 3 and words[1] == "on" and words[0] in self.lex["media_paints"] and words[2] in self.lex["media_grounds"]

    _NOT_NAME = ("ADP", "DET", "CCONJ", "SCONJ", "AUX", "PRON", "PART", "NUM")

    def _artists(self, by) -> bool:
        """ "by greg rutkowski and alphonse mucha": each name a global "style of" tag; its words are no things. A name
        listed after the first is taken when it is written as a name (proper nouns, no style word: not "..., deviantart,
        fantasy art")."""
        pobj = next((c for c in by.children if c.dep_ == "pobj"), None)
        if pobj is None or pobj.pos_ not in ("PROPN", "NOUN"):
            return False
        if any(c.dep_ == "det" for c in pobj.children):
            return False  # "a man painting by the river": a place, no artist
        names, stack = [pobj], [pobj]
        while stack:
            for c in stack.pop().children:
                if c.dep_ in ("conj", "appos") and (c.pos_ == "PROPN" or self._full_name(c) or self._foreign_name(c)) and not self._style_tag([c]):
                    names.append(c)
                    stack.append(c)
        last = by.i + 1
        for name in names:
            parts = self._foreign_name(name) or sorted([name, *[c for c in name.children if c.dep_ in ("compound", "amod") and c.i < name.i]], key=lambda t: t.i)
            end = name.i + 1
            # "a surrealist painting by remedies varo": the name goes on to the end of its fragment (the tagger read
            # "varo" as the sentence's verb: "is the surrealist painting varoing?")
            rest = list(self.doc[end : end + 2])
            cut = next((k for k, t in enumerate(rest) if not t.is_alpha or t.pos_ in self._NOT_NAME), len(rest))
            if (len(names) == 1 or name.i == max(n.i for n in names)) and rest and (cut == len(rest) and end + cut == len(self.doc) or cut < len(rest) and rest[cut].is_punct):
                end += cut
            self._add_global("style of " + self.doc[parts[0].i : end].text, "style", name.i)
            self.skip.update(range(parts[0].i, end))
            last = max(last, end)
        self._listed_artists(last)
        self.skip.add(by.i)
        return True

    def _listed_artists(self, at: int) -> None:
        """ "art by greg rutkowski and alphonse mucha", "by artgerm, greg rutkowski and wlop": after an artist, more names
        listed with "and" or a comma are artists too, however the tagger read them (it hung "mucha" on the picture as a
        number), when they are written as names: one to three lower-case (or capitalised) words, none a style word, a
        frame, a colour or a word of the lists, the last no English word (WordNet's; a single name only after "and")."""
        doc, lex = self.doc, self.lex
        while at < len(doc) - 1 and doc[at].lower_ in ("and", ",", "&"):
            joined = doc[at].lower_ != ","
            words = []
            k = at + 1
            while k < len(doc) and doc[k].is_alpha and doc[k].lower_ not in ("and", "&") and len(words) < 4:
                words.append(doc[k])
                k += 1
            if not 1 <= len(words) <= 3 or len(words) == 1 and not joined or k < len(doc) and doc[k].text not in (",", ";", ".") and doc[k].lower_ not in ("and", "&"):
                return
            if not (all(t.is_lower for t in words) or all(t.is_title for t in words)) or any(t.pos_ in self._NOT_NAME or t.i in self.skip for t in words):
                return
            if any(_in(t, lex["style_tag_words"]) or _in(t, lex["frame_nouns"]) or t.lower_ in lex["colors"] or _in(t, self.not_things["meta"]) for t in words):
                return
            if _english_form(words[-1].lower_, self.model):
                return
            self._add_global("style of " + doc[words[0].i : words[-1].i + 1].text, "style", words[-1].i)
            self.skip.update(t.i for t in words)
            at = k

    def _by_person(self, by) -> bool:
        """ "tokyo street at night by makoto shinkai, highly detailed": "by" and a person's full name (two or three words
        read as names, no article, no place's name) is who made the picture, whatever "by" hangs on; "a house by the lake",
        "a man by Big Ben" are places."""
        pobj = next((c for c in by.children if c.dep_ == "pobj"), None)
        if pobj is None or pobj.pos_ != "PROPN" or any(c.dep_ == "det" for c in pobj.children):
            return False
        if self._full_name(pobj, strict=True) or self._foreign_name(pobj):
            return True
        # "a cyberpunk city by moebius and makoto shinkai": a one-word name listed with a full one is an artist too
        listed = [c for c in pobj.children if c.dep_ == "conj" and c.i > pobj.i]
        return not [c for c in pobj.children if c.dep_ == "compound"] and pobj.is_alpha and any(self._full_name(c) for c in listed)

    def _foreign_name(self, tok) -> list[Any]:
        """The words of a person's name that ``tok`` ends, when it is one by its words, however the tagger read them: two or
        three words right before and at ``tok`` (after "by", "and", "&" or a comma), all hung on it, letters only, all in
        lower case or all capitalised, the last no English word (WordNet's), none a word of a place ("lake tahoe":
        ``place_words``), a style tag, a frame or a colour: "by ian mcque and simon stalenhag", "by hr giger and yoshitaka
        amano". An empty list if not."""
        doc, lex = self.doc, self.lex
        if not tok.is_alpha or tok.pos_ not in ("NOUN", "PROPN") or any(c.dep_ == "det" for c in tok.children):
            return []
        start = tok.i
        while start > 0 and doc[start - 1].is_alpha and doc[start - 1].lower_ not in ("by", "and", "or", "&") and tok.i - start < 3:
            start -= 1
        words = list(doc[start : tok.i + 1])
        if not 2 <= len(words) <= 3 or start == 0 or doc[start - 1].lower_ not in ("by", "and", ",", "&"):
            return []
        if any(t.head.i != tok.i for t in words[:-1]) or not (all(t.is_lower for t in words) or all(t.is_title for t in words)):
            return []
        if _english_form(tok.lower_, self.model) or any(t.ent_type_ in ("GPE", "LOC", "FAC", "ORG") for t in words):
            return []
        if any(t.lower_ in lex["place_words"] or _in(t, lex["style_tag_words"]) or _in(t, lex["frame_nouns"]) or t.lower_ in lex["colors"] for t in words):
            return []
        return words

    @staticmethod
    def _full_name(tok, strict: bool = False) -> bool:
        """Whether ``tok`` ends a person's full name: two or three words read as names, no article, none a place's name.
        Not ``strict``: the last word may be read as a lower-case noun after a name ("makoto shinkai")."""
        if any(c.dep_ == "det" for c in tok.children):
            return False
        parts = [c for c in tok.children if c.dep_ == "compound" and c.i < tok.i]
        names = [*parts, tok]
        if not 2 <= len(names) <= 3 or not all(t.is_alpha for t in names):
            return False
        if not all(t.pos_ == "PROPN" for t in names):
            if strict or not (tok.is_lower and tok.pos_ == "NOUN" and all(t.pos_ == "PROPN" and t.is_lower for t in parts)):
                return False
        return all(t.ent_type_ in ("", "PERSON") for t in names) and any(t.ent_type_ == "PERSON" or t.is_lower for t in names)

    def _named_tag(self, fragment: list[Any], count: int) -> bool:
        """ "landscape with mountains, ivan shishkin, oil on canvas": in a list of three or more tags, a later one that is
        only a name (two or three words, one of them written or tagged as a name, none a word of the lists, the last not a
        plural; or two or three lower-case words of no English, WordNet's: "jakub rozalski") is the artist, as "by ivan shishkin" would be ("is the image in the style of ivan shishkin?"), not a
        thing ("is there ivan shishkin?")."""
        words = [t for t in fragment if not t.is_punct]
        if count < 3 or not words or len(words) != len(fragment) or any(t.i in self.skip for t in words):
            return False
        if fragment[0].i == 0 or self.doc[fragment[0].i - 1].text not in (",", ";", "|", "::"):
            return False  # a tag is set off by a comma; a short sentence is none ("boat has person. person ride boat")
        joined = [k for k, t in enumerate(words) if t.lower_ in ("and", "&")]
        if joined:
            # "..., moebius and makoto shinkai, ...": names joined by "and" are artists each, when each is a name by the
            # test below (a one-word name only beside a name of two or three words, as after "by")
            cuts = [-1, *joined, len(words)]
            parts = [words[a + 1 : b] for a, b in zip(cuts, cuts[1:])]
            if not all(parts) or not any(len(p) > 1 for p in parts) or not all(self._name_words(p if len(p) > 1 else p * 2) for p in parts):
                return False
            for part in parts:
                self._add_global("style of " + self.doc[part[0].i : part[-1].i + 1].text, "style", part[-1].i)
            self.skip.update(t.i for t in words)
            return True
        if not self._name_words(words):
            return False
        self._add_global("style of " + self.doc[words[0].i : words[-1].i + 1].text, "style", words[-1].i)
        self.skip.update(t.i for t in words)
        return True

    def _name_words(self, words: list[Any]) -> bool:
        """Whether a tag's words are a name, by :meth:`_named_tag`'s test (a one-word name is passed twice)."""
        # ("..., mucha Mignola frazetta Vallejo, ...": up to five names of no English in a row, however written)
        many = 4 <= len(words) <= 5 and all(t.is_alpha and not t.is_stop and not _english_form(t.lower_, self.model) for t in words)
        if not (2 <= len(words) <= 3 or many):
            return False
        # ("..., jakub rozalski, 1920", "..., hayao miyazaki": lower-case words of no English are a name however tagged)
        foreign = many or all(t.is_alpha and t.is_lower and not t.is_stop and not _english_form(t.lower_, self.model) for t in words)
        if not foreign and (not all(t.is_alpha and t.pos_ in ("PROPN", "NOUN", "ADJ") for t in words) or words[-1].tag_ in ("NNS", "NNPS")):
            return False
        if not foreign and not any(t.pos_ == "PROPN" or t.ent_type_ == "PERSON" for t in words):
            return False
        lex = self.lex
        return not any(_in(t, lex["frame_nouns"]) or _in(t, lex["style_tag_words"]) or t.lower_ in lex["colors"] or _in(t, self.not_things["meta"]) for t in words)

    def _tail_tag(self, fragment: list[Any]) -> bool:
        """ "..., deviantart, arts and crafts movement, pre - raphaelite, mixed media, creative commons attribution": in a
        user prompt's tag list (after a tag about the picture), a short fragment of plain words (no article, number,
        pronoun, verb, preposition or quote) is one more tag about the picture, not things ("is there movement?", "are
        the media mixed?")."""
        words = [t for t in fragment if t.text != "-"]
        if not 1 <= len(words) <= 4 or not all(t.is_alpha for t in words):
            return False
        if any(t.pos_ in ("DET", "PRON", "NUM", "ADP", "AUX", "VERB", "PART", "SCONJ") for t in words):
            return False
        # (a body part is the subject's, a time word the time it is: "..., glowing eyes", "..., noon")
        if any(_lemma(t) in self.lex["body_parts"] or _lemma(t) in self.lex["time_words"] for t in words):
            return False
        # only what names no thing to see: describing words and names alone ("pre - raphaelite"), or a head word of a
        # quality, an act or a school ("arts and crafts movement", "creative commons attribution"); a thing stays a
        # thing ("..., gold armor, glowing sword, snow")
        nouns = [t for t in words if t.pos_ == "NOUN"]
        return not nouns or _ABSTRACT.fullmatch(words[-1].lower_) is not None

    def read_style_tags(self) -> None:
        """Tags after a user prompt's first fragment ("highly detailed", "octane render", "8k") and artists ("by X",
        "art by X") are global facts about the picture, not things (``style_tags`` in the word lists)."""
        fragments = self._fragments()
        heads = self.lex["artist_heads"]
        for tok in self.doc:
            if tok.lower_ == "by" and tok.dep_ in ("prep", "agent") and (_in(tok.head, heads) or tok.head.i in self.frames or self._by_person(tok)):
                self._artists(tok)
        if fragments and fragments[0][0].lower_ == "by" and len(fragments[0]) > 1:
            self._artists(fragments[0][0])  # a prompt that starts with its artist: "by leonora carrington"
        if len(fragments) < 2:
            return
        tail = False  # whether a tag about the picture was read after the first fragment: the prompt's tag list has begun
        for fragment in fragments[1:]:
            if fragment[0].lower_ == "by" and self._artists(fragment[0]):
                tail = True
                continue
            if len(fragment) > 2 and fragment[0].lower_ == "part" and fragment[1].lower_ == "by" and self._artists(fragment[1]):
                self.skip.add(fragment[0].i)  # "..., part by gerhard richter, part by takato yamamoto"
                tail = True
                continue
            if self._named_tag(fragment, len(fragments)):
                tail = True
                continue
            listed = tail and self._tail_tag(fragment) and not any(t.i in self.skip for t in fragment)
            if listed and _lemma(fragment[-1]) not in self.lex["frame_nouns"]:
                pass  # "..., deviantart, arts and crafts movement": a tag, though a word of it names a frame
            elif any(_lemma(t) in self.lex["frame_nouns"] for t in fragment) or any(t.i in self.skip for t in fragment):
                tail = tail or self._style_tag(fragment) or any(t.i in self.skip and t.lower_ != "," for t in fragment)
                continue  # "digital art", "detailed charcoal sketch", "octane render": a frame, read as one below
            elif not self._style_tag(fragment) and not listed and not self._name_tag(fragment[0] if len(fragment) == 1 else None):
                continue
            tail = True
            words = [t for t in fragment if not t.is_punct or t.text == "-"]
            while len(words) > 1 and (words[-1].text == "-" or words[-1].like_num and words[-2].text == "-"):
                words.pop()  # "Stock Vector - 3976107": a stock photo's number is no style
            while words and words[0].text == "-":
                words.pop(0)  # "- stock vector": a dash before a tag is no part of it
            if not words:
                continue
            value = self.doc[words[0].i : words[-1].i + 1].text.lower().replace(" - ", "-")
            inside = {t.i for t in words}
            head = next((t for t in words if t.head.i not in inside or t.head.i == t.i), words[-1])
            self._add_global(value, "style", head.i, tag=True)
            self.skip.update(t.i for t in fragment)
