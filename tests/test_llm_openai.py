"""The OpenAI-compatible LLM backend against a real local HTTP server (tests/openai_stub.py)."""

from __future__ import annotations

import logging

import pytest

from autoalign.config import ConfigError, RoleSpec
from autoalign.models.llm import LLMError, OpenAILLM, parse_json_text, schema_errors

SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "count": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
    "required": ["name", "count"],
}
MESSAGES = [{"role": "user", "content": "describe"}]


def make_llm(stub, **options) -> OpenAILLM:
    opts = {"base_url": stub.url, "api_key": "sk-secret-123", "timeout": 5.0, "max_retries": 0, **options}
    return OpenAILLM(RoleSpec(backend="openai", model="stub-model", options=opts))


def test_valid_json_is_returned_and_json_schema_requested(openai_stub):
    openai_stub.push_json({"name": "cat", "count": 2})
    out = make_llm(openai_stub).complete_json(MESSAGES, SCHEMA, "thing")
    assert out == {"name": "cat", "count": 2}
    body = openai_stub.requests[0]["body"]
    assert body["model"] == "stub-model"
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA


def test_markdown_fenced_json_is_parsed(openai_stub):
    openai_stub.push_text('Sure!\n```json\n{"name": "dog", "count": 1}\n```')
    assert make_llm(openai_stub).complete_json(MESSAGES, SCHEMA, "thing") == {"name": "dog", "count": 1}


def test_malformed_json_is_retried_with_the_problem_named(openai_stub):
    openai_stub.push_text("{not json").push_json({"name": "cat"}).push_json({"name": "cat", "count": 3})
    llm = make_llm(openai_stub, json_retries=2)
    assert llm.complete_json(MESSAGES, SCHEMA, "thing") == {"name": "cat", "count": 3}
    assert len(openai_stub.requests) == 3
    repair = openai_stub.requests[2]["body"]["messages"][-1]["content"]
    assert "count" in repair  # the missing key is named in the repair request


def test_persistently_malformed_json_raises_llm_error(openai_stub):
    for _ in range(2):
        openai_stub.push_text("no json here")
    with pytest.raises(LLMError, match="no valid JSON for 'thing' after 2 attempts"):
        make_llm(openai_stub, json_retries=1).complete_json(MESSAGES, SCHEMA, "thing")


def test_server_rejecting_json_schema_falls_back_to_json_object_then_remembers(openai_stub):
    openai_stub.push_error(400, "response_format json_schema not supported")
    openai_stub.push_json({"name": "a", "count": 1}).push_json({"name": "b", "count": 2})
    llm = make_llm(openai_stub)
    assert llm.complete_json(MESSAGES, SCHEMA, "thing")["name"] == "a"
    assert llm.complete_json(MESSAGES, SCHEMA, "thing")["name"] == "b"
    formats = [r["body"].get("response_format", {}).get("type") for r in openai_stub.requests]
    assert formats == ["json_schema", "json_object", "json_object"]
    # the schema travels in a system message once the server cannot take it as response_format
    assert '"required"' in openai_stub.requests[1]["body"]["messages"][-1]["content"]


def test_llama_cpp_style_500_on_response_format_steps_down_and_sends_schema_and_max_tokens(openai_stub):
    # llama-cpp-python's server answers an unsupported json_schema with HTTP 500, not 400.
    openai_stub.push_error(500, "Unrecognized response_format type json_schema")
    openai_stub.push_json({"name": "a", "count": 1})
    llm = make_llm(openai_stub, max_tokens=64)
    assert llm.complete_json(MESSAGES, SCHEMA, "thing") == {"name": "a", "count": 1}
    second = openai_stub.requests[1]["body"]
    assert second["response_format"] == {"type": "json_object", "schema": SCHEMA}
    assert second["max_tokens"] == 64


def test_http_500_becomes_llm_error_after_client_retries(openai_stub):
    for _ in range(2):
        openai_stub.push_error(500)
    with pytest.raises(LLMError, match="HTTP 500"):
        make_llm(openai_stub, max_retries=1).complete_json(MESSAGES, SCHEMA, "thing")
    assert len(openai_stub.requests) == 2


def test_http_500_then_success_is_retried_by_the_client(openai_stub):
    openai_stub.push_error(500).push_json({"name": "x", "count": 0})
    assert make_llm(openai_stub, max_retries=1).complete_json(MESSAGES, SCHEMA, "thing")["count"] == 0


def test_timeout_becomes_llm_error_naming_the_timeout(openai_stub):
    openai_stub.push_json({"name": "late", "count": 1}, delay=1.0)
    with pytest.raises(LLMError, match="did not answer within 0.3 s"):
        make_llm(openai_stub, timeout=0.3).complete_json(MESSAGES, SCHEMA, "thing")


def test_missing_model_is_a_config_error_naming_the_env_var(monkeypatch):
    monkeypatch.delenv("AUTOALIGN_LLM_MODEL", raising=False)
    llm = OpenAILLM(RoleSpec(backend="openai", model=None, options={}))
    with pytest.raises(ConfigError, match="AUTOALIGN_LLM_MODEL"):
        llm.complete_json(MESSAGES, SCHEMA, "thing")


def test_settings_come_from_the_environment(monkeypatch, openai_stub):
    monkeypatch.setenv("AUTOALIGN_LLM_MODEL", "env-model")
    monkeypatch.setenv("OPENAI_BASE_URL", openai_stub.url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    openai_stub.push_json({"name": "e", "count": 5})
    llm = OpenAILLM(RoleSpec(backend="openai", model=None, options={"max_retries": 0}))
    assert llm.complete_json(MESSAGES, SCHEMA, "thing")["count"] == 5
    req = openai_stub.requests[0]
    assert req["body"]["model"] == "env-model"
    assert {k.lower(): v for k, v in req["headers"].items()}["authorization"] == "Bearer sk-env"


def test_api_key_never_logged(openai_stub, caplog):
    openai_stub.push_text("bad").push_text("bad")
    llm = make_llm(openai_stub, json_retries=1)
    with caplog.at_level(logging.DEBUG):
        with pytest.raises(LLMError) as info:
            llm.complete_json(MESSAGES, SCHEMA, "thing")
    assert "sk-secret-123" not in caplog.text
    assert "sk-secret-123" not in str(info.value)
    assert "sk-secret-123" not in repr(llm)


def test_schema_errors_name_the_path():
    assert schema_errors({"name": "a", "count": 1, "tags": ["x"]}, SCHEMA) == []
    errs = schema_errors({"name": 3, "tags": ["x", 2]}, SCHEMA)
    assert "$: missing required key 'count'" in errs
    assert "$.name: expected string, got int" in errs
    assert "$.tags[1]: expected string, got int" in errs
    assert schema_errors({"name": "a", "count": True}, SCHEMA) == ["$.count: expected integer, got bool"]


def test_parse_json_text_finds_json_in_prose():
    assert parse_json_text('The answer is {"a": 1}. Done.') == {"a": 1}
    with pytest.raises(ValueError):
        parse_json_text("nothing")


def test_stub_serves_scripted_logprobs_to_the_openai_client(openai_stub):
    openai_stub.push_text("yes", logprobs=[("yes", -0.1), ("no", -2.3)])
    llm = make_llm(openai_stub)
    resp = llm.client().chat.completions.create(model="m", messages=MESSAGES, logprobs=True, top_logprobs=2)
    top = resp.choices[0].logprobs.content[0].top_logprobs
    assert [(t.token, t.logprob) for t in top] == [("yes", -0.1), ("no", -2.3)]
    assert openai_stub.bodies()[0]["top_logprobs"] == 2
