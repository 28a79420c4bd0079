"""Merge the triplets of several detectors into one list.

Union of all detectors' mismatches, where triplets from *different* detectors about the same
phrase merge (:func:`~autoalign.detection.phrases.phrases_overlap`: same words ignoring case,
punctuation and articles, one phrase inside the other, or word Jaccard >= 0.5). Two triplets from
the same detector are never merged: they are distinct claims of that detector.

A merged triplet takes aspect, phrase and source order from its most confident member and the
first non-empty correction in confidence order. Its confidence rises with agreement, treating the
members as independent pieces of evidence (noisy-OR)::

    confidence = 1 - prod_i (1 - c_i)

e.g. 0.6 and 0.5 -> 0.8. ``source`` joins the member sources with ``+`` ("text+vlm"), and
``evidence["merged"] = [{source, aspect, phrase, correction, confidence, evidence}, ...]`` lists
every member; the members' own evidence keys are also kept at the top level (the most confident
member's win), so hints such as ``noun`` or ``kind`` still reach the instruction writer. An unmerged triplet is returned unchanged.
"""

from __future__ import annotations

import math
from typing import Iterable

from autoalign.detection.phrases import phrases_overlap
from autoalign.types import Mismatch


def noisy_or(confidences: Iterable[float]) -> float:
    """1 - prod(1 - c): the chance that at least one of independent detectors is right."""
    return 1.0 - math.prod(1.0 - min(1.0, max(0.0, float(c))) for c in confidences)


def merge(per_detector: Iterable[list[Mismatch]], max_mismatches: int | None = None) -> list[Mismatch]:
    """Merge detectors' lists (module docstring); best first, at most ``max_mismatches``."""
    everything = [m for found in per_detector for m in found]
    everything.sort(key=lambda m: -m.confidence)  # stable: detector order breaks ties
    clusters: list[list[Mismatch]] = []
    for m in everything:
        for cluster in clusters:
            if m.source not in {c.source for c in cluster} and phrases_overlap(cluster[0].phrase, m.phrase):
                cluster.append(m)
                break
        else:
            clusters.append([m])
    merged = [_combine(cluster) for cluster in clusters]
    merged.sort(key=lambda m: -m.confidence)
    return merged if max_mismatches is None else merged[: max(0, max_mismatches)]


def _combine(cluster: list[Mismatch]) -> Mismatch:
    if len(cluster) == 1:
        return cluster[0]
    head = cluster[0]
    correction = next((m.correction for m in cluster if m.correction.strip()), "")
    evidence: dict = {}
    for m in reversed(cluster):  # the most confident member's keys win
        evidence.update(m.evidence)
    return Mismatch(
        aspect=head.aspect,
        phrase=head.phrase,
        correction=correction,
        confidence=round(noisy_or(m.confidence for m in cluster), 6),
        source="+".join(m.source for m in cluster),
        evidence={
            **evidence,
            "merged": [
                {
                    "source": m.source,
                    "aspect": m.aspect,
                    "phrase": m.phrase,
                    "correction": m.correction,
                    "confidence": m.confidence,
                    "evidence": m.evidence,
                }
                for m in cluster
            ]
        },
    )
