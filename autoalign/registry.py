"""The one registry of backends.

Every backend (generator, editor, vqa, clip, question generator, detector, writer, llm, grounder) is known
under ``(role, name)``. The built-in ones are listed once, in :data:`BUILTIN`, as
``"module:object"`` entries imported on first use (as lm-evaluation-harness's lazy registry
does), so asking which names exist imports nothing::

    cls = get("writer", "template")     # imports autoalign.editing.template_writer now
    names("writer")                     # ["llm", "template"], no import

A backend from outside the package registers with the decorator; a name already taken is refused
and a miss lists what exists::

    @register("writer", "mine")
    class MyWriter: ...
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
    "grounder",
    "region_editor",
)

#: Every built-in backend, once: role -> name -> "module:object" (imported by :func:`get`).
BUILTIN: dict[str, dict[str, str]] = {
    "generator": {
        "diffusers": "autoalign.models.generator:DiffusersGenerator",
        "scene-double": "autoalign.doubles.scene:SceneGeneratorDouble",
    },
    "editor": {
        "diffusers-edit": "autoalign.models.editor:DiffusersEditor",
        "instruct-pix2pix": "autoalign.models.editor:InstructPix2PixEditor",
        "magicbrush": "autoalign.models.editor:MagicBrushEditor",
        "scene-double": "autoalign.doubles.scene:SceneEditorDouble",
    },
    "vqa": {
        "image-text-to-text": "autoalign.models.vqa:ImageTextToTextVQA",
        "blip2": "autoalign.models.vqa:Blip2VQA",
        "openai": "autoalign.models.vqa_openai:OpenAIVQA",
        "scene-double": "autoalign.doubles.scene:SceneVQADouble",
    },
    "clip": {"open_clip": "autoalign.models.clip:OpenClipScorer"},
    "questions": {
        "spacy": "autoalign.scoring.questions:SpacyQuestions",
        "llm": "autoalign.scoring.questions:LLMQuestions",
    },
    "detector": {
        "vq2": "autoalign.detection.vq2_detector:VQ2Detector",
        "vlm": "autoalign.detection.vlm_detector:VLMDetector",
        "text": "autoalign.detection.text_detector:TextDetector",
        "clip-probe": "autoalign.detection.clip_probe:ClipProbeDetector",
        "layout": "autoalign.detection.layout:LayoutDetector",
    },
    "writer": {
        "template": "autoalign.editing.template_writer:TemplateWriter",
        "llm": "autoalign.editing.llm_writer:LLMWriter",
    },
    "llm": {"openai": "autoalign.models.llm:OpenAILLM"},
    "grounder": {
        "owlv2": "autoalign.models.grounder:Owlv2Grounder",
        "grounding-dino": "autoalign.models.grounder:GroundingDinoGrounder",
        "segformer": "autoalign.models.grounder:SegformerGrounder",
    },
    "region_editor": {"diffusers-inpaint": "autoalign.models.region_editor:InpaintRegionEditor"},
}

# Backends registered with the decorator, and built-ins once imported.
_REGISTRY: dict[str, dict[str, Any]] = {role: {} for role in ROLES}


class RegistryError(AutoAlignError, KeyError):
    """A lookup miss or a bad registration; the message lists what exists."""

    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0]) if self.args else ""


def _check_role(role: str) -> None:
    if role not in ROLES:
        raise RegistryError(f"unknown role {role!r}; roles are: {', '.join(ROLES)}")


def register(role: str, name: str) -> Callable[[Any], Any]:
    """Class/function decorator registering a backend from outside the package under ``(role, name)``."""
    _check_role(role)

    def decorator(obj: Any) -> Any:
        existing = _REGISTRY[role].get(name)
        taken = existing is not None and existing is not obj
        if taken or (name in BUILTIN[role] and f"{obj.__module__}:{obj.__qualname__}" != BUILTIN[role][name]):
            raise RegistryError(f"a {role} backend named {name!r} is already registered ({existing or BUILTIN[role][name]!r})")
        _REGISTRY[role][name] = obj
        return obj

    return decorator


def get(role: str, name: str) -> Any:
    """Return the backend known as ``(role, name)``, importing a built-in one on first use; a miss lists what exists."""
    _check_role(role)
    if name in _REGISTRY[role]:
        return _REGISTRY[role][name]
    if name not in BUILTIN[role]:
        known = ", ".join(names(role)) or "(none)"
        raise RegistryError(f"no {role} backend named {name!r}; known {role} backends: {known}")
    module, _, attr = BUILTIN[role][name].partition(":")
    obj = getattr(importlib.import_module(module), attr)
    _REGISTRY[role][name] = obj
    return obj


def names(role: str) -> list[str]:
    """Names known for a role (nothing is imported)."""
    _check_role(role)
    return sorted(set(BUILTIN[role]) | set(_REGISTRY[role]))
