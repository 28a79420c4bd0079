"""One shared, bounded cache of backends per process, keyed by what changes the weights.

VQ2, VNLI and the detectors all ask ``models.vqa`` and get the same instance (and so the same weights)
as long as the role's model and device are the same.

**Load-time vs call-time options.** A backend class may declare ``load_options`` (a set of option
names: ``variant``, ``scheduler``, ``revision`` ...). The cache key is then the role, backend, model,
those options, ``offload``, device and dtype; every other option (guidance scales,
``image_guidance_scale``, ``strength``, steps ...) is a call-time setting: a spec that differs only in
those gets a light *view* of the loaded backend (``backend.with_spec(spec)``) that shares its
weights and calls the pipeline with its own settings. So ten guidance values load one editor. A
backend class that declares nothing is keyed by all its options (the safe default, for any role).

**Bounded.** At most :data:`MAX_LOADED` backends (``AUTOALIGN_MODEL_CACHE_SIZE``) are kept; adding
one more releases the least recently used (its ``release()``, then :func:`free_accelerator_memory`).

``Models(config)`` resolves each role's device and dtype on its own (``[ROLE] device/dtype``, else the
config's), checks once per role, offline, that the role's model is here (and if not, names every
missing model of the preset at once, :func:`autoalign.models.catalog.missing_message`), and with
``config.sequential`` drops the weights of the weight-holding roles outside the requested role's
group before handing it out (:data:`autoalign.models.catalog.SEQUENTIAL_GROUPS`: the VQA model and
CLIP score together, so a score does not reload the VQA model).
"""

from __future__ import annotations

import gc
import json
import logging
import os
import threading
from collections import OrderedDict
from typing import Any

from autoalign import registry
from autoalign.config import Config, RoleSpec
from autoalign.models import catalog
from autoalign.models.loading import DeviceSpec, ModelNotAvailable, role_device

logger = logging.getLogger(__name__)

#: Backends held at once (each a loaded model once used); the least recently used is released beyond it.
MAX_LOADED = int(os.environ.get("AUTOALIGN_MODEL_CACHE_SIZE", "8"))
#: Views (call-time settings) kept per backend; they hold no weights.
MAX_VIEWS = 16

_lock = threading.RLock()
_instances: OrderedDict[str, Any] = OrderedDict()
_views: dict[str, OrderedDict[str, Any]] = {}


def load_options(cls: Any, spec: RoleSpec) -> dict[str, Any]:
    """The options of ``spec`` that change what ``cls`` loads: its declared ``load_options``, else all."""
    declared = getattr(cls, "load_options", None)
    if declared is None:
        return dict(spec.options)
    return {k: v for k, v in spec.options.items() if k in declared}


def _dump(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def load_key(role: str, spec: RoleSpec, device: DeviceSpec, cls: Any = None) -> str:
    """What identifies a backend's weights: role, backend, model, load options, offload, device, dtype."""
    cls = cls if cls is not None else registry.get(role, spec.backend)
    return _dump([role, spec.backend, spec.model, load_options(cls, spec), spec.offload, device.device, device.dtype])


def _spec_key(spec: RoleSpec) -> str:
    return _dump([spec.backend, spec.model, spec.options, spec.offload, spec.device, spec.dtype])


def _evict_beyond(limit: int) -> None:
    released = []
    while len(_instances) > max(limit, 1):
        key, inst = _instances.popitem(last=False)
        _views.pop(key, None)
        release = getattr(inst, "release", None)
        if callable(release) and release():
            released.append(json.loads(key)[0])
    if released:
        free_accelerator_memory()
        logger.info("model cache full (%d): released the least recently used %s", limit, ", ".join(released))


def get_backend(role: str, spec: RoleSpec, device: DeviceSpec) -> Any:
    """The process-wide instance of ``spec.backend`` for ``role`` (weights lazy), or a view of it with
    ``spec``'s call-time settings (module docstring)."""
    cls = registry.get(role, spec.backend)
    key = load_key(role, spec, device, cls)
    with _lock:
        inst = _instances.get(key)
        if inst is None:
            logger.debug("constructing %s backend %r (model %r)", role, spec.backend, spec.model)
            inst = cls(spec=spec, device=device)
            _instances[key] = inst
            _evict_beyond(MAX_LOADED)
        _instances.move_to_end(key)
        if getattr(inst, "spec", spec) == spec or not callable(getattr(inst, "with_spec", None)):
            return inst
        views = _views.setdefault(key, OrderedDict())
        skey = _spec_key(spec)
        view = views.get(skey)
        if view is None:
            view = views[skey] = inst.with_spec(spec)
            while len(views) > MAX_VIEWS:
                views.popitem(last=False)
        views.move_to_end(skey)
        return view


def loaded(role: str, spec: RoleSpec, device: DeviceSpec) -> Any:
    """The cached backend whose weights ``spec`` would use, or None (never constructs one)."""
    try:
        key = load_key(role, spec, device)
    except KeyError:
        return None
    with _lock:
        return _instances.get(key)


def clear() -> None:
    """Drop every cached backend (tests; freeing GPU memory between presets)."""
    with _lock:
        _instances.clear()
        _views.clear()


def count() -> int:
    """Backends in the cache (views of one backend's weights do not count)."""
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
        group = catalog.sequential_group(role)
        if self.config.sequential and role in self.WEIGHT_ROLES and self._active != group:
            self._release_others(role)
            self._active = group
        return backend

    def _release_others(self, keep: str) -> None:
        """Drop the loaded weights of every weight-holding role outside ``keep``'s group (``sequential = true``)."""
        released = []
        group = catalog.sequential_group(keep)
        for role in self.WEIGHT_ROLES:
            if catalog.sequential_group(role) == group:
                continue
            inst = loaded(role, getattr(self.config, role), self.device_of(role))
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
        editor = self._get("region_editor")
        if hasattr(editor, "wire"):  # the preset's CLIP picks drawings, its grounder checks them (loaded when first asked)
            editor.wire(lambda images, text: self.clip.cosine(images, text), lambda: self.grounder)
        return editor
