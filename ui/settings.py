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

Everything else comes from the chosen preset (and the optional config file). Bad values raise
:class:`autoalign.config.ConfigError` naming the field, exactly as on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autoalign.config import Config, ConfigError, LoopSettings, deep_merge, load_config, load_preset_dict
from autoalign.knobs import diffusers_overrides

WRITERS: tuple[str, ...] = ("template", "llm")
DEFAULT_EDITOR_STRENGTH = 1.5  # InstructPix2Pix's usual image_guidance_scale


@dataclass
class StudioSettings:
    """What the studio's controls hold for one run."""

    preset: str = "tiny"
    candidates: int = 4
    rounds: int = 2
    threshold: float = 0.8
    seed: int = 0
    editor_strength: float = DEFAULT_EDITOR_STRENGTH
    writer: str = "template"
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
        """The config overrides these settings stand for (applied after the preset and the file)."""
        if self.writer not in WRITERS:
            raise ConfigError(f"writer must be one of {', '.join(WRITERS)} (got {self.writer!r})")
        try:
            loop = {
                "candidates": int(self.candidates),
                "max_rounds": int(self.rounds),
                "threshold": float(self.threshold),
                "seed": int(self.seed),
            }
            strength = float(self.editor_strength)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"candidates, rounds and seed must be whole numbers, threshold a number ({exc})") from exc
        if strength <= 0:
            raise ConfigError(f"editor strength (editor.image_guidance_scale) must be > 0 (got {strength})")
        knobs = diffusers_overrides(
            device=self.device or None, dtype=self.dtype or None, steps=self.steps, guidance_scale=self.guidance_scale,
            negative_prompt=self.negative_prompt or None, width=self.width, height=self.height,
        )
        return deep_merge({"loop": loop, "editor": {"image_guidance_scale": strength}, "writer": self.writer}, knobs)

    def to_config(self) -> Config:
        """Preset, then the config file, then these settings; validated."""
        config_file = (self.config_file or "").strip() or None
        return load_config(self.preset, config_file, self.overrides())


def preset_defaults(preset: str) -> StudioSettings:
    """The studio settings a preset starts from (its loop knobs, editor strength and writer)."""
    data = load_preset_dict(preset)
    loop = data.get("loop", {}) or {}
    editor = data.get("editor", {}) or {}
    base = LoopSettings()  # the library's defaults for what the preset leaves out
    writer = str(data.get("writer", "template"))
    return StudioSettings(
        preset=preset,
        candidates=int(loop.get("candidates", base.candidates)),
        rounds=int(loop.get("max_rounds", base.max_rounds)),
        threshold=float(loop.get("threshold", base.threshold)),
        seed=int(loop.get("seed", base.seed)),
        editor_strength=float(editor.get("image_guidance_scale", DEFAULT_EDITOR_STRENGTH)),
        writer=writer if writer in WRITERS else "template",
    )
