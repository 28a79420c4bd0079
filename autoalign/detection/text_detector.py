"""The written-text detector ("text"): reads the image with OCR and checks the words the prompt asks for.

When the prompt asks for written text - quoted words (``a sign that says "OPEN"``), or
``says X`` / ``reads X`` / ``with the word(s) X`` / ``written X`` / ``labeled X`` - the image is read
with RapidOCR (ONNX models shipped in the ``rapidocr-onnxruntime`` wheel; loaded once per process,
lazily, shared by every detector instance) and each requested text is compared with what was read.

Comparison: both sides case-folded, punctuation dropped, whitespace collapsed; the best-matching
OCR fragment (a line, a run of words, or all text joined) by ``difflib`` ratio. A ratio of at least
``accept`` (default 0.9, room for one OCR slip in a long text) counts as written correctly.
Otherwise a mismatch:

* **aspect** ``attribute``. FineMatch has four classes; written words are not an object of their
  own (Flickr30K-entities "entity") but what an object shows, as a colour is (Visual Genome
  attribute). ``evidence["kind"] = "text"`` marks it for instruction writers.
* **phrase** = the requested text as it appears in the prompt (without its quotes).
* **correction** = what is written (the best fragment, or all text read when nothing is close),
  or ``"no text"`` when OCR reads nothing.
* **confidence** = (1 - ratio) × the fragment's OCR confidence; when nothing is read at all,
  ``missing_confidence`` (default 0.8: OCR can miss stylised lettering).
* **evidence** = ``{kind, requested, read, similarity, ocr: [{text, confidence, box}]}``.

Unquoted requests take the words after the cue up to punctuation or a joining word
(``in``, ``on``, ``with``, ``and`` ...), at most four words: ``a sign that says open in red``
asks for "open", ``a clock that reads 11:44.`` for "11:44". Quoted words always count as requested
text (on DrawBench: all 21 "Text" prompts found, no other prompt flagged).
"""

from __future__ import annotations

import difflib
import logging
import re
import threading
from typing import TYPE_CHECKING, Any

import numpy as np
from PIL import Image

from autoalign.detection.base import detector_options
from autoalign.detection.phrases import normalise_text
from autoalign.types import Mismatch, ScoreCard

if TYPE_CHECKING:
    from autoalign.config import Config
    from autoalign.models.cache import Models

logger = logging.getLogger(__name__)

_QUOTED = re.compile(r'"([^"\n]{1,80})"|“([^”\n]{1,80})”|‘([^’\n]{1,80})’|(?<![\w])\'([^\'\n]{1,80})\'(?![\w])')
_CUE = re.compile(
    r"\b(?:says|saying|reads|spelling|spells|spelled|titled|labell?ed|"
    r"with the words?|written|writes|inscribed(?: with)?|printed)\s*:?\s+",
    re.I,
)
_STOP = frozenset(
    "in on at with and or but while next by under over above below behind near from of for to as "
    "is are was were that which written painted printed".split()
)
MAX_UNQUOTED_WORDS = 4


def requested_texts(prompt: str) -> list[str]:
    """The texts the prompt asks to be written, as they appear in it (quotes removed), in order."""
    found: list[tuple[int, str]] = []
    for m in _QUOTED.finditer(prompt):
        group = next(i for i in range(1, 5) if m.group(i) is not None)
        text = m.group(group).strip()
        if normalise_text(text):
            found.append((m.start(group), text))
    quoted_spans = [m.span() for m in _QUOTED.finditer(prompt)]
    for m in _CUE.finditer(prompt):
        start = m.end()
        if any(a <= start < b for a, b in quoted_spans):
            continue  # "says \"OPEN\"": already taken from the quotes
        spans: list[tuple[int, int]] = []
        for w in re.finditer(r"[^\s,;!?()\"“”]+", prompt[start:]):
            token = w.group().rstrip(".:")  # "11:44." keeps its inner colon, loses the full stop
            if not token or token.lower() in _STOP or len(spans) >= MAX_UNQUOTED_WORDS:
                break
            if spans and re.search(r"[,;!?()]", prompt[start + spans[-1][1] : start + w.start()]):
                break
            spans.append((w.start(), w.start() + len(token)))
            if len(token) < len(w.group()):
                break  # the sentence or clause ends here
        if spans:
            a, b = start + spans[0][0], start + spans[-1][1]
            found.append((a, prompt[a:b]))
    seen: set[str] = set()
    out = []
    for _, text in sorted(found):
        key = normalise_text(text)
        if key not in seen:
            seen.add(key)
            out.append(text)
    return out


