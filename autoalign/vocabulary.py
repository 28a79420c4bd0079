"""A preset's vocabulary: the words its models know, and the prompt words outside it.

A preset may name a vocabulary file in ``prompts/`` (``[detection] vocabulary = "world_vocabulary.json"``,
the shapes world's): ``shapes`` (the things), ``colors``, ``sizes``, ``counts`` and ``relations``. Then

* :func:`outside_words` lists a prompt's things, colours, sizes and relations the preset's models never saw
  (read with the question generator's parse), and :func:`warn_outside` logs them once per run: "a red car
  on a bench" on the shapes preset draws a red circle, and should not pass silently;
* detectors keep their corrections inside it (:func:`allowed_words`): ``clip-probe`` swaps in only the
  preset's colours, and the ``layout`` detector speaks its grounder's labels;
* its ``held_out`` pairs (colour-thing and count-thing pairs its models never saw together, though they know each
  word) are the prompt's :func:`unseen_phrases`: a score from a model that never saw the pair says nothing about it
  (``[loop] unseen_gate``).

No vocabulary file: every word is allowed, nothing is warned about (the hub presets' models are open-vocabulary).
"""

from __future__ import annotations

import json
import logging
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from autoalign.config import Config
    from autoalign.grounding import LayoutObject

logger = logging.getLogger(__name__)

#: Words of the prompt language every vocabulary allows (articles and counts are checked by the parse, not here).
COMMON = frozenset({"a", "an", "the", "and", "of", "to", "on", "in"})


@lru_cache(maxsize=8)
def load(name: str) -> dict[str, Any]:
    """A vocabulary file of ``prompts/`` as lists of words by kind (``_`` keys dropped)."""
    from autoalign import prompts

    data = json.loads(prompts.load(name))
    colors = data.get("colors", {})
    return {
        "things": [str(w).lower() for w in data.get("shapes", data.get("things", []))],
        "colors": [str(w).lower() for w in (colors if isinstance(colors, (list, dict)) else [])],
        "sizes": [str(w).lower() for w in data.get("sizes", {})],
        "counts": [str(w).lower() for w in data.get("counts", [])],
        "relations": [" ".join(str(w).lower().split()) for w in data.get("relations", [])],
        "unseen_colors": [(str(c).lower(), str(t).lower()) for c, t in data.get("held_out", {}).get("color_shape", [])],
        "unseen_counts": [(int(n), str(t).lower()) for n, t in data.get("held_out", {}).get("count_shape", [])],
    }


def name_of(config: "Config") -> str:
    """The name of the config's vocabulary file (``detection.vocabulary``); "" when it has none."""
    return getattr(config.detection, "vocabulary", "") or ""


def of(config: "Config") -> dict[str, Any] | None:
    """The config's vocabulary (``detection.vocabulary``), or None when it has none."""
    name = name_of(config)
    return load(name) if name else None


def allowed_words(config: "Config") -> set[str] | None:
    """Every single word the preset's vocabulary holds (None: no vocabulary, every word allowed)."""
    from autoalign.inflect import plural

    vocab = of(config)
    if vocab is None:
        return None
    words = set(COMMON)
    for kind in ("things", "colors", "sizes", "counts"):
        words.update(vocab[kind])
    words.update(plural(w) for w in vocab["things"])
    for rel in vocab["relations"]:
        words.update(rel.split())
    return words


def outside_words(prompt: str, config: "Config") -> list[str]:
    """The prompt's things, colours, describing words and relations that the preset's vocabulary lacks, in prompt order."""
    from autoalign.inflect import singular
    from autoalign.scoring.parse import parse_prompt

    vocab = of(config)
    if vocab is None:
        return []
    parse = parse_prompt(prompt)
    doc = parse.doc
    out: list[str] = []
    for noun in parse.nouns:
        head = singular(doc[noun.index].lower_)
        for word in [*noun.colors, *noun.attributes]:
            w = word.lower()
            if w not in vocab["colors"] and w not in vocab["sizes"] and w not in vocab["counts"]:
                out.append(w)
        if head not in vocab["things"]:
            out.append(noun.phrase.lower())
    relations = vocab["relations"]
    for rel in parse.relations:
        word = " ".join(rel.word.lower().split())
        if not any(word == r or r.endswith(word) for r in relations):
            out.append(word)
    return list(dict.fromkeys(out))


def warn_outside(prompt: str, config: "Config") -> list[str]:
    """Log one warning naming the prompt's words outside the preset's vocabulary; returns them."""
    words = outside_words(prompt, config)
    if words:
        logger.warning(
            "words outside the %s preset's vocabulary: %s. Its models never saw them: the image will not show "
            "them and no score or detector can check them", config.name, ", ".join(repr(w) for w in words))
    return words


def unseen_phrases(prompt: str, config: "Config") -> list[str]:
    """The prompt's object phrases that pair a colour or a count with a thing as the vocabulary's ``held_out`` says
    its models never saw ("a red triangle" in the shapes world), in prompt order; empty without a vocabulary."""
    name = name_of(config)
    return list(_unseen_phrases(prompt, name)) if name else []


@lru_cache(maxsize=256)
def _unseen_phrases(prompt: str, name: str) -> tuple[str, ...]:
    """:func:`unseen_phrases` by vocabulary name: the loop asks it of one prompt at every pass decision, and the
    prompt's parse is read once."""
    from autoalign.grounding import read_layout

    vocab = load(name)
    if not (vocab["unseen_colors"] or vocab["unseen_counts"]):
        return ()
    return tuple(obj.chunk for obj in read_layout(prompt).objects if _is_unseen(obj, vocab))


def unseen_object(obj: "LayoutObject", config: "Config") -> bool:
    """Whether one of a layout's objects pairs a colour or a count with its thing as the vocabulary's ``held_out``
    says the models never saw (:func:`unseen_phrases`, for an object already read); False without a vocabulary."""
    name = name_of(config)
    return bool(name) and _is_unseen(obj, load(name))


def _is_unseen(obj: "LayoutObject", vocab: dict[str, Any]) -> bool:
    return (any((c.lower(), obj.noun) in vocab["unseen_colors"] for c in obj.colors)
            or (obj.count, obj.noun) in vocab["unseen_counts"])
