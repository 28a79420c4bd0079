"""The one registry of backends.

Every backend (generator, editor, vqa, clip, question generator, detector, writer, llm) registers
under ``(role, name)``. A duplicate name is refused and a miss lists what exists::

    @register("writer", "template")
    class TemplateWriter: ...

    cls = get("writer", "template")

Backends are registered when their module is imported; :func:`get` imports the known backend
modules first, so callers never need to.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from autoalign.errors import AutoAlignError

ROLES: tuple[str, ...] = (
    "generator",
    "editor",
    "vqa",
    "clip",
    "questions",
    "detector",
    "writer",
    "llm",
)

# Modules that define backends; imported lazily on first lookup (cheap: they import no weights).
_BACKEND_MODULES: tuple[str, ...] = (
    "autoalign.models.generator",
    "autoalign.models.editor",
    "autoalign.models.vqa",
    "autoalign.models.vqa_openai",
    "autoalign.models.clip",
    "autoalign.models.llm",
    "autoalign.scoring.questions",
    "autoalign.detection",
    "autoalign.editing.template_writer",
    "autoalign.editing.llm_writer",
    "autoalign.doubles.scene",
)

_REGISTRY: dict[str, dict[str, Any]] = {role: {} for role in ROLES}
_imported = False


class RegistryError(AutoAlignError, KeyError):
    """A lookup miss or a bad registration; the message lists what exists."""

    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0]) if self.args else ""


def register(role: str, name: str) -> Callable[[Any], Any]:
    """Class/function decorator registering a backend under ``(role, name)``."""
    if role not in _REGISTRY:
        raise RegistryError(f"unknown role {role!r}; roles are: {', '.join(ROLES)}")

    def decorator(obj: Any) -> Any:
        existing = _REGISTRY[role].get(name)
        if existing is not None and existing is not obj:
            raise RegistryError(f"a {role} backend named {name!r} is already registered ({existing!r})")
        _REGISTRY[role][name] = obj
        return obj

    return decorator


def _import_backends() -> None:
    global _imported
    if _imported:
        return
    for module in _BACKEND_MODULES:
        importlib.import_module(module)
    _imported = True


def get(role: str, name: str) -> Any:
    """Return the backend registered under ``(role, name)``; a miss lists what exists."""
    _import_backends()
    if role not in _REGISTRY:
        raise RegistryError(f"unknown role {role!r}; roles are: {', '.join(ROLES)}")
    try:
        return _REGISTRY[role][name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY[role])) or "(none)"
        raise RegistryError(f"no {role} backend named {name!r}; known {role} backends: {known}") from None


def names(role: str) -> list[str]:
    """Names registered for a role."""
    _import_backends()
    return sorted(_REGISTRY[role])
