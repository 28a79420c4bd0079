"""The Typer apps the command modules attach to (``autoalign``, ``autoalign models``, ``autoalign bench``).

Command modules live in ``autoalign/commands/`` and do ``from autoalign.cli_apps import app``;
``autoalign.cli`` imports them all and runs the app.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Optional, get_type_hints

import typer
from typer.core import TyperOption

from autoalign.settings import DEFAULT_PRESET, Setting, command_values, setting
from autoalign.settings import overrides as settings_overrides


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


def preset_option(default: str = DEFAULT_PRESET, *, short: bool = True) -> Any:
    """The ``--preset`` option (default :data:`autoalign.settings.DEFAULT_PRESET`)."""
    return typer.Option(default, "--preset", *(("-p",) if short else ()), help=PRESET_HELP)


def config_option() -> Any:
    """The ``--config`` option: a file of overrides applied after the preset."""
    return typer.Option(None, "--config", "-c", help=CONFIG_HELP)


def _typer_option(s: Setting) -> Any:
    names = (s.flag, s.short) if s.short else (s.flag,)
    return typer.Option(s.default, *names, help=s.help_text(), show_default=s.default is not None)


def setting_option(name: str) -> Any:
    """One setting of :mod:`autoalign.settings` as a Typer option (default None: the preset's value); the
    command checks the value itself (``setting(name).check``)."""
    return _typer_option(setting(name))


def setting_options(*names: str, run: tuple[str, ...] = ()) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the named settings of :mod:`autoalign.settings` as Typer options.

    ``run``: settings of the run configuration; the command receives the given ones, checked, as one
    ``overrides`` dict (config overrides, :func:`autoalign.settings.overrides`). ``names``: the command's own
    options (``--workers``, ...), passed to it checked under their names. A bad value is one ConfigError line
    before the command body runs, so nothing is loaded or written.
    """
    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        hints = get_type_hints(fn)
        params = [p.replace(annotation=hints.get(p.name, p.annotation))
                  for p in inspect.signature(fn).parameters.values() if p.name not in (*names, *run, "overrides")]
        added = [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=_typer_option(setting(n)),
                                   annotation=Optional[setting(n).kind]) for n in (*run, *names)]
        cut = next((i for i, p in enumerate(params) if p.annotation is bool), len(params))  # on/off flags last
        params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) if i >= cut else p for i, p in enumerate(params)]

        @functools.wraps(fn)
        def command(*args: Any, **kwargs: Any) -> Any:
            given = {n: kwargs.pop(n, None) for n in run}
            kwargs.update(command_values({n: kwargs.pop(n, setting(n).default) for n in names}))
            if run or "overrides" in hints:
                kwargs["overrides"] = settings_overrides(given)
            return fn(*args, **kwargs)

        command.__signature__ = inspect.Signature([*params[:cut], *added, *params[cut:]])  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in command.__signature__.parameters.values()}
        del command.__wrapped__  # Typer reads __signature__, not the wrapped function's
        return command

    return decorate


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
