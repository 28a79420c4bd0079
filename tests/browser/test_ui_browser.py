"""The studio in a real browser, on its own default preset (shapes) with the page's own settings: type a
prompt, click Run, see the final image, no error on the page.

Drives Debian's chromium (``/usr/bin/chromium``) with Playwright's sync API; never downloads a
browser (no ``playwright install``). ``scripts/install_browser.sh`` installs both. Skipped, saying
why, only when one of them is absent.

Environment:
  AUTOALIGN_UI_SCREENSHOT=docs/ui.png   save the screenshot there (default: the test's tmp dir).
  AUTOALIGN_UI_STREAM=double            use the StreamDouble instead of the agent runner (to work
                                        on the page alone; it judges nothing). Default: the real
                                        runner on the shapes preset (the studio's default).
"""

from __future__ import annotations

import importlib.util
import os
import socket
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
RUN_TIMEOUT_MS = 600_000  # the shapes preset on 2 shared CPU cores: about 40 s of CPU, minutes when shared

if not CHROMIUM.exists():
    pytest.skip("needs /usr/bin/chromium (run scripts/install_browser.sh)", allow_module_level=True)
if importlib.util.find_spec("playwright") is None:
    pytest.skip("needs the `playwright` Python package (run scripts/install_browser.sh)", allow_module_level=True)

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from autoalign.config import load_config  # noqa: E402
from autoalign.settings import STUDIO_PRESET  # noqa: E402
from autoalign.ui.app import build_app, launch  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def studio_url(tmp_path_factory):
    stream_fn = None
    if os.environ.get("AUTOALIGN_UI_STREAM") == "double":
        from autoalign.doubles.stream import StreamDouble

        stream_fn = StreamDouble(step_delay=0.2)
    else:
        pytest.importorskip("autoalign.agents.runner", reason="autoalign.agents.runner is not installed")
    demo = build_app(STUDIO_PRESET, tmp_path_factory.mktemp("runs"), stream_fn=stream_fn)
    port = _free_port()
    launch(demo, port=port, prevent_thread_lock=True, quiet=True)
    yield f"http://127.0.0.1:{port}/"
    demo.close()


def test_artist_types_a_prompt_runs_and_gets_a_final_image(studio_url, tmp_path):
    shot = Path(os.environ.get("AUTOALIGN_UI_SCREENSHOT") or tmp_path / "ui.png")
    page_errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1500})
            page.on("pageerror", lambda exc: page_errors.append(str(exc)))
            page.goto(studio_url, wait_until="domcontentloaded")
            expect(page.locator("#run")).to_be_visible(timeout=60_000)

            page.locator("#prompt textarea").fill("two red circles")
            page.locator("#run").click()

            final = page.locator("#final-image img")
            errors = page.locator(".toast-body.error")
            final.or_(errors).first.wait_for(state="visible", timeout=RUN_TIMEOUT_MS)  # whichever comes first
            assert not errors.count(), f"the page shows an error: {errors.all_inner_texts()}"
            expect(page.locator("#status")).to_contain_text("Done", timeout=30_000)
            expect(page.locator("#candidates")).to_contain_text("best")
            expect(page.locator("#trace-file")).to_contain_text("trace.jsonl")

            error_text = errors.all_inner_texts() if errors.count() else []
            page.wait_for_timeout(500)  # let the last images paint before the screenshot
            shot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert not error_text, f"the page shows an error: {error_text}"
    assert not page_errors, f"the page raised JavaScript errors: {page_errors}"
    assert shot.stat().st_size > 10_000


def test_the_settings_follow_the_chosen_preset(studio_url):
    """Choosing another preset shows its values and its threshold range (vq2's [0, 1] on tiny, CLIPScore's
    [0, 2.5] on shapes)."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1500})
            page.goto(studio_url, wait_until="domcontentloaded")
            threshold = page.locator("#setting-threshold input[type=range]")
            candidates = page.locator("#setting-candidates input[type=number]")
            expect(threshold).to_have_attribute("max", "2.5", timeout=60_000)
            expect(threshold).to_have_value(str(load_config("shapes").loop.threshold))  # the preset's gate
            expect(candidates).to_have_value("4")
            page.get_by_label("Preset").click()
            page.get_by_role("option", name="tiny", exact=True).click()
            expect(threshold).to_have_attribute("max", "1", timeout=30_000)
            expect(threshold).to_have_value("0.8")
            expect(candidates).to_have_value("2")
        finally:
            browser.close()
