"""Where weights come from: a hub id, a local directory, or ``tiny:NAME``; and which device/dtype.

``tiny:NAME`` resolves to ``$AUTOALIGN_HOME/tiny/NAME`` (default ``~/.cache/autoalign/tiny``) and
the tiny models are built there in code on first use (:mod:`autoalign.models.tiny`).

A hub id is handed to the libraries as it is whenever the hub can be reached: diffusers,
transformers and open_clip then manage the Hugging Face cache themselves (they fetch what is
missing, resume an interrupted download, pick a ``variant``). Only offline (``HF_HUB_OFFLINE=1``, or
the hub's endpoint not answering through huggingface_hub's own HTTP session, which honours
``HTTPS_PROXY`` and ``HF_ENDPOINT``) is a cached snapshot used, and only after checking that it is
complete (:func:`snapshot_problems`): a snapshot left by an interrupted download holding only
``config.json`` is reported as incomplete, not loaded. When a model cannot be had,
:class:`ModelNotAvailable` says which one, how large it is, and how to get it (``hf download`` or
``autoalign models download``), instead of a long retry loop and a stack trace.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from autoalign.errors import AutoAlignError

logger = logging.getLogger(__name__)

TINY_PREFIX = "tiny:"
#: ``world:NAME`` names a model the project trained on the shapes world, shipped in the package.
WORLD_PREFIX = "world:"
#: Weight files the libraries load (safetensors first; ``.bin`` where a repo has nothing else).
WEIGHT_SUFFIXES = (".safetensors", ".bin")
#: Seconds a hub reachability answer is reused (one check per run, not one per model).
REACHABILITY_TTL = 60.0


class ModelNotAvailable(AutoAlignError, RuntimeError):
    """A model's weights are neither local nor downloadable; the message says how to provide them."""


def autoalign_home() -> Path:
    return Path(os.environ.get("AUTOALIGN_HOME", Path.home() / ".cache" / "autoalign"))


def tiny_dir() -> Path:
    return autoalign_home() / "tiny"


def world_model_dir(name: str, role: str) -> Path:
    """The directory of a trained shapes-world model (``autoalign/world/weights/NAME``)."""
    weights = Path(__file__).resolve().parent.parent / "world" / "weights"
    path = weights / name
    if not name or "/" in name or "\\" in name or name.startswith(".") or not (path / "MODEL_CARD.json").is_file():
        known = sorted(p.name for p in weights.iterdir() if (p / "MODEL_CARD.json").is_file()) if weights.is_dir() else []
        raise ModelNotAvailable(
            f"the {role} model world:{name} is not in {weights}; world models: {', '.join(known) or '(none)'}; "
            "train them with `autoalign world train`"
        )
    return path


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


def hub_offline() -> bool:
    """huggingface_hub's offline flag (``HF_HUB_OFFLINE``, read at its import) or the variable now."""
    from huggingface_hub import constants

    return bool(constants.HF_HUB_OFFLINE) or _truthy(os.environ.get("HF_HUB_OFFLINE"))


_reach_lock = threading.Lock()
_reach_cache: dict[str, tuple[float, bool]] = {}


def hub_reachable(timeout: float = 5.0) -> bool:
    """Whether the hub endpoint answers, asked through huggingface_hub's own HTTP session.

    That session is the one every download uses, so proxies (``HTTPS_PROXY``/``HTTP_PROXY``),
    ``HF_ENDPOINT`` and the offline flag apply exactly as they will to the download. Any HTTP answer
    counts as reachable; a connection error, a timeout or offline mode does not. Answers are reused
    for :data:`REACHABILITY_TTL` seconds.
    """
    if hub_offline():
        return False
    from huggingface_hub import constants
    from huggingface_hub.utils import get_session

    endpoint = constants.ENDPOINT
    with _reach_lock:
        cached = _reach_cache.get(endpoint)
        if cached and time.monotonic() - cached[0] < REACHABILITY_TTL:
            return cached[1]
    try:
        get_session().head(endpoint, timeout=timeout)
        ok = True
    except Exception as exc:  # noqa: BLE001 - httpx/requests errors, OfflineModeIsEnabled: all "unreachable"
        logger.info("the hub at %s is not reachable: %s", endpoint, exc)
        ok = False
    with _reach_lock:
        _reach_cache[endpoint] = (time.monotonic(), ok)
    return ok


