"""The LLM instruction writer, end to end against a real HTTP stub of an OpenAI-compatible server.

Every failure (timeout, HTTP 500, malformed JSON, empty answer, unreachable server, no model set)
must fall back to the template writer and say so in the Instruction; none may end the run.
"""

from __future__ import annotations

import json
import socket
from types import SimpleNamespace

import pytest
from openai_stub import OpenAIStub

from autoalign.config import load_config
from autoalign.editing import make_writer
from autoalign.editing.llm_writer import INSTRUCTION_SCHEMA, LLMWriter
from autoalign.models import cache
from autoalign.models.cache import Models
from autoalign.models.llm import OpenAILLM
from autoalign.types import Mismatch


@pytest.fixture
def stub():
    """A running OpenAI-compatible stub server (tests/openai_stub.py)."""
    server = OpenAIStub()
    try:
        yield server
    finally:
        server.close()


PROMPT = "a red car next to a dog"
RED = Mismatch("attribute", "red", "white", confidence=0.9, source="vq2", evidence={"question": "what color is the car?", "p_yes": 0.12, "boxes": [[0, 0, 1, 1]]})
DOG = Mismatch("entity", "a dog", "", confidence=0.5, source="vq2")


def llm_writer(url: str, mode: str = "sequential", **llm_options) -> LLMWriter:
    """An LLMWriter whose llm backend is a real OpenAILLM pointed at ``url``."""
    options = {"base_url": url, "api_key": "test-key", "timeout": 5.0, "max_retries": 0, "json_retries": 0, **llm_options}
    cfg = load_config("tiny", overrides={"writer": "llm", "llm": {"model": "stub-model", **options}, "loop": {"multi_mismatch": mode}})
    models = SimpleNamespace(llm=OpenAILLM(cfg.llm, None))
    return LLMWriter(models, cfg)


def user_request(stub) -> dict:
    """The JSON request the writer sent in its last user message."""
    return json.loads(stub.bodies()[-1]["messages"][-1]["content"])


def assert_template_fallback(instructions, reason_part: str) -> None:
    assert instructions, "the template writer must still give instructions"
    for ins in instructions:
        assert ins.writer == "template"
        assert ins.note.startswith("llm failed: ") and ins.note.endswith("; template fallback")
        assert reason_part in ins.note


# ---- the happy path ----------------------------------------------------------------------------------
def test_llm_instructions_are_returned_with_the_mismatches_they_address(stub):
    stub.push_json({"instructions": [
        {"instruction": "add a brown dog next to the car", "addresses": [1]},
        {"instruction": "paint the white car red.", "addresses": [0]},
    ]})
    out = llm_writer(stub.url).write(PROMPT, [DOG, RED], tried=[])
    # mismatches were sent most confident first (RED = 0), and instructions come back in that order
    assert [i.text for i in out] == ["paint the white car red", "add a brown dog next to the car"]
    assert all(i.writer == "llm" and i.note == "" for i in out)
    assert out[0].mismatches == [RED.to_dict()] and out[1].mismatches == [DOG.to_dict()]


def test_request_carries_prompt_triplets_evidence_tried_and_few_shot(stub):
    stub.push_json({"instructions": [{"instruction": "paint the car red", "addresses": [0]}]})
    llm_writer(stub.url).write(PROMPT, [RED], tried=["make the car red"])
    body = stub.bodies()[0]
    assert body["model"] == "stub-model"
    assert body["response_format"]["json_schema"]["schema"] == INSTRUCTION_SCHEMA
    roles = [m["role"] for m in body["messages"]]
    assert roles[0] == "system" and roles[1:3] == ["user", "assistant"] and roles[-1] == "user"
    assert "InstructPix2Pix" in body["messages"][0]["content"]
    req = user_request(stub)
    assert req["prompt"] == PROMPT and req["mode"] == "sequential"
    assert req["already_tried"] == ["make the car red"]
    [m] = req["mismatches"]
    assert (m["index"], m["aspect"], m["phrase"], m["correction"]) == (0, "attribute", "red", "white")
    assert m["evidence"] == {"question": "what color is the car?", "p_yes": 0.12}  # bulky evidence left out


def test_combined_mode_asks_for_one_instruction_for_all(stub):
    stub.push_json({"instructions": [
        {"instruction": "make the car red and add a dog", "addresses": [0, 1]},
        {"instruction": "an extra one the writer must drop", "addresses": [0]},
    ]})
    [ins] = llm_writer(stub.url, mode="combined").write(PROMPT, [RED, DOG], tried=[])
    assert ins.text == "make the car red and add a dog"
    assert len(ins.mismatches) == 2
    assert user_request(stub)["mode"] == "combined"


