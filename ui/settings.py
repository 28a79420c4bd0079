"""The settings an artist sees, and how they become a run :class:`~autoalign.config.Config`.

The studio shows a handful of knobs with plain names; each maps onto one preset field:

=====================  ==================================
studio                 config field
=====================  ==================================
candidates             ``loop.candidates``
rounds                 ``loop.max_rounds``
alignment threshold    ``loop.threshold``
seed                   ``loop.seed``
editor strength        ``editor.image_guidance_scale``
writer                 ``writer`` (template | llm)
config file            a TOML/YAML/JSON file of overrides
device, dtype          ``device``, ``dtype``
steps, guidance scale  ``generator.num_inference_steps``, ``generator.guidance_scale``
negative prompt        ``generator.negative_prompt``
width, height          ``generator.width``, ``generator.height``
=====================  ==================================

The last four rows are the diffusers knobs of the command line (:mod:`autoalign.knobs`, one
mapping for both); left empty, a knob keeps the value of the preset (or of the config file).

A knob the artist leaves at the value shown for the preset is not sent (:meth:`StudioSettings.changed_from`):
the preset, then the optional config file, decide it; only what the artist changed overrides them.
Everything else comes from the chosen preset (and the config file). Bad values raise
:class:`autoalign.config.ConfigError` naming the field, exactly as on the command line.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from autoalign import registry
from autoalign.config import Config, ConfigError, deep_merge, load_config
from autoalign.knobs import diffusers_overrides

WRITERS: tuple[str, ...] = tuple(registry.names("writer"))  # the registry is the one list
# What the editor-strength slider shows for a preset that does not set editor.image_guidance_scale
# (InstructPix2Pix's usual value); it is sent only when the artist moves the slider.
DEFAULT_EDITOR_STRENGTH = 1.5
KNOBS: tuple[str, ...] = ("candidates", "max_rounds", "threshold", "seed", "editor_strength", "writer")


@dataclass
class StudioSettings:
    """What the studio's controls hold for one run; None = leave the preset's (and config file's) value."""

    preset: str = "shapes"
    candidates: int | None = None
    max_rounds: int | None = None  # shown as "Rounds"
    threshold: float | None = None
    seed: int | None = None
    editor_strength: float | None = None
    writer: str | None = None
    config_file: str = ""  # "" = none
    # diffusers knobs; None / "" = the preset's value
    device: str | None = None
    dtype: str | None = None
    steps: int | float | None = None
    guidance_scale: float | None = None
    negative_prompt: str | None = None
    width: int | float | None = None
    height: int | float | None = None

    def overrides(self) -> dict[str, Any]:
        """The config overrides the set knobs stand for (applied after the preset and the file)."""
        if self.writer is not None and self.writer not in WRITERS:
            raise ConfigError(f"writer must be one of {', '.join(WRITERS)} (got {self.writer!r})")
        casts = {"candidates": int, "max_rounds": int, "threshold": float, "seed": int}
        try:
            loop = {k: cast(getattr(self, k)) for k, cast in casts.items() if getattr(self, k) is not None}
            strength = None if self.editor_strength is None else float(self.editor_strength)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"candidates, rounds and seed must be whole numbers, threshold a number ({exc})") from exc
        out: dict[str, Any] = {"loop": loop} if loop else {}
        if strength is not None:
            if strength <= 0:
                raise ConfigError(f"editor strength (editor.image_guidance_scale) must be > 0 (got {strength})")
            out["editor"] = {"image_guidance_scale": strength}
        if self.writer is not None:
            out["writer"] = self.writer
        knobs = diffusers_overrides(
            device=self.device or None, dtype=self.dtype or None, steps=self.steps, guidance_scale=self.guidance_scale,
            negative_prompt=self.negative_prompt or None, width=self.width, height=self.height,
        )
        return deep_merge(out, knobs)

    def to_config(self) -> Config:
        """Preset, then the config file, then the set knobs; validated."""
        config_file = (self.config_file or "").strip() or None
        return load_config(self.preset, config_file, self.overrides())

    def changed_from(self, shown: "StudioSettings") -> "StudioSettings":
        """These settings with every knob still at the value the page showed (``shown``) unset, so
        the preset and the config file decide it: the page sends only what the artist changed."""
        return dataclasses.replace(
            self, **{k: None if _same(getattr(self, k), getattr(shown, k)) else getattr(self, k) for k in KNOBS}
        )


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(float(a) - float(b)) < 1e-9
    return a == b


def preset_defaults(preset: str) -> StudioSettings:
    """What the studio's knobs show for a preset: the values its resolved config has (the preset's own,
    else :class:`~autoalign.config.LoopSettings`'s defaults)."""
    cfg = load_config(preset)
    return StudioSettings(
        preset=preset,
        candidates=cfg.loop.candidates,
        max_rounds=cfg.loop.max_rounds,
        threshold=cfg.loop.threshold,
        seed=cfg.loop.seed,
        editor_strength=float(cfg.editor.options.get("image_guidance_scale", DEFAULT_EDITOR_STRENGTH)),
        writer=cfg.writer if cfg.writer in WRITERS else "template",
    )
