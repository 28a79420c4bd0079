"""Phrase and aspect normalisation shared by every detector and by ITM-IoU.

* :func:`snap_phrase` turns a phrase a model wrote (maybe re-cased, re-spaced or slightly
  misspelled) into the phrase *as it appears in the prompt*, or ``None`` when the prompt holds
  nothing close enough. FineMatch phrases are spans of the caption, so a detector must never
  report a phrase the user did not write.
* :func:`normalise_aspect` maps a class label to one of the four FineMatch aspects
  (entity, attribute, relation, number), accepting common synonyms ("count" -> number,
  "object" -> entity); anything else is ``None``.
* :func:`normalise_text` is the case/punctuation-insensitive form used to compare phrases.
"""

from __future__ import annotations

import difflib
import re

from autoalign.types import ASPECTS

# Labels a model may use for each FineMatch aspect (after lower-casing and trimming).
ASPECT_SYNONYMS: dict[str, str] = {
    **{a: a for a in ASPECTS},
    "entities": "entity",
    "object": "entity",
    "objects": "entity",
    "noun": "entity",
    "thing": "entity",
    "item": "entity",
    "subject": "entity",
    "attributes": "attribute",
    "attr": "attribute",
    "property": "attribute",
    "color": "attribute",
    "colour": "attribute",
    "material": "attribute",
    "shape": "attribute",
    "size": "attribute",
    "texture": "attribute",
    "style": "attribute",
    "adjective": "attribute",
    "text": "attribute",  # written text is a property of the object carrying it (see text_detector)
    "relations": "relation",
    "relationship": "relation",
    "relationships": "relation",
    "spatial": "relation",
    "position": "relation",
    "action": "relation",
    "interaction": "relation",
    "verb": "relation",
    "numbers": "number",
    "count": "number",
    "counting": "number",
    "quantity": "number",
    "numeral": "number",
    "numeracy": "number",
    "amount": "number",
}

_WORD = re.compile(r"\w+(?:['’-]\w+)*")
_EDGE_JUNK = " \t\r\n\"'`“”‘’.,;:!?()[]{}<>*_"


def normalise_aspect(label: object) -> str | None:
    """The FineMatch aspect a label means, or ``None`` when it is not one of the four (or a synonym)."""
    if not isinstance(label, str):
        return None
    key = re.sub(r"[^a-z ]+", " ", label.lower())
    key = re.sub(r"\s+", " ", key).strip()
    if key in ASPECT_SYNONYMS:
        return ASPECT_SYNONYMS[key]
    # "Entity mismatch", "aspect: number" ...: accept when exactly one known word is present.
    found = {ASPECT_SYNONYMS[w] for w in key.split() if w in ASPECT_SYNONYMS}
    return found.pop() if len(found) == 1 else None


def normalise_text(text: str) -> str:
    """Lower-case, punctuation dropped, whitespace collapsed: the form phrases are compared in."""
    words = _WORD.findall(text.casefold())
    return " ".join(words)


def word_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the words of ``text``."""
    return [m.span() for m in _WORD.finditer(text)]


def snap_phrase(phrase: str, prompt: str, min_ratio: float = 0.8) -> str | None:
    """Return ``phrase`` as it is written in ``prompt``, or ``None`` when the prompt has nothing close.

    In order: an exact substring on word boundaries; the same case-insensitively (returned with the
    prompt's casing);
    the same words with other spacing/punctuation; else the run of prompt words (one word shorter
    to one word longer than the phrase) whose text is most similar (``difflib`` ratio, at least
    ``min_ratio``), e.g. ``"red cars"`` -> ``"red car"``, ``"Dogg"`` -> ``"dog"``.
    """
    if not isinstance(phrase, str) or not isinstance(prompt, str):
        return None
    phrase = phrase.strip(_EDGE_JUNK)
    if not phrase or not prompt:
        return None
    bounded = re.compile(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)")
    found = bounded.search(prompt) or re.compile(bounded.pattern, re.IGNORECASE).search(prompt)
    if found:
        return found.group(0)
    target_words = normalise_text(phrase).split()
    if not target_words:
        return None
    spans = word_spans(prompt)
    words = [prompt[a:b].casefold() for a, b in spans]
    n = len(target_words)
    target = " ".join(target_words)
    best: tuple[float, int, int] | None = None  # (ratio, -length, start) for max()
    best_span: tuple[int, int] | None = None
    for length in range(max(1, n - 1), n + 2):
        for start in range(0, len(words) - length + 1):
            window = " ".join(words[start : start + length])
            if window == target:
                return prompt[spans[start][0] : spans[start + length - 1][1]]
            ratio = difflib.SequenceMatcher(None, window, target, autojunk=False).ratio()
            key = (ratio, -length, -start)
            if ratio >= min_ratio and (best is None or key > best):
                best, best_span = key, (spans[start][0], spans[start + length - 1][1])
    if best_span is None:
        return None
    return prompt[best_span[0] : best_span[1]]


_ARTICLES = frozenset({"a", "an", "the"})


def _content(text: str) -> str:
    words = normalise_text(text).split()
    kept = [w for w in words if w not in _ARTICLES]
    return " ".join(kept or words)


def phrases_overlap(a: str, b: str, min_jaccard: float = 0.5) -> bool:
    """True when two phrases are about the same words (articles ignored): equal, one inside the other,
    or word Jaccard >= ``min_jaccard``."""
    na, nb = _content(a), _content(b)
    if not na or not nb:
        return False
    if na == nb or f" {na} " in f" {nb} " or f" {nb} " in f" {na} ":
        return True
    sa, sb = set(na.split()), set(nb.split())
    return len(sa & sb) / len(sa | sb) >= min_jaccard
