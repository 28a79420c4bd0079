"""Fetch a preset's hub models into the Hugging Face cache (``autoalign models download``).

Only the files the loaders read are fetched: the plan of :mod:`autoalign.models.hub_files`, run on the
hub's live listing of the repo at the revision the preset pins. Downloads go through
``huggingface_hub.snapshot_download``: progress bars, the standard cache (so later runs find the files
offline), and an interrupted download resumes where it stopped.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

from autoalign.config import Config
from autoalign.models import catalog
from autoalign.models.hub_files import Plan, plan, select_files  # noqa: F401 - the planner, re-exported

logger = logging.getLogger(__name__)


@dataclass
class Downloaded:
    role: str
    repo: str
    files: int
    bytes: int
    path: str | None
    error: str | None = None


def _folder_bytes(path: str, files: list[str]) -> int:
    return sum((Path(path) / f).stat().st_size for f in files if (Path(path) / f).exists())


def live_plan(repo: str, variant: str | None, revision: str | None) -> Plan:
    """The plan from the hub's own listing of ``repo`` at ``revision`` (network)."""
    from huggingface_hub import HfApi, hf_hub_download

    info = HfApi().model_info(repo, revision=revision, files_metadata=True)
    sizes = {s.rfilename: int(s.size or 0) for s in (info.siblings or [])}
    model_index = None
    if "model_index.json" in sizes:
        path = hf_hub_download(repo, "model_index.json", revision=revision)
        model_index = json.loads(Path(path).read_text(encoding="utf-8"))
    return plan(repo, sizes, variant, model_index)


def download_model(role: str, repo: str, variant: str | None, revision: str | None = None) -> Downloaded:
    """Fetch one repo's loader files into the HF cache; errors (gated, missing) are returned, not raised."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError, RevisionNotFoundError

    try:
        p = live_plan(repo, variant, revision)
        logger.info("%s: fetching %d files, %.1f GB (skipping %.1f GB the loaders never read)",
                    repo, len(p.files), p.bytes / 1e9, p.skipped_bytes / 1e9)
        path = snapshot_download(repo, revision=revision, allow_patterns=list(p.files))
    except GatedRepoError:
        return Downloaded(role, repo, 0, 0, None,
                          "gated: accept its licence on the model page, then `hf auth login` (or set HF_TOKEN)")
    except RevisionNotFoundError:
        return Downloaded(role, repo, 0, 0, None, f"revision {revision!r} not found (set [{role}] revision)")
    except RepositoryNotFoundError:
        return Downloaded(role, repo, 0, 0, None, "no such repository on the hub (or it is private)")
    except (HfHubHTTPError, OSError, ValueError) as exc:
        return Downloaded(role, repo, 0, 0, None, f"{type(exc).__name__}: {exc}".splitlines()[0][:300])
    return Downloaded(role, repo, len(p.files), _folder_bytes(path, list(p.files)), path)


def download_preset(config: Config) -> list[Downloaded]:
    """Fetch every hub model of the preset, in role order (local and tiny models are skipped)."""
    results = []
    for model in catalog.preset_models(config):
        if model.repo:
            logger.info("downloading %s model %s", model.role, model.repo)
            results.append(download_model(model.role, model.repo, model.variant, model.revision))
    return results
