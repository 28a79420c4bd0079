"""The studio running the real agent (autoalign.agents.runner.stream) on the tiny preset.

Tiny random-weight models: the scores mean nothing; this checks the whole path an artist uses,
from the page to the graph and back, streams and files included.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from gradio_client import Client, handle_file
from PIL import Image

pytest.importorskip("autoalign.agents.runner", reason="autoalign.agents.runner (the agents helper's) is not installed")

from autoalign.ui.app import build_app, launch  # noqa: E402

pytestmark = pytest.mark.slow

# preset, candidates, max_rounds, threshold, seed, editor strength, config file, writer
SETTINGS = ("tiny", 2, 1, 0.99, 0, 1.5, "", "template")
STATUS, GALLERY, FINAL, FINAL_FILE, TRACE_FILE, HISTORY = 0, 1, 6, 7, 8, 9


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    demo = build_app("tiny", tmp_path_factory.mktemp("runs"))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    launch(demo, port=port, prevent_thread_lock=True, quiet=True)
    yield Client(f"http://127.0.0.1:{port}/", verbose=False)
    demo.close()


def test_tiny_run_streams_steps_and_ends_with_final_image_and_trace(client):
    job = client.submit("two red apples on a blue plate", None, *SETTINGS, api_name="/run")
    outputs = list(job)
    job.result()
    statuses = [o[STATUS] for o in outputs]
    assert len(outputs) >= 4, statuses  # start, several graph steps, done
    assert statuses[-1].startswith("Done"), statuses[-1]
    assert any(o[GALLERY] for o in outputs[1:-1])  # candidates shown before the run ends
    last = outputs[-1]
    assert Image.open(last[FINAL]).size == Image.open(last[GALLERY][0]["image"]).size
    assert Path(last[FINAL_FILE]).name == "final.png"
    lines = Path(last[TRACE_FILE]).read_text().splitlines()
    assert lines and all(isinstance(json.loads(line), dict) for line in lines)
    assert last[HISTORY]["data"][-1][1] == "two red apples on a blue plate"


def test_tiny_run_corrects_an_uploaded_image(client, tmp_path):
    mine = tmp_path / "mine.png"
    Image.new("RGB", (64, 64), (30, 160, 30)).save(mine)
    job = client.submit("a red apple", handle_file(str(mine)), *SETTINGS, api_name="/run")
    outputs = list(job)
    job.result()
    assert outputs[-1][STATUS].startswith("Done"), outputs[-1][STATUS]
    before, after = outputs[-1][5]
    assert Image.open(before).getpixel((10, 10)) == (30, 160, 30)  # the comparison starts from the upload
    final = Image.open(outputs[-1][FINAL]).convert("RGB")
    # the upload corrected at its own size (no candidate was generated), shown enlarged 4x with nearest-neighbour
    assert final.size == (256, 256)
    assert list(final.getdata()) == list(Image.open(after).convert("RGB").getdata())  # after = the final image
    history = outputs[-1][HISTORY]["data"][-1]
    # threshold 0.99 is out of the tiny models' reach: the one allowed round is used, then the limit stops it
    assert (history[1], history[3], history[4]) == ("a red apple", 1, "max_rounds")
