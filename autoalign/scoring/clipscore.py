"""CLIPScore (Hessel et al., 2021): ``2.5 * max(cos(image, text), 0)``."""

from __future__ import annotations

from typing import Sequence

CLIPSCORE_WEIGHT = 2.5


def clip_score(cosine: float, weight: float = CLIPSCORE_WEIGHT) -> float:
    """The CLIPScore of one cosine similarity; negative similarity scores 0."""
    return float(weight * max(float(cosine), 0.0))


def clip_scores(clip, images: Sequence, text: str) -> list[float]:
    """CLIPScore of every image with ``text``: one ``cosine`` call for all images."""
    return [clip_score(c) for c in clip.cosine(list(images), text)]
