"""The FineMatch VLM detector ("vlm"): ask a vision-language model for the triplets directly.

FineMatch's in-context-learning setting: an instruction that defines the four aspect classes and
the output format, a few examples, then the caption; the model answers with JSON triplets
``{"class", "phrase", "correction", "confidence"}``. Texts live in ``prompts/``:
``finematch_instruction.txt`` (fields ``{examples}``, ``{caption}``) and
``finematch_examples.json``.

Backends (``[detection.options.vlm] backend = ...``):

* ``"vqa"`` (default): the run's VQA model, ``models.vqa.respond([image], [instruction])`` - the
  instruction goes to the model as it is, never wrapped in the short-answer prompt that ``answer``
  adds ("Answer the question using a single word or phrase."), which would contradict the JSON
  format the instruction asks for;
* ``"openai"``: the run's ``llm`` role (an OpenAI-compatible server, see ``models/llm.py``) with
  the image attached as a data URL - it must be a vision model.

The answer goes through :func:`autoalign.detection.parse.parse_mismatches`, which never raises on
model output: phrases must occur in the prompt, classes must be one of the four, duplicates merge,
at most ``config.detection.max_mismatches`` are kept. A model that gives no confidence gets
``default_confidence`` (option, default 0.5) for each triplet, so a VLM's triplet neither
outranks nor is outranked by a VQ2 failure by default; the ensemble raises it when detectors agree.
"""

from __future__ import annotations

import base64
import io
import json
import logging
from typing import TYPE_CHECKING, Any

from PIL import Image

from autoalign import prompts
from autoalign.config import ConfigError
from autoalign.detection.base import detector_options
from autoalign.detection.parse import parse_mismatches
from autoalign.types import Mismatch, ScoreCard

if TYPE_CHECKING:
    from autoalign.config import Config
    from autoalign.models.cache import Models

logger = logging.getLogger(__name__)

BACKENDS = ("vqa", "openai")


def few_shot_block(max_examples: int | None = None) -> str:
    """The few-shot examples from ``prompts/finematch_examples.json``, formatted like the query."""
    data = json.loads(prompts.load("finematch_examples.json"))
    examples = data["examples"][:max_examples] if max_examples is not None else data["examples"]
    lines = []
    for ex in examples:
        answer = {"mismatches": ex["mismatches"]}
        lines.append(f'Caption: "{ex["caption"]}"\nAnswer: {json.dumps(answer)}')
    return "\n\n".join(lines)


def build_instruction(prompt: str, max_examples: int | None = None) -> str:
    """The full FineMatch instruction for one caption."""
    template = prompts.load("finematch_instruction.txt")
    return template.format(examples=few_shot_block(max_examples), caption=prompt.replace('"', "'"))


def image_data_url(image: Image.Image) -> str:
    buf = io.BytesIO()
    image.convert("RGB").save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


class VLMDetector:
    """FineMatch-style VLM detection (module docstring).

    Options: ``backend`` ("vqa" | "openai"), ``max_new_tokens`` (default 256), ``examples``
    (how many few-shot examples, default all), ``default_confidence`` (default 0.5).
    """

    name = "vlm"

    def __init__(self, models: "Models", config: "Config", **options: Any):
        self.models = models
        self.config = config
        opts = {**detector_options(config, self.name), **options}
        self.backend = str(opts.get("backend", "vqa"))
        if self.backend not in BACKENDS:
            raise ConfigError(f"detection.options.vlm.backend must be one of {BACKENDS} (got {self.backend!r})")
        self.max_new_tokens = int(opts.get("max_new_tokens", 256))
        examples = opts.get("examples")
        self.max_examples = None if examples is None else int(examples)
        self.default_confidence = float(opts.get("default_confidence", 0.5))

    def ask(self, image: Image.Image, prompt: str) -> str:
        """The model's raw answer for one image and caption."""
        instruction = build_instruction(prompt, self.max_examples)
        if self.backend == "openai":
            messages = [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": instruction},
                        {"type": "image_url", "image_url": {"url": image_data_url(image)}},
                    ],
                }
            ]
            return self.models.llm.complete_text(messages, max_tokens=self.max_new_tokens)
        vqa = self.models.vqa
        respond = getattr(vqa, "respond", None)
        if not callable(respond):
            raise ConfigError(
                f"the vlm detector needs a VQA backend that takes instruction prompts (respond); "
                f"{type(vqa).__name__} does not: use detection.options.vlm.backend = \"openai\" or drop \"vlm\""
            )
        return respond([image], [instruction], max_new_tokens=self.max_new_tokens)[0]

    def detect(self, image: Image.Image, prompt: str, card: ScoreCard | None = None) -> list[Mismatch]:
        raw = self.ask(image, prompt)
        result = parse_mismatches(
            raw,
            prompt,
            source=self.name,
            max_items=max(1, int(self.config.detection.max_mismatches)),
            default_confidence=self.default_confidence,
            evidence={"backend": self.backend, "raw": str(raw)[:500]},
        )
        return result.mismatches
