"""The OpenAI-compatible client against a real local HTTP server, and the scripted LLM."""

from __future__ import annotations

import socket

import pytest
from pydantic import BaseModel

from chemground.llm import LLMBadOutput, LLMError, LLMUnavailable, ScriptedLLM
from chemground.llm.config import llm_from_settings
from chemground.llm.jsonparse import JSONParseError, parse_json
from chemground.llm.openai_client import OpenAICompatibleLLM
from chemground.settings import Settings
from tests.support.fake_openai import FakeOpenAIServer, Step


def make_client(server, tmp_path=None, **kw):
    kw.setdefault("backoff_base_s", 0.01)
    return OpenAICompatibleLLM(
        server.base_url,
        "fake-model",
        api_key="sk-test",
        cache_path=(tmp_path / "cache.sqlite") if tmp_path else None,
        **kw,
    )


class Answer(BaseModel):
    product: str
    yield_percent: float


def test_success_reports_text_usage_latency_and_cost():
    with FakeOpenAIServer() as server:
        server.queue("ethyl acetate")
        llm = make_client(server, cost_per_1k_input=1.0, cost_per_1k_output=2.0)
        response = llm.chat([{"role": "user", "content": "product?"}], temperature=0.2)
    assert response.text == "ethyl acetate"
    assert response.usage.prompt_tokens == 11 and response.usage.completion_tokens == 7
    assert response.usage.cost_usd == pytest.approx(11 / 1000 * 1.0 + 7 / 1000 * 2.0)
    assert response.usage.latency_s > 0
    request = server.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "fake-model" and request["body"]["temperature"] == 0.2
    assert request["headers"]["Authorization"] == "Bearer sk-test"
    assert llm.ledger.snapshot().calls == 1


def test_429_then_success_is_retried():
    with FakeOpenAIServer() as server:
        server.queue(
            Step(
                status=429, body='{"error": {"message": "slow down"}}', headers={"Retry-After": "0"}
            ),
            Step(status=500, body="oops"),
            "done",
        )
        response = make_client(server).chat([{"role": "user", "content": "x"}])
    assert response.text == "done"
    assert len(server.requests) == 3


def test_persistent_500_fails_with_clear_error():
    with FakeOpenAIServer() as server:
        server.queue(*[Step(status=500, body="boom")] * 3)
        with pytest.raises(LLMError, match=r"failed after 3 attempts.*HTTP 500"):
            make_client(server, max_retries=2).chat([{"role": "user", "content": "x"}])


def test_timeout_is_retried_then_reported():
    with FakeOpenAIServer() as server:
        server.queue(Step(text="late", delay_s=1.0), Step(text="late", delay_s=1.0))
        llm = make_client(server, timeout_s=0.2, max_retries=1)
        with pytest.raises(LLMError, match="timed out"):
            llm.chat([{"role": "user", "content": "x"}])
    assert len(server.requests) == 2


def test_timeout_then_success():
    with FakeOpenAIServer() as server:
        server.queue(Step(text="late", delay_s=1.0), "on time")
        assert (
            make_client(server, timeout_s=0.3).chat([{"role": "user", "content": "x"}]).text
            == "on time"
        )


def test_malformed_json_reply_is_repaired():
    with FakeOpenAIServer() as server:
        server.queue(
            "Sure! ```json\n{'product': 'ethyl acetate', 'yield_percent': 65,}\n``` hope this helps"
        )
        value, _ = make_client(server).chat_json([{"role": "user", "content": "x"}], schema=Answer)
    assert value == Answer(product="ethyl acetate", yield_percent=65)


def test_unusable_reply_is_reasked_once_then_accepted():
    with FakeOpenAIServer() as server:
        server.queue(
            "I think it is ethyl acetate.", '{"product": "ethyl acetate", "yield_percent": 65}'
        )
        value, _ = make_client(server).chat_json([{"role": "user", "content": "x"}], schema=Answer)
    assert value.product == "ethyl acetate"
    reask = server.requests[1]["body"]["messages"]
    assert reask[-1]["role"] == "user" and "could not be used" in reask[-1]["content"]


def test_garbage_twice_is_a_clear_error():
    with FakeOpenAIServer() as server:
        server.queue("no json here", '{"product": "x"}')
        with pytest.raises(LLMBadOutput, match=r"unusable output twice.*yield_percent"):
            make_client(server).chat_json([{"role": "user", "content": "x"}], schema=Answer)