def test_malformed_reply_is_asked_again_before_giving_up(stub):
    stub.push_text("sure! here you go {")
    stub.push_json({"instructions": [{"instruction": "paint the car red", "addresses": [0]}]})
    [ins] = llm_writer(stub.url, json_retries=1).write(PROMPT, [RED], tried=[])
    assert (ins.writer, ins.text) == ("llm", "paint the car red")
    assert len(stub.requests) == 2


# ---- tried ------------------------------------------------------------------------------------------
def test_instructions_already_tried_are_skipped(stub):
    stub.push_json({"instructions": [
        {"instruction": "Make the car red.", "addresses": [0]},
        {"instruction": "add a dog", "addresses": [1]},
    ]})
    out = llm_writer(stub.url).write(PROMPT, [RED, DOG], tried=["make the car red"])
    assert [i.text for i in out] == ["add a dog"]


def test_only_repeats_fall_back_to_fresh_template_wording(stub):
    stub.push_json({"instructions": [{"instruction": "make the car red", "addresses": [0]}]})
    [ins] = llm_writer(stub.url).write(PROMPT, [RED], tried=["make the car red"])
    assert_template_fallback([ins], "already-tried")
    assert ins.text == "change the car to red"


# ---- failures fall back, never raise ---------------------------------------------------------------
def test_timeout_falls_back_to_templates(stub):
    stub.push_json({"instructions": [{"instruction": "too late", "addresses": [0]}]}, delay=2.0)
    out = llm_writer(stub.url, timeout=0.3).write(PROMPT, [RED], tried=[])
    assert_template_fallback(out, "LLMError")
    assert [i.text for i in out] == ["make the car red"]


def test_http_500_falls_back_to_templates(stub):
    stub.push_error(500, "model crashed")
    out = llm_writer(stub.url).write(PROMPT, [RED, DOG], tried=[])
    assert_template_fallback(out, "500")
    assert [i.text for i in out] == ["make the car red", "add a dog"]


def test_malformed_json_after_retries_falls_back(stub):
    stub.push_text("not json {")
    stub.push_text("still not json")
    out = llm_writer(stub.url, json_retries=1).write(PROMPT, [RED], tried=[])
    assert_template_fallback(out, "JSON")


def test_empty_instruction_list_falls_back(stub):
    stub.push_json({"instructions": []})
    [ins] = llm_writer(stub.url).write(PROMPT, [RED], tried=[])
    assert ins.note == "llm failed: empty instruction list; template fallback"
    assert (ins.writer, ins.mismatches) == ("template", [RED.to_dict()])


def test_unreachable_server_falls_back():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = llm_writer(f"http://127.0.0.1:{port}/v1").write(PROMPT, [RED], tried=[])
    assert_template_fallback(out, "LLMError")


def test_no_model_configured_falls_back(monkeypatch):
    monkeypatch.delenv("AUTOALIGN_LLM_MODEL", raising=False)
    cfg = load_config("tiny", overrides={"writer": "llm"})
    writer = LLMWriter(SimpleNamespace(llm=OpenAILLM(cfg.llm, None)), cfg)
    assert_template_fallback(writer.write(PROMPT, [RED], tried=[]), "AUTOALIGN_LLM_MODEL")


# ---- configuration by environment only -------------------------------------------------------------
@pytest.fixture
def fresh_backend_cache():
    cache.clear()
    yield
    cache.clear()


def test_writer_works_with_only_environment_variables(stub, monkeypatch, fresh_backend_cache):
    monkeypatch.setenv("OPENAI_BASE_URL", stub.url)
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    monkeypatch.setenv("AUTOALIGN_LLM_MODEL", "env-model")
    cfg = load_config("tiny")  # [llm] names no model, URL or key
    assert cfg.llm.model is None and "base_url" not in cfg.llm.options
    stub.push_json({"instructions": [{"instruction": "paint the car red", "addresses": [0]}]})
    [ins] = make_writer(Models(cfg), cfg, name="llm").write(PROMPT, [RED], tried=[])
    assert (ins.writer, ins.text) == ("llm", "paint the car red")
    request = stub.requests[0]
    assert request["body"]["model"] == "env-model"
    headers = {k.lower(): v for k, v in request["headers"].items()}
    assert headers.get("authorization") == "Bearer env-key"


def test_make_writer_follows_config_writer():
    cfg = load_config("tiny")
    assert make_writer(None, cfg).name == "template"
    assert isinstance(make_writer(None, load_config("tiny", overrides={"writer": "llm"})), LLMWriter)


def test_the_fallback_note_keeps_the_whole_reason():
    class FailingLLM:  # a test double: the LLM backend raising an error with a long message
        def complete_json(self, messages, schema, name):
            raise RuntimeError("the server said: " + "x" * 150 + " END-OF-REASON")

    cfg = load_config("tiny", overrides={"writer": "llm"})
    out = LLMWriter(SimpleNamespace(llm=FailingLLM()), cfg).write(PROMPT, [RED], tried=[])
    assert_template_fallback(out, "x" * 150 + " END-OF-REASON")
