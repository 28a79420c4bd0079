"""The studio as an artist (or an API client) uses it, driven through gradio_client.

The runner is replaced by ``StreamDouble`` (autoalign.doubles.stream), a named test double that
draws flat-colour images and judges nothing: these tests check what the page shows and how it
behaves, not alignment. ``test_ui_tiny_run.py`` runs the real agent on the tiny preset.
"""

from __future__ import annotations

import json
import socket
import struct
import time
import zlib
from pathlib import Path

import pytest
from gradio_client import Client, handle_file
from gradio_client.exceptions import AppError
from PIL import Image

from autoalign.config import load_config
from autoalign.doubles.stream import StreamDouble
from autoalign.ui.app import RUN_PARAMETERS, build_app, launch

# /run inputs after the prompt and image: preset, candidates, rounds, threshold, seed, editor strength
# (image_guidance_scale), config file, writer (autoalign.ui.app.RUN_PARAMETERS)
SETTINGS = ("tiny", 2, 2, 0.8, 0, 1.5, "", "template")  # the double aligns after 2 edits
OUT = {"status": 0, "gallery": 1, "highlight": 2, "log": 3, "edited": 4, "before_after": 5, "final": 6,
       "final_file": 7, "trace_file": 8, "history": 9}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(tmp_path_factory, double, preset="tiny"):
    demo = build_app(preset, tmp_path_factory.mktemp("runs"), stream_fn=double)
    port = free_port()
    launch(demo, port=port, prevent_thread_lock=True, quiet=True)
    return demo, f"http://127.0.0.1:{port}/"


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    double = StreamDouble()
    demo, url = serve(tmp_path_factory, double)
    yield demo, url, double
    demo.close()


def fast_client(url: str) -> Client:
    """A client that leaves output files on the (same-machine) server instead of downloading each
    one at every streamed update; outputs hold file dicts (see ``path_of``)."""
    return Client(url, verbose=False, download_files=False)


def path_of(value) -> str:
    return value["path"] if isinstance(value, dict) else value


@pytest.fixture()
def client(studio):
    return fast_client(studio[1])


def run_all(client, prompt, image=None, settings=SETTINGS):
    """Submit /run and return every streamed output (one tuple per update)."""
    job = client.submit(prompt, image, *settings, api_name="/run")
    outputs = list(job)
    job.result()  # raises AppError when the run ended in an error
    return outputs


