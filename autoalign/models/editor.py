"""Instruction-based image editing (role ``editor``): any image-conditioned diffusers pipeline.

Backends:

``diffusers-edit``
    Whatever image-conditioned pipeline the preset names (``pipeline = "FluxKontextPipeline"``,
    ``"QwenImageEditPipeline"``, ...; default: the class in the model's ``model_index.json``),
    called as ``pipe(prompt=instruction, image=image, num_images_per_prompt=n, ...)``.
``instruct-pix2pix`` / ``magicbrush``
    ``StableDiffusionInstructPix2PixPipeline``; MagicBrush is InstructPix2Pix fine-tuned on the
    MagicBrush data, so only the checkpoint (and its sampler) differs.

Preset options::

    [editor]
    backend = "diffusers-edit"
    model = "black-forest-labs/FLUX.1-Kontext-dev"  # default per backend when omitted; or a directory, or tiny:NAME
    pipeline = "FluxKontextPipeline"
    guidance_scale = 2.5
    resolution = 1024                   # the long side the model works at (IP2P default 512)
    # scheduler = "EulerAncestralDiscreteScheduler"; variant; safety_checker = false; offload = "model";
    # negative_prompt = " " (Qwen-Image-Edit's true CFG needs one); any other __call__ keyword

An input of any size and mode is converted to RGB, resized (aspect kept) so its long side is
``resolution`` and both sides are multiples of the pipeline's latent grid, edited ``n`` times in one
batched call (sample ``i`` seeded ``seed + i``), and every output is resized back to the input's size.
A sample the safety checker blanks is redrawn from a new seed, never returned (see
:mod:`autoalign.models.generator`).
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from PIL import Image

from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import InputError
from autoalign.models.generator import (
    RESERVED_CALL_ARGS,
    WEIGHT_OPTIONS,
    LoadedPipeline,
    SharesWeights,
    blanked_flags,
    call_options,
    check_count,
    check_seed,
    load_pipeline,
    pipeline_class,
    redraw_blanked,
    safety_retries,
)
from autoalign.models.loading import DeviceSpec

logger = logging.getLogger(__name__)

DEFAULT_RESOLUTION = 512
OWN_OPTIONS: frozenset[str] = frozenset({"resolution"})
#: The editor has no negative-prompt input of its own, so a preset may set one (Qwen-Image-Edit's CFG).
EDITOR_RESERVED: frozenset[str] = RESERVED_CALL_ARGS - {"negative_prompt"}


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


class DiffusersEditor(SharesWeights):
    """Edits an image following a text instruction with an image-conditioned pipeline; weights load on first use."""

    role = "editor"
    #: What the model cache keys on (:mod:`autoalign.models.cache`); guidance scales, ``strength``,
    #: steps and every other call setting travel with each view of the loaded pipeline.
    load_options = WEIGHT_OPTIONS
    default_model: str | None = None
    default_pipeline: str | None = None  # a diffusers class name; None: model_index.json decides
    default_resolution = 1024

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        self.spec = spec
        self.device = device
        self.options = dict(spec.options)
        if self.default_pipeline and "pipeline" not in self.options:
            self.options["pipeline"] = self.default_pipeline
        self.model_id = spec.model or self.default_model
        resolution = self.options.get("resolution", self.default_resolution)
        if isinstance(resolution, bool) or not isinstance(resolution, int) or resolution < 8:
            raise ConfigError(f"[editor] resolution must be an integer >= 8 (got {resolution!r})")
        self.resolution = resolution
        self.safety_retries = safety_retries(self.options, self.role)
        self.blanked: list[dict[str, Any]] = []  # every sample the safety checker blanked: {"what", "seed"}
        self._weights = LoadedPipeline(self._load)
        self._call_kwargs: dict[str, Any] | None = None
        self._lock = threading.Lock()

    def _load(self):
        if not self.model_id:
            raise ConfigError("[editor] model is not set; give a hub id, a directory or tiny:NAME")
        cls = pipeline_class(self.options, self.role)
        return load_pipeline(cls, self.model_id, self.role, self.device, self.options, self.spec.offload)

    @property
    def pipe(self):
        """The loaded pipeline (loaded on first access, once; shared with every view)."""
        pipe = self._weights.get()
        with self._lock:
            if self._call_kwargs is None:
                self._call_kwargs = call_options(pipe, self.options, self.role, OWN_OPTIONS, EDITOR_RESERVED)
        return pipe

    def _grid(self, pipe) -> int:
        """The multiple both image sides must be: the VAE's factor, doubled for 2x2-packed latents (FLUX, Qwen-Image)."""
        factor = max(8, int(getattr(pipe, "vae_scale_factor", 8)))
        return factor * 2 if getattr(pipe, "transformer", None) is not None else factor

    def _call(self, pipe, work: Image.Image, instruction: str, seeds: list[int]):
        import inspect

        import torch

        kwargs = dict(self._call_kwargs)
        params = inspect.signature(pipe.__call__).parameters
        for key, value in (("width", work.width), ("height", work.height)):
            if key in params:
                kwargs.setdefault(key, value)
        return pipe(
            prompt=instruction,
            image=work,
            num_images_per_prompt=len(seeds),
            generator=[torch.Generator("cpu").manual_seed(s) for s in seeds],
            output_type="pil",
            **kwargs,
        )

    def edit(self, image: Image.Image, instruction: str, n: int, seed: int) -> list[Image.Image]:
        """``n`` edited versions of ``image`` (sample ``i`` seeded ``seed + i``), each of the input's size."""
        if not isinstance(image, Image.Image):
            raise InputError(f"image must be a PIL image (got {type(image).__name__})")
        if not isinstance(instruction, str) or not instruction.strip():
            raise InputError("instruction must be a non-empty string")
        n, seed = check_count(n), check_seed(seed)
        pipe = self.pipe
        source = to_rgb(image)
        size = working_size(source.size, self.resolution, self._grid(pipe))
        work = source.resize(size, Image.Resampling.LANCZOS) if size != source.size else source
        text = instruction.strip()

        def draw(seeds: list[int]):
            with self._call_lock:  # a pipeline call mutates its scheduler: one call at a time
                output = self._call(pipe, work, text, seeds)
            return list(output.images), blanked_flags(output, len(seeds))

        images, flags = draw([seed + i for i in range(n)])
        images = redraw_blanked(draw, images, flags, seed, self.safety_retries, self.role, text, self.blanked)
        out = []
        for edited in images:
            resized = edited if edited.size == image.size else edited.resize(image.size, Image.Resampling.LANCZOS)
            resized.info["seed"] = edited.info.get("seed")
            out.append(resized)
        return out



