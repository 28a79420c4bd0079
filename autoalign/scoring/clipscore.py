"""CLIPScore (Hessel et al., 2021): ``2.5 * max(cos(image, text), 0)``.

As in the reference implementation (``clipscore.py`` of jmhessel/clipscore), the text is prefixed
with "A photo depicts" before it is embedded (``prompts/clipscore_text.txt``): the paper found the
prefix raises correlation with human judgements, and following it keeps our numbers comparable to
published CLIPScores. A CLIP that was trained on bare captions is given its own template by its
preset (``[clip] text_template``, read here from the loaded model as ``clip.text_template``).
"""

from __future__ import annotations

from typing import Sequence

from autoalign import prompts

CLIPSCORE_WEIGHT = 2.5


def clip_score(cosine: float, weight: float = CLIPSCORE_WEIGHT) -> float:
    """The CLIPScore of one cosine similarity; negative similarity scores 0."""
    return float(weight * max(float(cosine), 0.0))


def reference_template() -> str:
    """The reference's text for a caption, "A photo depicts {text}" (``prompts/clipscore_text.txt``)."""
    return prompts.load("clipscore_text.txt").strip()


def clipscore_text(text: str, template: str | None = None) -> str:
    """The text CLIP embeds for a caption: ``template`` (with one ``{text}``), by default
    :func:`reference_template`."""
    return (reference_template() if template is None else template).format(text=text.strip())


def text_for(clip, text: str) -> str:
    """The text ``clip`` embeds for caption ``text``: its own ``text_template`` when it has one."""
    return clipscore_text(text, getattr(clip, "text_template", None))


def clip_scores(clip, images: Sequence, text: str) -> list[float]:
    """CLIPScore of every image with ``text``: one ``cosine`` call for all images."""
    return [clip_score(c) for c in clip.cosine(list(images), text_for(clip, text))]