def png_claiming_size(path: Path, width: int, height: int) -> Path:
    """A tiny PNG whose header claims ``width x height`` pixels (a decompression-bomb shape)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
                     + chunk(b"IEND", b""))
    return path


def test_every_event_is_an_api_endpoint(client):
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    assert {"/run", "/stop", "/preset_defaults"} <= set(endpoints)


def test_studio_listens_on_localhost_only_by_default(studio):
    demo, url, _ = studio
    assert demo.server_name == "127.0.0.1"
    assert demo.share is False or demo.share is None


def test_run_streams_each_step_then_offers_final_image_and_trace(studio):
    client = Client(studio[1], verbose=False)  # downloads files, as a remote user's client does
    outputs = run_all(client, "a red car")
    statuses = [o[OUT["status"]] for o in outputs]
    assert len(outputs) >= 6, statuses
    assert statuses[0].startswith("Starting")
    assert any("round 1/2" in s for s in statuses)
    assert statuses[-1].startswith("Done") and "stopped: aligned" in statuses[-1]
    # intermediate updates already show candidates, then edits, before any final image
    assert outputs[1][OUT["gallery"]] and outputs[1][OUT["final"]] is None
    mid = next(o for o in outputs if "detect" in o[OUT["status"]])
    assert ("car", "attribute") in [(p["token"], p["class_or_confidence"]) for p in mid[OUT["highlight"]]]
    last = outputs[-1]
    captions = [item["caption"] for item in last[OUT["gallery"]]]
    assert sum(c.startswith("★ best") for c in captions) == 1 and all("overall" in c for c in captions)
    assert "**Edit round 1**" in last[OUT["log"]] and "make it car" in last[OUT["log"]]
    assert last[OUT["edited"]] and len(last[OUT["before_after"]]) == 2
    assert Path(last[OUT["final_file"]]).name == "final.png"
    real, shown = Image.open(last[OUT["final_file"]]), Image.open(last[OUT["final"]])
    assert real.size == (32, 32) and shown.size == (256, 256)  # shown enlarged, downloaded as made
    assert list(shown.resize((32, 32), Image.Resampling.NEAREST).getdata()) == list(real.convert("RGB").getdata())
    trace = Path(last[OUT["trace_file"]]).read_text().splitlines()
    assert [json.loads(line)["node"] for line in trace][0] == "generate"


def test_uploaded_image_is_corrected_instead_of_generating(client, studio, tmp_path):
    mine = tmp_path / "mine.png"
    Image.new("RGB", (40, 30), (10, 200, 10)).save(mine)
    outputs = run_all(client, "a green field", handle_file(str(mine)))
    prompt, init_image = studio[2].calls[-1]
    assert prompt == "a green field" and init_image is not None
    assert Image.open(init_image).size == (40, 30)  # the upload reached the runner unchanged
    before, after = outputs[-1][OUT["before_after"]]
    assert Image.open(path_of(before)).size == (240, 180)  # the upload, shown 6x with nearest-neighbour
    assert outputs[-1][OUT["gallery"]][0]["caption"].split(" · ")[0] == "#1 upload r0"


@pytest.mark.parametrize("kind", ["text-renamed-png", "decompression-bomb"])
def test_bad_upload_is_refused_readably_and_the_next_run_works(client, tmp_path, kind):
    bad = tmp_path / "bad.png"
    if kind == "text-renamed-png":
        bad.write_text("definitely not an image\n")
        expected = "image: not a readable image file"
    else:
        png_claiming_size(bad, 200_000, 200_000)
        expected = "looks like a decompression bomb and was refused"
    with pytest.raises(AppError, match=expected):
        run_all(client, "a red car", handle_file(str(bad)))
    assert run_all(client, "a red car")[-1][OUT["status"]].startswith("Done")


def test_empty_prompt_is_refused_with_a_readable_message(client):
    with pytest.raises(AppError, match="prompt: describe the image you want"):
        run_all(client, "   ")


def test_bad_setting_is_refused_naming_the_field(client):
    settings = ("tiny", 2, 2, 0.8, 0, 1.5, "/nonexistent/overrides.toml", "template")
    with pytest.raises(AppError, match="config file not found"):
        run_all(client, "a red car", settings=settings)


def test_shared_studio_refuses_to_read_config_files_on_its_server(tmp_path_factory):
    demo = build_app("tiny", tmp_path_factory.mktemp("runs"), stream_fn=StreamDouble(), server_config_files=False)
    port = free_port()
    launch(demo, port=port, prevent_thread_lock=True, quiet=True)
    try:
        settings = ("tiny", 2, 2, 0.8, 0, 1.5, "/etc/passwd", "template")
        with pytest.raises(AppError, match="does not read files on its server"):
            run_all(fast_client(f"http://127.0.0.1:{port}/"), "a red car", settings=settings)
    finally:
        demo.close()


def test_past_runs_table_belongs_to_the_session(studio):
    first, second = fast_client(studio[1]), fast_client(studio[1])
    run_all(first, "one red car")
    table = run_all(first, "two red cars")[-1][OUT["history"]]
    assert [row[1] for row in table["data"]] == ["one red car", "two red cars"]
    assert table["headers"][:3] == ["started", "prompt", "best score"]
    other = run_all(second, "a blue boat")[-1][OUT["history"]]
    assert [row[1] for row in other["data"]] == ["a blue boat"]


@pytest.mark.parametrize("preset", ["shapes", "tiny"])
def test_the_studio_runs_each_preset_with_the_pages_own_defaults(tmp_path_factory, preset):
    """What an artist gets without touching a control: the page's defaults are valid for its preset (on
    shapes the pass threshold is 1.95, CLIPScore's scale), and they make the preset's own configuration."""
    double = StreamDouble()
    demo, url = serve(tmp_path_factory, double, preset)
    try:
        client = fast_client(url)
        params = client.view_api(print_info=False, return_format="dict")["named_endpoints"]["/run"]["parameters"]
        page = {p["parameter_name"]: p["parameter_default"] for p in params}
        assert page["preset_name"] == preset and page["threshold"] == load_config(preset).loop.threshold
        final = client.submit(prompt="two red circles", api_name="/run").result()
        assert final[OUT["status"]].startswith("Done")
        assert double.configs[-1] == load_config(preset)
        final = client.submit("two red circles", None, *[page[n] for n in RUN_PARAMETERS[2:-3]], api_name="/run").result()
        assert final[OUT["status"]].startswith("Done") and double.configs[-1] == load_config(preset)
    finally:
        demo.close()


def test_preset_defaults_fill_the_settings_with_the_presets_values_and_ranges(client):
    from autoalign.ui.settings import KNOBS

    def shown(preset):  # /preset_defaults answers one update per knob: its value (and the threshold's range)
        return dict(zip(KNOBS, client.predict(preset, api_name="/preset_defaults")))

    tiny = shown("tiny")
    assert {k: tiny[k]["value"] for k in ("candidates", "max_rounds", "threshold", "image_guidance_scale", "writer",
                                          "steps", "width", "device")} == {
        "candidates": 2, "max_rounds": 2, "threshold": 0.8, "image_guidance_scale": 1.5, "writer": "template",
        "steps": 2, "width": 64, "device": "cpu"}
    assert tiny["threshold"]["maximum"] == 1.0  # scoring.primary vq2
    shapes = shown("shapes")
    assert (shapes["candidates"]["value"], shapes["steps"]["value"]) == (4, 20)
    assert (shapes["threshold"]["value"], shapes["threshold"]["maximum"]) == (1.95, 2.5)  # CLIPScore's scale


def test_model_failure_shows_an_error_and_the_studio_keeps_serving(tmp_path_factory):
    double = StreamDouble(fail_at=3, fail_with=RuntimeError("CUDA out of memory"))
    demo, url = serve(tmp_path_factory, double)
    try:
        client = fast_client(url)
        job = client.submit("a red car", None, *SETTINGS, api_name="/run")
        with pytest.raises(AppError, match="The run failed: RuntimeError: CUDA out of memory"):
            job.result()
        statuses = [o[OUT["status"]] for o in job.outputs()]
        assert statuses[-1] == "Run failed: RuntimeError: CUDA out of memory"
        assert "error: RuntimeError" in job.outputs()[-1][OUT["history"]]["data"][0][4]
        double.fail_at = None
        assert run_all(client, "a red car")[-1][OUT["status"]].startswith("Done")
    finally:
        demo.close()


def wait_for_outputs(job, n: int, timeout: float = 30.0) -> None:
    deadline = time.time() + timeout
    while len(job.outputs()) < n and time.time() < deadline:
        time.sleep(0.05)


LONG_RUN = ("tiny", 2, 6, 1.0, 0, 1.5, "", "template")  # threshold 1.0: never aligned, 6 rounds


def test_stop_ends_the_run_after_the_current_step_and_keeps_what_it_made(tmp_path_factory):
    demo, url = serve(tmp_path_factory, StreamDouble(step_delay=0.3))
    try:
        client = fast_client(url)
        job = client.submit("a red car", None, *LONG_RUN, api_name="/run")
        wait_for_outputs(job, 3)
        message, table = client.predict(api_name="/stop")
        assert message.startswith("Stopped.")
        job.result()
        last = job.outputs()[-1]
        assert last[OUT["status"]].startswith("Done") and "stopped: stopped by you" in last[OUT["status"]]
        assert len(job.outputs()) < 12  # 6 rounds would take ~20 updates
        assert last[OUT["final"]] is not None  # the best image so far is offered
        assert last[OUT["history"]]["data"][-1][4] == "stopped by you"
    finally:
        demo.close()


def test_cancelled_run_is_recorded_as_stopped_and_the_next_run_works(tmp_path_factory):
    demo, url = serve(tmp_path_factory, StreamDouble(step_delay=0.3))
    try:
        client = fast_client(url)
        job = client.submit("a red car", None, *LONG_RUN, api_name="/run")
        wait_for_outputs(job, 3)
        job.cancel()  # what the page's Stop button does to the event, alongside /stop
        client.predict(api_name="/stop")
        outputs = run_all(client, "a blue boat")
        rows = outputs[-1][OUT["history"]]["data"]
        assert [(r[1], r[4]) for r in rows] == [("a red car", "stopped by you"), ("a blue boat", "aligned")]
    finally:
        demo.close()


class ConcurrencyProbe(StreamDouble):
    """The stream double, counting how many runs stream at the same time."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.active = 0
        self.max_active = 0

    def _steps(self, *args):
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            yield from super()._steps(*args)
        finally:
            self.active -= 1


