"""The studio's controls, made from the settings' declarations (:mod:`autoalign.settings`).

A setting with names to choose from is a dropdown, free text a textbox, a number a slider when its range
is short enough to drag (whole numbers over at most 64 values, any bounded decimal), else a number box.
Every control carries the setting's bounds, so the page refuses what the command line refuses; the pass
threshold's range follows the chosen preset's ``scoring.primary`` (:func:`follow_preset`).
"""

from __future__ import annotations

from typing import Any

import gradio as gr

from autoalign.settings import Setting, setting

SLIDER_MAX_STEPS = 64  # whole-number settings with more values than this get a number box


def _is_slider(s: Setting) -> bool:
    lo, hi = s.bounds()
    if s.kind is float:
        return True
    return s.kind is int and (hi - lo) / (s.multiple_of or 1) <= SLIDER_MAX_STEPS


def _step(s: Setting, hi: float) -> float:
    if s.kind is int:
        return s.multiple_of or 1
    return 0.01 if hi <= 10 else 0.1


def control(name: str, value: Any, *, primary: str | None = None, visible: bool = True) -> gr.Component:
    """The control of setting ``name`` showing ``value`` (the preset's), with its declared bounds and help."""
    s = setting(name)
    lo, hi = s.bounds(primary)
    common = {"label": s.title, "info": s.help, "visible": visible, "elem_id": f"setting-{name.replace('_', '-')}"}
    if s.choices:
        choices = list(s.allowed())
        return gr.Dropdown(choices, value=value, allow_custom_value=name == "device", **common)
    if s.kind is str:
        return gr.Textbox(value=value or "", lines=1, max_length=int(hi) if hi else None, **common)
    if _is_slider(s):
        return gr.Slider(lo, hi, value=value if value is not None else lo, step=_step(s, hi), **common)
    return gr.Number(value=value, precision=0 if s.kind is int else None, minimum=lo, maximum=hi,
                     step=s.multiple_of or 1, **common)


def follow_preset(name: str, value: Any, primary: str | None) -> dict[str, Any]:
    """An update that shows the chosen preset's ``value`` (and, for the threshold, its range)."""
    s = setting(name)
    if name == "threshold":
        lo, hi = s.bounds(primary)
        return gr.update(value=value, minimum=lo, maximum=hi)
    if s.kind is str:
        return gr.update(value=value or "")
    if value is None and _is_slider(s):
        value = s.bounds()[0]
    return gr.update(value=value)
