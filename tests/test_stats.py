"""One home for Wilson intervals (``autoalign.stats.wilson_interval``): checked against scipy, used by the benchmarks'
``metrics.wilson`` and by the scripts, and defined nowhere else."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from scipy.stats import binomtest, norm

from autoalign.benchmarks.metrics import wilson
from autoalign.stats import wilson_interval

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("k,n", [(0, 1), (3, 10), (10, 10), (20, 120), (743, 1000)])
def test_wilson_interval_agrees_with_scipy(k, n):
    lo, hi = wilson_interval(k, n, z=norm.ppf(0.975))
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert (lo, hi) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_no_trials_and_bad_counts():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for k, n in ((4, 3), (-1, 3), (0, -1)):
        with pytest.raises(ValueError, match="0 <= k <= n"):
            wilson_interval(k, n)


def test_the_benchmarks_share_is_the_same_interval():
    m = wilson(3, 10)
    assert (m["value"], m["n"]) == (0.3, 10) and (m["ci_low"], m["ci_high"]) == wilson_interval(3, 10)


def test_wilson_is_defined_once_and_imported_from_its_home():
    """Only the interval (autoalign/stats.py) and its Metric form (benchmarks/metrics.py) are defined; every
    import of either names its home (no re-export through world_eval, no copy in scripts/)."""
    defined, imported = [], []
    homes = {"wilson_interval": "autoalign.stats", "wilson": "autoalign.benchmarks.metrics"}
    for folder in ("autoalign", "agents", "ui", "benchmarks", "experiments", "scripts", "tests"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and "wilson" in node.name.lower()
                        and not node.name.startswith("test_")):
                    defined.append((rel, node.name))
                if isinstance(node, ast.ImportFrom):
                    imported += [(rel, node.module, a.name) for a in node.names if a.name in homes]
    assert sorted(defined) == [("autoalign/stats.py", "wilson_interval"), ("benchmarks/metrics.py", "wilson")]
    assert imported and all(module == homes[name] for _, module, name in imported), imported
