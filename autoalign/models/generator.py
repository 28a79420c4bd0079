"""Text-to-image with a diffusers pipeline (role ``generator``, backend ``diffusers``).

Any pipeline ``DiffusionPipeline.from_pretrained`` can load works (SD 1.5, SD-Turbo, SDXL(-Turbo),
SD 3.5, FLUX.1 ...): the model id may be a hub id, a local directory, or ``tiny:NAME``. Preset options::

    [generator]
    backend = "diffusers"
    model = "stabilityai/sd-turbo"
    num_inference_steps = 1
    guidance_scale = 0.0
    height = 512
    width = 512
    variant = "fp16"          # load the repo's fp16 weight files (smaller download), when it has them
    # scheduler = "EulerAncestralDiscreteScheduler"   # any diffusers scheduler class, from the model's config
    # safety_checker = false  # research use: drop the pipeline's safety checker (SD 1.5, IP2P)
    # pipeline = "StableDiffusion3Pipeline"            # a diffusers pipeline class; default: model_index.json's
    # batch_size = 4 (images per pipeline call); offload = "model" (enable_model_cpu_offload)
    # and any other keyword the pipeline's __call__ takes (unknown names are a ConfigError)

Candidate ``i`` of a call is drawn from its own CPU ``torch.Generator`` seeded with ``seed + i``, so the
same seed gives the same images and candidate ``i``'s noise does not depend on how many were asked
for. Images made in one batch can differ from the same image made alone by float rounding (at most a
level or two of 255 on the tiny model); with ``batch_size = 1`` they are bit-identical.

Safety checker. When the pipeline's checker blanks an image (SD 1.5, InstructPix2Pix keep one), that
black image is never returned as a candidate: it is logged, recorded in ``backend.blanked`` (prompt
and seed) and redrawn from a fresh seed (``seed + n * attempt + i``, recorded in the image's
``info["seed"]``), up to ``safety_retries`` times (default 2); after that :class:`SafetyBlanked` is
raised. ``safety_checker = false`` removes the checker for research use.

Negative prompts. Models distilled to run without classifier-free guidance (SD-Turbo, SDXL-Turbo,
FLUX.1-schnell; ``guidance_scale <= 1``) ignore a negative prompt: a warning says so, once.
"""

from __future__ import annotations

import inspect
import logging
import threading
from typing import Any

from PIL import Image

from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import AutoAlignError, InputError
from autoalign.models.hf_logging import quiet_hf_progress
from autoalign.models.loading import DeviceSpec, gated_as_unavailable, hub_revision, resolve_model

logger = logging.getLogger(__name__)

#: Options used when loading the pipeline (not passed to ``__call__``).
LOAD_OPTIONS: frozenset[str] = frozenset(
    {"variant", "use_safetensors", "scheduler", "safety_checker", "pipeline", "safety_retries", "revision"}
)
#: The options that change the loaded weights: the model cache's key (:mod:`autoalign.models.cache`);
#: every other option is a call-time setting that a view of the loaded pipeline carries.
WEIGHT_OPTIONS: frozenset[str] = frozenset({"variant", "use_safetensors", "scheduler", "safety_checker", "pipeline",
                                            "revision"})
#: Options this module handles itself (``negative_prompt``: the default when a run gives none).
OWN_OPTIONS: frozenset[str] = frozenset({"batch_size", "negative_prompt"})
DEFAULT_SAFETY_RETRIES = 2


class SafetyBlanked(AutoAlignError, RuntimeError):
    """The pipeline's safety checker blanked every redraw of an image; the message says what to do."""
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


def pipeline_class(options: dict[str, Any], role: str, default: Any = None):
    """The diffusers pipeline class named by ``options["pipeline"]`` (default: ``default``, else
    ``DiffusionPipeline``, which reads the class from the model's ``model_index.json``)."""
    import diffusers

    name = options.get("pipeline")
    if name is None:
        return default or diffusers.DiffusionPipeline
    cls = getattr(diffusers, str(name), None)
    if not (isinstance(cls, type) and issubclass(cls, diffusers.DiffusionPipeline)):
        raise ConfigError(
            f"[{role}] pipeline {name!r} is not a diffusers pipeline class (e.g. FluxKontextPipeline, "
            f"QwenImageEditPipeline, StableDiffusionInstructPix2PixPipeline)"
        )
    return cls


