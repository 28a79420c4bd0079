"""Benchmark metrics with uncertainty: every figure carries n, a 95 % bootstrap CI and its direction.

* :func:`mean_metric` — mean with a percentile bootstrap CI (numpy, fixed seed: reproducible).
* :func:`paired_gain` — mean of ``after - before`` over the same prompts, its CI, and two paired
  tests: Wilcoxon signed-rank (scipy) and an exact/Monte-Carlo sign-flip permutation test.
  n < 2 or all-zero differences give ``p = None`` with a note instead of an exception.
* :func:`compute_metrics` — everything ``bench run``/``audit`` report, from ``results.jsonl`` records:
  mean VQ2/VNLI/CLIP per stage (baseline, reranked, corrected), overall and per category; gains
  reranked − baseline and corrected − baseline; hallucination rates (share of images with ≥ 1 detected
  mismatch, and with VQ2 below the threshold) overall, per category and per aspect class; rounds,
  edits accepted/rejected, stop reasons, wall time and model calls per prompt.
* :func:`compare_records` — paired differences between two benchmark runs on shared (id, seed).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Sequence

import numpy as np

from autoalign.benchmarks.records import BenchRecord, StageResult
from autoalign.stats import wilson_interval
from autoalign.types import ASPECTS

STAGES: tuple[str, ...] = ("baseline", "reranked", "corrected")
SCORE_KEYS: tuple[str, ...] = ("vq2", "vnli", "clip", "overall")
CONFIDENCE = 0.95
N_BOOT = 2000
SEED = 0
EXACT_PERMUTATION_MAX_N = 16  # 2**16 sign patterns; above this, Monte-Carlo


@dataclass
class Metric:
    """One reported figure: value, n, 95 % CI and which direction is good."""

    name: str
    value: float | None
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    higher_is_better: bool | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The one JSON form of a figure (``summary.json``, ``oracle.json``, ``world eval --json``)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Metric":
        """A figure from its JSON form; also reads ``{"value", "n", "ci": [low, high]}``, the form
        ``world eval`` wrote before there was one form."""
        low, high = data.get("ci") or (data.get("ci_low"), data.get("ci_high"))
        return cls(name=str(data.get("name", "")), value=data.get("value"), n=int(data.get("n", 0)), ci_low=low,
                   ci_high=high, higher_is_better=data.get("higher_is_better"), extra=dict(data.get("extra") or {}))

    def fmt(self, digits: int = 3) -> str:
        """``0.512 [0.471, 0.553] (n=200)``; ``n/a (n=0)`` when there is no value."""
        if self.value is None:
            return f"n/a (n={self.n})"
        if self.ci_low is None:
            return f"{self.value:.{digits}f} (n={self.n})"
        return f"{self.value:.{digits}f} [{self.ci_low:.{digits}f}, {self.ci_high:.{digits}f}] (n={self.n})"


# --------------------------------------------------------------------------- primitives


def _clean(values: Iterable[Any]) -> np.ndarray:
    arr = np.asarray([float(v) for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))],
                     dtype=float)
    return arr


def bootstrap_ci(
    values: Sequence[float], *, n_boot: int = N_BOOT, seed: int = SEED, confidence: float = CONFIDENCE
) -> tuple[float | None, float | None]:
    """Percentile bootstrap CI of the mean. n = 0 -> (None, None); n = 1 -> (v, v)."""
    arr = _clean(values)
    if arr.size == 0:
        return None, None
    if arr.size == 1:
        return float(arr[0]), float(arr[0])
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, arr.size, size=(n_boot, arr.size))
    means = arr[idx].mean(axis=1)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def mean_metric(name: str, values: Iterable[Any], higher_is_better: bool | None = True, **extra: Any) -> Metric:
    """Mean of the non-missing values with its bootstrap CI."""
    arr = _clean(values)
    if arr.size == 0:
        return Metric(name, None, 0, None, None, higher_is_better, dict(extra))
    lo, hi = bootstrap_ci(arr)
    return Metric(name, float(arr.mean()), int(arr.size), lo, hi, higher_is_better, dict(extra))


def rate_metric(name: str, flags: Iterable[Any], higher_is_better: bool | None = False, **extra: Any) -> Metric:
    """Share of True among the flags (None skipped), with its bootstrap CI."""
    return mean_metric(name, [None if f is None else float(bool(f)) for f in flags], higher_is_better, **extra)


def wilcoxon_test(diffs: Sequence[float]) -> dict[str, Any]:
    """Two-sided Wilcoxon signed-rank test on paired differences; never raises on degenerate input."""
    arr = _clean(diffs)
    if arr.size < 2:
        return {"p": None, "statistic": None, "note": f"needs n >= 2 paired values (n={arr.size})"}
    if np.all(arr == 0):
        return {"p": None, "statistic": None, "note": "all differences are zero"}
    from scipy.stats import wilcoxon

    res = wilcoxon(arr, zero_method="wilcox", alternative="two-sided")
    return {"p": float(res.pvalue), "statistic": float(res.statistic), "note": ""}


def permutation_test(diffs: Sequence[float], *, n_perm: int = 10000, seed: int = SEED) -> dict[str, Any]:
    """Two-sided paired sign-flip permutation test of mean(diffs) = 0.

    Exact over all 2^n sign patterns for n <= 16, else ``n_perm`` random patterns (p includes the
    observed pattern: (k + 1) / (n_perm + 1)).
    """
    arr = _clean(diffs)
    if arr.size < 2:
        return {"p": None, "note": f"needs n >= 2 paired values (n={arr.size})", "exact": None}
    if np.all(arr == 0):
        return {"p": None, "note": "all differences are zero", "exact": None}
    observed = abs(arr.mean())
    tol = 1e-12 * max(1.0, observed)
    if arr.size <= EXACT_PERMUTATION_MAX_N:
        signs = np.array(list(itertools.product((1.0, -1.0), repeat=arr.size)))
        means = np.abs((signs * arr).mean(axis=1))
        return {"p": float(np.mean(means >= observed - tol)), "note": "", "exact": True}
    rng = np.random.default_rng(seed)
    signs = rng.choice((1.0, -1.0), size=(n_perm, arr.size))
    means = np.abs((signs * arr).mean(axis=1))
    k = int(np.sum(means >= observed - tol))
    return {"p": (k + 1) / (n_perm + 1), "note": "", "exact": False}


def wilson(k: int, n: int, z: float = 1.96) -> dict[str, Any]:
    """The share ``k / n`` with its 95 % Wilson interval (:func:`autoalign.stats.wilson_interval`), as a
    :class:`Metric`'s JSON form: what every benchmark imports to report a share."""
    if n == 0:
        return Metric("share", None, 0).to_dict()
    lo, hi = wilson_interval(k, n, z)
    return Metric("share", k / n, n, lo, hi).to_dict()


