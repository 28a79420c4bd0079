"""Instruction-based image editing (role ``editor``): InstructPix2Pix and MagicBrush.

Both use diffusers' ``StableDiffusionInstructPix2PixPipeline``; MagicBrush is InstructPix2Pix
fine-tuned on the MagicBrush data, so only the checkpoint differs. Preset options::

    [editor]
    backend = "instruct-pix2pix"        # or "magicbrush"
    model = "timbrooks/instruct-pix2pix"  # default per backend when omitted; or a directory, or tiny:ip2p
    num_inference_steps = 20
    guidance_scale = 7.5                # how strongly to follow the instruction
    image_guidance_scale = 1.5          # how strongly to stay close to the input image
    resolution = 512                    # the long side the model works at (tiny preset: 64)

An input of any size and mode is converted to RGB, resized (aspect kept) so its long side is
``resolution`` and both sides are multiples of 8, edited ``n`` times in one batched call (sample ``i``
seeded ``seed + i``), and every
output is resized back to the input's size.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from PIL import Image

from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import InputError
from autoalign.models.generator import (
    call_options,
    check_count,
    check_seed,
    load_pipeline,
    seeded_generators,
    warn_if_flagged,
)
from autoalign.models.loading import DeviceSpec
from autoalign.registry import register

logger = logging.getLogger(__name__)

DEFAULT_RESOLUTION = 512
OWN_OPTIONS: frozenset[str] = frozenset({"resolution"})


def to_rgb(image: Image.Image) -> Image.Image:
    """RGB copy of any PIL image; transparent areas are composited onto white."""
    if image.mode == "RGB":
        return image
    if image.mode in ("RGBA", "LA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(background, rgba).convert("RGB")
    return image.convert("RGB")


def working_size(size: tuple[int, int], resolution: int, multiple: int = 8) -> tuple[int, int]:
    """(width, height) with the long side ``resolution`` (rounded down to ``multiple``), aspect kept,
    both sides multiples of ``multiple`` and at least ``multiple``."""
    width, height = size
    long_side = max(multiple, resolution - resolution % multiple)
    scale = long_side / max(width, height)

    def fit(side: int) -> int:
        return max(multiple, int(round(side * scale / multiple)) * multiple)

    return min(fit(width), long_side), min(fit(height), long_side)


class InstructPix2PixEditor:
    """Edits an image following a text instruction; weights load on first use."""

    role = "editor"
    default_model = "timbrooks/instruct-pix2pix"

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        self.spec = spec
        self.device = device
        self.options = dict(spec.options)
        self.model_id = spec.model or self.default_model
        resolution = self.options.get("resolution", DEFAULT_RESOLUTION)
        if isinstance(resolution, bool) or not isinstance(resolution, int) or resolution < 8:
            raise ConfigError(f"[editor] resolution must be an integer >= 8 (got {resolution!r})")
        self.resolution = resolution
        self._pipe = None
        self._call_kwargs: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._call_lock = threading.Lock()

    @property
    def pipe(self):
        """The loaded InstructPix2Pix pipeline (loaded on first access, once)."""
        with self._lock:
            if self._pipe is None:
                from diffusers import StableDiffusionInstructPix2PixPipeline

                pipe = load_pipeline(
                    StableDiffusionInstructPix2PixPipeline, self.model_id, self.role, self.device, self.options
                )
                self._call_kwargs = call_options(pipe, self.options, self.role, OWN_OPTIONS)
                self._pipe = pipe
            return self._pipe

    def edit(self, image: Image.Image, instruction: str, n: int, seed: int) -> list[Image.Image]:
        """``n`` edited versions of ``image`` (sample ``i`` seeded ``seed + i``), each of the input's size."""
        if not isinstance(image, Image.Image):
            raise InputError(f"image must be a PIL image (got {type(image).__name__})")
        if not isinstance(instruction, str) or not instruction.strip():
            raise InputError("instruction must be a non-empty string")
        n, seed = check_count(n), check_seed(seed)
        pipe = self.pipe
        multiple = max(8, int(getattr(pipe, "vae_scale_factor", 8)))
        source = to_rgb(image)
        size = working_size(source.size, self.resolution, multiple)
        work = source.resize(size, Image.Resampling.LANCZOS) if size != source.size else source
        # One batched call: n copies of the (prompt, image) pair. Passing one image with
        # num_images_per_prompt=n does the same but is deprecated in diffusers (duplicated latents).
        with self._call_lock:  # a pipeline call mutates its scheduler: one call at a time
            output = pipe(
                prompt=[instruction.strip()] * n,
                image=[work] * n,
                num_images_per_prompt=1,
                generator=seeded_generators(seed, n),
                output_type="pil",
                **self._call_kwargs,
            )
        warn_if_flagged(output, self.role)
        return [
            out if out.size == image.size else out.resize(image.size, Image.Resampling.LANCZOS)
            for out in output.images
        ]


register("editor", "instruct-pix2pix")(InstructPix2PixEditor)


@register("editor", "magicbrush")
class MagicBrushEditor(InstructPix2PixEditor):
    """MagicBrush: the InstructPix2Pix pipeline with MagicBrush's fine-tuned checkpoint."""

    default_model = "vinesmsuic/magicbrush-jul7"
