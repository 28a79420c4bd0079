"""A scriptable OpenAI-compatible chat server for tests (a test double: it judges nothing).

A real HTTP server on ``127.0.0.1`` (random port, background thread) answers
``POST /v1/chat/completions`` from a queue of scripted responses, and records every request it
received, so tests exercise the real ``openai`` client end to end::

    from openai_stub import openai_stub  # noqa: F401  (the pytest fixture; tests/ is on sys.path)

    def test_something(openai_stub):
        openai_stub.push_json({"questions": []})       # content = that JSON
        openai_stub.push_text("not json {")            # malformed content
        openai_stub.push_error(500)                    # HTTP 500
        openai_stub.push_json({...}, delay=2.0)        # answer after 2 s (client timeouts)
        openai_stub.push_text("yes", logprobs=[("yes", -0.1), ("no", -2.3)])
        llm = OpenAILLM(RoleSpec("openai", "stub-model", {"base_url": openai_stub.url, ...}), device)
        ...
        assert openai_stub.requests[0]["body"]["model"] == "stub-model"

``push(...)`` is the general form: ``push(content=None, *, status=200, delay=0.0, logprobs=None,
error=None, body=None)``. When the queue is empty the server answers HTTP 500 with a message saying
so (a test that asks more than it scripted fails loudly). ``default`` (a :class:`StubResponse`) may be
set to answer every request once the queue is empty.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class StubResponse:
    """One scripted answer."""

    content: str | None = None  # the assistant message content
    status: int = 200  # HTTP status; >= 400 sends an OpenAI-style error body
    delay: float = 0.0  # seconds to wait before answering
    logprobs: list[tuple[str, float]] | None = None  # (token, logprob) top-logprobs of the first token
    error: str | None = None  # error message for status >= 400
    body: dict[str, Any] | None = None  # a complete raw JSON body, sent as is (overrides the rest)
    when: Any = None  # optional predicate(request_body) -> bool; unused entries wait in the queue


class OpenAIStub:
    """The server handle the fixture yields: ``url``, ``push*``, ``requests``."""

    def __init__(self) -> None:
        self._queue: deque[StubResponse] = deque()
        self._lock = threading.Lock()
        self.requests: list[dict[str, Any]] = []
        self.default: StubResponse | None = None
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                return

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                with stub._lock:
                    stub.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                resp = stub._next(body)
                if resp is None:
                    self._send(500, {"error": {"message": "openai_stub: no scripted response left", "type": "stub"}})
                    return
                if resp.delay:
                    time.sleep(resp.delay)
                if resp.body is not None:
                    self._send(resp.status, resp.body)
                elif resp.status >= 400:
                    message = resp.error or f"scripted HTTP {resp.status}"
                    self._send(resp.status, {"error": {"message": message, "type": "server_error", "code": resp.status}})
                else:
                    self._send(200, stub._completion(body, resp))

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="openai-stub", daemon=True)
        self._thread.start()
        host, port = self._server.server_address[:2]
        self.url = f"http://{host}:{port}/v1"

    # ---- scripting -------------------------------------------------------------------------------
    def push(
        self,
        content: str | dict | list | None = None,
        *,
        status: int = 200,
        delay: float = 0.0,
        logprobs: list[tuple[str, float]] | None = None,
        error: str | None = None,
        body: dict[str, Any] | None = None,
        when: Any = None,
    ) -> "OpenAIStub":
        """Queue one response; a dict/list ``content`` is sent as its JSON text."""
        if isinstance(content, (dict, list)):
            content = json.dumps(content)
        with self._lock:
            self._queue.append(StubResponse(content, status, delay, logprobs, error, body, when))
        return self

    def push_json(self, data: Any, **kw: Any) -> "OpenAIStub":
        return self.push(json.dumps(data), **kw)

    def push_text(self, text: str, **kw: Any) -> "OpenAIStub":
        return self.push(text, **kw)

    def push_error(self, status: int = 500, message: str | None = None, **kw: Any) -> "OpenAIStub":
        return self.push(None, status=status, error=message, **kw)

    @property
    def pending(self) -> int:
        """Scripted responses not yet used."""
        with self._lock:
            return len(self._queue)

    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies of the received requests, in order."""
        with self._lock:
            return [r["body"] for r in self.requests]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    # ---- internals -------------------------------------------------------------------------------
    def _next(self, body: dict[str, Any]) -> StubResponse | None:
        with self._lock:
            for i, resp in enumerate(self._queue):
                if resp.when is None or resp.when(body):
                    del self._queue[i]
                    return resp
            return self.default

    @staticmethod
    def _completion(body: dict[str, Any], resp: StubResponse) -> dict[str, Any]:
        choice: dict[str, Any] = {
            "index": 0,
            "message": {"role": "assistant", "content": resp.content, "refusal": None},
            "finish_reason": "stop",
            "logprobs": None,
        }
        if resp.logprobs is not None:
            top = [{"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in resp.logprobs]
            first = top[0] if top else {"token": resp.content or "", "logprob": 0.0, "bytes": []}
            choice["logprobs"] = {"content": [{**first, "top_logprobs": top}], "refusal": None}
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "stub"),
            "choices": [choice],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }


@pytest.fixture
def openai_stub():
    """A running :class:`OpenAIStub`; import this fixture into a test module to use it."""
    stub = OpenAIStub()
    try:
        yield stub
    finally:
        stub.close()