def paired_gain(name: str, before: Sequence[Any], after: Sequence[Any], higher_is_better: bool = True) -> Metric:
    """Mean paired difference ``after - before`` (pairs with a missing side are dropped), CI and tests."""
    if len(before) != len(after):
        raise ValueError(f"paired_gain needs equal-length sequences (got {len(before)} and {len(after)})")
    diffs = [float(a) - float(b) for b, a in zip(before, after) if a is not None and b is not None]
    metric = mean_metric(name, diffs, higher_is_better)
    metric.extra = {
        "wilcoxon": wilcoxon_test(diffs),
        "permutation": permutation_test(diffs),
        "n_improved": int(sum(d > 0 for d in diffs)),
        "n_worse": int(sum(d < 0 for d in diffs)),
        "n_tied": int(sum(d == 0 for d in diffs)),
    }
    return metric


# --------------------------------------------------------------------------- from records


def ok_records(records: Iterable[BenchRecord]) -> list[BenchRecord]:
    return [r for r in records if r.ok]


def _stage(record: BenchRecord, stage: str) -> StageResult | None:
    return record.stage(stage)


def stages_present(records: Sequence[BenchRecord]) -> list[str]:
    return [s for s in STAGES if any(_stage(r, s) is not None for r in records)]


def _score(record: BenchRecord, stage: str, key: str) -> float | None:
    st = _stage(record, stage)
    return None if st is None else st.score(key)


def _has_mismatch(record: BenchRecord, stage: str, aspect: str | None = None) -> bool | None:
    st = _stage(record, stage)
    return None if st is None else st.has_mismatch(aspect)


def _vq2_below(record: BenchRecord, stage: str, threshold: float | None) -> bool | None:
    st = _stage(record, stage)
    if st is None:
        return None
    if threshold is not None:
        return None if st.vq2 is None else float(st.vq2) < threshold
    return None if st.vq2_below_threshold is None else bool(st.vq2_below_threshold)


def score_table(records: Sequence[BenchRecord], stages: Sequence[str]) -> dict[str, dict[str, Metric]]:
    """{stage: {key: mean Metric}} for VQ2, VNLI, CLIP and the overall score."""
    return {
        stage: {key: mean_metric(f"{key}.{stage}", [_score(r, stage, key) for r in records]) for key in SCORE_KEYS}
        for stage in stages
    }


def gain_table(records: Sequence[BenchRecord], stages: Sequence[str]) -> dict[str, dict[str, Metric]]:
    """{"reranked-baseline"/"corrected-baseline"/"corrected-reranked": {key: paired gain Metric}}."""
    pairs = [("baseline", "reranked"), ("baseline", "corrected"), ("reranked", "corrected")]
    out: dict[str, dict[str, Metric]] = {}
    for before, after in pairs:
        if before not in stages or after not in stages:
            continue
        label = f"{after}-{before}"
        out[label] = {
            key: paired_gain(
                f"gain.{key}.{label}",
                [_score(r, before, key) for r in records],
                [_score(r, after, key) for r in records],
            )
            for key in SCORE_KEYS
        }
    return out


