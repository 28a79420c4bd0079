"""The ``openai`` VQA backend: a vision chat model behind an OpenAI-compatible API.

P(yes) comes from the top log-probabilities of the first answer token, summed over the spellings
of "yes" and "no" (see :mod:`autoalign.models.vqa` for the transformers backends and the shared
helpers).
"""

from __future__ import annotations

import base64
import io
import math
import os
import threading
from typing import Any, Sequence

from PIL import Image

from autoalign.config import ConfigError, RoleSpec
from autoalign.models.llm import REASONING_PREFIXES, REASONING_TOKENS, is_reasoning_model  # noqa: F401 - one home
from autoalign.models.loading import DeviceSpec
from autoalign.models.vqa import (
    _WORD_START,
    NO_WORDS,
    YES_WORDS,
    VQAServiceError,
    _prompt_template,
    check_pairs,
    dedupe_images,
    normalise,
)

#: Probability given to "yes" or "no" when it is not among the returned top log-probabilities.
LOGPROB_FLOOR = 1e-6
TOP_LOGPROBS = 20
def png_data_url(image: Image.Image) -> str:
    """The image as a ``data:image/png;base64,...`` URL."""
    buffer = io.BytesIO()
    image.convert("RGB").save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def yes_no_from_top_logprobs(top: Sequence[tuple[str, float]]) -> tuple[float, float]:
    """(P(yes), P(no)) from (token, logprob) pairs, summing spellings; a missing answer gets :data:`LOGPROB_FLOOR`."""
    p_yes = p_no = 0.0
    for token, logprob in top:
        word = token.strip().lstrip(_WORD_START)
        if word in YES_WORDS:
            p_yes += math.exp(logprob)
        elif word in NO_WORDS:
            p_no += math.exp(logprob)
    return (p_yes or LOGPROB_FLOOR, p_no or LOGPROB_FLOOR)


