"""The detector interface and how detectors are built from a config.

A detector looks at one image and the prompt it should show, and returns FineMatch triplets
(:class:`~autoalign.types.Mismatch`): aspect in entity/attribute/relation/number, the phrase as it
appears in the prompt, a correction saying what the image shows instead, a confidence in [0, 1],
its own name as ``source`` and whatever ``evidence`` explains the call.

Detectors are listed in :data:`autoalign.registry.BUILTIN` (role ``detector``) and are constructed as
``cls(models, config)``; they get their models from the shared :class:`Models` cache (so the
VQA model that scored the image is the one that detects) and load nothing in ``__init__``.

Per-detector options come from ``config.detection.options[NAME]`` when the config has that
table (``[detection.options.vlm] backend = "openai"``), else the detector's defaults.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from PIL import Image

from autoalign.types import Mismatch, ScoreCard

if TYPE_CHECKING:
    from autoalign.config import Config


@runtime_checkable
class Detector(Protocol):
    """Finds what the image gets wrong about the prompt."""

    name: str

    def detect(self, image: Image.Image, prompt: str, card: ScoreCard | None) -> list[Mismatch]: ...


def detector_options(config: "Config", name: str) -> dict[str, Any]:
    """Options for detector ``name`` from ``config.detection.options`` (empty when absent)."""
    options = getattr(config.detection, "options", None) or {}
    value = options.get(name, {}) if isinstance(options, dict) else {}
    return dict(value) if isinstance(value, dict) else {}


def card_from(card: ScoreCard | dict[str, Any] | None) -> ScoreCard | None:
    """Accept a ScoreCard or its dict form (as stored in a Candidate)."""
    if card is None or isinstance(card, ScoreCard):
        return card
    return ScoreCard.from_dict(card)
