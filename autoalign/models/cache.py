"""One shared cache of backends per process, so no model is loaded twice.

VQ2, VNLI and the detectors all ask ``models.vqa(config)`` and get the same instance (and so the
same weights) as long as the role's spec and device are the same.

``Models(config)`` resolves each role's device and dtype on its own (``[ROLE] device/dtype``, else the
config's), checks once per role, offline, that the role's model is here (and if not, names every
missing model of the preset at once, :func:`autoalign.models.catalog.missing_message`), and with
``config.sequential`` drops the weights of the other weight-holding roles before handing one out.
"""

from __future__ import annotations

import gc
import json
import logging
import threading
from typing import Any

from autoalign import registry
from autoalign.config import Config, RoleSpec
from autoalign.models import catalog
from autoalign.models.loading import DeviceSpec, ModelNotAvailable, role_device

logger = logging.getLogger(__name__)

_lock = threading.RLock()
_instances: dict[str, Any] = {}


def _key(role: str, spec: RoleSpec, device: DeviceSpec) -> str:
    return json.dumps(
        [role, spec.backend, spec.model, spec.options, spec.offload, device.device, device.dtype],
        sort_keys=True,
        default=str,
    )


def get_backend(role: str, spec: RoleSpec, device: DeviceSpec) -> Any:
    """The process-wide instance of ``spec.backend`` for ``role``; constructed once (weights lazy)."""
    key = _key(role, spec, device)
    with _lock:
        inst = _instances.get(key)
        if inst is None:
            cls = registry.get(role, spec.backend)
            logger.debug("constructing %s backend %r (model %r)", role, spec.backend, spec.model)
            inst = cls(spec=spec, device=device)
            _instances[key] = inst
        return inst


def clear() -> None:
    """Drop every cached backend (tests; freeing GPU memory between presets)."""
    with _lock:
        _instances.clear()


def count() -> int:
    return len(_instances)


def free_accelerator_memory() -> None:
    """Collect garbage and return cached CUDA blocks to the driver (no-op without CUDA)."""
    gc.collect()
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.empty_cache()
    except ImportError:  # pragma: no cover - torch is a dependency
        pass


class Models:
    """The run's view of the cache: ``models.generator``, ``models.vqa``, ... resolved from a config."""

    #: Roles whose backends hold weights (the ones ``sequential`` unloads and the preflight checks).
    WEIGHT_ROLES = catalog.WEIGHT_ROLES

    def __init__(self, config: Config):
        self.config = config
        self._devices: dict[str, DeviceSpec] = {}
        self._checked: set[str] = set()
        self._active: str | None = None

    @property
    def device(self) -> DeviceSpec:
        """The config's default device and dtype (roles may override theirs: :meth:`device_of`)."""
        from autoalign.models.loading import resolve_device

        return resolve_device(self.config.device, self.config.dtype)

    def device_of(self, role: str) -> DeviceSpec:
        if role not in self._devices:
            self._devices[role] = role_device(self.config, role)
        return self._devices[role]

    def _preflight(self, role: str) -> None:
        """Offline, a missing model of ``role`` raises one error naming every missing model of the preset."""
        if role in self._checked or role not in self.WEIGHT_ROLES:
            return
        missing = catalog.missing_models(self.config)
        if any(m.role == role for m, _ in missing):
            raise ModelNotAvailable(catalog.missing_message(self.config, missing))
        self._checked.add(role)

    def _get(self, role: str) -> Any:
        self._preflight(role)
        backend = get_backend(role, getattr(self.config, role), self.device_of(role))
        if self.config.sequential and role in self.WEIGHT_ROLES and self._active != role:
            self._release_others(role)
            self._active = role
        return backend

    def _release_others(self, keep: str) -> None:
        """Drop the loaded weights of every other weight-holding role (``sequential = true``)."""
        released = []
        for role in self.WEIGHT_ROLES:
            if role == keep:
                continue
            with _lock:
                inst = _instances.get(_key(role, getattr(self.config, role), self.device_of(role)))
            release = getattr(inst, "release", None)
            if callable(release) and release():
                released.append(role)
        if released:
            free_accelerator_memory()
            logger.info("sequential loading: released %s before using %s", ", ".join(released), keep)

    @property
    def generator(self):
        return self._get("generator")

    @property
    def editor(self):
        return self._get("editor")

    @property
    def vqa(self):
        return self._get("vqa")

    @property
    def clip(self):
        return self._get("clip")

    @property
    def questions(self):
        return self._get("questions")

    @property
    def llm(self):
        return self._get("llm")

    @property
    def grounder(self):
        """The object grounder (``ground(images, phrases)``); an error naming the preset when it has none."""
        if self.config.grounder is None:
            from autoalign.errors import AutoAlignError

            raise AutoAlignError(f"preset {self.config.name!r} has no [grounder]; add one (backend owlv2, grounding-dino "
                                 "or segformer) to use the layout detector, the grounded pass or grounded answers")
        return self._get("grounder")

    @property
    def has_grounder(self) -> bool:
        return self.config.grounder is not None

    @property
    def region_editor(self):
        """The preset's ``[region_editor]`` backend; a ConfigError when the preset has none."""
        if self.config.region_editor is None:
            from autoalign.config import ConfigError

            raise ConfigError(f"preset {self.config.name!r} has no [region_editor] table (layout edits need one)")
        return self._get("region_editor")