_ocr_engine = None
_ocr_lock = threading.Lock()


def ocr_engine():
    """The process-wide RapidOCR engine (created on first use; the models ship in the wheel)."""
    global _ocr_engine
    with _ocr_lock:
        if _ocr_engine is None:
            from rapidocr_onnxruntime import RapidOCR

            logger.info("loading RapidOCR (onnxruntime)")
            _ocr_engine = RapidOCR()
        return _ocr_engine


def read_text(image: Image.Image) -> list[dict[str, Any]]:
    """OCR lines of ``image``: ``[{text, confidence, box}]``, top-to-bottom as RapidOCR returns them."""
    result, _ = ocr_engine()(np.asarray(image.convert("RGB")))
    lines = []
    for box, text, score in result or []:
        lines.append({"text": str(text), "confidence": float(score), "box": [[float(x), float(y)] for x, y in box]})
    return lines


def best_fragment(target: str, lines: list[dict[str, Any]]) -> tuple[str, float, float]:
    """The OCR fragment closest to ``target``: ``(fragment, similarity, ocr_confidence)``.

    Fragments: each line, each run of as many words as ``target`` has (one fewer/more) inside a line
    or across the lines joined, and all text joined.
    """
    want = normalise_text(target)
    if not lines or not want:
        return "", 0.0, 0.0
    n = len(want.split())
    candidates: list[tuple[str, float]] = []
    for line in lines:
        candidates.append((line["text"], line["confidence"]))
    joined_words: list[tuple[str, float]] = []
    for line in lines:
        joined_words.extend((w, line["confidence"]) for w in line["text"].split())
    for length in range(max(1, n - 1), n + 2):
        for i in range(len(joined_words) - length + 1):
            run = joined_words[i : i + length]
            candidates.append((" ".join(w for w, _ in run), min(c for _, c in run)))
    candidates.append((" ".join(line["text"] for line in lines), min(line["confidence"] for line in lines)))
    best = ("", 0.0, 0.0)
    for text, conf in candidates:
        sim = difflib.SequenceMatcher(None, normalise_text(text), want, autojunk=False).ratio()
        if sim > best[1] or (sim == best[1] and conf > best[2]):
            best = (text, sim, conf)
    return best


class TextDetector:
    """OCR check of the text the prompt asks to be written (module docstring).

    Options (``[detection.options.text]``): ``accept`` (similarity counted as correct, default 0.9),
    ``missing_confidence`` (confidence when nothing is read, default 0.8).
    """

    name = "text"

    def __init__(self, models: "Models | None" = None, config: "Config | None" = None, **options: Any):
        opts = {**(detector_options(config, self.name) if config is not None else {}), **options}
        self.accept = float(opts.get("accept", 0.9))
        self.missing_confidence = float(opts.get("missing_confidence", 0.8))

    def detect(self, image: Image.Image, prompt: str, card: ScoreCard | None = None) -> list[Mismatch]:
        wanted = requested_texts(prompt)
        if not wanted:
            return []
        lines = read_text(image)
        ocr = [{"text": ln["text"], "confidence": round(ln["confidence"], 4), "box": ln["box"]} for ln in lines]
        out = []
        for text in wanted:
            fragment, sim, conf = best_fragment(text, lines)
            if sim >= self.accept:
                continue
            if not lines:
                correction, confidence = "no text", self.missing_confidence
            elif sim >= 0.5:
                correction, confidence = fragment, (1.0 - sim) * conf
            else:  # nothing close: report everything that is written
                correction = " ".join(ln["text"] for ln in lines)
                confidence = (1.0 - sim) * min(ln["confidence"] for ln in lines)
            out.append(
                Mismatch(
                    aspect="attribute",
                    phrase=text,
                    correction=correction,
                    confidence=round(float(confidence), 6),
                    source=self.name,
                    evidence={"kind": "text", "requested": text, "read": fragment, "similarity": round(sim, 4), "ocr": ocr},
                )
            )
        return sorted(out, key=lambda m: -m.confidence)
