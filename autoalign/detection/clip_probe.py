"""The CLIP probe detector ("clip-probe"): a prompt word is wrong when CLIP prefers the prompt with it swapped.

The ColorSwap / Winoground protocol, turned into a detector. Every word of the prompt that belongs
to a closed word class of ``prompts/clip_probe.json`` is a *slot*: a colour or size (attribute), a
count (number: one more or one fewer; "a" counts as one), a relation phrase (swapped for its
opposite), a thing from a set of interchangeable things (entity). The prompt is rewritten once per
other member of the slot's class ("a red circle" -> "a blue circle", "a green circle", ...), and
CLIP scores the image against the prompt and every rewrite in one text batch. A slot whose best
rewrite beats the prompt by more than ``margin`` (cosine) is a mismatch:

* **aspect** = the slot's class; **phrase** = the prompt's words in the form the VQ2 detector
  reports them (the attribute word, the relation phrase, the whole noun chunk for entities and
  numbers: "two red circles"); **correction** = the same words in the best rewrite, which is what
  CLIP thinks the image shows ("blue", "three red circles", "to the right of");
* **confidence** = the margin the rewrite wins by (capped at 1); **evidence** = the rewrite, both
  cosines and the hints the template writer reads (``noun``, ``subject``, ``object``).

Slots are reported by how much their rewrite wins, at most ``config.detection.max_mismatches``.
It needs no VQA model: in a world where the CLIP judge learned and the VLM did not (the ``shapes``
preset), it finds what the VQ2 detector cannot. A noun outside the listed sets is never swapped, so
it cannot say that an unlisted thing is missing.

Options (``[detection.options.clip-probe]``): ``margin`` (default 0.05; tuned on the shapes world's
validation split, see ``benchmarks/world_eval.py``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from PIL import Image

from autoalign import prompts, vocabulary
from autoalign.detection.base import detector_options
from autoalign.inflect import indefinite_article, plural, singular
from autoalign.scoring.clipscore import text_for
from autoalign.types import Mismatch, ScoreCard

if TYPE_CHECKING:
    from autoalign.config import Config
    from autoalign.models.cache import Models

DEFAULT_MARGIN = 0.05


@lru_cache(maxsize=1)
def word_classes() -> dict[str, Any]:
    data = json.loads(prompts.load("clip_probe.json"))
    return {k: v for k, v in data.items() if not k.startswith("_")}


@dataclass
class Slot:
    """One swappable place of the prompt and its rewrites."""

    aspect: str
    phrase: str
    hints: dict[str, str] = field(default_factory=dict)
    rewrites: list[tuple[str, str]] = field(default_factory=list)  # (whole rewritten prompt, correction)


def _words(tokens: list[str], spaces: list[str]) -> str:
    return "".join(t + s for t, s in zip(tokens, spaces)).strip()


def slots(prompt: str) -> list[Slot]:
    """Every slot of ``prompt`` with its rewrites (module docstring), from the question generator's parse."""
    from autoalign.scoring.parse import parse_prompt

    classes = word_classes()
    parse = parse_prompt(prompt)
    doc = parse.doc
    out: list[Slot] = []

    def chunk_rewrite(noun, swap: dict[int, str]) -> tuple[str, str]:
        """(the prompt, the noun's chunk) with some of the chunk's tokens replaced."""
        toks = [swap.get(i, doc[i].text) for i in range(noun.start, noun.end)]
        if len(toks) > 1 and toks[0].lower() in ("a", "an") and noun.start + 1 in swap:  # "a red" -> "an orange"
            toks[0] = toks[0][0] + indefinite_article(toks[1])[1:]  # the article's case is kept ("A" -> "An")
        new_chunk = _words(toks, [doc[i].whitespace_ for i in range(noun.start, noun.end)])
        start, end = doc[noun.start].idx, doc[noun.end - 1].idx + len(doc[noun.end - 1].text)
        return prompt[:start] + new_chunk + prompt[end:], new_chunk

    for noun in parse.nouns:
        chunk = doc[noun.start : noun.end].text
        head = doc[noun.index]
        # attributes: each colour / size word of the chunk
        for i in range(noun.start, noun.index):
            word = doc[i].lower_
            for group in classes.get("attribute", []):
                if word in group:
                    slot = Slot("attribute", doc[i].text, {"noun": noun.phrase})
                    for other in group:
                        if other != word:
                            slot.rewrites.append((chunk_rewrite(noun, {i: other})[0], other))
                    out.append(slot)
        # entity: the head noun, from a set of interchangeable things
        lemma = singular(head.lower_)
        for group in classes.get("entity", []):
            if lemma in group:
                slot = Slot("entity", chunk)
                for other in group:
                    if other != lemma:
                        word = plural(other) if noun.plural else other
                        slot.rewrites.append(chunk_rewrite(noun, {noun.index: word}))
                out.append(slot)
        # number: the count word, or "a"/"an" as one
        counts = classes.get("number", [])
        count_at = next((i for i in range(noun.start, noun.index) if doc[i].lower_ in counts), None)
        article = doc[noun.start].lower_ in ("a", "an") and not noun.plural
        if count_at is not None or article:
            at = count_at if count_at is not None else noun.start
            n = counts.index(doc[at].lower_) if count_at is not None else 0
            rest = doc[at + 1 : noun.end].text
            slot = Slot("number", chunk, {"noun": rest})
            for m in (n - 1, n + 1):
                if 0 <= m < len(counts):
                    word = plural(lemma) if m > 0 else lemma
                    swap = {at: counts[m], noun.index: word}
                    slot.rewrites.append(chunk_rewrite(noun, swap))
            if slot.rewrites:
                out.append(slot)
    for rel in parse.relations:
        for pair in classes.get("relation", []):
            if rel.word.lower() not in pair:
                continue
            subject, obj = parse.noun_at(rel.subject), parse.noun_at(rel.obj)
            if subject is None or obj is None:
                continue
            # the relation words as written between the subject's head and the object's chunk
            lo, hi = doc[rel.subject].idx + len(doc[rel.subject].text), doc[obj.start].idx
            between = prompt[lo:hi]
            at = between.lower().find(rel.word.lower())
            if at < 0:
                continue
            phrase = between[at : at + len(rel.word)]
            slot = Slot("relation", phrase, {"subject": subject.phrase, "object": obj.phrase})
            for other in pair:
                if other != rel.word.lower():
                    slot.rewrites.append((prompt[: lo + at] + other + prompt[lo + at + len(rel.word) :], other))
            out.append(slot)
    return out


