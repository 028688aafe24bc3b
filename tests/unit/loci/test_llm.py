"""LLMClient against a real local HTTP server: transport, error mapping, JSON repair."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest
from pydantic import BaseModel

from loci.errors import ConfigurationError, UpstreamBadOutput, UpstreamUnavailable
from loci.llm import (
    ChatResult,
    JSONOutputError,
    LLMClient,
    LLMConfig,
    extract_json_block,
    llm_config_or_none,
    usd_cost,
)
from tests.fakes.openai_server import FakeOpenAI, FakeReply, fake_openai

# Re-exported so this module works with or without a conftest that loads the plugin.
__all__ = ["fake_openai"]

MODEL = "test-model"
MESSAGES = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "hi"}]


class Fact(BaseModel):
    subject: str
    score: int


def client_for(fake: FakeOpenAI, **kw: Any) -> LLMClient:
    return LLMClient(LLMConfig(base_url=fake.base_url, api_key=kw.pop("api_key", "sk-test"), **kw))


# --- chat -------------------------------------------------------------------------------


async def test_chat_reports_usage_and_cost(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(FakeReply(content="hello there", usage=(1000, 500)))
    async with client_for(fake_openai, prices={MODEL: (2.0, 10.0)}) as llm:
        result = await llm.chat(MODEL, MESSAGES, max_tokens=50)

    assert isinstance(result, ChatResult)
    assert result.text == "hello there"
    assert result.model == MODEL
    assert (result.prompt_tokens, result.completion_tokens) == (1000, 500)
    assert result.cost == pytest.approx((1000 * 2.0 + 500 * 10.0) / 1_000_000)
    assert result.latency_ms > 0
    (req,) = fake_openai.requests
    assert req["path"] == "/v1/chat/completions"
    assert req["body"]["model"] == MODEL
    assert req["body"]["messages"] == MESSAGES
    assert req["body"]["max_tokens"] == 50
    assert req["body"]["temperature"] == 0.0
    assert "response_format" not in req["body"]


def test_usd_cost_is_per_million_tokens_and_none_when_unpriced() -> None:
    assert usd_cost((2.0, 10.0), 1000, 500) == pytest.approx(0.007)
    assert usd_cost((0.02, 0.0), 250_000, 0) == pytest.approx(0.005)
    assert usd_cost(None, 1000, 500) is None


async def test_chat_without_usage_estimates_tokens_and_unpriced_model_has_no_cost(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.queue(FakeReply(content="x" * 40))
    async with client_for(fake_openai) as llm:
        result = await llm.chat(MODEL, MESSAGES)
    assert result.completion_tokens == 10
    assert result.prompt_tokens == len("Answer in JSON.hi") // 4 + 1
    assert result.cost is None


async def test_authorization_header_only_with_key(fake_openai: FakeOpenAI) -> None:
    async with client_for(fake_openai, api_key="sk-secret") as llm:
        await llm.chat(MODEL, MESSAGES)
    async with client_for(fake_openai, api_key=None) as llm:
        await llm.chat(MODEL, MESSAGES)
    with_key, without_key = fake_openai.requests
    assert with_key["headers"]["authorization"] == "Bearer sk-secret"
    assert "authorization" not in without_key["headers"]


async def test_json_mode_sets_response_format(fake_openai: FakeOpenAI) -> None:
    async with client_for(fake_openai) as llm:
        await llm.chat(MODEL, MESSAGES, json_mode=True)
    assert fake_openai.requests[0]["body"]["response_format"] == {"type": "json_object"}


async def test_http_500_is_upstream_unavailable_with_endpoint_and_message(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(FakeReply(status=500, content="model overloaded"))
    async with client_for(fake_openai) as llm:
        with pytest.raises(UpstreamUnavailable) as info:
            await llm.chat(MODEL, MESSAGES)
    message = str(info.value)
    assert fake_openai.base_url in message
    assert "500" in message
    assert "model overloaded" in message
    assert "sk-test" not in message


@pytest.mark.parametrize("status", [429, 401])
async def test_other_http_errors_are_upstream_unavailable(fake_openai: FakeOpenAI, status: int) -> None:
    fake_openai.queue(FakeReply(status=status, content="nope"))
    async with client_for(fake_openai) as llm:
        with pytest.raises(UpstreamUnavailable, match=f"HTTP {status}: nope"):
            await llm.chat(MODEL, MESSAGES)


async def test_non_json_error_body_is_quoted(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(FakeReply(status=502, raw_body="<html>Bad Gateway</html>"))
    async with client_for(fake_openai) as llm:
        with pytest.raises(UpstreamUnavailable, match="HTTP 502: <html>Bad Gateway</html>"):
            await llm.chat(MODEL, MESSAGES)


@pytest.mark.parametrize(
    "reply",
    [
        FakeReply(raw_body="this is not json"),
        FakeReply(raw_body='{"choices": []}'),
        FakeReply(content=None),
    ],
    ids=["non-json", "no-choices", "null-content"],
)
async def test_missing_content_is_bad_output(fake_openai: FakeOpenAI, reply: FakeReply) -> None:
    fake_openai.queue(reply)
    async with client_for(fake_openai) as llm:
        with pytest.raises(UpstreamBadOutput):
            await llm.chat(MODEL, MESSAGES)


async def test_slow_reply_times_out_quickly(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(FakeReply(content="late", delay_s=3.0))
    async with client_for(fake_openai) as llm:
        started = time.perf_counter()
        with pytest.raises(UpstreamUnavailable, match=r"timed out after 0\.2s") as info:
            await llm.chat(MODEL, MESSAGES, timeout_s=0.2)
        assert time.perf_counter() - started < 1.0
    assert info.value.__cause__ is not None


async def test_unreachable_port_is_upstream_unavailable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    async with LLMClient(LLMConfig(base_url=url, api_key=None, timeout_s=2.0)) as llm:
        with pytest.raises(UpstreamUnavailable, match="unreachable") as info:
            await llm.chat(MODEL, MESSAGES)
    assert url in str(info.value)
    assert info.value.__cause__ is not None


# --- chat_json --------------------------------------------------------------------------


async def test_chat_json_accepts_fenced_json_after_prose(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue('Sure! Here it is:\n```json\n{"subject": "cat", "score": 3}\n```')
    async with client_for(fake_openai) as llm:
        fact, results = await llm.chat_json(MODEL, MESSAGES, Fact)
    assert fact == Fact(subject="cat", score=3)
    assert len(results) == 1
    assert fake_openai.requests[0]["body"]["response_format"] == {"type": "json_object"}


async def test_chat_json_retries_once_with_the_error(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue('{"subject": "cat", "score": "many"', '{"subject": "cat", "score": 4}')
    async with client_for(fake_openai) as llm:
        fact, results = await llm.chat_json(MODEL, MESSAGES, Fact)
    assert fact.score == 4
    assert len(results) == 2
    retry_messages = fake_openai.requests[1]["body"]["messages"]
    assert retry_messages[: len(MESSAGES)] == MESSAGES
    assert retry_messages[-2] == {"role": "assistant", "content": '{"subject": "cat", "score": "many"'}
    assert retry_messages[-1]["role"] == "user"
    assert "not valid JSON" in retry_messages[-1]["content"]


async def test_chat_json_schema_error_is_sent_back(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue('{"subject": "cat"}', '{"subject": "cat", "score": 1}')
    async with client_for(fake_openai) as llm:
        _, results = await llm.chat_json(MODEL, MESSAGES, Fact)
    assert len(results) == 2
    assert "score: Field required" in fake_openai.requests[1]["body"]["messages"][-1]["content"]


async def test_chat_json_gives_up_after_retries(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(
        FakeReply(content="no json here", usage=(10, 5)),
        FakeReply(content="{still: broken}", usage=(20, 5)),
    )
    async with client_for(fake_openai) as llm:
        with pytest.raises(UpstreamBadOutput) as info:
            await llm.chat_json(MODEL, MESSAGES, Fact, retries=1)
    assert isinstance(info.value, JSONOutputError)
    assert [r.prompt_tokens for r in info.value.results] == [10, 20]
    assert "still: broken" in str(info.value)
    assert len(fake_openai.requests) == 2


async def test_chat_json_does_not_retry_transport_errors(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(FakeReply(status=503))
    async with client_for(fake_openai) as llm:
        with pytest.raises(UpstreamUnavailable):
            await llm.chat_json(MODEL, MESSAGES, Fact, retries=3)
    assert len(fake_openai.requests) == 1


async def test_set_default_answers_when_queue_is_empty(fake_openai: FakeOpenAI) -> None:
    fake_openai.set_default(lambda body: FakeReply(content=f'{{"subject": "{body["model"]}", "score": 0}}'))
    async with client_for(fake_openai) as llm:
        fact, _ = await llm.chat_json("other-model", MESSAGES, Fact)
    assert fact.subject == "other-model"


# --- pure helpers -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', '{"a": 1}'),
        ('```json\n{"a": [1, 2]}\n```', '{"a": [1, 2]}'),
        ('Here you go: {"a": "}"} hope that helps {x}', '{"a": "}"}'),
        ("The list [see below]:\n[1, 2, 3]", "[1, 2, 3]"),
        ('{"a": "say \\"hi\\" {"}', '{"a": "say \\"hi\\" {"}'),
        ('Note {braces} then {"ok": true}', '{"ok": true}'),
        ("nothing parses {a: 1} here", "{a: 1}"),
        ('truncated {"a": [1, 2', '{"a": [1, 2'),
    ],
)
def test_extract_json_block(text: str, expected: str) -> None:
    assert extract_json_block(text) == expected


def test_extract_json_block_without_brackets_raises() -> None:
    with pytest.raises(ValueError):
        extract_json_block("no json at all")


def test_llm_config_or_none() -> None:
    assert llm_config_or_none(None, "k") is None
    assert llm_config_or_none("  ", "k") is None
    config = llm_config_or_none("http://h:1/v1/", "", timeout_s=5, prices={"m": (1.0, 2.0)})
    assert config is not None
    assert config.api_key is None
    assert config.chat_url == "http://h:1/v1/chat/completions"
    assert config.prices == {"m": (1.0, 2.0)}


def test_bad_config_fails_at_construction() -> None:
    with pytest.raises(ConfigurationError):
        LLMConfig(base_url="localhost:8000/v1", api_key=None)
    with pytest.raises(ConfigurationError):
        LLMConfig(base_url="http://h/v1", api_key=None, timeout_s=0)
