"""The LLM edit-instruction writer: asks a chat model (any OpenAI-compatible server) for instructions.

The model gets the prompt, the mismatch triplets with their evidence and the instructions already
tried, with the system prompt ``prompts/edit_instruction_system.txt`` and the few-shot examples
``prompts/edit_instruction_examples.json``, and must answer JSON of the shape::

    {"instructions": [{"instruction": "make the car red", "addresses": [0]}]}

where ``addresses`` are indices into the mismatch list it was given.

Any failure — the server is down or slow (timeout), answers HTTP 500, sends malformed JSON after the
backend's retries, or gives no usable instruction — is logged as a warning and the
:class:`~autoalign.editing.template_writer.TemplateWriter` writes the instructions instead, each
recorded as ``writer="template"`` with ``note="llm failed: <reason>; template fallback"``. An LLM
failure never ends a run.

The connection (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``AUTOALIGN_LLM_MODEL``, timeout, retries)
is the ``llm`` backend's business (:mod:`autoalign.models.llm`), configured in the preset's ``[llm]``
table or by those environment variables.
"""

from __future__ import annotations

import functools
import json
import logging
from typing import Any

from autoalign import prompts
from autoalign.editing.policy import by_confidence
from autoalign.editing.template_writer import TemplateWriter, normalize
from autoalign.types import Instruction, Mismatch

logger = logging.getLogger(__name__)

SCHEMA_NAME = "edit_instructions"
INSTRUCTION_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "instructions": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "instruction": {"type": "string"},
                    "addresses": {"type": "array", "items": {"type": "integer"}},
                },
                "required": ["instruction", "addresses"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["instructions"],
    "additionalProperties": False,
}
MAX_WORDS = 25  # longer answers are not edit instructions (and overflow the editor's text encoder)
_EVIDENCE_CHARS = 200


class UnusableAnswer(Exception):
    """The LLM answered, but nothing in the answer can be used as an instruction."""


@functools.lru_cache(maxsize=1)
def few_shot_messages() -> tuple[dict[str, str], ...]:
    """The few-shot examples as alternating user / assistant messages."""
    examples = json.loads(prompts.load("edit_instruction_examples.json"))
    out: list[dict[str, str]] = []
    for ex in examples:
        out.append({"role": "user", "content": json.dumps(ex["input"], ensure_ascii=False)})
        out.append({"role": "assistant", "content": json.dumps(ex["output"], ensure_ascii=False)})
    return tuple(out)


def _compact_evidence(evidence: dict[str, Any]) -> dict[str, Any]:
    """The JSON-friendly, short parts of a mismatch's evidence (no arrays of boxes or scores)."""
    out: dict[str, Any] = {}
    for key, value in evidence.items():
        if isinstance(value, (bool, int, float)):
            out[key] = round(value, 3) if isinstance(value, float) else value
        elif isinstance(value, str):
            out[key] = value[:_EVIDENCE_CHARS]
    return out


def build_messages(prompt: str, mismatches: list[Mismatch], tried: list[str], mode: str, max_instructions: int) -> list[dict[str, str]]:
    """System prompt, few-shot examples, then this request as a JSON user message."""
    request = {
        "prompt": prompt,
        "mode": mode,
        "max_instructions": 1 if mode == "combined" else max_instructions,
        "mismatches": [
            {
                "index": i,
                "aspect": m.aspect,
                "phrase": m.phrase,
                "correction": m.correction,
                "confidence": round(float(m.confidence), 3),
                "evidence": _compact_evidence(m.evidence),
            }
            for i, m in enumerate(mismatches)
        ],
        "already_tried": list(tried),
    }
    return [
        {"role": "system", "content": prompts.load("edit_instruction_system.txt").strip()},
        *few_shot_messages(),
        {"role": "user", "content": json.dumps(request, ensure_ascii=False)},
    ]


def parse_answer(
    answer: dict[str, Any], mismatches: list[Mismatch], tried: list[str], mode: str, max_instructions: int
) -> list[Instruction]:
    """Turn the LLM's JSON into Instructions; raises :class:`UnusableAnswer` when none is usable.

    Skips empty, over-long and already-tried instructions and duplicates. Addresses outside the
    mismatch list are dropped; an instruction with none left addresses all mismatches (combined)
    or the mismatch at its own position (sequential).
    """
    items = answer.get("instructions") if isinstance(answer, dict) else None
    if not isinstance(items, list) or not items:
        raise UnusableAnswer("empty instruction list")
    seen = {normalize(t) for t in tried}
    repeated = 0
    out: list[tuple[int, Instruction]] = []
    for pos, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        text = " ".join(str(item.get("instruction", "")).split()).strip().rstrip(".")
        if not text or len(text.split()) > MAX_WORDS:
            continue
        if normalize(text) in seen:
            repeated += 1
            continue
        raw = item.get("addresses") or []
        idx = sorted({int(i) for i in raw if isinstance(i, (int, float)) and 0 <= int(i) < len(mismatches)}) if isinstance(raw, list) else []
        if not idx:
            idx = list(range(len(mismatches))) if mode == "combined" else ([pos] if pos < len(mismatches) else [])
        if not idx:
            continue
        seen.add(normalize(text))
        out.append((min(idx), Instruction(text=text, writer=LLMWriter.name, mismatches=[mismatches[i].to_dict() for i in idx])))
    if not out:
        raise UnusableAnswer("only already-tried instructions" if repeated else "no usable instruction")
    if mode == "combined":
        return [out[0][1]]
    out.sort(key=lambda pair: pair[0])  # mismatches were sent most confident first
    return [ins for _, ins in out[:max_instructions]]


def _short(exc: BaseException) -> str:
    """The exception on one line, whole (the note and the trace keep the full reason)."""
    message = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


class LLMWriter:
    """Writes edit instructions with the run's ``llm`` backend; falls back to templates on failure.

    ``mode`` (default ``config.loop.multi_mismatch``): "sequential" asks for one instruction per
    mismatch (at most ``config.loop.max_instructions``), "combined" asks for one for all.
    """

    name = "llm"

    def __init__(self, models: Any, config: Any, mode: str | None = None):
        self.models = models
        self.config = config
        loop = getattr(config, "loop", None)
        self.mode = mode or getattr(loop, "multi_mismatch", "sequential")
        self.max_instructions = int(getattr(loop, "max_instructions", 3))
        self.fallback = TemplateWriter(models, config, mode=self.mode)

    def write(self, prompt: str, mismatches: list[Mismatch], tried: list[str]) -> list[Instruction]:
        ordered = by_confidence(list(mismatches))
        if not ordered:
            return []
        messages = build_messages(prompt, ordered, tried, self.mode, self.max_instructions)
        try:
            answer = self.models.llm.complete_json(messages, INSTRUCTION_SCHEMA, SCHEMA_NAME)
            return parse_answer(answer, ordered, tried, self.mode, self.max_instructions)
        except Exception as exc:  # noqa: BLE001 - an LLM failure must never end the run
            reason = str(exc) if isinstance(exc, UnusableAnswer) else _short(exc)
            return self._fall_back(prompt, ordered, tried, reason)

    def _fall_back(self, prompt: str, mismatches: list[Mismatch], tried: list[str], reason: str) -> list[Instruction]:
        logger.warning("LLM instruction writer failed (%s); using the template writer", reason)
        instructions = self.fallback.write(prompt, mismatches, tried)
        for ins in instructions:
            ins.note = f"llm failed: {reason}; template fallback"
        return instructions
