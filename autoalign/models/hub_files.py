"""Which files of a hub repo the loaders read (the download planner), and the catalog's listings of the presets' repos.

:func:`select_files` plans a download the way the libraries themselves read a repo:

* a diffusers pipeline (``model_index.json``): only the component folders that ``model_index.json``
  names (SD 3.5's ``text_encoders/`` single files and every top-level single-file checkpoint stay
  behind); in a model folder the weights diffusers' variant rule picks - the ``variant`` files where
  the folder has them, else the *non-variant* weights, whose name is exactly a weight name
  (``diffusion_pytorch_model``, ``model``, ``pytorch_model``) with an optional ``-0000N-of-0000M``
  shard number, so ``diffusion_pytorch_model.non_ema.safetensors`` is no weight of the pipeline -
  safetensors over ``.bin`` when every model folder has safetensors, plus each folder's
  ``config.json``; every file of the other named folders (scheduler, tokenizer, processor);
* a transformers model (``config.json``): its configs, tokenizer, processor and chat-template files
  and its weights (safetensors over ``.bin``; the non-variant shards and their index);
* an open_clip model (``open_clip_config.json``): its config, tokenizer files and one weights file.

The rule follows diffusers' ``DiffusionPipeline.download`` (0.42: ``_get_custom_components_and_folders``,
``variant_compatible_siblings``, ``_get_ignore_patterns``), restated here, not imported, because
those are private helpers. :func:`plan` sizes the same selection from a listing with sizes: the
listings in ``hub_files.json`` (:func:`listing`) for ``models list`` and the catalog's download sizes,
the hub's live listing for ``models download`` (:mod:`autoalign.models.download`).

A leaf module: it imports nothing of the project.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

#: Non-weight files a transformers / open_clip loader may read (configs, tokenizers, chat templates, processors).
SMALL_SUFFIXES = (".json", ".txt", ".model", ".jinja", ".tiktoken")
#: The weight file names diffusers and transformers load (``name[-0000N-of-0000M][.variant].ext``).
WEIGHT_NAMES = ("diffusion_pytorch_model", "pytorch_model", "model")
WEIGHT_EXTS = ("safetensors", "bin")
_SHARD = r"\d{5}-of-\d{5}"
_NON_VARIANT = re.compile(rf"^({'|'.join(WEIGHT_NAMES)})(-{_SHARD})?\.({'|'.join(WEIGHT_EXTS)})$")
_NON_VARIANT_INDEX = re.compile(rf"^({'|'.join(WEIGHT_NAMES)})\.({'|'.join(WEIGHT_EXTS)})\.index\.json$")
#: Top-level files diffusers also fetches for a pipeline (scheduler/pipeline configs, transformers aux files).
PIPELINE_TOP_FILES = ("model_index.json", "scheduler_config.json", "config.json", "pipeline.py", "chat_template.jinja",
                      "generation_config.json", "preprocessor_config.json", "processor_config.json", "tokenizer.json",
                      "tokenizer_config.json")


def _variant_res(variant: str) -> tuple[re.Pattern, re.Pattern]:
    v = re.escape(variant)
    names, exts = "|".join(WEIGHT_NAMES), "|".join(WEIGHT_EXTS)
    weights = re.compile(rf"^({names})\.({v}|{v}-{_SHARD})\.({exts})$|^.*-{_SHARD}\.{v}\.({exts})$")
    index = re.compile(rf"^({names})\.({exts})\.index\.{v}\.json$|^({names})\.({exts})\.{v}\.index\.json$")
    return weights, index


def _is_weight(name: str) -> bool:
    return name.endswith(tuple("." + e for e in WEIGHT_EXTS))


def _folder_weights(files: list[str], variant: str | None, ext: str) -> list[str]:
    """The weights (with index) of one folder in format ``ext``: the variant's where present, else the non-variant ones."""
    names = {f: posixpath.basename(f) for f in files}
    of_ext = [f for f, n in names.items() if n.endswith("." + ext) or (n.endswith(".json") and f".{ext}." in n)]
    if variant:
        weights_re, index_re = _variant_res(variant)
        chosen = [f for f in of_ext if weights_re.match(names[f]) or index_re.match(names[f])]
        if any(_is_weight(names[f]) for f in chosen):
            return chosen
    return [f for f in of_ext if _NON_VARIANT.match(names[f]) or _NON_VARIANT_INDEX.match(names[f])]