def set_scheduler(pipe, name: Any, role: str) -> None:
    """Swap the pipeline's scheduler for diffusers class ``name``, built from the current scheduler's config."""
    import diffusers

    cls = getattr(diffusers, str(name), None)
    if not (isinstance(cls, type) and issubclass(cls, diffusers.SchedulerMixin)):
        compatible = sorted(c.__name__ for c in getattr(pipe.scheduler, "compatibles", []))
        raise ConfigError(
            f"[{role}] scheduler {name!r} is not a diffusers scheduler class; compatible with this model: "
            f"{', '.join(compatible) or '(unknown)'}"
        )
    compatible = {c.__name__ for c in getattr(pipe.scheduler, "compatibles", [])}
    if compatible and cls.__name__ not in compatible and cls.__name__ != type(pipe.scheduler).__name__:
        raise ConfigError(
            f"[{role}] scheduler {name!r} does not fit {type(pipe.scheduler).__name__}'s model; "
            f"compatible: {', '.join(sorted(compatible))}"
        )
    pipe.scheduler = cls.from_config(pipe.scheduler.config)


def _has_safety_checker(pipeline_cls, path: str) -> bool:
    """Whether the model's pipeline has a ``safety_checker`` component (read from model_index.json)."""
    try:
        config = pipeline_cls.load_config(path)
    except Exception:  # noqa: BLE001 - an unreadable index: let from_pretrained report it
        return False
    return "safety_checker" in config


def place_pipeline(pipe, device: DeviceSpec, offload: str, role: str):
    """Move ``pipe`` to the device, or install diffusers' CPU offload hooks (``offload`` model/sequential)."""
    if offload != "none" and device.device.startswith("cuda"):
        logger.info("%s: %s CPU offload onto %s", role, offload, device.device)
        if offload == "model":
            pipe.enable_model_cpu_offload(device=device.device)
        else:
            pipe.enable_sequential_cpu_offload(device=device.device)
        return pipe
    if offload != "none":
        logger.warning("%s: offload = %r needs a CUDA device; running on %s without it", role, offload, device.device)
    return pipe.to(device.device)


def load_pipeline(
    pipeline_cls, model_id: str, role: str, device: DeviceSpec, options: dict[str, Any], offload: str = "none"
):
    """Load a diffusers pipeline from a hub id, directory or ``tiny:NAME`` onto ``device``.

    Handles the load options (``variant``, ``use_safetensors``, ``scheduler``, ``safety_checker``).
    The per-call progress bar is switched off: runs show their own progress.
    """
    variant = options.get("variant")
    revision = hub_revision(model_id, options)
    path = resolve_model(model_id, role, variant=variant, revision=revision)
    kwargs = {k: options[k] for k in ("variant", "use_safetensors") if k in options}
    if revision and path == model_id:  # a hub id (offline, ``path`` is the snapshot at that revision)
        kwargs["revision"] = revision
    safety = options.get("safety_checker", True)
    if not isinstance(safety, bool):
        raise ConfigError(f"[{role}] safety_checker must be true or false (got {safety!r})")
    if not safety and _has_safety_checker(pipeline_cls, path):
        kwargs.update(safety_checker=None, requires_safety_checker=False)
        logger.warning("%s: the safety checker is OFF (safety_checker = false): research use only", role)
    logger.info("loading %s pipeline from %s (%s, %s)", role, path, device.device, device.dtype)
    kwargs[_dtype_keyword()] = device.torch_dtype
    with quiet_hf_progress(), gated_as_unavailable(model_id, role):
        pipe = pipeline_cls.from_pretrained(path, **kwargs)
    if options.get("scheduler"):
        set_scheduler(pipe, options["scheduler"], role)
    pipe = place_pipeline(pipe, device, offload, role)
    pipe.set_progress_bar_config(disable=True)
    return pipe


def safety_retries(options: dict[str, Any], role: str) -> int:
    value = options.get("safety_retries", DEFAULT_SAFETY_RETRIES)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigError(f"[{role}] safety_retries must be an integer >= 0 (got {value!r})")
    return value


def call_options(
    pipe, options: dict[str, Any], role: str, handled: frozenset[str], reserved: frozenset[str] = RESERVED_CALL_ARGS
) -> dict[str, Any]:
    """The preset options that go to ``pipe.__call__``; unknown or reserved names raise ConfigError."""
    params = set(inspect.signature(pipe.__call__).parameters) - {"self", "kwargs"}
    allowed = params - reserved
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


def blanked_flags(output: Any, count: int) -> list[bool]:
    """Per image, whether the pipeline's safety checker blanked it (all False when it has none)."""
    flags = getattr(output, "nsfw_content_detected", None)
    if not flags:
        return [False] * count
    return [bool(f) for f in flags]


