"""The AutoAlign studio: a Gradio page where an artist types a prompt and watches the loop fix the image.

Layout (``build_app``): a prompt box with Run/Stop, the settings an artist understands (preset,
candidates, rounds, alignment threshold, seed, editor strength), advanced settings folded away
(config file, instruction writer), an optional upload to correct instead of generating, and the
run's live picture: scored candidates, the prompt with mismatched phrases highlighted, each round's
instruction, the latest edit, before/after, the final image and the run's files, and this
session's past runs.

No loop logic lives here: the Run handler streams :func:`autoalign.agents.runner.stream` and turns
each node update into page updates with :class:`autoalign.ui.run_view.RunView`.

Every event has an ``api_name`` (``/run``, ``/stop``, ``/preset_defaults``, ``/preset_warning``), so the
studio is also an API for :mod:`gradio_client`: every parameter has a name, every one but the prompt is
optional, and every output has a label (see README, "Studio"). One run at a time per app
(``default_concurrency_limit=1``: one GPU); per-user data lives only in ``gr.State``.

Small images (the tiny preset's 64 px) are shown through enlarged copies made with nearest-neighbour
(:func:`display_copy`), so the page shows their pixels sharp instead of a blur or a speck.
"""

from __future__ import annotations

import hashlib
import logging
import re
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import gradio as gr

from autoalign.config import ConfigError, load_config, preset_names
from autoalign.errors import AutoAlignError
from autoalign.files import atomic_save_image
from autoalign.types import SUMMARY_FILE, StreamUpdate
from autoalign.ui.refusals import refusal
from autoalign.ui.run_view import ASPECT_COLORS, HISTORY_HEADERS, RUNNING, STOP_COLUMN, RunView
from autoalign.ui.settings import WRITERS, StudioSettings, preset_defaults
from autoalign.ui.uploads import ALLOWED_FORMATS, MAX_UPLOAD_BYTES, validate_upload
from autoalign.wording import scores_warning

logger = logging.getLogger(__name__)

StreamFn = Callable[..., Iterator[StreamUpdate]]
"""``stream(prompt, config, out_dir, *, init_image=None) -> iterator of StreamUpdate`` (one per graph step)."""

STOPPED_BY_USER = "stopped by you"
DISPLAY_SIDE = 256  # images smaller than this are shown through an enlarged copy
DISPLAY_DIR = ".display"  # under the runs folder: enlarged copies for the page, never part of a run

# Gallery captions wrap instead of being cut with an ellipsis; the runs table keeps its columns wide.
STUDIO_CSS = """
#candidates .caption-label { white-space: normal; max-width: 100%; text-overflow: clip; overflow: visible; opacity: .92; }
#history table { table-layout: auto; }
#history td, #history th { white-space: normal; word-break: normal; overflow-wrap: anywhere; }
#preset-warning { border-left: 4px solid #e0b84d; padding-left: .6em; }
"""


def _runner_stream() -> StreamFn:
    """The real runner, imported when a run starts (the page builds without the agents package)."""
    try:
        from autoalign.agents.runner import stream
    except ImportError as exc:  # pragma: no cover - only when the install is broken
        raise AutoAlignError(f"the agent runner is not available ({exc}); reinstall autoalign") from exc
    return stream


def refuse_bad_uploads(image: gr.Image, max_bytes: int = MAX_UPLOAD_BYTES) -> gr.Image:
    """Make ``image`` check each upload, with a readable refusal, before anything decodes it.

    Gradio's own preprocessing opens the upload with Pillow; a text file renamed ``.png`` or a
    decompression bomb would fail there with a bare "Error". This wraps the component's
    ``preprocess`` so the file is checked first (:func:`autoalign.ui.uploads.validate_upload`) and
    refused with ``gr.Error`` naming the problem. (Wrapping the instance rather than subclassing:
    Gradio writes a ``.pyi`` stub next to any module that defines a component subclass.)
    """
    original = image.preprocess

    def preprocess(payload):
        path = getattr(payload, "path", None) if payload is not None else None
        if path:
            try:
                validate_upload(path, max_bytes=max_bytes)
            except AutoAlignError as exc:
                # one log line (validate_upload's), not a traceback per refused upload
                raise gr.Error(str(exc), title="Upload refused", print_exception=False) from exc
        return original(payload)

    image.preprocess = preprocess  # type: ignore[method-assign]
    return image


