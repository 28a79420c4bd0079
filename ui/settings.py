"""The settings an artist sees, and how they become a run :class:`~autoalign.config.Config`.

The studio's knobs are settings of :mod:`autoalign.settings` (one declaration each: name, bounds, help,
config field), shown in two groups: :data:`MAIN` (candidates, rounds, alignment threshold, seed, editor
strength) and :data:`ADVANCED` (writer, device, dtype, the generator's diffusers knobs, the editor's text
guidance), plus an optional config file (a TOML/YAML/JSON file of overrides, read on the server).

Each knob shows the chosen preset's value (:func:`preset_defaults`). A knob the artist leaves at the
value shown is not sent (:meth:`StudioSettings.changed_from`): the preset, then the optional config file,
decide it; only what the artist changed overrides them, through the same overrides builder as the
command line (:func:`autoalign.settings.overrides`). Bad values raise
:class:`autoalign.config.ConfigError` naming the setting and its config field.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from autoalign import settings
from autoalign.config import Config, load_config
from autoalign.settings import STUDIO_PRESET

MAIN: tuple[str, ...] = ("candidates", "max_rounds", "threshold", "seed", "image_guidance_scale")
ADVANCED: tuple[str, ...] = ("writer", "device", "dtype", "steps", "guidance_scale", "negative_prompt", "width",
                             "height", "edit_guidance_scale")
KNOBS: tuple[str, ...] = MAIN + ADVANCED
#: What a slider shows when the preset leaves the setting to the backend (diffusers' usual values); it is
#: sent only when the artist moves it.
SHOWN_WHEN_UNSET: dict[str, float] = {"image_guidance_scale": 1.5, "guidance_scale": 7.5, "edit_guidance_scale": 7.5}


@dataclass
class StudioSettings:
    """What the studio's controls hold for one run; a knob that is None or "" keeps the preset's value."""

    preset: str = STUDIO_PRESET
    values: dict[str, Any] = field(default_factory=dict)  # knob name (autoalign.settings) -> value
    config_file: str = ""  # "" = none

    def given(self) -> dict[str, Any]:
        return {k: v for k, v in self.values.items() if v is not None and v != ""}

    def overrides(self) -> dict[str, Any]:
        """The config overrides the set knobs stand for (applied after the preset and the file)."""
        return settings.overrides(self.given(), style="api")

    def to_config(self) -> Config:
        """Preset, then the config file, then the set knobs; validated."""
        config_file = (self.config_file or "").strip() or None
        return load_config(self.preset, config_file, self.overrides())

    def changed_from(self, shown: dict[str, Any]) -> "StudioSettings":
        """These settings with every knob still at the value the page showed (``shown``) unset, so the
        preset and the config file decide it: the page sends only what the artist changed."""
        values = {k: None if _same(v, shown.get(k)) else v for k, v in self.values.items()}
        return dataclasses.replace(self, values=values)


def _same(a: Any, b: Any) -> bool:
    numbers = (int, float)
    if isinstance(a, numbers) and isinstance(b, numbers) and not isinstance(a, bool) and not isinstance(b, bool):
        return abs(float(a) - float(b)) < 1e-9
    return (a or None) == (b or None) if isinstance(a, str) or isinstance(b, str) else a == b


def preset_defaults(preset: str) -> dict[str, Any]:
    """What the studio's knobs show for a preset: the values its resolved config has (the preset's own,
    else :class:`~autoalign.config.LoopSettings`'s defaults, else :data:`SHOWN_WHEN_UNSET` or empty)."""
    cfg = load_config(preset)
    shown = {name: settings.value_of(cfg, name) for name in KNOBS}
    for name, value in SHOWN_WHEN_UNSET.items():
        shown[name] = value if shown[name] is None else shown[name]
    return shown


def threshold_range(preset: str) -> tuple[float, float]:
    """The pass threshold's range for a preset (by its ``scoring.primary``)."""
    lo, hi = settings.setting("threshold").bounds(load_config(preset).scoring.primary)
    return float(lo or 0.0), float(hi or 1.0)
