"""Benchmark suites, runner, metrics, reports, meta-evaluation and speed benchmarks (``autoalign.benchmarks``)."""
