"""Intervals for shares, one home for them: ``wilson_interval(3, 10)`` is the 95 % Wilson score interval of
3 successes in 10 (no continuity correction, ``z = 1.96``).

Core, so that everything that reports a share can use it: the benchmarks (``autoalign.benchmarks.metrics.wilson``
wraps it in a :class:`Metric`'s JSON form), ``scripts/make_results.py`` and ``scripts/gpu_check.py``.
"""

from __future__ import annotations

import math


def wilson_interval(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` trials (95 % with the default ``z``), clipped to
    [0, 1]; with no trials (``n == 0``) nothing is known and the interval is the whole of [0, 1]."""
    if n < 0 or not 0 <= k <= max(n, 0):
        raise ValueError(f"a share needs 0 <= k <= n (got k={k}, n={n})")
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)