def test_non_json_http_body_is_retried_then_reported():
    with FakeOpenAIServer() as server:
        server.queue(Step(body="<html>bad gateway</html>"), Step(body="<html>bad gateway</html>"))
        with pytest.raises(LLMError, match="not JSON"):
            make_client(server, max_retries=1).chat([{"role": "user", "content": "x"}])


def test_cache_returns_stored_response_without_a_request(tmp_path):
    with FakeOpenAIServer() as server:
        server.queue("first")
        llm = make_client(server, tmp_path)
        a = llm.chat([{"role": "user", "content": "same"}])
        b = llm.chat([{"role": "user", "content": "same"}])
        c_llm = make_client(server, tmp_path)  # a new client reads the same disk cache
        c = c_llm.chat([{"role": "user", "content": "same"}])
    assert (a.text, b.text, c.text) == ("first", "first", "first")
    assert not a.cached and b.cached and c.cached
    assert len(server.requests) == 1


def test_cache_distinguishes_samples_and_parameters(tmp_path):
    with FakeOpenAIServer() as server:
        server.queue("one", "two", "three")
        llm = make_client(server, tmp_path)
        msgs = [{"role": "user", "content": "q"}]
        texts = [
            llm.chat(msgs, sample=0).text,
            llm.chat(msgs, sample=1).text,
            llm.chat(msgs, temperature=0.9).text,
        ]
    assert texts == ["one", "two", "three"]


def test_native_tool_calls_are_parsed():
    with FakeOpenAIServer() as server:
        server.queue(
            Step(
                text=None,
                tool_calls=[{"name": "cactus/CalculateMolWt", "arguments": {"smiles": "CCO"}}],
            )
        )
        response = make_client(server).chat(
            [{"role": "user", "content": "mw?"}],
            tools=[{"type": "function", "function": {"name": "cactus/CalculateMolWt"}}],
        )
    assert response.tool_calls[0].name == "cactus/CalculateMolWt"
    assert response.tool_calls[0].arguments == {"smiles": "CCO"}
    assert server.requests[0]["body"]["tools"][0]["function"]["name"] == "cactus/CalculateMolWt"


def test_unreachable_endpoint_is_a_clear_message():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    llm = OpenAICompatibleLLM(f"http://127.0.0.1:{port}/v1", "m", max_retries=0)
    with pytest.raises(LLMUnavailable, match="cannot reach the LLM endpoint"):
        llm.chat([{"role": "user", "content": "x"}])


def test_401_names_the_api_key():
    with FakeOpenAIServer() as server:
        server.queue(Step(status=401, body='{"error": {"message": "invalid key"}}'))
        with pytest.raises(LLMError, match="CHEMGROUND_LLM_API_KEY"):
            make_client(server).chat([{"role": "user", "content": "x"}])


def test_missing_configuration_says_what_to_set(tmp_path):
    settings = Settings(kb={"path": tmp_path / "kb.sqlite"}, llm={"base_url": None, "model": None})
    with pytest.raises(LLMUnavailable, match="CHEMGROUND_LLM_BASE_URL"):
        llm_from_settings(settings)


def test_settings_read_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CHEMGROUND_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.delenv("CHEMGROUND_LLM_BASE_URL", raising=False)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("CHEMGROUND_LLM_MODEL", "qwen")
    settings = Settings()
    assert settings.llm.base_url == "http://127.0.0.1:9/v1" and settings.llm.api_key == "sk-env"
    monkeypatch.setenv("CHEMGROUND_LLM_BASE_URL", "http://127.0.0.1:8/v1")
    assert Settings().llm.base_url == "http://127.0.0.1:8/v1"


def test_scripted_llm_is_labelled_and_runs_out_loudly():
    llm = ScriptedLLM(["a"])
    assert llm.chat([{"role": "user", "content": "x"}]).model == "scripted"
    assert not llm.is_real_model
    with pytest.raises(LLMError, match="no reply left"):
        llm.chat([{"role": "user", "content": "y"}])


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"a": 1}', {"a": 1}),
        ("```json\n[1, 2]\n```", [1, 2]),
        ("Answer: {'a': 'b'} -- done", {"a": "b"}),
        ('{"a": [1, 2,], }', {"a": [1, 2]}),
    ],
)
def test_parse_json_repairs(text, expected):
    assert parse_json(text) == expected


@pytest.mark.parametrize("text", ["", "   ", "no braces at all"])
def test_parse_json_rejects_text_without_json(text):
    with pytest.raises(JSONParseError):
        parse_json(text)
