"""An OpenAI-compatible chat model that returns JSON validated against a schema (role ``llm``).

Works with OpenAI and with any server that speaks ``POST /v1/chat/completions`` (vLLM, llama.cpp,
Ollama, LM Studio, ...). Where the settings come from, first found wins:

=============  ===============================  =======================
setting        preset ``[llm]`` entry            environment
=============  ===============================  =======================
model          ``model = "..."``                 ``AUTOALIGN_LLM_MODEL``
base URL       ``base_url = "http://.../v1"``    ``OPENAI_BASE_URL``
API key        ``api_key = "..."``               ``OPENAI_API_KEY``
=============  ===============================  =======================

Other options: ``timeout`` (seconds per request, default 30), ``max_retries`` (HTTP retries done by
the openai client on timeouts / 5xx, default 2), ``json_retries`` (extra requests after a reply that
is not valid JSON for the schema, default 2), ``temperature`` (default 0), ``reasoning`` (default:
guessed from the model name, :func:`is_reasoning_model`). OpenAI's reasoning models (o-series, GPT-5)
accept only their default temperature and ``max_completion_tokens``: they are sent no temperature,
and their token limit as ``max_completion_tokens`` with :data:`REASONING_TOKENS` more for the hidden
reasoning (a 400 for ``temperature`` would otherwise be read as "response_format unsupported").

:meth:`OpenAILLM.complete_json` asks for structured output (``response_format`` ``json_schema``);
a server that rejects that is asked for ``json_object``, then for plain text, and the mode that
worked is remembered. The reply is parsed (also out of a markdown fence), checked against the schema
(:func:`schema_errors`, a small JSON-Schema subset) and, when malformed, asked again with the
problem named. When nothing valid comes back, :class:`LLMError` says why.

The API key is never logged.
"""

from __future__ import annotations

import json
import logging
import os
import re
import threading
from typing import Any

from autoalign import prompts
from autoalign.config import ConfigError, RoleSpec
from autoalign.errors import AutoAlignError

logger = logging.getLogger(__name__)

MODEL_ENV = "AUTOALIGN_LLM_MODEL"
BASE_URL_ENV = "OPENAI_BASE_URL"
API_KEY_ENV = "OPENAI_API_KEY"

# response_format modes, most structured first
_MODES: tuple[str, ...] = ("json_schema", "json_object", "text")


class LLMError(AutoAlignError, RuntimeError):
    """The LLM could not be reached or gave no valid JSON for the schema after the retries."""


# ---- JSON extraction and a small JSON-Schema check ---------------------------------------------------

_FENCE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.DOTALL)


def parse_json_text(text: str | None) -> Any:
    """Parse JSON from a model reply: plain JSON, a markdown-fenced block, or the first ``{...}``.

    Raises ``ValueError`` when no JSON can be found.
    """
    if text is None or not text.strip():
        raise ValueError("empty reply")
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(text)]
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    last_error = None
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            last_error = exc
    raise ValueError(f"not valid JSON ({last_error})")


_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "null": (type(None),),
}


def schema_errors(data: Any, schema: dict[str, Any], path: str = "$") -> list[str]:
    """Problems of ``data`` against a JSON-Schema subset: type, required, properties, items, enum.

    Enough to catch what LLMs get wrong (a missing key, a string where a list belongs); returns an
    empty list when ``data`` fits.
    """
    errors: list[str] = []
    expected = schema.get("type")
    if expected is not None:
        allowed = expected if isinstance(expected, list) else [expected]
        ok = False
        for name in allowed:
            types = _TYPES.get(name, (object,))
            if isinstance(data, bool) and name in ("integer", "number"):
                continue  # bool is an int in Python, not in JSON
            if isinstance(data, types):
                ok = True
                break
        if not ok:
            return [f"{path}: expected {' or '.join(allowed)}, got {type(data).__name__}"]
    if "enum" in schema and data not in schema["enum"]:
        errors.append(f"{path}: {data!r} is not one of {schema['enum']}")
    if isinstance(data, dict):
        for key in schema.get("required", []):
            if key not in data:
                errors.append(f"{path}: missing required key {key!r}")
        for key, sub in (schema.get("properties") or {}).items():
            if key in data:
                errors += schema_errors(data[key], sub, f"{path}.{key}")
    if isinstance(data, list) and isinstance(schema.get("items"), dict):
        for i, item in enumerate(data):
            errors += schema_errors(item, schema["items"], f"{path}[{i}]")
    return errors