def _new_run_dir(runs_dir: Path, prompt: str) -> Path:
    slug = re.sub(r"[^a-z0-9]+", "-", prompt.lower()).strip("-")[:40] or "run"
    run_dir = runs_dir / f"{time.strftime('%Y%m%d-%H%M%S')}-{slug}-{uuid.uuid4().hex[:6]}"
    run_dir.mkdir(parents=True, exist_ok=False)
    return run_dir


def _existing(path: Path) -> str | None:
    return str(path) if path.is_file() else None


def display_copy(path: str | None, cache_dir: Path, side: int = DISPLAY_SIDE) -> str | None:
    """``path`` itself, or for an image smaller than ``side`` an enlarged copy (nearest-neighbour, an
    integer factor) in ``cache_dir``: browsers blur small images they stretch, or show them tiny."""
    if not path:
        return path
    from PIL import Image

    src = Path(path)
    try:
        stat = src.stat()
        with Image.open(src) as im:
            factor = side // max(im.size)
            if factor < 2:
                return str(src)
            key = hashlib.sha256(f"{src.resolve()}|{stat.st_mtime_ns}|{factor}".encode()).hexdigest()[:16]
            out = cache_dir / f"{key}.png"
            if not out.is_file():
                cache_dir.mkdir(parents=True, exist_ok=True)
                big = im.convert("RGB").resize((im.width * factor, im.height * factor), Image.Resampling.NEAREST)
                atomic_save_image(out, big)
            return str(out)
    except (OSError, ValueError):
        return str(src)


def preset_warning(preset: str) -> str:
    """The studio's banner for a preset whose judges cannot judge (Markdown); '' for real models."""
    try:
        message = scores_warning(load_config(preset))
    except AutoAlignError:
        return ""
    return f"⚠️ **Scores mean nothing here.** {message}" if message else ""


