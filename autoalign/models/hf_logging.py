"""The Hugging Face libraries' progress bars, hidden while models load or are built (a leaf module:
the generator backend and the tiny builders both use it, and it imports nothing of the project)."""

from __future__ import annotations

import contextlib
import logging
from typing import Iterator

logger = logging.getLogger("autoalign.models")


@contextlib.contextmanager
def quiet_hf_progress() -> Iterator[None]:
    """Hide diffusers'/transformers' load and save progress bars unless INFO logging is on.

    Loading a tiny model would otherwise print several bars per call; runs show their own progress.
    The hub's **download** bars stay as they were: transformers' ``disable_progress_bar()`` also
    switches off huggingface_hub's bars, and a first run fetching 34-58 GB without them looks hung,
    so they are switched back on at once. Restores each library's previous setting afterwards.
    """
    from diffusers.utils import logging as diffusers_logging
    from huggingface_hub import utils as hub_utils
    from transformers.utils import logging as transformers_logging

    if logger.isEnabledFor(logging.INFO):
        yield
        return
    libs = [diffusers_logging, transformers_logging]
    before = [lib.is_progress_bar_enabled() for lib in libs]
    hub_before = not hub_utils.are_progress_bars_disabled()
    for lib in libs:
        lib.disable_progress_bar()
    if hub_before:
        hub_utils.enable_progress_bars()
    try:
        yield
    finally:
        for lib, enabled in zip(libs, before):
            if enabled:
                lib.enable_progress_bar()
        if not hub_before and not hub_utils.are_progress_bars_disabled():
            hub_utils.disable_progress_bars()
