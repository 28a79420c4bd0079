"""The public Python API: correct a prompt's image, score images, find mismatches (for notebooks).

::

    import autoalign

    result = autoalign.align("two red apples on a blue plate", preset="tiny", max_rounds=1, seed=3)
    result.image                     # the final image (PIL), loaded from result.run_dir on first use
    result.rounds, result.stop_reason, result.scores.final, result.mismatches_after
    for r in result.round_records:   # each edit round: its instructions, samples and decisions
        print(r.round, [(a.instruction.text, a.decision.reason) for a in r.attempts])

    cards = autoalign.score(["a.png", "b.png"], "a red car")      # list[ScoreCard], one per image
    found = autoalign.detect("a.png", "a red car")                 # list[Mismatch] (0-3)

Every function takes a ``preset`` (a name from ``autoalign models list`` or a ``.toml`` path), an
optional ``config`` (a :class:`~autoalign.config.Config`, a TOML/YAML/JSON file of overrides, or a
dict of them) and keyword overrides: a loop setting by its name (``max_rounds=2``,
``candidates=1``, ``threshold=0.9``: the fields of :class:`~autoalign.config.LoopSettings`),
``writer`` / ``device`` / ``dtype``, or a whole section as a dict (``scoring={"primary": "clip"}``,
``generator={"model": "/models/sd-turbo"}``). Only what you pass overrides the preset. Models load
once per process and are shared by later calls. Bad input raises
:class:`~autoalign.errors.AutoAlignError` (its subclasses ``InputError`` / ``ConfigError``) with a
message naming what to fix.

With the ``tiny`` preset the models have random weights: the scores and images mean nothing; use it
to try the API, and a real preset (``sd-turbo``) for results.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from autoalign.errors import InputError

if TYPE_CHECKING:
    from PIL import Image

    from autoalign.config import Config
    from autoalign.types import Mismatch, RunResult, ScoreCard, StreamUpdate

ImageLike = Union[str, os.PathLike, "Image.Image"]
ConfigLike = Union["Config", str, os.PathLike, dict]

_TOP_LEVEL = ("writer", "device", "dtype", "description")
_SECTIONS = ("loop", "scoring", "detection")

__all__ = ["align", "score", "detect", "resolve_config", "open_images"]


def resolve_config(preset: str = "tiny", config: ConfigLike | None = None, **overrides: Any) -> "Config":
    """The run configuration: ``preset``, then ``config``, then the keyword ``overrides``; validated."""
    from autoalign.config import (
        MODEL_ROLES,
        OPTIONAL_ROLES,
        Config,
        ConfigError,
        LoopSettings,
        deep_merge,
        from_dict,
        load_config,
    )

    loop_fields = set(LoopSettings.__dataclass_fields__)
    nested: dict[str, Any] = {}
    for key, value in overrides.items():
        if key in loop_fields:
            nested.setdefault("loop", {})[key] = value
        elif key in _TOP_LEVEL:
            nested[key] = value
        elif key in MODEL_ROLES or key in OPTIONAL_ROLES or key in _SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{key} must be a dict of fields to override (got {type(value).__name__})")
            nested[key] = deep_merge(nested.get(key, {}), value)
        else:
            allowed = sorted(loop_fields | set(_TOP_LEVEL) | set(MODEL_ROLES) | set(OPTIONAL_ROLES) | set(_SECTIONS))
            raise ConfigError(f"unknown setting {key!r}; allowed: {', '.join(allowed)}")
    if config is None or isinstance(config, (str, os.PathLike)):
        return load_config(preset, config, nested)
    if isinstance(config, dict):
        return load_config(preset, None, deep_merge(config, nested))
    if isinstance(config, Config):  # a resolved Config: the preset argument is not used
        return from_dict(deep_merge(config.to_dict(), nested))
    raise ConfigError(f"config must be a Config, a file path or a dict (got {type(config).__name__})")


def open_images(images: ImageLike | Sequence[ImageLike]) -> list["Image.Image"]:
    """RGB PIL images from paths or PIL images (one or a list); InputError naming the first bad one.

    Paths open through :func:`autoalign.images.open_image` (missing, not an image, damaged, a
    decompression bomb or over the pixel limit are refused there).
    """
    from PIL import Image

    from autoalign.images import open_image

    items = [images] if isinstance(images, (str, os.PathLike, Image.Image)) else list(images)
    if not items:
        raise InputError("no images given; pass an image path, a PIL image, or a list of them")
    out = []
    for item in items:
        if isinstance(item, Image.Image):
            out.append(item.convert("RGB"))
            continue
        if not isinstance(item, (str, os.PathLike)):
            raise InputError(f"image must be a file path or a PIL image (got {type(item).__name__})")
        out.append(open_image(Path(item)))
    return out


def align(
    prompt: str,
    preset: str = "tiny",
    *,
    config: ConfigLike | None = None,
    image: ImageLike | None = None,
    out_dir: str | os.PathLike | None = None,
    seed: int | None = None,
    negative_prompt: str | None = None,
    on_step: Callable[["StreamUpdate"], None] | None = None,
    **overrides: Any,
) -> "RunResult":
    """Run the self-correction loop on ``prompt`` and return its :class:`~autoalign.types.RunResult`.

    ``image``: correct this image (a path or a PIL image) instead of generating candidates.
    ``out_dir``: the run directory (empty or new; default: a new temporary directory, kept, named by
    ``result.run_dir``). ``seed`` sets ``loop.seed``. ``on_step`` is called with each
    :class:`~autoalign.types.StreamUpdate` as the loop runs (progress in a notebook).
    The result's ``image`` is the final image as PIL; ``round_records`` hold every edit round.
    """
    from autoalign.agents import runner

    if seed is not None:
        overrides["seed"] = seed
    cfg = resolve_config(preset, config, **overrides)
    run_dir = Path(out_dir) if out_dir is not None else Path(tempfile.mkdtemp(prefix="autoalign-run-"))
    with tempfile.TemporaryDirectory(prefix="autoalign-upload-") as upload_dir:
        init_image = None
        if image is not None:
            if isinstance(image, (str, os.PathLike)):
                init_image = str(image)
                open_images(init_image)  # refuse a missing or unreadable file before the run starts
            else:
                init_image = str(Path(upload_dir) / "upload.png")
                open_images(image)[0].save(init_image, format="PNG")
        for step in runner.stream(prompt, cfg, run_dir, init_image=init_image, negative_prompt=negative_prompt):
            if on_step is not None:
                on_step(step)
    return runner.result(run_dir)


def score(
    images: ImageLike | Sequence[ImageLike],
    text: str,
    preset: str = "tiny",
    *,
    config: ConfigLike | None = None,
    **overrides: Any,
) -> list["ScoreCard"]:
    """The :class:`~autoalign.types.ScoreCard` (VQ2 with its questions, VNLI, CLIPScore, ``overall``)
    of each image against ``text``, in order."""
    from autoalign.models.cache import Models
    from autoalign.scoring.scorer import Scorer

    cfg = resolve_config(preset, config, **overrides)
    pil = open_images(images)
    return Scorer(Models(cfg), cfg).score(pil, text)


def detect(
    image: ImageLike,
    text: str,
    preset: str = "tiny",
    *,
    config: ConfigLike | None = None,
    **overrides: Any,
) -> list["Mismatch"]:
    """FineMatch mismatches (aspect, phrase, correction, confidence) between ``image`` and ``text``,
    from the preset's detectors, most confident first (0-3; none = aligned)."""
    from autoalign.detection import detect as run_detectors
    from autoalign.models.cache import Models
    from autoalign.scoring.scorer import Scorer

    if isinstance(image, (list, tuple)):
        raise InputError(f"detect takes one image (got a list of {len(image)}); call it once per image")
    cfg = resolve_config(preset, config, **overrides)
    (pil,) = open_images(image)
    models = Models(cfg)
    card = Scorer(models, cfg).score([pil], text)[0]
    return run_detectors(pil, text, card, models, cfg)