def forget_reachability() -> None:
    """Drop cached reachability answers (tests; a network that came back)."""
    with _reach_lock:
        _reach_cache.clear()


def local_snapshot(repo_id: str) -> str | None:
    """The cached snapshot folder of ``repo_id`` (complete or not), or None; never touches the network."""
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(repo_id, local_files_only=True)
    except Exception:  # noqa: BLE001 - any miss means "not cached"
        return None


def in_hf_cache(repo_id: str) -> str | None:
    """The cached snapshot of ``repo_id`` if it is complete (:func:`snapshot_problems`), else None."""
    path = local_snapshot(repo_id)
    return path if path and not snapshot_problems(path) else None


# --------------------------------------------------------------------------------------------
# is a snapshot complete?


def _weights_present(folder: Path, variant: str | None) -> list[str]:
    """Problems with the weights in ``folder``: none present, or shards an index lists but lacks."""
    files = [p for p in folder.iterdir() if p.exists()]  # exists() follows the cache's symlinks
    indexes = [p for p in files if p.name.endswith(".index.json")]
    if variant:
        preferred = [p for p in indexes if f".{variant}." in p.name]
        indexes = preferred or indexes
    problems: list[str] = []
    for index in indexes[:1]:
        try:
            shards = set(json.loads(index.read_text(encoding="utf-8")).get("weight_map", {}).values())
        except (OSError, ValueError):
            return [f"{folder.name}/{index.name} is unreadable"]
        problems += [f"{folder.name}/{s}" for s in sorted(shards) if not (folder / s).exists()]
        return problems
    if not any(p.name.endswith(WEIGHT_SUFFIXES) for p in files):
        return [f"{folder.name}/ weights (*.safetensors)"]
    return problems


