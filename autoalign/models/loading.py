"""Where weights come from: a hub id, a local directory, or ``tiny:NAME``; and which device/dtype.

``tiny:NAME`` resolves to ``$AUTOALIGN_HOME/tiny/NAME`` (default ``~/.cache/autoalign/tiny``) and
the tiny models are built there in code on first use (:mod:`autoalign.models.tiny`).

A hub id is looked up in the local Hugging Face cache first. When it is not there and the hub
cannot be reached (``HF_HUB_OFFLINE=1`` or no network), :class:`ModelNotAvailable` says which model
is missing and how to provide it, instead of a long retry loop and a stack trace.
"""

from __future__ import annotations

import logging
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

from autoalign.errors import AutoAlignError

logger = logging.getLogger(__name__)

TINY_PREFIX = "tiny:"
#: ``world:NAME`` names a model the project trained on the shapes world, shipped in the package.
WORLD_PREFIX = "world:"


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


def hub_offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def hub_reachable(timeout: float = 2.0) -> bool:
    """A quick TCP check of the hub endpoint (honours ``HF_ENDPOINT``); False when offline."""
    if hub_offline():
        return False
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co")
    parsed = urlparse(endpoint)
    host, port = parsed.hostname or "huggingface.co", parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def in_hf_cache(repo_id: str) -> str | None:
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(repo_id, local_files_only=True)
    except Exception:  # noqa: BLE001 - any miss means "not cached"
        return None


def resolve_model(model_id: str, role: str) -> str:
    """Return something ``from_pretrained`` can load without surprises: a local path or a hub id.

    * ``tiny:NAME``: the tiny model directory, built on first use.
    * an existing local directory: itself.
    * a hub id in the local HF cache: the cached snapshot directory.
    * a hub id that is not cached: the id itself when the hub is reachable, else
      :class:`ModelNotAvailable`.
    """
    if not model_id:
        raise ModelNotAvailable(f"no model configured for the {role} role; set [{role}] model = ... in the preset")
    if model_id.startswith(TINY_PREFIX):
        from autoalign.models import tiny

        return str(tiny.ensure(model_id[len(TINY_PREFIX) :]))
    if model_id.startswith(WORLD_PREFIX):
        return str(world_model_dir(model_id[len(WORLD_PREFIX) :], role))
    path = Path(model_id).expanduser()
    if path.exists():
        return str(path)
    if model_id.startswith(("/", "./", "../", "~")):
        raise ModelNotAvailable(f"{role} model directory {model_id!r} does not exist")
    repo_id = model_id.removeprefix("hf-hub:")
    cached = in_hf_cache(repo_id)
    if cached:
        return cached if not model_id.startswith("hf-hub:") else model_id
    if not hub_reachable():
        raise ModelNotAvailable(
            f"the {role} model {repo_id!r} is not in the local Hugging Face cache and the hub cannot be "
            f"reached{' (HF_HUB_OFFLINE=1)' if hub_offline() else ''}. Provide it by either: "
            f"(1) on a machine with network, `huggingface-cli download {repo_id}` and copy the cache "
            f"(~/.cache/huggingface/hub) here; or (2) put the weights in a directory and point the preset at it "
            f"([{role}] model = \"/path/to/dir\", in a file passed with --config); or use --preset tiny."
        )
    return model_id


@dataclass(frozen=True)
class DeviceSpec:
    device: str
    dtype: str  # "float32" | "float16" | "bfloat16"

    @property
    def torch_dtype(self):
        import torch

        return getattr(torch, self.dtype)


def resolve_device(device: str = "auto", dtype: str = "auto") -> DeviceSpec:
    """``auto`` picks CUDA (fp16) when available, else CPU (fp32). fp16 on CPU is refused."""
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ModelNotAvailable(f"device {device!r} requested but CUDA is not available; use device = \"cpu\"")
    if dtype == "auto":
        dtype = "float16" if device.startswith("cuda") else "float32"
    if dtype not in ("float32", "float16", "bfloat16"):
        raise ValueError(f"dtype must be float32, float16, bfloat16 or auto (got {dtype!r})")
    if device == "cpu" and dtype == "float16":
        logger.warning("float16 is slow or unsupported on CPU; using float32")
        dtype = "float32"
    return DeviceSpec(device=device, dtype=dtype)
