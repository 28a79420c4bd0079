"""Build tiny models, then load each back through the backend a preset would use (``autoalign models
make-tiny``).

Kept apart from :mod:`autoalign.models.tiny` (which only builds) so that building - reached from
``models.loading.resolve_model`` for ``tiny:NAME`` ids - never imports the backends, which import
``loading``: no import circle.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Callable

from autoalign.models.tiny import DEFAULT_TINY, build, check_name

logger = logging.getLogger(__name__)


def _check_generator(extra: dict | None = None) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        from autoalign.models.generator import DiffusersGenerator

        options = {"num_inference_steps": 1, "height": 32, "width": 32, **(extra or {})}
        _load_back(DiffusersGenerator, "diffusers", path, options).generate("a red cube", n=1, seed=0)

    return check


_check_sd = _check_generator()


def _check_editor(extra: dict) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        from PIL import Image

        from autoalign.models.editor import DiffusersEditor

        options = {"num_inference_steps": 1, "resolution": 32, **extra}
        editor = _load_back(DiffusersEditor, "diffusers-edit", path, options)
        editor.edit(Image.new("RGB", (32, 32), (200, 30, 30)), "make it blue", n=1, seed=0)

    return check


def _check_region_editor(extra: dict) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        from PIL import Image

        from autoalign.models.region_editor import InpaintRegionEditor
        from autoalign.types import Box, LayoutOp

        options = {"num_inference_steps": 2, "resolution": 32, **extra}
        editor = _load_back(InpaintRegionEditor, "diffusers-inpaint", path, options)
        editor.edit(Image.new("RGB", (32, 32), (200, 30, 30)), [LayoutOp("add", "a cat", target=Box((4, 4, 20, 20), 1.0))], n=1, seed=0)

    return check


def _check_ip2p(path: Path) -> None:
    from PIL import Image

    from autoalign.models.editor import InstructPix2PixEditor

    editor = _load_back(InstructPix2PixEditor, "instruct-pix2pix", path, {"num_inference_steps": 1, "resolution": 32})
    editor.edit(Image.new("RGB", (32, 32), (200, 30, 30)), "make it blue", n=1, seed=0)


def _check_clip(path: Path) -> None:
    from PIL import Image

    from autoalign.models.clip import OpenClipScorer

    _load_back(OpenClipScorer, "open_clip", path, {}).cosine([Image.new("RGB", (32, 32))], "a black square")


def _check_vqa(class_name: str, backend: str) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        import importlib

        from PIL import Image

        # The class itself, not registry.get: a lookup imports every backend module of the project.
        cls = getattr(importlib.import_module("autoalign.models.vqa"), class_name)
        _load_back(cls, backend, path, {}).yes_prob([Image.new("RGB", (32, 32))], ["is there a cat?"])

    return check


def _check_grounder(class_name: str, backend: str) -> Callable[[Path], None]:
    def check(path: Path) -> None:
        import importlib

        from PIL import Image

        cls = getattr(importlib.import_module("autoalign.models.grounder"), class_name)
        _load_back(cls, backend, path, {}).ground([Image.new("RGB", (32, 32))], ["a red circle"])

    return check


def _load_back(cls, backend: str, path: Path, options: dict):
    from autoalign.config import RoleSpec
    from autoalign.models.loading import DeviceSpec

    return cls(RoleSpec(backend=backend, model=str(path), options=dict(options)), DeviceSpec("cpu", "float32"))


#: How each tiny model is loaded back after building: the backend a preset would use, one tiny call.
LOAD_CHECKS: dict[str, Callable[[Path], None]] = {
    "sd": _check_sd,
    "ip2p": _check_ip2p,
    "clip": _check_clip,
    "llava": _check_vqa("ImageTextToTextVQA", "image-text-to-text"),
    "blip2": _check_vqa("Blip2VQA", "blip2"),
    "sdxl": _check_generator({"guidance_scale": 0.0}),
    "sd3": _check_generator(),
    "flux": _check_generator({"guidance_scale": 0.0, "max_sequence_length": 32}),
    "flux-kontext": _check_editor({"_auto_resize": False, "max_area": 32 * 32}),
    "qwen-image-edit": _check_editor({}),
    "sd-inpaint": _check_region_editor({}),
    "sdxl-inpaint": _check_region_editor({}),
    "flux-fill": _check_region_editor({"max_sequence_length": 32}),
    "qwen2_5_vl": _check_vqa("ImageTextToTextVQA", "image-text-to-text"),
    "internvl": _check_vqa("ImageTextToTextVQA", "image-text-to-text"),
    "owlv2": _check_grounder("Owlv2Grounder", "owlv2"),
    "grounding-dino": _check_grounder("GroundingDinoGrounder", "grounding-dino"),
    "segformer": _check_grounder("SegformerGrounder", "segformer"),
}


def make_all(out_dir: Path, names: list[str] | None = None, force: bool = False, check: bool = True) -> dict[str, Path]:
    """Build the named tiny models (default: the tiny preset's, :data:`DEFAULT_TINY`) into ``out_dir/NAME``,
    then load each back.

    The check loads each model through the backend a preset would use and makes one tiny call, so
    a model that builds but does not load fails here rather than in the middle of a run.
    """
    names = list(DEFAULT_TINY) if not names else list(dict.fromkeys(names))
    for name in names:
        check_name(name)
    built: dict[str, Path] = {}
    for name in names:
        built[name] = build(name, Path(out_dir), force=force)
        if check:
            LOAD_CHECKS[name](built[name])
            logger.info("tiny model %r loads back through its backend", name)
    return built
