"""The Typer apps the command modules attach to (``autoalign``, ``autoalign models``, ``autoalign bench``).

Command modules live in ``autoalign/commands/`` and do ``from autoalign.cli_apps import app``;
``autoalign.cli`` imports them all and runs the app.
"""

from __future__ import annotations

from typing import Any, Optional

import typer
from typer.core import TyperOption

from autoalign.knobs import diffusers_overrides


def _flag_type(self: TyperOption, ctx: Any) -> str | None:
    """No ``<bool>`` after an on/off flag in ``--help``: it takes no value (Typer prints one)."""
    if self.is_flag and not self.count:
        return None
    return _typer_display_type(self, ctx)


_typer_display_type = TyperOption.display_type_rich
TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign]

app = typer.Typer(
    name="autoalign",
    help="Make text-to-image models draw what the prompt says: generate, score, detect, edit, repeat.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
models_app = typer.Typer(help="Build tiny models, list presets and where each model comes from.", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmarks: suites, audits, comparisons, meta-evaluation, FineMatch.", no_args_is_help=True)
app.add_typer(models_app, name="models")
app.add_typer(bench_app, name="bench")

# Options shared by every command that loads models.
PRESET_HELP = "Preset name (see 'autoalign models list') or a path to a preset .toml file."
CONFIG_HELP = "A TOML/YAML file whose fields override the preset."


# The knobs a diffusers user expects (autoalign.knobs), shared by run, batch, bench run/audit.
DEVICE_OPT = typer.Option(None, "--device", help="Device for the models: auto, cpu, cuda, cuda:N or mps (device).")
DTYPE_OPT = typer.Option(None, "--dtype", help="Weight precision: auto, float32, float16 or bfloat16 (dtype).")
STEPS_OPT = typer.Option(None, "--steps", help="Denoising steps of the generator (generator.num_inference_steps).")
GUIDANCE_OPT = typer.Option(None, "--guidance-scale", help="Classifier-free guidance of the generator (generator.guidance_scale).")
NEGATIVE_OPT = typer.Option(None, "--negative-prompt", help="What the images should not show (generator.negative_prompt).")
WIDTH_OPT = typer.Option(None, "--width", help="Image width in pixels, a multiple of 8 (generator.width).")
HEIGHT_OPT = typer.Option(None, "--height", help="Image height in pixels, a multiple of 8 (generator.height).")


def flag_overrides(
    seed: int | None = None,
    candidates: int | None = None,
    max_rounds: int | None = None,
    threshold: float | None = None,
    writer: str | None = None,
    *,
    device: Optional[str] = None,
    dtype: Optional[str] = None,
    steps: Optional[int] = None,
    guidance_scale: Optional[float] = None,
    negative_prompt: Optional[str] = None,
    width: Optional[int] = None,
    height: Optional[int] = None,
) -> dict[str, Any]:
    """CLI flags as a config override dict (only the flags that were given)."""
    loop = {k: v for k, v in {"seed": seed, "candidates": candidates, "max_rounds": max_rounds, "threshold": threshold}.items() if v is not None}
    out: dict[str, Any] = {"loop": loop} if loop else {}
    if writer is not None:
        out["writer"] = writer
    out.update(diffusers_overrides(device=device, dtype=dtype, steps=steps, guidance_scale=guidance_scale,
                                   negative_prompt=negative_prompt, width=width, height=height))
    return out


def say_scores_warning(config: Any) -> None:
    """Print the preset's warning (random weights, test doubles) once, on stderr; nothing for real models."""
    from rich.console import Console
    from rich.text import Text

    from autoalign.wording import scores_warning

    message = scores_warning(config)
    if message:
        Console(stderr=True, soft_wrap=True).print(Text("warning: ", style="bold yellow") + Text(message))


def quiet_model_bars() -> None:
    """Hide transformers' and diffusers' "Loading weights" bars (commands show their own progress).

    Download bars of the Hugging Face hub stay on: a first download of real weights takes minutes.
    """
    from diffusers.utils import logging as diffusers_logging
    from huggingface_hub.utils import enable_progress_bars
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()  # also turns the hub's bars off ...
    diffusers_logging.disable_progress_bar()
    enable_progress_bars()  # ... so turn those back on