def redraw_blanked(
    draw, images: list[Image.Image], flags: list[bool], seed: int, retries: int, role: str, what: str, record: list
) -> list[Image.Image]:
    """Replace every blanked image ``i`` by a redraw from seed ``seed + n * attempt + i``.

    ``draw(seeds) -> (images, flags)`` makes one image per seed. Each blanked draw is appended to
    ``record`` as ``{"what", "seed"}``; an image still blanked after ``retries`` redraws raises
    :class:`SafetyBlanked`. Every returned image carries the seed it was drawn from in ``info["seed"]``.
    """
    n = len(images)
    for i, image in enumerate(images):
        image.info["seed"] = seed + i
    pending = [i for i, f in enumerate(flags) if f]
    for attempt in range(1, retries + 1):
        if not pending:
            break
        for i in pending:
            record.append({"what": what, "seed": images[i].info["seed"]})
        logger.warning(
            "%s: the safety checker blanked %d image(s) for %r; redrawing them with new seeds (attempt %d of %d)",
            role, len(pending), what, attempt, retries,
        )
        seeds = [seed + n * attempt + i for i in pending]
        redrawn, redrawn_flags = draw(seeds)
        still = []
        for i, new_seed, image, flag in zip(pending, seeds, redrawn, redrawn_flags):
            image.info["seed"] = new_seed
            images[i] = image
            if flag:
                still.append(i)
        pending = still
    if pending:
        for i in pending:
            record.append({"what": what, "seed": images[i].info["seed"]})
        raise SafetyBlanked(
            f"{role}: the pipeline's safety checker blanked {len(pending)} image(s) for {what!r} even after "
            f"{retries} redraw(s); a black image is never scored. Rephrase, or for research use set "
            f"[{role}] safety_checker = false"
        )
    return images


def negative_prompt_ignored(pipe, call_kwargs: dict[str, Any]) -> str | None:
    """Why ``pipe`` would ignore a negative prompt with these settings, or None when it uses it."""
    params = inspect.signature(pipe.__call__).parameters
    if "negative_prompt" not in params:
        return f"{type(pipe).__name__} takes no negative prompt"
    if "true_cfg_scale" in params:  # FLUX, Qwen-Image: a negative prompt needs true CFG
        true_cfg = call_kwargs.get("true_cfg_scale", params["true_cfg_scale"].default)
        if isinstance(true_cfg, (int, float)) and true_cfg <= 1:
            return f"true_cfg_scale = {true_cfg} (> 1 turns true classifier-free guidance on)"
        return None
    guidance = call_kwargs.get("guidance_scale", params["guidance_scale"].default if "guidance_scale" in params else None)
    if isinstance(guidance, (int, float)) and guidance <= 1:
        return (
            f"guidance_scale = {guidance} turns classifier-free guidance off (as SD-Turbo and SDXL-Turbo run), "
            "and only guidance reads a negative prompt"
        )
    return None


class LoadedPipeline:
    """One loaded pipeline shared by a backend and its views (:meth:`DiffusersGenerator.with_spec`):
    loaded on first use, released on demand, one pipeline call at a time."""

    def __init__(self, load):
        self._load = load
        self._pipe = None
        self._lock = threading.Lock()
        self.call_lock = threading.Lock()  # a pipeline call mutates its scheduler: one call at a time

    def get(self):
        with self._lock:
            if self._pipe is None:
                self._pipe = self._load()
            return self._pipe

    def release(self) -> bool:
        with self._lock:
            held, self._pipe = self._pipe is not None, None
            return held


class SharesWeights:
    """What a diffusers backend and its call-time views share: one :class:`LoadedPipeline` in ``_weights``.
    The model cache keys a backend by its load-time options only; ``with_spec`` gives a view with other
    call-time settings (guidance scales, steps) over the same weights."""

    _weights: LoadedPipeline

    def with_spec(self, spec: RoleSpec):
        """A view with ``spec``'s call-time settings sharing these weights (``spec`` differs only in those)."""
        view = type(self)(spec, self.device)
        view._weights = self._weights
        return view

    @property
    def _call_lock(self):
        return self._weights.call_lock

    @property
    def _pipe(self):
        """The loaded pipeline, or None (shared with every view; a test may set a double here)."""
        return self._weights._pipe

    @_pipe.setter
    def _pipe(self, pipe) -> None:
        self._weights._pipe = pipe

    def release(self) -> bool:
        """Drop the loaded weights (sequential loading); they load again on next use. True if any were held."""
        return self._weights.release()


