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
=====================  ==================================

Everything else comes from the chosen preset (and the optional config file). Bad values raise
:class:`autoalign.config.ConfigError` naming the field, exactly as on the command line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from autoalign.config import Config, ConfigError, LoopSettings, load_config, load_preset_dict

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
        return {"loop": loop, "editor": {"image_guidance_scale": strength}, "writer": self.writer}

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