def test_runs_from_two_sessions_take_turns_on_the_one_gpu(tmp_path_factory):
    probe = ConcurrencyProbe(step_delay=0.05)
    demo, url = serve(tmp_path_factory, probe)
    try:
        jobs = [fast_client(url).submit(p, None, *SETTINGS, api_name="/run") for p in ("a red car", "a cat")]
        for job in jobs:
            job.result()
        assert len(probe.calls) == 2 and probe.max_active == 1
    finally:
        demo.close()


def test_api_parameters_are_named_and_optional_and_outputs_are_labelled(client):
    endpoints = client.view_api(print_info=False, return_format="dict")["named_endpoints"]
    run = endpoints["/run"]
    names = [p["parameter_name"] for p in run["parameters"]]
    assert names[:2] == ["prompt", "init_image"] and "config_file" in names and "negative_prompt" in names
    required = [p["parameter_name"] for p in run["parameters"] if not p["parameter_has_default"]]
    assert required == ["prompt"]  # init_image, config_file and every setting are optional
    for name, endpoint in endpoints.items():
        labels = [r["label"] for r in endpoint["returns"]]
        assert all(label and not label.startswith("value_") for label in labels), (name, labels)
        assert all(p["parameter_has_default"] for p in endpoint["parameters"] if p["parameter_name"] != "prompt")


