"""Ranking candidates by their score cards: a primary key, then tie-breakers.

``rank(cards, ["vq2", "vnli", "clip"])`` sorts by VQ2, breaks VQ2 ties by VNLI, then by CLIP. A
missing score (``None``) ranks below any number. Full ties keep the input order (stable), so the
earlier candidate (lower seed) wins.
"""

from __future__ import annotations

from typing import Sequence

from autoalign.config import Config
from autoalign.types import ScoreCard

RANK_KEYS: tuple[str, ...] = ("overall", "vq2", "vnli", "clip")
DEFAULT_KEYS: list[str] = ["vq2", "vnli", "clip"]


def keys_for(config: Config) -> list[str]:
    """``scoring.primary`` first, then the ``scoring.rerank`` tie-breakers (without repeating it)."""
    primary = config.scoring.primary
    return [primary] + [k for k in config.scoring.rerank if k != primary]


def rank(cards: Sequence[ScoreCard], keys: Sequence[str] | None = None) -> list[int]:
    """Indices of ``cards``, best first, by ``keys`` in order (default vq2, vnli, clip)."""
    keys = list(keys) if keys else DEFAULT_KEYS
    bad = [k for k in keys if k not in RANK_KEYS]
    if bad:
        raise ValueError(f"rank keys must be in {RANK_KEYS} (got {bad})")

    def sort_key(i: int) -> tuple:
        parts = []
        for k in keys:
            v = getattr(cards[i], k)
            parts.append((0, 0.0) if v is None else (1, float(v)))
        return tuple(parts)

    # sorted() is stable: with reverse=True equal keys would still keep input order
    return sorted(range(len(cards)), key=sort_key, reverse=True)
