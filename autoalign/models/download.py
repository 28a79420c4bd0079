"""Fetch every hub model of a preset into the Hugging Face cache (``autoalign models download``).

Only the files the loaders read are fetched (:func:`select_files`): a diffusers pipeline's
``model_index.json`` and its component folders (the preset's ``variant`` where the repo has it,
safetensors before ``.bin``, never the single-file checkpoints many repos also carry at the top), a
transformers model's configs, tokenizer files and safetensors weights, an open_clip model's config
and weights. Downloads go through ``huggingface_hub.snapshot_download``: progress bars, the standard
cache (so later runs find the files offline), and an interrupted download resumes where it stopped.
"""

from __future__ import annotations

import logging
import posixpath
from dataclasses import dataclass
from pathlib import Path

from autoalign.config import Config
from autoalign.models import catalog

logger = logging.getLogger(__name__)

#: Non-weight files every loader may read (configs, tokenizers, chat templates, processors).
SMALL_SUFFIXES = (".json", ".txt", ".model", ".jinja", ".tiktoken", ".py")
WEIGHT_SUFFIXES = (".safetensors", ".bin")


def _pick_weights(files: list[str], variant: str | None) -> list[str]:
    """The weight files of one folder a loader reads: variant > plain, safetensors > bin, with their index."""
    weights = [f for f in files if f.endswith(WEIGHT_SUFFIXES) or f.endswith(".index.json")]

    def is_variant(f: str) -> bool:
        return bool(variant) and f".{variant}." in posixpath.basename(f)

    for fmt in (".safetensors", ".bin"):
        fmt_files = [f for f in weights if f.endswith(fmt) or f.endswith(fmt + ".index.json")]
        if not fmt_files:
            continue
        chosen = [f for f in fmt_files if is_variant(f)] if variant else []
        if not chosen:
            chosen = [f for f in fmt_files if not any(f".{v}." in posixpath.basename(f) for v in ("fp16", "bf16", "fp32"))]
            chosen = chosen or fmt_files
        return chosen
    return []


def select_files(files: list[str], variant: str | None = None) -> list[str]:
    """The files of a repo listing that the loaders read (module docstring), sorted."""
    files = [f for f in files if not f.startswith(".")]
    if "model_index.json" in files:
        folders = sorted({f.split("/", 1)[0] for f in files if "/" in f})
        chosen = ["model_index.json"]
        for folder in folders:
            inside = [f for f in files if f.startswith(folder + "/") and f.count("/") == 1]
            chosen += [f for f in inside if f.endswith(SMALL_SUFFIXES) and not f.endswith(".index.json")]
            chosen += _pick_weights(inside, variant)
        return sorted(set(chosen))
    top = [f for f in files if "/" not in f]
    if "open_clip_config.json" in top:
        weights = [f for f in top if f.startswith("open_clip_")]
        pick = _pick_weights(weights, None)
        return sorted({*(f for f in top if f.endswith(SMALL_SUFFIXES) and not f.endswith(".index.json")), *pick})
    return sorted({*(f for f in top if f.endswith(SMALL_SUFFIXES) and not f.endswith(".index.json")),
                   *_pick_weights(top, variant)})


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


def download_model(role: str, repo: str, variant: str | None) -> Downloaded:
    """Fetch one repo's loader files into the HF cache; errors (gated, missing) are returned, not raised."""
    from huggingface_hub import HfApi, snapshot_download
    from huggingface_hub.errors import GatedRepoError, HfHubHTTPError, RepositoryNotFoundError

    try:
        listing = HfApi().list_repo_files(repo)
        files = select_files(listing, variant)
        path = snapshot_download(repo, allow_patterns=files)
    except GatedRepoError:
        return Downloaded(role, repo, 0, 0, None,
                          "gated: accept its licence on the model page, then `hf auth login` (or set HF_TOKEN)")
    except RepositoryNotFoundError:
        return Downloaded(role, repo, 0, 0, None, "no such repository on the hub (or it is private)")
    except (HfHubHTTPError, OSError) as exc:
        return Downloaded(role, repo, 0, 0, None, f"{type(exc).__name__}: {exc}".splitlines()[0][:300])
    return Downloaded(role, repo, len(files), _folder_bytes(path, files), path)


def download_preset(config: Config) -> list[Downloaded]:
    """Fetch every hub model of the preset, in role order (local and tiny models are skipped)."""
    results = []
    for model in catalog.preset_models(config):
        if model.repo:
            logger.info("downloading %s model %s", model.role, model.repo)
            results.append(download_model(model.role, model.repo, model.variant))
    return results