def test_run_by_keyword_with_only_a_prompt_uses_the_defaults(client):
    job = client.submit(prompt="a red car", api_name="/run")
    final = job.result()
    assert final[OUT["status"]].startswith("Done")


def test_small_images_are_shown_enlarged_with_nearest_neighbour(tmp_path):
    from autoalign.ui.app import display_copy

    small = tmp_path / "small.png"
    img = Image.new("RGB", (64, 64), (255, 255, 255))
    img.putpixel((0, 0), (255, 0, 0))
    img.save(small)
    shown = Image.open(display_copy(str(small), tmp_path / "cache"))
    assert shown.size == (256, 256)
    # nearest-neighbour: the one red pixel becomes a sharp 4x4 block, no blend with its neighbours
    assert {shown.getpixel((x, y)) for x in range(4) for y in range(4)} == {(255, 0, 0)}
    assert shown.getpixel((4, 0)) == (255, 255, 255)
    big = tmp_path / "big.png"
    Image.new("RGB", (512, 512)).save(big)
    assert display_copy(str(big), tmp_path / "cache") == str(big)  # large images are shown as they are
    assert display_copy(str(small), tmp_path / "cache") == display_copy(str(small), tmp_path / "cache")


def test_the_studio_warns_when_the_preset_cannot_judge():
    from autoalign.ui.app import preset_warning

    assert "mean nothing" in preset_warning("tiny") and "random-weight" in preset_warning("tiny")
    assert "test doubles" in preset_warning("scene-double")
    assert preset_warning("sd-turbo") == ""


def test_the_warning_follows_the_preset_choice(client):
    assert "mean nothing" in client.predict("tiny", api_name="/preset_warning")
    assert client.predict("sd-turbo", api_name="/preset_warning") == ""


def test_an_offline_real_preset_is_refused_before_a_run_folder_exists(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path_factory.mktemp("empty-hf")))
    runs = tmp_path_factory.mktemp("runs")
    demo = build_app("tiny", runs, stream_fn=StreamDouble())
    port = free_port()
    launch(demo, port=port, prevent_thread_lock=True, quiet=True)
    try:
        with pytest.raises(AppError, match="stabilityai/sd-turbo"):
            fast_client(f"http://127.0.0.1:{port}/").predict("a red car", preset_name="sd-turbo", api_name="/run")
        assert [p.name for p in runs.iterdir() if not p.name.startswith(".")] == []
    finally:
        demo.close()
