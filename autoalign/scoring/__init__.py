"""Alignment scores of an image against its prompt (SeeTRUE): questions, VQ2, VNLI, CLIPScore.

* :mod:`~autoalign.scoring.questions` writes the atomic questions (spaCy VQ2-style or LLM DSG-style).
* :mod:`~autoalign.scoring.vq2`, :mod:`~autoalign.scoring.vnli`, :mod:`~autoalign.scoring.clipscore`
  turn model outputs into scores.
* :class:`~autoalign.scoring.scorer.Scorer` scores a batch of images; :func:`~autoalign.scoring.rerank.rank`
  orders the score cards.
"""
