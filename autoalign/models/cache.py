"""One shared cache of backends per process, so no model is loaded twice.

VQ2, VNLI and the detectors all ask ``models.vqa(config)`` and get the same instance (and so the
same weights) as long as the role's spec and device are the same.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from autoalign import registry
from autoalign.config import Config, RoleSpec
from autoalign.models.loading import DeviceSpec, resolve_device

logger = logging.getLogger(__name__)

_lock = threading.RLock()
_instances: dict[str, Any] = {}


def _key(role: str, spec: RoleSpec, device: DeviceSpec) -> str:
    return json.dumps([role, spec.backend, spec.model, spec.options, device.device, device.dtype], sort_keys=True, default=str)


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


class Models:
    """The run's view of the cache: ``models.generator``, ``models.vqa``, ... resolved from a config."""

    def __init__(self, config: Config):
        self.config = config
        self.device = resolve_device(config.device, config.dtype)

    def _get(self, role: str) -> Any:
        return get_backend(role, getattr(self.config, role), self.device)

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