def snapshot_problems(path: str | Path, variant: str | None = None) -> list[str]:
    """What a model folder lacks to load (empty when complete), judged from its own files.

    * a diffusers pipeline (``model_index.json``): every component it names has its folder, and
      model components their config and weights (all shards an index lists);
    * a transformers model (``config.json``): its weights (all shards);
    * an open_clip model (``open_clip_config.json``): its weights file.

    A hub snapshot's files are links into the cache's blobs; a link whose blob never finished
    downloading does not exist and counts as missing.
    """
    root = Path(path)
    if not root.is_dir():
        return [f"{root} is not a directory"]
    index = root / "model_index.json"
    if index.exists():
        try:
            components = json.loads(index.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return ["model_index.json is unreadable"]
        problems: list[str] = []
        for name, value in components.items():
            if name.startswith("_") or not isinstance(value, list) or value[0] is None:
                continue
            folder = root / name
            if not folder.is_dir() or not any(p.exists() for p in folder.iterdir()):
                problems.append(f"{name}/")
            elif (folder / "config.json").exists():
                problems += _weights_present(folder, variant)
        return problems
    if (root / "open_clip_config.json").exists():
        has = any((root / f).exists() for f in ("open_clip_model.safetensors", "open_clip_pytorch_model.bin"))
        return [] if has else ["open_clip_model.safetensors"]
    if (root / "config.json").exists():
        return [f"model weights ({p.split('/', 1)[1]})" for p in _weights_present(root, variant)]
    return ["config.json / model_index.json"]


# --------------------------------------------------------------------------------------------
# resolving a model id


def how_to_get(repo_ids: list[str], preset: str | None = None) -> str:
    """The sentence that says how to provide missing hub models."""
    fetch = f"`autoalign models download --preset {preset}`" if preset else None
    each = " and ".join(f"`hf download {r}`" for r in repo_ids) if repo_ids else None
    how = " or ".join(x for x in (fetch, each) if x)
    return (
        f"Provide them by either: (1) on a machine with network, {how}, then copy the Hugging Face cache "
        f"(~/.cache/huggingface/hub) here; or (2) put the weights in a directory and point the preset at it "
        f"([ROLE] model = \"/path/to/dir\", in a file passed with --config); or use --preset tiny."
    )


def resolve_model(model_id: str, role: str, variant: str | None = None) -> str:
    """Return something ``from_pretrained`` can load without surprises: a local path or a hub id.

    * ``tiny:NAME``: the tiny model directory, built on first use.
    * ``world:NAME``: a model trained on the shapes world (:func:`world_model_dir`).
    * an existing local directory: itself.
    * a hub id while the hub is reachable: the id itself (``hf-hub:`` ids unchanged), so the
      library fetches or resumes whatever the cache lacks.
    * a hub id offline: the cached snapshot directory when it is complete (an ``hf-hub:`` id is
      returned unchanged then, for open_clip); else :class:`ModelNotAvailable`.
    """
    if not model_id:
        raise ModelNotAvailable(f"no model configured for the {role} role; set [{role}] model = ... in the preset")
    if model_id.startswith(TINY_PREFIX):
        from autoalign.models import tiny

        return str(tiny.ensure(model_id[len(TINY_PREFIX) :], tiny_dir()))
    if model_id.startswith(WORLD_PREFIX):
        return str(world_model_dir(model_id[len(WORLD_PREFIX) :], role))
    path = Path(model_id).expanduser()
    if path.exists():
        return str(path)
    if model_id.startswith(("/", "./", "../", "~")):
        raise ModelNotAvailable(f"{role} model directory {model_id!r} does not exist")
    repo_id = model_id.removeprefix("hf-hub:")
    if hub_reachable():
        return model_id
    snapshot = local_snapshot(repo_id)
    problems = snapshot_problems(snapshot, variant) if snapshot else []
    if snapshot and not problems:
        return snapshot if not model_id.startswith("hf-hub:") else model_id
    from autoalign.models.catalog_facts import size_note

    state = (
        f"is only partly in the local Hugging Face cache (missing {', '.join(problems[:4])})"
        if snapshot
        else "is not in the local Hugging Face cache"
    )
    raise ModelNotAvailable(
        f"the {role} model {repo_id!r}{size_note(repo_id)} {state} and the hub cannot be reached"
        f"{' (HF_HUB_OFFLINE=1)' if hub_offline() else ''}. {how_to_get([repo_id])}"
    )


# --------------------------------------------------------------------------------------------
# devices and dtypes


@dataclass(frozen=True)
class DeviceSpec:
    device: str
    dtype: str  # "float32" | "float16" | "bfloat16"

    @property
    def torch_dtype(self):
        import torch

        return getattr(torch, self.dtype)


def _bf16_supported(device: str) -> bool:
    import torch

    if device.startswith("cuda"):
        try:
            return bool(torch.cuda.is_bf16_supported())
        except (RuntimeError, AssertionError):
            return False
    return False


def resolve_device(device: str = "auto", dtype: str = "auto") -> DeviceSpec:
    """Pick a concrete device and dtype.

    ``device="auto"``: CUDA when available, else CPU. ``dtype="auto"``: on CUDA bfloat16 when the GPU
    supports it (Ampere and newer), else float16 - bf16 first because models trained in bf16
    (Qwen2-VL, FLUX, SD 3.5) overflow to NaN in fp16; float16 on MPS; float32 on CPU. fp16 on CPU is
    refused with a warning (float32 instead).
    """
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ModelNotAvailable(f"device {device!r} requested but CUDA is not available; use device = \"cpu\"")
    if dtype == "auto":
        if device.startswith("cuda"):
            dtype = "bfloat16" if _bf16_supported(device) else "float16"
        else:
            dtype = "float16" if device == "mps" else "float32"
    if dtype not in ("float32", "float16", "bfloat16"):
        raise ValueError(f"dtype must be float32, float16, bfloat16 or auto (got {dtype!r})")
    if device == "cpu" and dtype == "float16":
        logger.warning("float16 is slow or unsupported on CPU; using float32")
        dtype = "float32"
    return DeviceSpec(device=device, dtype=dtype)


def role_device(config, role: str) -> DeviceSpec:
    """The device and dtype of one role: its own ``[ROLE] device/dtype``, else the config's."""
    spec = getattr(config, role)
    return resolve_device(spec.device or config.device, spec.dtype or config.dtype)
