"""Will a run fit in this machine's memory? An estimate, checked before anything is loaded or written.

Each setting is bounded on its own (:mod:`autoalign.settings`); this checks their product. Per device
(the CPU's RAM, each GPU's memory) a run needs

* the **weights** of the roles placed there whose size :mod:`autoalign.models.catalog` knows
  (parameters x bytes of the role's dtype; with ``sequential = true`` the largest role only), and
* the **activations** of the images in flight at once: ``images x width x height`` x
  :data:`VALUES_PER_PIXEL` x bytes of the dtype, where ``images`` is the larger of the generator's
  batch (``min(candidates, generator batch_size)``) and the editor's ``edit_samples`` (at the editor's
  ``resolution`` squared, else the generator's size).

:data:`VALUES_PER_PIXEL` is a floor, measured on the smallest generator here: the shapes world's UNet
(2 steps with classifier-free guidance, then its VAE decoder) peaks about 185 MB higher at 512x512 than
at 64x64 on the CPU, about 190 float32 values per added pixel. A Stable Diffusion UNet needs several
times more. So the estimate is low for real presets, never high: a run it refuses (one line, both
figures, the settings to lower) would certainly fail, and a run it lets through may still run out of
memory on a large model.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from autoalign.config import Config
from autoalign.errors import AutoAlignError, ConfigError

logger = logging.getLogger(__name__)

VALUES_PER_PIXEL = 150  # activations per output pixel and image in flight: a floor (module docstring)
DTYPE_BYTES = {"float32": 4, "float16": 2, "bfloat16": 2}
DEFAULT_GENERATOR_BATCH = 4  # autoalign.models.generator's default batch_size
_GB = 1e9


@dataclass(frozen=True)
class MemoryNeed:
    """What a run needs on one device (bytes), and what the device has."""

    device: str
    weights: float
    activations: float
    available: float | None  # None: unknown (nothing is refused)

    @property
    def total(self) -> float:
        return self.weights + self.activations


def _device_and_dtype(config: Config, role: str) -> tuple[str, str]:
    spec = getattr(config, role)
    device, dtype = spec.device or config.device, spec.dtype or config.dtype
    if device == "cpu":
        return "cpu", "float32" if dtype in ("auto", "float16") else dtype
    from autoalign.models.loading import role_device  # torch only for a device that may be a GPU

    resolved = role_device(config, role)
    return resolved.device, resolved.dtype


def machine_memory(device: str) -> float | None:
    """Bytes of memory ``device`` has: the RAM (or the cgroup's limit) for the CPU, the GPU's total."""
    if device == "cpu":
        try:
            total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError):
            return None
        try:
            with open("/sys/fs/cgroup/memory.max", encoding="ascii") as fh:
                limit = fh.read().strip()
            if limit.isdigit():
                total = min(total, int(limit))
        except OSError:
            pass
        return float(total)
    if device.startswith("cuda"):
        import torch

        index = int(device.split(":", 1)[1]) if ":" in device else torch.cuda.current_device()
        return float(torch.cuda.get_device_properties(index).total_memory)
    return None  # mps: unified memory, not asked


def _generator_size(config: Config) -> tuple[int, int]:
    options = config.generator.options
    return int(options.get("width", 512)), int(options.get("height", 512))


def _editor_pixels(config: Config) -> int:
    resolution = config.editor.options.get("resolution")
    if resolution is None:
        width, height = _generator_size(config)
        return width * height
    return int(resolution) ** 2


def estimate(config: Config) -> list[MemoryNeed]:
    """What a run of ``config`` needs on each device it uses (generator, editor, VQA, CLIP)."""
    from autoalign.models.catalog import WEIGHT_ROLES, params_billion

    weights: dict[str, list[float]] = {}
    activations: dict[str, float] = {}
    width, height = _generator_size(config)
    in_flight = {
        "generator": min(config.loop.candidates, int(config.generator.options.get("batch_size", DEFAULT_GENERATOR_BATCH)))
        * width * height,
        "editor": 0 if config.loop.max_rounds == 0 else config.loop.edit_samples * _editor_pixels(config),
    }
    for role in WEIGHT_ROLES:
        spec = getattr(config, role)
        if spec.backend in ("openai", "scene-double"):
            continue
        try:
            device, dtype = _device_and_dtype(config, role)
        except AutoAlignError:  # a device this machine lacks: the run's own device check refuses it, in its words
            continue
        size = DTYPE_BYTES.get(dtype, 4)
        params = params_billion(role, spec)
        weights.setdefault(device, []).append(0.0 if params is None else params * 1e9 * size)
        pixels = in_flight.get(role, 0)
        activations[device] = max(activations.get(device, 0.0), pixels * VALUES_PER_PIXEL * size)
    needs = []
    for device, per_role in weights.items():
        held = max(per_role) if config.sequential else sum(per_role)
        needs.append(MemoryNeed(device, held, activations.get(device, 0.0), machine_memory(device)))
    return needs


def check_memory(config: Config) -> None:
    """ConfigError (one line) when a run of ``config`` needs more memory than a device of this machine has."""
    for need in estimate(config):
        logger.debug("memory estimate on %s: %.2f GB (weights %.2f, activations %.2f) of %s", need.device,
                     need.total / _GB, need.weights / _GB, need.activations / _GB,
                     "?" if need.available is None else f"{need.available / _GB:.1f} GB")
        if need.available is not None and need.total > need.available:
            raise ConfigError(
                f"this run needs about {need.total / _GB:.1f} GB on {need.device} (weights {need.weights / _GB:.1f} GB, "
                f"images in flight {need.activations / _GB:.1f} GB: candidates {config.loop.candidates}, "
                f"{_generator_size(config)[0]}x{_generator_size(config)[1]} px, edit samples {config.loop.edit_samples}) "
                f"but the device has {need.available / _GB:.1f} GB; lower --candidates, --width/--height or the "
                "generator's batch_size. Nothing was written."
            )
