"""CLIPScore (Hessel et al., 2021): ``2.5 * max(cos(image, text), 0)``.

As in the reference implementation (``clipscore.py`` of jmhessel/clipscore), the text is prefixed
with "A photo depicts" before it is embedded (``prompts/clipscore_text.txt``): the paper found the
prefix raises correlation with human judgements, and following it keeps our numbers comparable to
published CLIPScores.
"""

from __future__ import annotations

from typing import Sequence

from autoalign import prompts

CLIPSCORE_WEIGHT = 2.5


def clip_score(cosine: float, weight: float = CLIPSCORE_WEIGHT) -> float:
    """The CLIPScore of one cosine similarity; negative similarity scores 0."""
    return float(weight * max(float(cosine), 0.0))


def clipscore_text(text: str) -> str:
    """The text CLIP embeds for a caption: the reference's "A photo depicts ..." form."""
    return prompts.load("clipscore_text.txt").strip().format(text=text.strip())


def clip_scores(clip, images: Sequence, text: str) -> list[float]:
    """CLIPScore of every image with ``text``: one ``cosine`` call for all images."""
    return [clip_score(c) for c in clip.cosine(list(images), clipscore_text(text))]
