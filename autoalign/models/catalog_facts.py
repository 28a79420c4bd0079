"""The facts of ``catalog.toml`` (parameters, download size, licence per hub repo), read once.

A leaf module: :mod:`autoalign.models.catalog` builds on it, and :mod:`autoalign.models.loading`
uses :func:`size_note` in its missing-model message without importing the catalog (no import circle).
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any


@lru_cache(maxsize=1)
def entries() -> dict[str, dict[str, Any]]:
    """The catalog: hub repo id -> facts."""
    text = resources.files("autoalign.models").joinpath("catalog.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def entry(repo_id: str | None) -> dict[str, Any] | None:
    return entries().get(repo_id or "")


def size_note(repo_id: str) -> str:
    """`` (about 4.4 GB)`` when the download size is known, else ``""``."""
    info = entry(repo_id)
    return f" (about {info['download_gb']:g} GB)" if info and "download_gb" in info else ""