# ---- the backend ---------------------------------------------------------------------------------------

#: Model-name prefixes of OpenAI reasoning models: they take ``max_completion_tokens`` (not
#: ``max_tokens``), only the default temperature, and return no logprobs.
REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
#: Extra completion tokens a reasoning model gets for its hidden reasoning before a short answer.
REASONING_TOKENS = 1024


def is_reasoning_model(name: str | None) -> bool:
    """Whether ``name`` is an OpenAI reasoning model (o-series, GPT-5 family), by its name."""
    base = (name or "").lower().rsplit("/", 1)[-1]
    return any(base == p or base.startswith(p + "-") or base.startswith(p + ".") for p in REASONING_PREFIXES)



class OpenAILLM:
    """Chat completions through the ``openai`` client; see the module docstring for settings."""

    def __init__(self, spec: RoleSpec, device: Any = None):
        self.spec = spec
        opts = dict(spec.options)
        self.base_url: str | None = opts.get("base_url") or os.environ.get(BASE_URL_ENV) or None
        self._api_key: str | None = opts.get("api_key") or os.environ.get(API_KEY_ENV) or None
        self._model: str | None = spec.model or opts.get("model") or os.environ.get(MODEL_ENV) or None
        self.timeout = float(opts.get("timeout", 30.0))
        self.max_retries = int(opts.get("max_retries", 2))
        self.json_retries = int(opts.get("json_retries", 2))
        self.temperature = float(opts.get("temperature", 0.0))
        reasoning = opts.get("reasoning")
        if reasoning is not None and not isinstance(reasoning, bool):
            raise ConfigError(f"[llm] reasoning must be true or false (got {reasoning!r})")
        self._reasoning = reasoning
        self.max_tokens: int | None = int(opts["max_tokens"]) if opts.get("max_tokens") else None
        self._mode_index = _MODES.index(opts.get("response_format", "json_schema"))
        self._client = None
        self._lock = threading.Lock()
        self.calls = 0  # requests sent (for reports)

    def __repr__(self) -> str:  # no key in reprs or logs
        return f"OpenAILLM(model={self._model!r}, base_url={self.base_url!r})"

    @property
    def model(self) -> str:
        if not self._model:
            raise ConfigError(
                f"no LLM model configured: set the environment variable {MODEL_ENV} (e.g. {MODEL_ENV}=gpt-4o-mini) "
                "or [llm] model = \"...\" in the preset/--config file"
            )
        return self._model

    def client(self):
        """The ``openai.OpenAI`` client, built on first use."""
        with self._lock:
            if self._client is None:
                import openai

                # A local server usually needs no key, but the client insists on one.
                self._client = openai.OpenAI(
                    api_key=self._api_key or "not-needed",
                    base_url=self.base_url,
                    timeout=self.timeout,
                    max_retries=self.max_retries,
                )
                logger.debug("LLM client for model %r at %s", self._model, self.base_url or "api.openai.com")
            return self._client

    @property
    def reasoning(self) -> bool:
        """Whether the model is a reasoning model (the ``reasoning`` option, else by its name)."""
        return is_reasoning_model(self._model) if self._reasoning is None else self._reasoning

    # ---- requests ------------------------------------------------------------------------------------
    def _create(self, messages: list[dict[str, Any]], **kwargs: Any):
        import openai

        model = self.model
        self.calls += 1
        if self.reasoning:  # only the default temperature; the limit counts hidden reasoning tokens too
            limit = kwargs.pop("max_tokens", None)
            if limit:
                kwargs["max_completion_tokens"] = int(limit) + REASONING_TOKENS
        else:
            kwargs["temperature"] = self.temperature
        try:
            return self.client().chat.completions.create(model=model, messages=messages, **kwargs)
        except openai.APITimeoutError as exc:
            raise LLMError(
                f"the LLM at {self.base_url or 'api.openai.com'} did not answer within {self.timeout:g} s "
                f"({self.max_retries} retries); raise [llm] timeout or check the server"
            ) from exc
        except openai.APIConnectionError as exc:
            raise LLMError(f"cannot reach the LLM at {self.base_url or 'api.openai.com'}: {exc}") from exc
        except openai.AuthenticationError as exc:
            raise LLMError(
                f"the LLM server refused the API key (HTTP 401); set {API_KEY_ENV} or [llm] api_key"
            ) from exc

    def complete_text(self, messages: list[dict[str, Any]], max_tokens: int | None = None) -> str:
        """The assistant's plain-text reply."""
        import openai

        kwargs = {"max_tokens": max_tokens} if max_tokens else {}
        try:
            resp = self._create(messages, **kwargs)
        except openai.APIStatusError as exc:
            raise LLMError(f"the LLM server answered HTTP {exc.status_code}: {_short(exc)}") from exc
        return resp.choices[0].message.content or ""

    def _request_json(self, messages: list[dict[str, Any]], schema: dict[str, Any], name: str) -> str:
        """One reply's text, stepping down the response_format modes the server rejects."""
        import openai

        while True:
            mode = _MODES[self._mode_index]
            kwargs: dict[str, Any] = {}
            sent = messages
            if self.max_tokens:
                kwargs["max_tokens"] = self.max_tokens
            if mode == "json_schema":
                kwargs["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": _schema_name(name), "schema": schema, "strict": False},
                }
            else:
                if mode == "json_object":
                    # llama.cpp's server constrains decoding to this schema; others ignore the key.
                    kwargs["response_format"] = {"type": "json_object", "schema": schema}
                hint = prompts.load("llm_json_schema_hint.txt").format(schema=json.dumps(schema))
                sent = [*messages, {"role": "system", "content": hint}]
            try:
                resp = self._create(sent, **kwargs)
            except (openai.BadRequestError, openai.UnprocessableEntityError, openai.NotFoundError) as exc:
                if mode != "text" and exc.status_code in (400, 404, 415, 422):
                    self._mode_index += 1
                    logger.info(
                        "LLM server rejected response_format %s (HTTP %s); trying %s",
                        mode, exc.status_code, _MODES[self._mode_index],
                    )
                    continue
                raise LLMError(f"the LLM server answered HTTP {exc.status_code}: {_short(exc)}") from exc
            except openai.APIStatusError as exc:
                # Some servers (llama-cpp-python) answer an unsupported response_format with a 500.
                if mode != "text" and "response_format" in _short(exc):
                    self._mode_index += 1
                    logger.info("LLM server failed on response_format %s (HTTP %s); trying %s",
                                mode, exc.status_code, _MODES[self._mode_index])
                    continue
                raise LLMError(
                    f"the LLM server answered HTTP {exc.status_code} after {self.max_retries} retries: {_short(exc)}"
                ) from exc
            return resp.choices[0].message.content or ""

    def complete_json(self, messages: list[dict[str, Any]], schema: dict[str, Any], name: str) -> dict[str, Any]:
        """Ask for JSON fitting ``schema`` (an object schema); return it parsed and checked.

        A malformed reply is asked again (``json_retries`` times) with the problem named; then
        :class:`LLMError`.
        """
        if not messages:
            raise ValueError("complete_json needs at least one message")
        conversation = list(messages)
        problem = ""
        for attempt in range(self.json_retries + 1):
            text = self._request_json(conversation, schema, name)
            try:
                data = parse_json_text(text)
                errors = schema_errors(data, schema)
                if not isinstance(data, dict):
                    errors = errors or [f"$: expected an object, got {type(data).__name__}"]
            except ValueError as exc:
                errors = [str(exc)]
            if not errors:
                return data
            problem = "; ".join(errors[:5])
            logger.warning("LLM reply for %r malformed (attempt %d/%d): %s", name, attempt + 1, self.json_retries + 1, problem)
            repair = prompts.load("llm_json_repair.txt").format(problem=problem)
            conversation = [*messages, {"role": "assistant", "content": text[:2000]}, {"role": "user", "content": repair}]
        raise LLMError(
            f"the LLM ({self._model}) gave no valid JSON for {name!r} after {self.json_retries + 1} attempts: {problem}"
        )


def _schema_name(name: str) -> str:
    """OpenAI wants ``^[a-zA-Z0-9_-]{1,64}$``."""
    return re.sub(r"[^a-zA-Z0-9_-]", "_", name)[:64] or "result"


def _short(exc: Exception) -> str:
    """The server's error message, cut short (never the request, so never the key)."""
    return str(getattr(exc, "message", None) or exc)[:300]