class OpenAIVQA:
    """A vision chat model behind an OpenAI-compatible API (OpenAI, vLLM, SGLang, Ollama ...).

    Settings (``[vqa]`` table, else environment): ``model`` (or ``AUTOALIGN_VQA_MODEL``),
    ``base_url`` (or ``OPENAI_BASE_URL``), ``api_key`` (or ``OPENAI_API_KEY``), ``timeout`` (30 s),
    ``max_retries`` (2), ``yes_no_prompt`` / ``answer_prompt`` as for ``image-text-to-text``,
    ``reasoning`` (default: guessed from the model name, :func:`is_reasoning_model`).
    Each pair is one request: the image as a base64 PNG data URL, ``max_tokens=1``,
    ``logprobs=True``, ``top_logprobs=20``. Reasoning models (o-series, GPT-5) reject ``max_tokens``
    and offer no logprobs: ``answer``/``respond`` send ``max_completion_tokens`` (plus
    :data:`REASONING_TOKENS` for the hidden reasoning) and no temperature, and P(yes) fails at once
    with a message saying why, before any request.
    """

    name = "openai"

    def __init__(self, spec: RoleSpec, device: DeviceSpec | None = None):
        self.spec = spec
        opts = spec.options
        self.model_name = opts.get("model") or spec.model or os.environ.get("AUTOALIGN_VQA_MODEL")
        self.base_url = opts.get("base_url") or os.environ.get("OPENAI_BASE_URL")
        self._api_key = opts.get("api_key") or os.environ.get("OPENAI_API_KEY")
        reasoning = opts.get("reasoning")
        if reasoning is not None and not isinstance(reasoning, bool):
            raise ConfigError(f"[vqa] reasoning must be true or false (got {reasoning!r})")
        self.reasoning = is_reasoning_model(self.model_name) if reasoning is None else reasoning
        self.timeout = float(opts.get("timeout", 30.0))
        self.max_retries = int(opts.get("max_retries", 2))
        self._templates = {
            "yes_no": _prompt_template(spec, "yes_no_prompt", "vqa_yes_no.txt"),
            "answer": _prompt_template(spec, "answer_prompt", "vqa_answer.txt"),
        }
        self._client = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIVQA(model={self.model_name!r}, base_url={self.base_url!r})"

    @property
    def client(self):
        if self._client is None:
            with self._lock:
                if self._client is None:
                    if not self.model_name:
                        raise ConfigError(
                            "[vqa] model is not set for the openai VQA backend; set [vqa] model = \"...\" "
                            "or the AUTOALIGN_VQA_MODEL environment variable"
                        )
                    if not self._api_key:
                        raise ConfigError(
                            "[vqa] api_key is not set for the openai VQA backend; set OPENAI_API_KEY "
                            "(any non-empty value for local servers) or [vqa] api_key"
                        )
                    from openai import OpenAI

                    self._client = OpenAI(
                        api_key=self._api_key,
                        base_url=self.base_url,
                        timeout=self.timeout,
                        max_retries=self.max_retries,
                    )
        return self._client

    def _messages(self, url: str, question: str, kind: str) -> list[dict[str, Any]]:
        text = question if kind == "raw" else self._templates[kind].format(question=question)
        return [
            {
                "role": "user",
                "content": [{"type": "image_url", "image_url": {"url": url}}, {"type": "text", "text": text}],
            }
        ]

    def _create(self, **kwargs):
        import openai

        try:
            return self.client.chat.completions.create(model=self.model_name, **kwargs)
        except openai.APIStatusError as exc:
            raise VQAServiceError(
                f"the VQA server at {self.base_url or 'api.openai.com'} answered HTTP {exc.status_code} "
                f"for model {self.model_name!r}: {_short(exc.message)}"
            ) from None
        except openai.APIError as exc:  # connection errors, timeouts, bad responses
            raise VQAServiceError(
                f"the VQA server at {self.base_url or 'api.openai.com'} failed for model {self.model_name!r}: "
                f"{type(exc).__name__}: {_short(str(exc))}"
            ) from None

    def _urls(self, images: Sequence[Image.Image]) -> list[str]:
        unique, index = dedupe_images(images)
        encoded = [png_data_url(im) for im in unique]
        return [encoded[i] for i in index]

    def yes_no_probs(self, images: Sequence[Image.Image], questions: Sequence[str]) -> list[tuple[float, float]]:
        """(P(yes), P(no)) from the first answer token's top log-probabilities, per pair."""
        check_pairs(images, questions)
        if self.reasoning and images:
            raise VQAServiceError(
                f"the VQA model {self.model_name!r} is a reasoning model (o-series / GPT-5): it returns no "
                "logprobs, so P(yes) cannot be read. Use a vision model that returns logprobs (gpt-4o, "
                "gpt-4.1, or a vLLM/SGLang server) for [vqa]; set [vqa] reasoning = false if this one does"
            )
        results = []
        for url, question in zip(self._urls(images), questions):
            response = self._create(
                messages=self._messages(url, question, "yes_no"),
                max_tokens=1,
                temperature=0,
                logprobs=True,
                top_logprobs=TOP_LOGPROBS,
            )
            results.append(yes_no_from_top_logprobs(_top_logprobs(response)))
        return results

    def yes_prob(self, images: Sequence[Image.Image], questions: Sequence[str]) -> list[float]:
        """P(yes) / (P(yes) + P(no)) per (image, question) pair."""
        return [normalise(y, n) for y, n in self.yes_no_probs(images, questions)]

    def answer(self, images: Sequence[Image.Image], questions: Sequence[str], max_new_tokens: int = 16) -> list[str]:
        """Short answers (temperature 0), per pair."""
        return self._complete(images, questions, "answer", max_new_tokens)

    def respond(self, images: Sequence[Image.Image], prompts: Sequence[str], max_new_tokens: int = 256) -> list[str]:
        """Replies to instruction prompts sent as they are, per pair."""
        return self._complete(images, prompts, "raw", max_new_tokens)

    def _limits(self, max_new_tokens: int) -> dict[str, Any]:
        """The token limit (and temperature) in the form the model accepts."""
        if self.reasoning:
            return {"max_completion_tokens": max_new_tokens + REASONING_TOKENS}
        return {"max_tokens": max_new_tokens, "temperature": 0}

    def _complete(self, images: Sequence[Image.Image], questions: Sequence[str], kind: str, max_new_tokens: int):
        check_pairs(images, questions)
        answers = []
        for url, question in zip(self._urls(images), questions):
            response = self._create(messages=self._messages(url, question, kind), **self._limits(max_new_tokens))
            answers.append((response.choices[0].message.content or "").strip())
        return answers


def _top_logprobs(response) -> list[tuple[str, float]]:
    """(token, logprob) pairs of the first generated token; a server without logprobs is an error."""
    try:
        first = response.choices[0].logprobs.content[0]
    except (AttributeError, IndexError, TypeError):
        raise VQAServiceError(
            "the VQA server returned no logprobs; it must support logprobs=True and top_logprobs "
            "(vLLM, SGLang and the OpenAI API do)"
        ) from None
    pairs = [(entry.token, entry.logprob) for entry in (first.top_logprobs or [])]
    return pairs or [(first.token, first.logprob)]


def _short(text: str, limit: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
