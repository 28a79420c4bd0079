"""Every user-facing setting, declared once: its name, type, bounds, help and where it lands in the config.

:data:`SETTINGS` is the one list. From it come

* the Typer options of ``run``, ``batch``, ``bench run/audit`` (:func:`autoalign.cli_apps.setting_options`),
* the studio's controls (``autoalign.ui.controls``: slider ranges, steps, labels),
* the Python API's keyword arguments (:func:`autoalign.api.resolve_config`),
* the benchmark scripts' flags (:func:`add_arguments`),

and every one of them turns the values it was given into config overrides through :func:`overrides`, which
checks each value against its declaration first (one :class:`~autoalign.errors.ConfigError` line naming the
flag or keyword, before anything is loaded or written). The same declarations check every resolved
configuration (:func:`check_config`, called by :meth:`autoalign.config.Config.validate`), so a config file
cannot pass what a flag may not.

A setting's default is the preset's value (``path`` names the field); the settings without a ``path`` are a
command's own (``--workers``, ``--retries``, ...) and carry their default here. The bounds are generous for a
GPU (64 candidates, 4096 px, 200 steps) and tight enough that no single value can exhaust a machine; what a
whole run needs is estimated by :mod:`autoalign.memory_check`. The pass threshold's range depends on
``scoring.primary`` (:data:`THRESHOLD_RANGES`: CLIPScore runs to 2.5, VQ2 and VNLI to 1).
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from autoalign import registry
from autoalign.errors import ConfigError

#: The preset of the commands, the Python API and the benchmark scripts: tiny random-weight models, CPU, seconds.
DEFAULT_PRESET = "tiny"
#: The preset the studio opens on: the shapes world's trained models (real fixes on a CPU).
STUDIO_PRESET = "shapes"

DEVICES = ("auto", "cpu", "cuda", "mps")  # and cuda:N
DTYPES: tuple[str, ...] = ("auto", "float32", "float16", "bfloat16")
MAX_SEED = 2**32 - 1  # what every generator backend accepts (numpy's limit is the tightest)
#: The pass threshold's range by ``scoring.primary``.
THRESHOLD_RANGES: dict[str, tuple[float, float]] = {"vq2": (0.0, 1.0), "vnli": (0.0, 1.0), "clip": (0.0, 2.5)}
#: The settings on the scale of ``scoring.primary`` (their range is :data:`THRESHOLD_RANGES`'s).
ON_SCORE_SCALE = ("threshold", "unseen_threshold")
_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")


@dataclass(frozen=True)
class Setting:
    """One user-facing setting. ``path``: the config field it sets (None: a command's own option)."""

    name: str  # the keyword (API, studio) and, with dashes, the flag: max_rounds -> --max-rounds
    kind: type  # int, float or str
    help: str
    path: tuple[str, ...] | None = None
    ge: float | None = None
    le: float | None = None
    multiple_of: int | None = None
    choices: tuple[str, ...] | Callable[[], Iterable[str]] | None = None  # a callable: asked each time
    label: str = ""  # the studio's name for it ("" = the name, capitalised)
    short: str | None = None  # a one-letter flag
    default: Any = None  # only for settings without a path; the others default to the preset's value
    why: str = ""  # appended to a refusal: why the rule exists

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def field(self) -> str:
        return ".".join(self.path) if self.path else self.name

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ").capitalize()

    def allowed(self) -> tuple[str, ...]:
        """The names a text setting takes (empty: any text)."""
        return tuple(self.choices() if callable(self.choices) else self.choices or ())

    def bounds(self, primary: str | None = None) -> tuple[float | None, float | None]:
        """(lowest, highest) allowed; the threshold's depend on ``scoring.primary`` (None: the widest)."""
        if self.name in ON_SCORE_SCALE and primary in THRESHOLD_RANGES:
            return THRESHOLD_RANGES[primary]
        return self.ge, self.le

    def describe(self, primary: str | None = None) -> str:
        """The allowed values in words: "a whole number from 1 to 64", "one of auto, float32, ..."."""
        lo, hi = self.bounds(primary)
        if self.name in ON_SCORE_SCALE and primary is None:
            return "a number in " + ", ".join(f"[{_num(a)}, {_num(b)}] for {p}" for p, (a, b) in THRESHOLD_RANGES.items())
        if self.choices:
            extra = ", cuda:N" if self.name == "device" else ""
            return f"one of {', '.join(self.allowed())}{extra}"
        if self.kind is str:
            return f"text of at most {int(hi)} characters" if hi else "text"
        if self.kind is int:
            step = f"a multiple of {self.multiple_of}" if self.multiple_of else "a whole number"
            return f"{step} from {_num(lo)} to {_num(hi)}"
        return f"a number in [{_num(lo)}, {_num(hi)}]"

    def help_text(self) -> str:
        """The option's help: what it does, what is allowed, which config field it sets."""
        where = f" ({self.field})" if self.path else ""
        return f"{self.help} {_capital(self.describe())}{where}."

    def check(self, value: Any, who: str | None = None, primary: str | None = None) -> Any:
        """``value`` as this setting's type, inside its bounds; ConfigError naming ``who`` (default the flag)."""
        who = who or self.flag
        if self.kind is str:
            return self._check_text(value, who)
        bad = ConfigError(f"{who} must be {self.describe(primary)} (got {_shown(value)}){self.why}")
        if isinstance(value, bool):
            raise bad
        if isinstance(value, str):
            try:
                value = float(value.strip()) if self.kind is float or "." in value or "e" in value.lower() else int(value.strip())
            except ValueError:
                raise bad from None
        if not isinstance(value, (int, float)):
            raise bad
        if isinstance(value, float) and not math.isfinite(value):
            raise bad
        if self.kind is int:
            if isinstance(value, float):
                if not value.is_integer():
                    raise bad
                value = int(value)
            if self.multiple_of and value % self.multiple_of:
                raise bad
        else:
            value = float(value)
        lo, hi = self.bounds(primary)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise bad
        return value

    def _check_text(self, value: Any, who: str) -> str | None:
        text = str(value).strip()
        if self.choices:
            text = text.lower()
            ok = _DEVICE.match(text) if self.name == "device" else text in self.allowed()
            if not ok:
                raise ConfigError(f"{who} must be {self.describe()} (got {_shown(value)})")
            return text
        if self.le is not None and len(text) > self.le:
            raise ConfigError(f"{who} must be {self.describe()} (got {len(text)} characters)")
        return text or None


def _num(x: float | None) -> str:
    if x is None:
        return "any"
    return f"{x:,.0f}".replace(",", "") if float(x).is_integer() else f"{x:g}"


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _shown(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."


_LOOP, _GEN, _EDIT = "loop", "generator", "editor"
_8PX = "; diffusers models work in 8-pixel blocks"

SETTINGS: dict[str, Setting] = {s.name: s for s in (
    # the loop
    Setting("seed", int, "Seed of generation and edits.", (_LOOP, "seed"), ge=0, le=MAX_SEED),
    Setting("candidates", int, "Images generated in round 0; the best one is corrected.", (_LOOP, "candidates"),
            ge=1, le=64, short="-n"),
    Setting("max_rounds", int, "Edit rounds at most.", (_LOOP, "max_rounds"), ge=0, le=20, label="Rounds"),
    Setting("threshold", float, "Score that counts as aligned, on the scale of scoring.primary.",
            (_LOOP, "threshold"), ge=0.0, le=2.5, label="Alignment threshold"),
    Setting("unseen_threshold", float, "The threshold instead for a prompt naming a pair the preset's vocabulary "
            "marks unseen (unset: the threshold).", (_LOOP, "unseen_threshold"), ge=0.0, le=2.5,
            label="Threshold for unseen pairs"),
    Setting("edit_samples", int, "Edited samples per instruction; the best is kept.", (_LOOP, "edit_samples"), ge=1, le=16),
    Setting("patience", int, "Stop after this many rounds without gain.", (_LOOP, "patience"), ge=1, le=20),
    Setting("max_instructions", int, "Instructions tried per round.", (_LOOP, "max_instructions"), ge=1, le=16),
    Setting("writer", str, "Instruction writer.", ("writer",), choices=lambda: registry.names("writer"), label="Instruction writer"),
    # where the models run
    Setting("device", str, "Device for the models.", ("device",), choices=DEVICES),
    Setting("dtype", str, "Weight precision.", ("dtype",), choices=DTYPES),
    # the generator (the knobs a diffusers user expects)
    Setting("steps", int, "Denoising steps of the generator.", (_GEN, "num_inference_steps"), ge=1, le=200),
    Setting("guidance_scale", float, "Classifier-free guidance of the generator.", (_GEN, "guidance_scale"), ge=0.0, le=50.0),
    Setting("negative_prompt", str, "What the images should not show.", (_GEN, "negative_prompt"), le=1000),
    Setting("width", int, "Image width in pixels.", (_GEN, "width"), ge=8, le=4096, multiple_of=8, why=_8PX),
    Setting("height", int, "Image height in pixels.", (_GEN, "height"), ge=8, le=4096, multiple_of=8, why=_8PX),
    # the editor
    Setting("edit_guidance_scale", float, "Text guidance of the editor.", (_EDIT, "guidance_scale"), ge=0.0, le=50.0),
    Setting("image_guidance_scale", float, "Image guidance of the editor: higher keeps more of the picture.",
            (_EDIT, "image_guidance_scale"), ge=0.5, le=10.0, label="Editor strength"),
    Setting("edit_resolution", int, "The long side, in pixels, the editor works at.", (_EDIT, "resolution"),
            ge=8, le=4096),
    # batch sizes of the models that batch
    Setting("generator_batch_size", int, "Images the generator draws per call.", (_GEN, "batch_size"), ge=1, le=64),
    Setting("vqa_batch_size", int, "Questions the VQA model answers per call.", ("vqa", "batch_size"), ge=1, le=1024),
    # a command's own (no config field)
    Setting("workers", int, "Ray actors (default: one per GPU, or 1 on CPU).", ge=1, le=64),
    Setting("gpus_per_worker", float, "GPUs per Ray actor (default 1 when GPUs exist; 0: CPU actors).", ge=0.0, le=8.0),
    Setting("retries", int, "Extra attempts for a failing item in each invocation.", ge=0, le=10, default=1),
    Setting("limit", int, "Only the first N items.", ge=1, le=10_000_000),
    Setting("seeds", int, "Seeds per prompt (loop.seed, loop.seed+1, ...).", ge=1, le=100, default=1),
)}

#: The settings of every command that loads models: the loop's, then the diffusers knobs and the editor's.
LOOP_FLAGS = ("seed", "candidates", "max_rounds")
MODEL_FLAGS = ("device", "dtype", "steps", "guidance_scale", "negative_prompt", "width", "height",
               "edit_guidance_scale", "image_guidance_scale")
#: ``autoalign run``'s settings; the others are set in a config file or as API keywords.
RUN_FLAGS = (*LOOP_FLAGS, "threshold", "writer", *MODEL_FLAGS)


def setting(name: str) -> Setting:
    try:
        return SETTINGS[name]
    except KeyError:
        raise ConfigError(f"unknown setting {name!r}; settings: {', '.join(SETTINGS)}") from None


def overrides(values: Mapping[str, Any], *, style: str = "cli") -> dict[str, Any]:
    """The given settings (None = not given) as a nested config override dict, each checked first.

    ``style``: ``"cli"`` names a bad value by its flag and field (``--width (generator.width)``), ``"api"`` by
    its keyword and field (``width (generator.width)``). The threshold is checked against its widest range here and against
    ``scoring.primary``'s once the config is resolved (:func:`check_config`).
    """
    out: dict[str, Any] = {}
    for name, value in values.items():
        if value is None:
            continue
        s = setting(name)
        if s.path is None:
            raise ConfigError(f"{s.flag} is a command option, not a run setting")
        who = s.flag if style == "cli" else s.name
        who += f" ({s.field})" if s.field != s.name else ""
        checked = s.check(value, who)
        if checked is None:  # an empty negative prompt: keep the preset's
            continue
        node = out
        for key in s.path[:-1]:
            node = node.setdefault(key, {})
        node[s.path[-1]] = checked
    return out


def command_values(values: Mapping[str, Any]) -> dict[str, Any]:
    """A command's own options (``--workers``, ``--retries``, ...), checked; None stays None."""
    return {name: None if value is None else setting(name).check(value) for name, value in values.items()}


def value_of(config: Any, name: str) -> Any:
    """The value a resolved :class:`~autoalign.config.Config` holds for the run setting ``name`` (None: left
    to the backend, e.g. a diffusers knob the preset does not set)."""
    head, *rest = setting(name).path or (name,)
    section = getattr(config, head)
    if not rest:
        return section
    if hasattr(section, "options"):  # a model role: its knobs are backend options
        return section.options.get(rest[0])
    return getattr(section, rest[0])


def check_config(config: Any) -> None:
    """Every declared setting a resolved :class:`~autoalign.config.Config` holds, inside its bounds."""
    primary = config.scoring.primary
    for s in SETTINGS.values():
        value = None if s.path is None else value_of(config, s.name)
        if value is None:
            continue
        who = f"{s.field} (scoring.primary {primary!r})" if s.name in ON_SCORE_SCALE else s.field
        s.check(value, who, primary=primary)


def add_arguments(parser: argparse.ArgumentParser, names: Iterable[str]) -> None:
    """The named settings as argparse flags of a benchmark script (default: the preset's value)."""
    for name in names:
        s = setting(name)
        parser.add_argument(s.flag, dest=s.name, type=s.kind, default=s.default, help=s.help_text())


def from_namespace(args: argparse.Namespace, names: Iterable[str]) -> dict[str, Any]:
    """A benchmark script's parsed settings as config overrides (the flags it was given)."""
    return overrides({name: getattr(args, name) for name in names})


def markdown_table() -> str:
    """Every setting as a Markdown table (docs/settings.md holds this; ``python -m autoalign.settings`` prints it)."""
    rows = ["| setting | flag | config field | allowed | what it sets |", "| --- | --- | --- | --- | --- |"]
    for s in SETTINGS.values():
        field = f"`{s.field}`" if s.path else "(the command's own)"
        flag = f"`{s.flag}`" if s.name in RUN_FLAGS or not s.path else "(config, API)"
        rows.append(f"| {s.name} | {flag} | {field} | {s.describe()} | {s.help} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