def _pick_format(folders: dict[str, list[str]], variant: str | None) -> str:
    """safetensors when every folder with weights has them (diffusers' and transformers' preference), else bin."""
    with_weights = [fs for fs in folders.values() if any(_is_weight(posixpath.basename(f)) for f in fs)]
    if all(any(_is_weight(posixpath.basename(f)) for f in _folder_weights(fs, variant, "safetensors")) for fs in with_weights):
        return "safetensors"
    return "bin"


def pipeline_folders(model_index: dict[str, Any]) -> list[str]:
    """The component folders ``model_index.json`` names (every key whose value is a ``[library, class]`` list)."""
    return sorted(k for k, v in model_index.items() if isinstance(v, list) and k != "_class_name")


def select_files(files: list[str], variant: str | None = None, model_index: dict[str, Any] | None = None) -> list[str]:
    """The files of a repo listing that the loaders read (module docstring), sorted.

    A diffusers repo needs its ``model_index.json`` contents (``model_index``) to know its components.
    """
    files = [f for f in files if not posixpath.basename(f).startswith(".")]
    if "model_index.json" in files:
        if model_index is None:
            raise ValueError("a diffusers repo's file selection needs its model_index.json contents")
        return _select_pipeline(files, variant, model_index)
    top = [f for f in files if "/" not in f]
    small = [f for f in top if f.endswith(SMALL_SUFFIXES) and not _NON_VARIANT_INDEX.match(f) and ".index." not in f]
    if "open_clip_config.json" in top:
        weights = [f for f in top if f.startswith("open_clip_") and _is_weight(f)]
        safe = [f for f in weights if f.endswith(".safetensors")]
        return sorted({*small, *(safe or weights)[:1]})
    fmt = _pick_format({"": top}, variant)
    return sorted({*small, *_folder_weights(top, variant, fmt)})


def _select_pipeline(files: list[str], variant: str | None, model_index: dict[str, Any]) -> list[str]:
    named = pipeline_folders(model_index)
    by_folder: dict[str, list[str]] = {}
    for f in files:
        if f.count("/") == 1:
            by_folder.setdefault(f.split("/", 1)[0], []).append(f)
    model_folders = {k: fs for k, fs in by_folder.items() if k in named and any(_is_weight(posixpath.basename(f)) for f in fs)}
    fmt = _pick_format(model_folders, variant)
    chosen = [f for f in files if "/" not in f and f in PIPELINE_TOP_FILES]
    for folder in named:
        inside = by_folder.get(folder, [])
        if folder in model_folders:
            chosen += [f for f in inside if posixpath.basename(f) == "config.json"]
            chosen += _folder_weights(inside, variant, fmt)
        else:
            chosen += [f for f in inside if not _is_weight(posixpath.basename(f))]
    return sorted(set(chosen))


@dataclass(frozen=True)
class Plan:
    """What a download of one repo fetches: the selected files and their total size (bytes)."""

    repo: str
    files: tuple[str, ...]
    bytes: int
    skipped_bytes: int  # what a whole-repo download would fetch on top


def plan(repo: str, sizes: dict[str, int], variant: str | None, model_index: dict[str, Any] | None) -> Plan:
    chosen = select_files(list(sizes), variant, model_index)
    total = sum(sizes.get(f, 0) for f in chosen)
    return Plan(repo, tuple(chosen), total, sum(sizes.values()) - total)


def catalog_plan(repo: str, variant: str | None) -> Plan | None:
    """The plan for ``repo`` from the catalog's listing (None when the catalog has no listing of it)."""
    known = listing(repo)
    if known is None:
        return None
    return plan(repo, known["files"], variant, known.get("model_index"))


def include_patterns(repo: str, variant: str | None) -> list[str]:
    """``hf download --include`` patterns for ``repo``: ``FOLDER/*`` where every file of a folder is needed,
    else the files themselves (from the catalog's listing; empty when it has none)."""
    p = catalog_plan(repo, variant)
    if p is None:
        return []
    listed = list((listing(repo) or {}).get("files", {}))
    out: list[str] = []
    for f in p.files:
        folder = f.split("/", 1)[0] if "/" in f else None
        whole = folder is not None and all(g in p.files for g in listed if g.startswith(folder + "/"))
        pattern = f"{folder}/*" if whole else f
        if pattern not in out:
            out.append(pattern)
    return out




@lru_cache(maxsize=1)
def listings() -> dict[str, dict[str, Any]]:
    """repo id -> {"files": {path: bytes}, "model_index": {...}} (``hub_files.json``; see its ``about``)."""
    text = resources.files("autoalign.models").joinpath("hub_files.json").read_text(encoding="utf-8")
    return json.loads(text)["repos"]


def listing(repo: str | None) -> dict[str, Any] | None:
    return listings().get(repo or "")
