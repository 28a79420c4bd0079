"""AutoAlign: make text-to-image models draw what the prompt says.

Core library: types, config/presets, model loading, scoring, detection, editing, CLI.
``autoalign.agents`` (the LangGraph loop), ``autoalign.benchmarks`` and ``autoalign.ui`` build on it.

The public Python API (:mod:`autoalign.api`), loaded on first use so ``import autoalign`` stays cheap::

    import autoalign
    result = autoalign.align("two red apples on a blue plate", preset="tiny")   # a RunResult
    cards = autoalign.score(["a.png"], "a red car")                              # list[ScoreCard]
    found = autoalign.detect("a.png", "a red car")                               # list[Mismatch]
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

# name -> the module that defines it (imported on first access, PEP 562)
_LAZY = {
    "align": "autoalign.api",
    "score": "autoalign.api",
    "detect": "autoalign.api",
    "RunResult": "autoalign.types",
    "Round": "autoalign.types",
    "StreamUpdate": "autoalign.types",
    "ScoreCard": "autoalign.types",
    "Mismatch": "autoalign.types",
}
__all__ = ["__version__", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'autoalign' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