class ClipProbeDetector:
    """Swapped-word rewrites of the prompt that CLIP prefers -> triplets (module docstring)."""

    name = "clip-probe"

    def __init__(self, models: "Models", config: "Config", **options: Any):
        from autoalign.config import ConfigError

        self.models = models
        self.config = config
        opts = {**detector_options(config, self.name), **options}
        unknown = sorted(set(opts) - {"margin", "max_mismatches"})
        if unknown:
            raise ConfigError(f"[detection.options.clip-probe] unknown option(s) {', '.join(unknown)}; allowed: margin, max_mismatches")
        try:
            self.margin = float(opts.get("margin", DEFAULT_MARGIN))
        except (TypeError, ValueError):
            raise ConfigError(f"[detection.options.clip-probe] margin must be a number (got {opts.get('margin')!r})") from None
        limit = opts.get("max_mismatches", config.detection.max_mismatches)
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise ConfigError(f"[detection.options.clip-probe] max_mismatches must be a positive integer (got {limit!r})")
        self.limit = limit

    def detect(self, image: Image.Image, prompt: str, card: ScoreCard | None) -> list[Mismatch]:
        found = slots(prompt)
        allowed = vocabulary.allowed_words(self.config)
        if allowed is not None:  # corrections only in words the preset's models know
            for slot in found:
                slot.rewrites = [(t, c) for t, c in slot.rewrites if all(w in allowed for w in c.lower().split())]
            found = [slot for slot in found if slot.rewrites]
        if not found:
            return []
        clip = self.models.clip
        texts = [text_for(clip, prompt)] + [text_for(clip, text) for s in found for text, _ in s.rewrites]
        cosines = clip.cosine_texts(image, texts)
        own, k = cosines[0], 1
        scored: list[tuple[float, Mismatch]] = []
        for slot in found:
            best = max(range(len(slot.rewrites)), key=lambda j: cosines[k + j])
            cosine = cosines[k + best]
            k += len(slot.rewrites)
            gain = cosine - own
            if gain <= self.margin:
                continue
            rewrite, correction = slot.rewrites[best]
            scored.append((gain, Mismatch(
                aspect=slot.aspect,
                phrase=slot.phrase,
                correction=correction,
                confidence=round(min(1.0, gain), 6),
                source=self.name,
                evidence={"rewrite": rewrite, "cosine_prompt": round(own, 6), "cosine_rewrite": round(cosine, 6), **slot.hints},
            )))
        best: dict[tuple[str, str], Mismatch] = {}
        for _, m in sorted(scored, key=lambda pair: -pair[0]):
            best.setdefault(m.key(), m)  # the strongest rewrite of each (aspect, phrase)
        return list(best.values())[: self.limit]