def hallucination_table(
    records: Sequence[BenchRecord], stages: Sequence[str], threshold: float | None
) -> dict[str, dict[str, Metric]]:
    """{stage: {"any_mismatch": rate, "vq2_below_threshold": rate, "aspect:ENTITY": rate, ...}}; lower is better."""
    out: dict[str, dict[str, Metric]] = {}
    for stage in stages:
        row = {
            "any_mismatch": rate_metric(f"hallucination.any_mismatch.{stage}", [_has_mismatch(r, stage) for r in records]),
            "vq2_below_threshold": rate_metric(
                f"hallucination.vq2_below_threshold.{stage}", [_vq2_below(r, stage, threshold) for r in records],
                threshold=threshold,
            ),
        }
        for aspect in ASPECTS:
            row[f"aspect:{aspect}"] = rate_metric(
                f"hallucination.aspect.{aspect}.{stage}", [_has_mismatch(r, stage, aspect) for r in records]
            )
        out[stage] = row
    return out


def process_table(records: Sequence[BenchRecord]) -> dict[str, Any]:
    """Per-prompt process figures: rounds, edits, wall time, model calls; stop-reason counts."""

    def total_calls(r: BenchRecord) -> float:
        return float(sum(v for v in (r.model_calls or {}).values() if isinstance(v, (int, float))))

    return {
        "rounds": mean_metric("rounds_per_prompt", [r.rounds for r in records], higher_is_better=None),
        "edits_accepted": mean_metric("edits_accepted_per_prompt", [r.edits_accepted for r in records], None),
        "edits_rejected": mean_metric("edits_rejected_per_prompt", [r.edits_rejected for r in records], None),
        "wall_time_s": mean_metric("wall_time_s_per_prompt", [r.wall_time_s for r in records], False),
        "model_calls": mean_metric("model_calls_per_prompt", [total_calls(r) for r in records], False),
        "stop_reasons": dict(Counter(str(r.stop_reason or "none") for r in records).most_common()),
    }


def categories_of(records: Sequence[BenchRecord]) -> list[str]:
    return list(dict.fromkeys(r.category_or_default() for r in records))


def compute_metrics(records: Sequence[BenchRecord], threshold: float | None = None) -> dict[str, Any]:
    """All benchmark metrics from result records (only ``status == "ok"`` records enter the figures)."""
    all_records = list(records)
    ok = ok_records(all_records)
    stages = stages_present(ok)
    by_cat: dict[str, list[BenchRecord]] = {}
    for r in ok:
        by_cat.setdefault(r.category_or_default(), []).append(r)
    return {
        "n_records": len(all_records),
        "n_ok": len(ok),
        "n_errors": len(all_records) - len(ok),
        "errors": [{"id": r.id, "seed": r.seed, "error": r.error} for r in all_records if not r.ok],
        "n_prompts": len({r.id for r in ok}),
        "stages": stages,
        "threshold": threshold,
        "scores": score_table(ok, stages),
        "gains": gain_table(ok, stages),
        "hallucination": hallucination_table(ok, stages, threshold),
        "per_category": {
            cat: {
                "n": len(recs),
                "scores": score_table(recs, stages),
                "gains": gain_table(recs, stages),
                "hallucination": hallucination_table(recs, stages, threshold),
            }
            for cat, recs in by_cat.items()
        },
        "process": process_table(ok),
    }


def compare_records(
    records_a: Sequence[BenchRecord], records_b: Sequence[BenchRecord]
) -> dict[str, Any]:
    """Paired differences B − A on the (id, seed) both runs finished, per stage and score key."""
    a = {(r.id, r.seed): r for r in ok_records(records_a)}
    b = {(r.id, r.seed): r for r in ok_records(records_b)}
    shared = [k for k in a if k in b]
    stages = [s for s in stages_present([a[k] for k in shared]) if s in stages_present([b[k] for k in shared])]
    diffs: dict[str, dict[str, Metric]] = {}
    for stage in stages:
        diffs[stage] = {
            key: paired_gain(
                f"diff.{key}.{stage}",
                [_score(a[k], stage, key) for k in shared],
                [_score(b[k], stage, key) for k in shared],
            )
            for key in SCORE_KEYS
        }
        diffs[stage]["hallucination.any_mismatch"] = paired_gain(
            f"diff.hallucination.any_mismatch.{stage}",
            [None if _has_mismatch(a[k], stage) is None else float(_has_mismatch(a[k], stage)) for k in shared],
            [None if _has_mismatch(b[k], stage) is None else float(_has_mismatch(b[k], stage)) for k in shared],
            higher_is_better=False,
        )
    return {
        "n_shared": len(shared),
        "n_only_a": len(set(a) - set(b)),
        "n_only_b": len(set(b) - set(a)),
        "stages": stages,
        "diffs": diffs,
    }


def to_jsonable(obj: Any) -> Any:
    """Metrics (nested dicts of :class:`Metric`) as plain JSON data."""
    if isinstance(obj, Metric):
        return obj.to_dict()
    if isinstance(obj, dict):
        return {k: to_jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def directions(obj: Any, out: dict[str, bool | None] | None = None) -> dict[str, bool | None]:
    """{metric name pattern: higher_is_better} for every Metric in a nested structure (stage-agnostic)."""
    out = {} if out is None else out
    if isinstance(obj, Metric):
        out[obj.name] = obj.higher_is_better
    elif isinstance(obj, dict):
        for v in obj.values():
            directions(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            directions(v, out)
    return out
