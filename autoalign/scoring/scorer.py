"""The Scorer: every alignment score of a batch of images against one prompt.

::

    scorer = Scorer(Models(config), config)
    cards = scorer.score(images, "two red apples on a blue plate")
    cards[0].overall, cards[0].vq2, cards[0].vnli, cards[0].clip, cards[0].questions

Per call, all (question, image) pairs go to the VQA model in **one** ``yes_prob`` call (the backend
batches), VNLI for all images in one ``yes_no_probs`` call, CLIP in one ``cosine`` call.
``scorer.calls`` counts the model calls and pairs (for reports).

``ScoreCard.overall`` is the score named by ``scoring.primary``. When that score does not exist
for a prompt (VQ2 of a prompt that yields no questions) the next available score of
``scoring.rerank`` is used, and VNLI is computed for that purpose if it is switched off; a warning
says so.
"""

from __future__ import annotations

import logging
import unicodedata
from collections import Counter
from typing import Any, Sequence

from PIL import Image

from autoalign.config import Config
from autoalign.errors import InputError
from autoalign.scoring.clipscore import clip_scores
from autoalign.scoring.questions import cached_questions
from autoalign.scoring.vnli import vnli_scores
from autoalign.scoring.vq2 import dependency_zeroed, predicate_text, vq2_score
from autoalign.types import Question, QuestionScore, ScoreCard

logger = logging.getLogger(__name__)


def check_prompt(prompt: Any, max_chars: int) -> str:
    """The prompt, stripped; InputError when it is not text, empty, or longer than ``max_chars``."""
    if not isinstance(prompt, str):
        raise InputError(f"prompt must be text (got {type(prompt).__name__})")
    text = prompt.strip()
    if not text:
        raise InputError("prompt is empty; give the text the image should show")
    if not any(not unicodedata.category(ch).startswith(("C", "Z")) for ch in text):
        raise InputError("prompt has no visible characters (only control or format characters); give the text the image should show")
    if len(text) > max_chars:
        raise InputError(
            f"prompt is {len(text)} characters long; the limit is scoring.max_prompt_chars = {max_chars}"
        )
    return text