class DiffusersGenerator(SharesWeights):
    """Text-to-image through any diffusers ``DiffusionPipeline``; weights load on first use."""

    role = "generator"
    #: What the model cache keys on (:mod:`autoalign.models.cache`); the rest are call-time settings.
    load_options = WEIGHT_OPTIONS

    def __init__(self, spec: RoleSpec, device: DeviceSpec):
        self.spec = spec
        self.device = device
        self.options = dict(spec.options)
        self.batch_size = check_count(self.options.get("batch_size", 4), "[generator] batch_size")
        self.safety_retries = safety_retries(self.options, self.role)
        self.blanked: list[dict[str, Any]] = []  # every image the safety checker blanked: {"what", "seed"}
        self._weights = LoadedPipeline(self._load)
        self._call_kwargs: dict[str, Any] | None = None
        self._negative_ignored: str | None = None
        self._warned_negative = False
        self._lock = threading.Lock()

    def _load(self):
        if not self.spec.model:
            raise ConfigError("[generator] model is not set; give a hub id, a directory or tiny:sd")
        cls = pipeline_class(self.options, self.role)
        return load_pipeline(cls, self.spec.model, self.role, self.device, self.options, self.spec.offload)

    @property
    def pipe(self):
        """The loaded pipeline (loaded on first access, once; shared with every view)."""
        pipe = self._weights.get()
        with self._lock:
            if self._call_kwargs is None:
                self._call_kwargs = call_options(pipe, self.options, self.role, OWN_OPTIONS)
                self._negative_ignored = negative_prompt_ignored(pipe, self._call_kwargs)
        return pipe

    def _draw(self, prompt: str, seeds: list[int], negative_prompt: str | None) -> tuple[list[Image.Image], list[bool]]:
        import torch

        kwargs = dict(self._call_kwargs)
        if negative_prompt and self._negative_ignored is None:
            kwargs["negative_prompt"] = negative_prompt
        generators = [torch.Generator("cpu").manual_seed(s) for s in seeds]
        with self._call_lock:  # a pipeline call mutates its scheduler: one call at a time
            output = self.pipe(
                prompt=prompt, num_images_per_prompt=len(seeds), generator=generators, output_type="pil", **kwargs
            )
        return list(output.images), blanked_flags(output, len(seeds))

    def generate(self, prompt: str, n: int, seed: int, negative_prompt: str | None = None) -> list[Image.Image]:
        """``n`` images for ``prompt``; image ``i`` depends only on (prompt, seed + i, options)."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise InputError("prompt must be a non-empty string")
        n, seed = check_count(n), check_seed(seed)
        negative_prompt = negative_prompt or self.options.get("negative_prompt") or None
        self.pipe  # noqa: B018 - load (and learn whether a negative prompt is read) before drawing
        if negative_prompt and self._negative_ignored and not self._warned_negative:
            logger.warning("generator: the negative prompt is ignored: %s", self._negative_ignored)
            self._warned_negative = True
        images: list[Image.Image] = []
        flags: list[bool] = []
        for start in range(0, n, self.batch_size):
            count = min(self.batch_size, n - start)
            batch, batch_flags = self._draw(prompt, list(range(seed + start, seed + start + count)), negative_prompt)
            images.extend(batch)
            flags.extend(batch_flags)

        def draw(seeds: list[int]):
            drawn, drawn_flags = [], []
            for start in range(0, len(seeds), self.batch_size):
                batch, batch_flags = self._draw(prompt, seeds[start : start + self.batch_size], negative_prompt)
                drawn.extend(batch)
                drawn_flags.extend(batch_flags)
            return drawn, drawn_flags

        return redraw_blanked(draw, images, flags, seed, self.safety_retries, self.role, prompt, self.blanked)

    def _reading_tokenizer(self):
        """The tokenizer of the text encoder that reads the longest prompt, and how many tokens it reads.

        SD 1.5/SDXL: CLIP's 77. FLUX and SD 3.5 also feed the prompt to T5, which reads the call's
        ``max_sequence_length`` (FLUX's pipelines 512 by default, SD 3.5's 256): a prompt past CLIP's 77
        tokens is still read whole there.
        """
        pipe = self.pipe
        params = inspect.signature(pipe.__call__).parameters
        best: tuple[Any, int | None] = (None, None)
        for name in ("tokenizer", "tokenizer_2", "tokenizer_3"):
            tok = getattr(pipe, name, None)
            if tok is None:
                continue
            limit = getattr(tok, "model_max_length", None)
            if "T5" in type(tok).__name__ and "max_sequence_length" in params:  # the call sets what T5 reads
                seq = (self._call_kwargs or {}).get("max_sequence_length", params["max_sequence_length"].default)
                if isinstance(seq, int) and seq > 0:
                    limit = seq
            if not (isinstance(limit, int) and 0 < limit < 1_000_000):
                continue
            if best[1] is None or limit > best[1]:
                best = (tok, limit)
        return best

    def _tokenizer(self):
        return self._reading_tokenizer()[0]

    def max_prompt_tokens(self) -> int | None:
        """Tokens the longest-reading text encoder takes, special tokens included; None if unknown."""
        return self._reading_tokenizer()[1]

    def count_prompt_tokens(self, prompt: str) -> int:
        """Tokens ``prompt`` takes, special tokens included (compare with :meth:`max_prompt_tokens`)."""
        tok = self._tokenizer()
        if tok is None:
            return len(prompt.split())
        return len(tok(prompt, truncation=False, verbose=False)["input_ids"])
