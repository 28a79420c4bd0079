"""Edit instructions and the loop policy.

* :func:`make_writer` — the run's instruction writer ("template" offline, or "llm" through an
  OpenAI-compatible server, falling back to templates on any failure)::

      writer = make_writer(models, config)
      instructions = writer.write(prompt, mismatches, tried=[...])

* :mod:`autoalign.editing.policy` — pure decisions: accept an edit, what to fix next, when to stop.
"""

from __future__ import annotations

from typing import Any


def make_writer(models: Any, config: Any, name: str | None = None) -> Any:
    """The instruction writer named ``name`` (default ``config.writer``), built for this run.

    How several mismatches are handled follows ``config.loop.multi_mismatch``: "sequential" gives
    one instruction per mismatch (most confident first), "combined" one instruction for all.
    An unknown name raises an error listing the registered writers.
    """
    from autoalign import registry

    cls = registry.get("writer", name or config.writer)
    return cls(models, config)


__all__ = ["make_writer"]
