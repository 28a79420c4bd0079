"""The knobs a diffusers user expects, as config overrides: one mapping for the CLI and the studio.

``autoalign run``, ``batch``, ``bench run/audit`` and the studio's advanced settings take the same
seven knobs; :func:`diffusers_overrides` turns the ones given into a config override dict (merged
after the preset and ``--config``), checking each value first:

==================  =====================================
knob                config field
==================  =====================================
``--device``        ``device`` (auto, cpu, cuda, cuda:N, mps)
``--dtype``         ``dtype`` (auto, float32, float16, bfloat16)
``--steps``         ``generator.num_inference_steps``
``--guidance-scale`` ``generator.guidance_scale``
``--negative-prompt`` ``generator.negative_prompt`` (a batch row's own wins)
``--width``         ``generator.width``
``--height``        ``generator.height``
==================  =====================================

The mapping lives only here, so pointing a knob at another field (per-role device fields, say)
is a change to :data:`FIELDS`.
"""

from __future__ import annotations

import re
from typing import Any

from autoalign.config import ConfigError

DTYPES: tuple[str, ...] = ("auto", "float32", "float16", "bfloat16")
_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")

#: knob name -> (section or None for top level, field)
FIELDS: dict[str, tuple[str | None, str]] = {
    "device": (None, "device"),
    "dtype": (None, "dtype"),
    "steps": ("generator", "num_inference_steps"),
    "guidance_scale": ("generator", "guidance_scale"),
    "negative_prompt": ("generator", "negative_prompt"),
    "width": ("generator", "width"),
    "height": ("generator", "height"),
}


def _check(knob: str, value: Any) -> Any:
    flag = "--" + knob.replace("_", "-")
    if knob == "device":
        device = str(value).strip().lower()
        if not _DEVICE.match(device):
            raise ConfigError(f"{flag} must be auto, cpu, cuda, cuda:N or mps (got {value!r})")
        return device
    if knob == "dtype":
        dtype = str(value).strip().lower()
        if dtype not in DTYPES:
            raise ConfigError(f"{flag} must be one of {', '.join(DTYPES)} (got {value!r})")
        return dtype
    if knob == "negative_prompt":
        text = str(value).strip()
        return text or None
    if knob == "guidance_scale":
        try:
            scale = float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"{flag} must be a number >= 0 (got {value!r})") from None
        if not scale >= 0:
            raise ConfigError(f"{flag} must be a number >= 0 (got {value!r})")
        return scale
    try:
        number_f = float(value)
    except (TypeError, ValueError):
        number_f = float("nan")
    if isinstance(value, bool) or not number_f.is_integer():
        raise ConfigError(f"{flag} must be a whole number (got {value!r})")
    number = int(number_f)
    if knob == "steps" and number < 1:
        raise ConfigError(f"{flag} must be >= 1 (got {value!r})")
    if knob in ("width", "height") and (number < 8 or number % 8):
        raise ConfigError(f"{flag} must be a multiple of 8 and >= 8 (got {value!r}); diffusers models work in 8-pixel blocks")
    return number


def diffusers_overrides(
    device: str | None = None,
    dtype: str | None = None,
    steps: int | None = None,
    guidance_scale: float | None = None,
    negative_prompt: str | None = None,
    width: int | None = None,
    height: int | None = None,
) -> dict[str, Any]:
    """The given knobs (not None) as a nested config override dict; ConfigError naming a bad one."""
    given = {"device": device, "dtype": dtype, "steps": steps, "guidance_scale": guidance_scale,
             "negative_prompt": negative_prompt, "width": width, "height": height}
    out: dict[str, Any] = {}
    for knob, value in given.items():
        if value is None:
            continue
        checked = _check(knob, value)
        if checked is None:
            continue
        section, name = FIELDS[knob]
        (out.setdefault(section, {}) if section else out)[name] = checked
    return out
