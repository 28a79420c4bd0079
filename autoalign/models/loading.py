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

import contextlib
import json
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

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


def local_snapshot(repo_id: str, revision: str | None = None) -> str | None:
    """The cached snapshot folder of ``repo_id`` at ``revision`` (default main; complete or not), or None;
    never touches the network."""
    try:
        from huggingface_hub import snapshot_download

        return snapshot_download(repo_id, revision=revision, local_files_only=True)
    except Exception:  # noqa: BLE001 - any miss means "not cached"
        return None


def in_hf_cache(repo_id: str, variant: str | None = None, revision: str | None = None,
                chat_template: bool = False) -> str | None:
    """The cached snapshot of ``repo_id`` if it is complete (:func:`snapshot_problems`), else None."""
    path = local_snapshot(repo_id, revision)
    return path if path and not snapshot_problems(path, variant, chat_template=chat_template) else None


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


#: A tokenizer folder loads from one of these (with ``tokenizer_config.json``).
TOKENIZER_FILES = ("tokenizer.json", "tokenizer.model", "spiece.model", "vocab.json", "vocab.txt")
#: An image processor's config (transformers reads either).
PROCESSOR_FILES = ("preprocessor_config.json", "processor_config.json")
#: A chat template: its own file, or a ``chat_template`` entry in ``tokenizer_config.json``.
CHAT_TEMPLATE_FILES = ("chat_template.jinja", "chat_template.json")


def _has(folder: Path, names: tuple[str, ...]) -> bool:
    return any((folder / n).exists() for n in names)


def _tokenizer_problems(folder: Path, label: str) -> list[str]:
    problems = []
    if not (folder / "tokenizer_config.json").exists():
        problems.append(f"{label}tokenizer_config.json")
    if not _has(folder, TOKENIZER_FILES):
        problems.append(f"{label}tokenizer files ({' / '.join(TOKENIZER_FILES)})")
    return problems


