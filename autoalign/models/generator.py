"""Text-to-image with a diffusers pipeline (role ``generator``, backend ``diffusers``).

Any pipeline ``DiffusionPipeline.from_pretrained`` can load works (SD 1.5, SD-Turbo, SDXL, ...):
the model id may be a hub id, a local directory, or ``tiny:sd``. Preset options::

    [generator]
    backend = "diffusers"
    model = "stabilityai/sd-turbo"
    num_inference_steps = 1
    guidance_scale = 0.0
    height = 512
    width = 512
    # optional: variant = "fp16"; batch_size = 4 (images per pipeline call);
    # and any other keyword the pipeline's __call__ takes (unknown names are a ConfigError)

Candidate ``i`` of a call is drawn from its own CPU ``torch.Generator`` seeded with ``seed + i``, so the
same seed gives the same images and candidate ``i``'s noise does not depend on how many were asked
for. Images made in one batch can differ from the same image made alone by float rounding (at most a
level or two of 255 on the tiny model); with ``batch_size = 1`` they are bit-identical.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import threading
from typing import Any, Iterator

from PIL import Image

from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import InputError
from autoalign.models.loading import DeviceSpec, resolve_model
from autoalign.registry import register

logger = logging.getLogger(__name__)

#: Options used when loading the pipeline (not passed to ``__call__``).
LOAD_OPTIONS: frozenset[str] = frozenset({"variant", "use_safetensors"})
#: Options this module handles itself (``negative_prompt``: the default when a run gives none).
OWN_OPTIONS: frozenset[str] = frozenset({"batch_size", "negative_prompt"})
#: ``__call__`` arguments the backend sets itself; a preset may not override them.
RESERVED_CALL_ARGS: frozenset[str] = frozenset(
    {"prompt", "negative_prompt", "image", "num_images_per_prompt", "generator", "output_type", "return_dict",
     "latents"}
)


def _dtype_keyword() -> str:
    """``dtype`` on recent diffusers (where ``torch_dtype`` is deprecated), ``torch_dtype`` before."""
    try:
        from diffusers.utils.deprecation_utils import _resolve_dtype  # noqa: F401  (added with `dtype`)
    except ImportError:
        return "torch_dtype"
    return "dtype"


@contextlib.contextmanager
def quiet_hf_progress() -> Iterator[None]:
    """Hide diffusers'/transformers' load and save progress bars unless INFO logging is on.

    Loading a tiny model would otherwise print several bars per call; runs show their own progress.
    Restores each library's previous setting afterwards.
    """
    from diffusers.utils import logging as diffusers_logging
    from transformers.utils import logging as transformers_logging

    if logger.isEnabledFor(logging.INFO):
        yield
        return
    libs = [diffusers_logging, transformers_logging]
    before = [lib.is_progress_bar_enabled() for lib in libs]
    for lib in libs:
        lib.disable_progress_bar()
    try:
        yield
    finally:
        for lib, enabled in zip(libs, before):
            if enabled:
                lib.enable_progress_bar()


def load_pipeline(pipeline_cls, model_id: str, role: str, device: DeviceSpec, options: dict[str, Any]):
    """Load a diffusers pipeline from a hub id, directory or ``tiny:NAME`` onto ``device``.

    The per-call progress bar is switched off: runs show their own progress.
    """
    path = resolve_model(model_id, role)
    kwargs = {k: options[k] for k in LOAD_OPTIONS if k in options}
    logger.info("loading %s pipeline from %s (%s, %s)", role, path, device.device, device.dtype)
    kwargs[_dtype_keyword()] = device.torch_dtype
    with quiet_hf_progress():
        pipe = pipeline_cls.from_pretrained(path, **kwargs)
    pipe = pipe.to(device.device)
    pipe.set_progress_bar_config(disable=True)
    return pipe


def call_options(pipe, options: dict[str, Any], role: str, handled: frozenset[str]) -> dict[str, Any]:
    """The preset options that go to ``pipe.__call__``; unknown or reserved names raise ConfigError."""
    params = set(inspect.signature(pipe.__call__).parameters) - {"self", "kwargs"}
    allowed = params - RESERVED_CALL_ARGS
    passed = {k: v for k, v in options.items() if k not in handled and k not in LOAD_OPTIONS}
    bad = sorted(k for k in passed if k not in allowed)
    if bad:
        raise ConfigError(
            f"[{role}] option(s) {', '.join(bad)} not understood by {type(pipe).__name__}; allowed: "
            f"{', '.join(sorted(allowed | handled | LOAD_OPTIONS))}"
        )
    return passed


def check_count(n: Any, field: str = "n") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"{field} must be a positive integer (got {n!r})")
    return n


def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed must be a non-negative integer (got {seed!r})")
    return seed


def seeded_generators(seed: int, n: int) -> list:
    """One CPU ``torch.Generator`` per sample, seeded ``seed + i`` (CPU: same noise on any device)."""
    import torch

    return [torch.Generator("cpu").manual_seed(seed + i) for i in range(n)]


def warn_if_flagged(output: Any, role: str) -> None:
    flags = getattr(output, "nsfw_content_detected", None)
    if flags and any(flags):
        logger.warning("%s: the pipeline's safety checker blanked %d image(s)", role, sum(bool(f) for f in flags))


@register("generator", "diffusers")
class DiffusersGenerator:
    """Text-to-image through any diffusers ``DiffusionPipeline``; weights load on first use."""

    role = "generator"

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        self.spec = spec
        self.device = device
        self.options = dict(spec.options)
        self.batch_size = check_count(self.options.get("batch_size", 4), "[generator] batch_size")
        self._pipe = None
        self._call_kwargs: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._call_lock = threading.Lock()

    @property
    def pipe(self):
        """The loaded pipeline (loaded on first access, once)."""
        with self._lock:
            if self._pipe is None:
                from diffusers import DiffusionPipeline

                if not self.spec.model:
                    raise ConfigError("[generator] model is not set; give a hub id, a directory or tiny:sd")
                pipe = load_pipeline(DiffusionPipeline, self.spec.model, self.role, self.device, self.options)
                self._call_kwargs = call_options(pipe, self.options, self.role, OWN_OPTIONS)
                self._pipe = pipe
            return self._pipe

    def generate(self, prompt: str, n: int, seed: int, negative_prompt: str | None = None) -> list[Image.Image]:
        """``n`` images for ``prompt``; image ``i`` depends only on (prompt, seed + i, options)."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise InputError("prompt must be a non-empty string")
        n, seed = check_count(n), check_seed(seed)
        pipe = self.pipe
        images: list[Image.Image] = []
        for start in range(0, n, self.batch_size):
            count = min(self.batch_size, n - start)
            kwargs = dict(self._call_kwargs)
            negative_prompt = negative_prompt or self.options.get("negative_prompt") or None
            if negative_prompt:
                kwargs["negative_prompt"] = negative_prompt
            with self._call_lock:  # a pipeline call mutates its scheduler: one call at a time
                output = pipe(
                    prompt=prompt,
                    num_images_per_prompt=count,
                    generator=seeded_generators(seed + start, count),
                    output_type="pil",
                    **kwargs,
                )
            warn_if_flagged(output, self.role)
            images.extend(output.images)
        return images

    def _tokenizer(self):
        return getattr(self.pipe, "tokenizer", None)

    def max_prompt_tokens(self) -> int | None:
        """Tokens the (first) text encoder reads, special tokens included; None if unknown."""
        tok = self._tokenizer()
        limit = getattr(tok, "model_max_length", None)
        return int(limit) if isinstance(limit, int) and 0 < limit < 1_000_000 else None

    def count_prompt_tokens(self, prompt: str) -> int:
        """Tokens ``prompt`` takes, special tokens included (compare with :meth:`max_prompt_tokens`)."""
        tok = self._tokenizer()
        if tok is None:
            return len(prompt.split())
        return len(tok(prompt, truncation=False, verbose=False)["input_ids"])