def build_app(
    preset: str = "shapes",
    runs_dir: str | Path | None = None,
    *,
    stream_fn: StreamFn | None = None,
    max_upload_bytes: int = MAX_UPLOAD_BYTES,
    server_config_files: bool = True,
) -> gr.Blocks:
    """Build the studio (not launched). Runs are written under ``runs_dir`` (a temp dir if None).

    ``server_config_files``: offer the "config file" box, which reads a path *on the server*; turn it
    off when people other than the server's owner can reach the page (``--share``, a public host).

    ``stream_fn`` replaces the agent runner (tests pass a named double); by default
    :func:`autoalign.agents.runner.stream` is used. ``demo.autoalign_runs_dir`` records where runs go;
    :func:`launch` serves files from there.
    """
    presets = preset_names()
    if preset not in presets and not Path(preset).is_file():
        raise ConfigError(f"preset must be one of {', '.join(presets)} or a .toml path (got {preset!r})")
    runs_root = Path(runs_dir) if runs_dir else Path(tempfile.mkdtemp(prefix="autoalign-studio-"))
    runs_root.mkdir(parents=True, exist_ok=True)
    display_dir = runs_root / DISPLAY_DIR
    defaults = preset_defaults(preset)
    preset_choices = presets if preset in presets else [preset, *presets]

    def run(
        prompt: str,
        init_image: str | None = None,
        preset_name: str = preset,
        candidates: float | None = None,
        max_rounds: float | None = None,
        threshold: float | None = None,
        seed: float | None = None,
        editor_strength: float | None = None,
        config_file: str | None = None,
        writer: str | None = None,
        device: str | None = None,
        dtype: str | None = None,
        steps: float | None = None,
        guidance_scale: float | None = None,
        negative_prompt: str | None = None,
        width: float | None = None,
        height: float | None = None,
        history: list[list[Any]] | None = None,
        control: dict[str, Any] | None = None,
        progress: gr.Progress = gr.Progress(),
    ):
        """Stream one run of the loop into the page (generator: one yield per graph step)."""
        control = control if control is not None else {}
        control["stop"] = False
        if (config_file or "").strip() and not server_config_files:
            raise refusal("config file: this studio does not read files on its server; leave the box empty",
                          title="Check the settings")
        prompt = (prompt or "").strip()
        if not prompt:
            raise refusal("prompt: describe the image you want; the prompt is empty", title="Nothing to draw")
        settings = StudioSettings(
            preset=preset_name or preset,
            candidates=candidates,
            max_rounds=max_rounds,
            threshold=threshold,
            seed=seed,
            editor_strength=editor_strength,
            writer=writer or None,
            config_file=config_file or "",
            device=device or None,
            dtype=dtype or None,
            steps=steps,
            guidance_scale=guidance_scale,
            negative_prompt=negative_prompt or None,
            width=width,
            height=height,
        )
        try:
            image = validate_upload(init_image, max_bytes=max_upload_bytes) if init_image else None
            # only the knobs moved away from what the page showed for the preset override it (None: not set)
            config = settings.changed_from(preset_defaults(settings.preset)).to_config()
            from autoalign.models.catalog import unavailable

            missing = unavailable(config)
        except AutoAlignError as exc:
            raise refusal(str(exc), title="Check the settings") from exc
        if missing:  # refused before a run folder exists
            raise refusal("These models cannot be loaded here: " + "; ".join(missing)
                          + ". Download them, point the preset at local folders, or pick the tiny preset.",
                          title="Models missing")
        limit = config.scoring.max_prompt_chars
        if len(prompt) > limit:
            raise refusal(f"prompt: {len(prompt)} characters; the limit is {limit}", title="Prompt too long")

        run_dir = _new_run_dir(runs_root, prompt)
        started = time.strftime("%H:%M:%S")
        view = RunView(prompt=prompt, max_rounds=config.loop.max_rounds, init_image=image, run_dir=str(run_dir))
        logger.info("studio run in %s (preset %s)", run_dir, config.name)
        # The session's history list is updated in place (gr.State passes it by reference), so the
        # row survives even when the page cancels this event mid-run; Stop marks it.
        if history is None:
            history = []
        row = len(history)
        history.append(view.table_row(str(run_dir), started, running=True))

        def shown(path: str | None) -> str | None:
            return display_copy(path, display_dir)

        def page(status: str, *, done: bool = False):
            history[row] = view.table_row(str(run_dir), started, running=not done)
            final = (view.final_image or view.best_path) if done else None
            pair = view.before_after()
            return (
                status,
                [(shown(path), caption) for path, caption in view.gallery()],
                view.highlighted_prompt(),
                view.instruction_log(),
                shown(view.latest_edit()),
                (shown(pair[0]), shown(pair[1])) if pair else None,
                shown(final),
                (_existing(run_dir / "final.png") or final) if done else None,
                _existing(run_dir / "trace.jsonl") if done else None,
                history,
                history,
            )

        yield page(f"Starting · preset {config.name} · writing to `{run_dir.name}`")
        error: str | None = None
        updates = None
        try:
            updates = (stream_fn or _runner_stream())(prompt, config, str(run_dir), init_image=image)
            for step in updates:
                view.apply(step)
                progress(view.progress(), desc=view.status())
                yield page(view.status())
                if control.get("stop"):
                    view.stop_reason = STOPPED_BY_USER
                    break
        except AutoAlignError as exc:
            error = str(exc)
        except Exception as exc:  # a model failure must not take the studio down
            logger.exception("studio run failed in %s", run_dir)
            error = f"{type(exc).__name__}: {exc}"
        finally:
            close = getattr(updates, "close", None)
            if close is not None:
                close()
        view.finish(run_dir)
        if not error and (run_dir / SUMMARY_FILE).is_file():
            from autoalign.agents.contact_sheet import write_contact_sheet

            try:
                write_contact_sheet(run_dir)
            except OSError as exc:  # a missing contact sheet must not fail a finished run
                logger.warning("contact sheet for %s not written: %s", run_dir, exc)
        if control.get("stop"):
            view.stop_reason = STOPPED_BY_USER
        if error:
            view.stop_reason = f"error: {error}"
        status = f"Run failed: {error}" if error else view.status(running=False)
        yield page(status, done=True)
        if error:
            raise refusal(f"The run failed: {error}", title="Run failed")

    def stop(control: dict[str, Any], history: list[list[Any]]):
        """Ask the running loop to stop after its current step (the page also cancels the event)."""
        control["stop"] = True
        for row in history or []:
            if row[STOP_COLUMN] == RUNNING:
                row[STOP_COLUMN] = STOPPED_BY_USER
        return "Stopped. The run ends after its current step; press Run to start again.", history

    def show_preset_defaults(preset_name: str):
        try:
            d = preset_defaults(preset_name)
        except AutoAlignError as exc:
            raise refusal(str(exc), title="Unknown preset") from exc
        return d.candidates, d.max_rounds, d.threshold, d.seed, d.editor_strength, d.writer

    def show_preset_warning(preset_name: str = preset) -> str:
        """The warning banner for ``preset_name`` ('' for a preset with real models)."""
        return preset_warning(preset_name)

    with gr.Blocks(title="AutoAlign studio", analytics_enabled=False) as demo:
        history = gr.State([])
        control = gr.State({"stop": False})
        gr.Markdown(
            "# AutoAlign studio\n"
            "Type what the picture should show. AutoAlign draws candidates, checks each part of your "
            "prompt in them, and edits the best one until it shows everything you asked for."
        )
        with gr.Row():
            with gr.Column(scale=1, min_width=320):
                prompt = gr.Textbox(
                    label="Prompt",
                    placeholder="three red apples on a blue plate",
                    lines=2,
                    max_lines=6,
                    elem_id="prompt",
                )
                with gr.Row():
                    run_btn = gr.Button("Run", variant="primary", elem_id="run")
                    stop_btn = gr.Button("Stop", variant="stop", elem_id="stop")
                status = gr.Markdown("Ready.", label="Status", show_label=False, elem_id="status")
                warning = gr.Markdown(preset_warning(preset), label="Preset warning", show_label=False,
                                      elem_id="preset-warning")
                init_image = gr.Image(
                    label=f"Correct your own image instead (optional: {', '.join(ALLOWED_FORMATS.values())}, "
                    f"≤ {max_upload_bytes // 1_000_000} MB)",
                    type="filepath",
                    image_mode=None,
                    sources=["upload", "clipboard"],
                    height=220,
                    elem_id="init-image",
                )
                refuse_bad_uploads(init_image, max_upload_bytes)
                preset_box = gr.Dropdown(
                    preset_choices, value=preset, label="Preset", info="Which models draw, edit and judge"
                )
                candidates = gr.Slider(1, 8, value=defaults.candidates, step=1, label="Candidates",
                                       info="Images drawn at the start; the best one is corrected")
                max_rounds = gr.Slider(0, 6, value=defaults.max_rounds, step=1, label="Rounds",
                                   info="At most this many rounds of edits")
                threshold = gr.Slider(0.0, 1.0, value=defaults.threshold, step=0.01, label="Alignment threshold",
                                      info="Stop when the image scores at least this and nothing is missing")
                seed = gr.Number(value=defaults.seed, precision=0, label="Seed", info="Same seed, same images")
                strength = gr.Slider(0.5, 4.0, value=defaults.editor_strength, step=0.1, label="Editor strength",
                                     info="Higher keeps more of the original picture in each edit")
                with gr.Accordion("Advanced model settings", open=False):
                    config_file = gr.Textbox(label="Config file (TOML/YAML/JSON on the server)",
                                             placeholder="/path/to/overrides.toml", visible=server_config_files)
                    writer = gr.Dropdown(list(WRITERS), value=defaults.writer, label="Instruction writer",
                                         info="template: offline rules; llm: an OpenAI-compatible model")
                    gr.Markdown("Diffusers settings (empty: the preset's value)")
                    with gr.Row():
                        device = gr.Dropdown(["", "auto", "cpu", "cuda", "mps"], value="", label="Device",
                                             allow_custom_value=True, info="e.g. cuda:1")
                        dtype = gr.Dropdown(["", "auto", "float32", "float16", "bfloat16"], value="", label="Dtype")
                    with gr.Row():
                        steps = gr.Number(value=None, precision=0, minimum=1, label="Steps",
                                          info="generator.num_inference_steps")
                        guidance = gr.Number(value=None, minimum=0, label="Guidance scale",
                                             info="generator.guidance_scale")
                    negative = gr.Textbox(label="Negative prompt", placeholder="what the image should not show",
                                          lines=1)
                    with gr.Row():
                        width = gr.Number(value=None, precision=0, minimum=8, step=8, label="Width",
                                          info="multiple of 8")
                        height = gr.Number(value=None, precision=0, minimum=8, step=8, label="Height",
                                           info="multiple of 8")
            with gr.Column(scale=2):
                gallery = gr.Gallery(label="Candidates (scores in captions, ★ = best)", columns=4, fit_columns=False, height=300,
                                     object_fit="contain", elem_id="candidates")
                highlighted = gr.HighlightedText(label="Prompt: what the image gets wrong", color_map=ASPECT_COLORS,
                                                 show_legend=True, elem_id="mismatches")
                log = gr.Markdown("_No edit instructions yet._", label="Edit instructions", show_label=False,
                                  elem_id="instructions")
                with gr.Row():
                    edited = gr.Image(label="Latest edit", type="filepath", interactive=False, height=280,
                                      elem_id="latest-edit")
                    before_after = gr.ImageSlider(label="Before / after", type="filepath", interactive=False,
                                                  max_height=280, elem_id="before-after")
                with gr.Row():
                    final_image = gr.Image(label="Final image", type="filepath", interactive=False, height=320,
                                           elem_id="final-image")
                    with gr.Column():
                        final_file = gr.File(label="Download final image", interactive=False, elem_id="final-file")
                        trace_file = gr.File(label="Download run trace (trace.jsonl)", interactive=False,
                                             elem_id="trace-file")
        runs_table = gr.Dataframe(value=[], headers=HISTORY_HEADERS, label="Your runs in this session",
                                  interactive=False, wrap=True, elem_id="history",
                                  column_widths=["9%", "30%", "9%", "7%", "20%", "25%"])

        run_event = gr.on(
            triggers=[run_btn.click, prompt.submit],
            fn=run,
            inputs=[prompt, init_image, preset_box, candidates, max_rounds, threshold, seed, strength, config_file,
                    writer, device, dtype, steps, guidance, negative, width, height, history, control],
            outputs=[status, gallery, highlighted, log, edited, before_after, final_image, final_file, trace_file,
                     history, runs_table],
            api_name="run",
            concurrency_id="gpu",
            show_progress_on=[status],  # keep the streamed images visible; the bar sits on the status
        )
        stop_btn.click(stop, inputs=[control, history], outputs=[status, runs_table], cancels=[run_event], api_name="stop",
                       concurrency_limit=None)
        preset_box.change(show_preset_defaults, inputs=[preset_box],
                          outputs=[candidates, max_rounds, threshold, seed, strength, writer],
                          api_name="preset_defaults", concurrency_limit=None)
        preset_box.change(show_preset_warning, inputs=[preset_box], outputs=[warning], api_name="preset_warning",
                          concurrency_limit=None)

    demo.queue(default_concurrency_limit=1)
    demo.autoalign_runs_dir = runs_root  # type: ignore[attr-defined]
    return demo