def _has_chat_template(folder: Path) -> bool:
    if _has(folder, CHAT_TEMPLATE_FILES):
        return True
    try:
        return "chat_template" in json.loads((folder / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False


def snapshot_problems(path: str | Path, variant: str | None = None, chat_template: bool = False) -> list[str]:
    """What a model folder lacks to load (empty when complete), judged from its own files.

    * a diffusers pipeline (``model_index.json``): every component it names has its folder; model
      components their config and weights (all shards an index lists); tokenizers their
      ``tokenizer_config.json`` and vocabulary; schedulers their config; image processors theirs;
    * a transformers model (``config.json``): its weights (all shards), its tokenizer, and for a
      model with a vision tower its image processor; with ``chat_template`` its chat template (the
      ``image-text-to-text`` backend formats every question with it);
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
            cls = str(value[1] if len(value) > 1 else "")
            if not folder.is_dir() or not any(p.exists() for p in folder.iterdir()):
                problems.append(f"{name}/")
            elif "Tokenizer" in cls:
                problems += _tokenizer_problems(folder, f"{name}/")
            elif "Scheduler" in cls and not (folder / "scheduler_config.json").exists():
                problems.append(f"{name}/scheduler_config.json")
            elif ("Processor" in cls or "FeatureExtractor" in cls) and not _has(folder, PROCESSOR_FILES):
                problems.append(f"{name}/preprocessor_config.json")
            elif (folder / "config.json").exists():
                problems += _weights_present(folder, variant)
            elif not ("Processor" in cls or "FeatureExtractor" in cls or "Scheduler" in cls):
                problems.append(f"{name}/config.json")
        return problems
    if (root / "open_clip_config.json").exists():
        has = any((root / f).exists() for f in ("open_clip_model.safetensors", "open_clip_pytorch_model.bin"))
        return [] if has else ["open_clip_model.safetensors"]
    if (root / "config.json").exists():
        problems = [f"model weights ({p.split('/', 1)[1]})" for p in _weights_present(root, variant)]
        try:
            config = json.loads((root / "config.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return [*problems, "config.json is unreadable"]
        if (root / "tokenizer_config.json").exists() or _has(root, TOKENIZER_FILES) or chat_template:
            problems += _tokenizer_problems(root, "")
        if isinstance(config, dict) and "vision_config" in config and not _has(root, PROCESSOR_FILES):
            problems.append("preprocessor_config.json (the image processor)")
        if chat_template and not _has_chat_template(root):
            problems.append("the chat template (chat_template.jinja / chat_template.json)")
        return problems
    return ["config.json / model_index.json"]


# --------------------------------------------------------------------------------------------
# resolving a model id


def hub_revision(model_id: str | None, options: dict) -> str | None:
    """The hub commit to load ``model_id`` at: the role's ``revision`` option, else the catalog's pin."""
    from autoalign.models.catalog_facts import pinned_revision

    own = options.get("revision")
    if own:
        return str(own)
    return pinned_revision((model_id or "").removeprefix("hf-hub:"))


@contextlib.contextmanager
def gated_as_unavailable(model_id: str, role: str) -> Iterator[None]:
    """Turn huggingface_hub's gated / missing-repo errors while loading into one clear :class:`ModelNotAvailable`."""
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError, RevisionNotFoundError

    try:
        yield
    except GatedRepoError as exc:
        raise ModelNotAvailable(
            f"the {role} model {model_id!r} is gated: accept its licence on https://huggingface.co/{model_id}, then "
            "`hf auth login` (or set HF_TOKEN); `autoalign models check` says this before a run"
        ) from exc
    except RevisionNotFoundError as exc:
        raise ModelNotAvailable(f"the {role} model {model_id!r} has no revision asked for ([{role}] revision)") from exc
    except RepositoryNotFoundError as exc:
        raise ModelNotAvailable(f"the {role} model {model_id!r} is not on the hub (or is private)") from exc


def hf_download_command(repo_id: str, variant: str | None = None) -> str:
    """``hf download REPO --include ...``: only what the loaders read, where the catalog lists the repo
    (a whole-repo download also fetches single-file checkpoints: +24 GB for FLUX.1-dev)."""
    from autoalign.models.hub_files import include_patterns

    patterns = include_patterns(repo_id, variant)
    return f"hf download {repo_id}" + "".join(f' --include "{p}"' for p in patterns)


def how_to_get(repo_ids: list[str], preset: str | None = None, variants: list[str | None] | None = None) -> str:
    """The sentence that says how to provide missing hub models."""
    fetch = f"`autoalign models download --preset {preset}`" if preset else None
    variants = variants or [None] * len(repo_ids)
    each = " and ".join(f"`{hf_download_command(r, v)}`" for r, v in zip(repo_ids, variants)) if repo_ids else None
    how = " or ".join(x for x in (fetch, each) if x)
    return (
        f"Provide them by either: (1) on a machine with network, {how}, then copy the Hugging Face cache "
        f"(~/.cache/huggingface/hub) here; or (2) put the weights in a directory and point the preset at it "
        f"([ROLE] model = \"/path/to/dir\", in a file passed with --config); or use --preset tiny."
    )


def resolve_model(model_id: str, role: str, variant: str | None = None, revision: str | None = None,
                  chat_template: bool = False) -> str:
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
    snapshot = local_snapshot(repo_id, revision)
    problems = snapshot_problems(snapshot, variant, chat_template=chat_template) if snapshot else []
    if snapshot and not problems:
        return snapshot if not model_id.startswith("hf-hub:") else model_id
    from autoalign.models.catalog_facts import size_note

    state = (
        f"is only partly in the local Hugging Face cache (missing {', '.join(problems[:4])})"
        if snapshot
        else "is not in the local Hugging Face cache"
    )
    raise ModelNotAvailable(
        f"the {role} model {repo_id!r}{size_note(repo_id, variant)} {state} and the hub cannot be reached"
        f"{' (HF_HUB_OFFLINE=1)' if hub_offline() else ''}. {how_to_get([repo_id], variants=[variant])}"
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


def bf16_native(device: str = "cuda") -> bool:
    """Whether the GPU computes bfloat16 natively (Ampere and newer). ``torch.cuda.is_bf16_supported()``
    alone also says True where bf16 is only emulated (T4, V100): convolutions then fail or crawl."""
    import torch

    if device.startswith("cuda"):
        try:
            return bool(torch.cuda.is_bf16_supported(including_emulation=False))
        except (RuntimeError, AssertionError):
            return False
    return False


def resolve_device(device: str = "auto", dtype: str = "auto") -> DeviceSpec:
    """Pick a concrete device and dtype.

    ``device="auto"``: CUDA when available, else CPU. ``dtype="auto"``: on CUDA bfloat16 when the GPU
    computes it natively (Ampere and newer; emulation does not count), else float16 - bf16 first because models trained in bf16
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
            dtype = "bfloat16" if bf16_native(device) else "float16"
        else:
            dtype = "float16" if device == "mps" else "float32"
    if dtype not in ("float32", "float16", "bfloat16"):
        raise ValueError(f"dtype must be float32, float16, bfloat16 or auto (got {dtype!r})")
    if device == "cpu" and dtype == "float16":
        logger.warning("float16 is slow or unsupported on CPU; using float32")
        dtype = "float32"
    return DeviceSpec(device=device, dtype=dtype)


_warned_cpu: set[str] = set()


def role_device(config, role: str) -> DeviceSpec:
    """The device and dtype of one role: its own ``[ROLE] device/dtype``, else the config's.

    A GPU-sized hub model (one the catalog knows) that lands on the CPU because ``device = "auto"``
    found no CUDA gets a warning: it runs, in float32, very slowly (``autoalign models check`` says why).
    """
    spec = getattr(config, role)
    asked = spec.device or config.device
    device = resolve_device(asked, spec.dtype or config.dtype)
    if asked == "auto" and device.device == "cpu" and role not in _warned_cpu:
        from autoalign.models.catalog_facts import entry

        if entry((spec.model or "").removeprefix("hf-hub:")):
            _warned_cpu.add(role)
            logger.warning(
                "%s: CUDA is not available (%s), so %s runs on the CPU in %s: expect minutes per image; "
                "`autoalign models check --preset %s` says what is missing", role, cuda_state(), spec.model,
                device.dtype, getattr(config, "name", "?"))
    return device


def cuda_state() -> str:
    """Why CUDA is or is not usable, in a few words: the torch build's CUDA and what torch sees."""
    import torch

    built = torch.version.cuda
    if not built:
        return f"torch {torch.__version__} is a CPU-only build"
    if torch.cuda.is_available():
        return f"torch {torch.__version__} built for CUDA {built}; {torch.cuda.device_count()} GPU(s)"
    return (f"torch {torch.__version__} is built for CUDA {built} but finds no usable GPU: no NVIDIA driver, "
            f"or one older than CUDA {built} needs")
