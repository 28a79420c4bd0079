"""Test-wide settings: never touch a model hub; build tiny models once per session in a temp home."""

from __future__ import annotations

import os
import tempfile

# Set before anything imports huggingface_hub / transformers / diffusers.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# One tiny-model home per test session (AUTOALIGN_TEST_HOME reuses one across sessions to save time).
os.environ["AUTOALIGN_HOME"] = os.environ.get("AUTOALIGN_TEST_HOME") or tempfile.mkdtemp(prefix="autoalign-test-")

# The OpenAI-compatible stub server fixture (a real HTTP server on 127.0.0.1), for every test module.
from openai_stub import openai_stub  # noqa: E402,F401
