"""The facts of ``catalog.toml`` (parameters, licence, variant, pinned revision per hub repo), read once,
and each repo's download size, computed by the download planner from its listing
(:mod:`autoalign.models.hub_files`), the same planner ``autoalign models download`` runs.

A leaf module (it imports only the leaf :mod:`~autoalign.models.hub_files`):
:mod:`autoalign.models.catalog` builds on it, and :mod:`autoalign.models.loading` uses
:func:`size_note` in its missing-model message without importing the catalog (no import circle).
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from typing import Any

from autoalign.models import hub_files


@lru_cache(maxsize=1)
def entries() -> dict[str, dict[str, Any]]:
    """The catalog: hub repo id -> facts."""
    text = resources.files("autoalign.models").joinpath("catalog.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def entry(repo_id: str | None) -> dict[str, Any] | None:
    return entries().get(repo_id or "")


def download_gb(repo_id: str | None, variant: str | None = None) -> float | None:
    """GB (10^9 bytes) a download of ``repo_id`` fetches in ``variant`` (default: the catalog's), one decimal;
    None when no listing of the repo is known."""
    if variant is None:
        variant = (entry(repo_id) or {}).get("variant")
    plan = hub_files.catalog_plan(repo_id or "", variant)
    return None if plan is None else round(plan.bytes / 1e9, 1)


def pinned_revision(repo_id: str | None) -> str | None:
    """The hub commit the catalog pins ``repo_id`` at (None: the repo's main branch)."""
    value = (entry(repo_id) or {}).get("revision")
    return str(value) if value else None


def size_note(repo_id: str, variant: str | None = None) -> str:
    """`` (about 4.4 GB)`` when the download size is known, else ``""``."""
    size = download_gb(repo_id, variant)
    return f" (about {size:g} GB)" if size else ""
