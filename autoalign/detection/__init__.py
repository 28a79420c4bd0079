"""FineMatch mismatch detection: what does the image get wrong about the prompt?

The loop calls :func:`detect`, which runs the detectors named in ``config.detection.detectors``
and merges their triplets (:mod:`autoalign.detection.ensemble`), keeping at most
``config.detection.max_mismatches``, most confident first.

Detectors (each listed in :data:`autoalign.registry.BUILTIN` under ``("detector", NAME)``):

* ``vq2`` - failed VQ2 questions of the score card, corrections from open questions
  (:mod:`~autoalign.detection.vq2_detector`);
* ``vlm`` - FineMatch-style instruction + few-shot to a VLM, output parsed and validated
  (:mod:`~autoalign.detection.vlm_detector`);
* ``text`` - OCR of requested written text (:mod:`~autoalign.detection.text_detector`).

:mod:`~autoalign.detection.itm_iou` implements FineMatch's ITM-IoU metric for predicted triplets.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PIL import Image

from autoalign import registry
from autoalign.config import region_attributes
from autoalign.detection.base import Detector, card_from
from autoalign.detection.ensemble import merge
from autoalign.types import Mismatch, ScoreCard

if TYPE_CHECKING:
    from autoalign.config import Config
    from autoalign.models.cache import Models

logger = logging.getLogger(__name__)

__all__ = ["Detector", "detect", "make_detectors"]


def make_detectors(models: "Models", config: "Config") -> list[Detector]:
    """The detectors ``config.detection.detectors`` names, constructed (no weights loaded)."""
    return [registry.get("detector", name)(models, config) for name in config.detection.detectors]


def detect(
    image: Image.Image,
    prompt: str,
    card: ScoreCard | dict[str, Any] | None,
    models: "Models",
    config: "Config",
) -> list[Mismatch]:
    """Mismatches between ``image`` and ``prompt`` from the configured detectors, merged, best first (0-3)."""
    card = card_from(card)
    found = []
    decided = grounded_aspects(config)
    for detector in make_detectors(models, config):
        mismatches = detector.detect(image, prompt, card)
        logger.debug("detector %s: %d mismatch(es)", detector.name, len(mismatches))
        if detector.name != "layout":  # with the pass deciding, objects, counts and places are its to say
            mismatches = [m for m in mismatches if m.aspect not in decided]
        found.append(mismatches)
    if getattr(config.detection, "grounded_pass", False) and "layout" not in config.detection.detectors:
        found.append(grounded_pass(image, prompt, models, config))
    return merge(found, config.detection.max_mismatches)


#: What the grounded pass holds an image to: objects there, as many as asked, placed as asked.
PASS_ASPECTS = ("entity", "number", "relation")


def grounded_aspects(config: Any) -> tuple[str, ...]:
    """The aspects the grounded pass alone decides (``detection.grounded_pass`` and ``pass_decides``), else ()."""
    detection = config.detection
    return PASS_ASPECTS if getattr(detection, "grounded_pass", False) and getattr(detection, "pass_decides", False) else ()


def grounded_pass(image: Image.Image, prompt: str, models: "Models", config: "Config") -> list[Mismatch]:
    """The pass that counts (``detection.grounded_pass``): the ``layout`` detector's missing and extra objects,
    wrong counts and wrong relations, and (its option ``sure``) an object it cannot read for sure. Any of them keeps the loop from calling the image aligned
    (:func:`autoalign.editing.policy.is_aligned` sees a mismatch) and becomes something to fix. Its colour
    triplets join when they are half of a count (:func:`surplus_colours`), and all of them when the region
    editor takes attributes (``[region_editor] attributes = true``)."""
    detector = registry.get("detector", "layout")(models, config)
    everything = detector.detect(image, prompt, None)
    found = [m for m in everything if m.aspect in PASS_ASPECTS or (m.evidence or {}).get("unsure") is True]
    colours = surplus_colours(everything)
    if region_attributes(config):  # the region editor recolours: every colour triplet, with its boxes
        marked = {m.key() for m in colours}
        colours += [m for m in everything if m.aspect == "attribute" and m.key() not in marked
                    and (m.evidence or {}).get("unsure") is not True]
    found += colours
    logger.debug("grounded pass: %d mismatch(es)", len(found))
    return found


def _noun(text: str) -> str:
    from autoalign.inflect import singular

    words = str(text or "").lower().split()
    return singular(words[-1]) if words else ""


def surplus_colours(mismatches: list[Mismatch]) -> list[Mismatch]:
    """The layout detector's colour mismatches that are half of a count: "a blue square and two red
    squares" drawn as three red squares is a blue square missing *and* a red one too many, and the fix is
    to recolour the surplus one, not to delete it and draw another. Such an attribute triplet joins the
    pass's own, marked ``evidence["surplus"] = True`` (the region editor's policy routes it)."""
    surplus = {_noun(m.evidence.get("noun")) for m in mismatches if m.aspect == "number"
               and isinstance(m.evidence.get("found"), int) and isinstance(m.evidence.get("expected"), int)
               and m.evidence["found"] > m.evidence["expected"]}
    out = []
    for m in mismatches:
        if m.aspect == "attribute" and m.evidence.get("boxes") and _noun(m.evidence.get("noun")) in surplus:
            out.append(Mismatch(m.aspect, m.phrase, m.correction, m.confidence, m.source, {**m.evidence, "surplus": True}))
    return out