class InstructPix2PixEditor(DiffusersEditor):
    """InstructPix2Pix (``StableDiffusionInstructPix2PixPipeline``), one batched call of n (prompt, image) pairs."""

    default_model = "timbrooks/instruct-pix2pix"
    default_pipeline = "StableDiffusionInstructPix2PixPipeline"
    default_resolution = DEFAULT_RESOLUTION

    def _grid(self, pipe) -> int:
        return max(8, int(getattr(pipe, "vae_scale_factor", 8)))

    def _call(self, pipe, work: Image.Image, instruction: str, seeds: list[int]):
        import torch

        # n copies of the (prompt, image) pair: passing one image with num_images_per_prompt=n does the
        # same but is deprecated in diffusers' InstructPix2Pix pipeline (duplicated latents).
        return pipe(
            prompt=[instruction] * len(seeds),
            image=[work] * len(seeds),
            num_images_per_prompt=1,
            generator=[torch.Generator("cpu").manual_seed(s) for s in seeds],
            output_type="pil",
            **self._call_kwargs,
        )



class MagicBrushEditor(InstructPix2PixEditor):
    """MagicBrush: the InstructPix2Pix pipeline with MagicBrush's fine-tuned checkpoint.

    MagicBrush samples with Euler-ancestral; its preset sets ``scheduler = "EulerAncestralDiscreteScheduler"``.
    """

    default_model = "vinesmsuic/magicbrush-jul7"