class Scorer:
    """VQ2, VNLI and CLIPScore for images against a prompt (see the module docstring).

    ``models`` is a :class:`autoalign.models.cache.Models` (or any object with ``vqa``, ``clip``,
    ``questions`` and ``llm`` attributes, e.g. a test double).

    ``only`` restricts the scores computed to the named ones (e.g. ``{"clip"}`` for a CLIP-only
    meta-evaluation); by default VQ2 and the primary score are always computed, VNLI and CLIP when
    ``scoring.vnli`` / ``scoring.clip`` say so.
    """

    def __init__(self, models: Any, config: Config, question_disk_cache: bool = True, only: set[str] | None = None):
        self.models = models
        self.config = config
        self.question_disk_cache = question_disk_cache
        bad = sorted(set(only or ()) - {"vq2", "vnli", "clip"})
        if bad:
            raise ValueError(f"only= takes vq2, vnli, clip (got {bad})")
        self.only = set(only) if only else None
        self.calls: Counter[str] = Counter()

    # ---- questions --------------------------------------------------------------------------------
    def questions(self, prompt: str) -> list[Question]:
        """The prompt's questions, generated once per prompt and generator settings."""
        text = check_prompt(prompt, self.config.scoring.max_prompt_chars)
        before = self.calls["question_generation"]
        generator = self.models.questions

        def generate_counted(p: str, llm: Any) -> list[Question]:
            self.calls["question_generation"] += 1
            return generator.generate(p, llm)

        counted = _CountingGenerator(generator, generate_counted)
        qs = cached_questions(text, self.config.questions, counted, llm=lambda: self.models.llm, disk=self.question_disk_cache)
        if self.calls["question_generation"] == before:
            self.calls["question_cache_hits"] += 1
        return qs

    # ---- scores -----------------------------------------------------------------------------------
    def score(self, images: Sequence[Image.Image], prompt: str) -> list[ScoreCard]:
        """One :class:`ScoreCard` per image, in order."""
        images = list(images)
        if not images:
            raise InputError("no images to score; give at least one image")
        for i, image in enumerate(images):
            if not isinstance(image, Image.Image):
                raise InputError(f"images[{i}] must be a PIL image (got {type(image).__name__})")
        text = check_prompt(prompt, self.config.scoring.max_prompt_chars)
        settings = self.config.scoring
        want = {"vq2": True, "vnli": settings.vnli, "clip": settings.clip}
        want[settings.primary] = True  # the primary score is always computed
        if self.only is not None:
            want = {k: k in self.only for k in want}
        questions = self.questions(text) if want["vq2"] else []

        per_image_scores: list[list[float]] = [[] for _ in images]
        if questions:
            predicates = [predicate_text(q, settings.predicate) for q in questions]
            pair_images = [img for img in images for _ in questions]
            pair_texts = predicates * len(images)
            p_yes = self._vqa_yes_prob(pair_images, pair_texts)
            n = len(questions)
            per_image_scores = [p_yes[i * n : (i + 1) * n] for i in range(len(images))]
            if settings.grounded_answers:  # count and place questions answered from the grounder's boxes
                from autoalign.scoring.grounded import grounded_answers

                self.calls["grounder"] += 1
                fused = grounded_answers(self.models.grounder, images, text, questions)
                per_image_scores = [[p if f is None else f for p, f in zip(row, frow)]
                                    for row, frow in zip(per_image_scores, fused)]

        vq2_values: list[float | None] = []
        question_scores: list[list[QuestionScore]] = []
        for raw in per_image_scores:
            effective = dependency_zeroed(questions, raw) if settings.dependency_zeroing else list(raw)
            vq2_values.append(vq2_score(effective) if want["vq2"] else None)
            question_scores.append(
                [
                    QuestionScore(q, float(p), score=float(e), zeroed=float(e) != float(p))
                    for q, p, e in zip(questions, raw, effective)
                ]
            )
        if want["vq2"] and not questions:
            logger.warning("the prompt %r gave no questions; VQ2 is undefined for it", text)

        need_fallback = self._primary_missing(vq2_values, want)
        vnli_values = self._vnli(images, text) if (want["vnli"] or need_fallback) else [None] * len(images)
        clip_values = self._clip(images, text) if want["clip"] else [None] * len(images)

        cards = []
        for i in range(len(images)):
            values = {"vq2": vq2_values[i], "vnli": vnli_values[i], "clip": clip_values[i]}
            cards.append(
                ScoreCard(
                    overall=self._overall(values),
                    vq2=values["vq2"],
                    vnli=values["vnli"],
                    clip=values["clip"],
                    questions=question_scores[i],
                )
            )
        return cards

    # ---- helpers ----------------------------------------------------------------------------------
    def _vqa_yes_prob(self, images: list[Image.Image], texts: list[str]) -> list[float]:
        self.calls["vqa_yes_prob"] += 1
        self.calls["vqa_pairs"] += len(texts)
        out = list(self.models.vqa.yes_prob(images, texts))
        if len(out) != len(texts):
            raise RuntimeError(f"VQA backend returned {len(out)} probabilities for {len(texts)} pairs")
        return [float(p) for p in out]

    def _vnli(self, images: list[Image.Image], text: str) -> list[float]:
        self.calls["vqa_yes_no_probs"] += 1
        self.calls["vnli_images"] += len(images)
        return vnli_scores(self.models.vqa, images, text)

    def _clip(self, images: list[Image.Image], text: str) -> list[float]:
        self.calls["clip_cosine"] += 1
        return clip_scores(self.models.clip, images, text)

    def _primary_missing(self, vq2_values: list[float | None], want: dict[str, bool]) -> bool:
        """True when no requested score can stand in for a missing VQ2 (so VNLI must be computed)."""
        primary = self.config.scoring.primary
        if primary != "vq2" or not want["vq2"] or all(v is not None for v in vq2_values):
            return False
        return not any(want[k] for k in self.config.scoring.rerank if k != "vq2")

    def _overall(self, values: dict[str, float | None]) -> float:
        primary = self.config.scoring.primary
        if values[primary] is not None:
            return float(values[primary])  # type: ignore[arg-type]
        for key in [*self.config.scoring.rerank, "vnli", "clip"]:
            if values.get(key) is not None:
                logger.warning("scoring.primary %r is undefined here; overall uses %s instead", primary, key)
                return float(values[key])  # type: ignore[arg-type]
        raise RuntimeError("no score could be computed")  # unreachable: VNLI is computed as the fallback


class _CountingGenerator:
    """Wraps a question generator so the Scorer can count real generations (cache misses)."""

    def __init__(self, inner: Any, generate: Any):
        self._inner = inner
        self.generate = generate

    @property
    def fell_back(self) -> bool:
        return bool(getattr(self._inner, "fell_back", False))