def _offline_theme() -> gr.themes.Base:
    """A soft theme with local fonts only: no request to a font CDN (studios often run offline)."""
    return gr.themes.Soft(
        font=[gr.themes.Font("ui-sans-serif"), gr.themes.Font("system-ui"), "sans-serif"],
        font_mono=[gr.themes.Font("ui-monospace"), gr.themes.Font("Consolas"), "monospace"],
    )


def launch(
    demo: gr.Blocks,
    *,
    host: str = "127.0.0.1",
    port: int | None = None,
    share: bool = False,
    prevent_thread_lock: bool = False,
    max_upload_bytes: int = MAX_UPLOAD_BYTES,
    quiet: bool = False,
):
    """Serve a studio built by :func:`build_app`: local only unless ``host``/``share`` say otherwise.

    Gradio's own start-up lines are replaced by ours (``quiet`` silences them too): its hint
    ("set share=True in launch()") is for Python callers; the command's switch is ``--share``.
    """
    runs_root = getattr(demo, "autoalign_runs_dir", None)
    result = demo.launch(
        server_name=host,
        server_port=port,
        share=share,
        prevent_thread_lock=True,
        max_file_size=max_upload_bytes,
        allowed_paths=[str(runs_root)] if runs_root else None,
        ssr_mode=False,
        quiet=True,
        theme=_offline_theme(),
        css=STUDIO_CSS,
    )
    if not quiet:
        print(f"AutoAlign studio running at {demo.local_url}", file=sys.stderr)
        if share and demo.share_url:
            print(f"public link (anyone with it can use this studio): {demo.share_url}", file=sys.stderr)
        elif not share:
            print("for a public link, run 'autoalign ui --share'; stop with Ctrl+C", file=sys.stderr)
    if not prevent_thread_lock:
        demo.block_thread()
    return result
