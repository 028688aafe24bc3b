"""A 429 that says when to come back, soon, is asked again (`loci.llm_retry`), against the real
fake OpenAI server; a long, missing or repeated one falls back at once, naming the 429."""

from __future__ import annotations

import email.utils
import time
from typing import Any

import httpx
import pytest

from loci.errors import ConfigurationError, UpstreamUnavailable
from loci.llm import LLMClient, LLMConfig
from loci.llm_retry import RATE_LIMIT_RETRIES, retry_after_s
from loci.settings import load_settings
from service.state import build_llm
from tests.fakes.openai_server import FakeOpenAI, FakeReply, fake_openai

__all__ = ["fake_openai"]

MESSAGES = [{"role": "user", "content": "hi"}]


def client_for(fake: FakeOpenAI, **kw: Any) -> LLMClient:
    return LLMClient(LLMConfig(base_url=fake.base_url, api_key="sk-test", **kw))


def limited(**headers: str) -> FakeReply:
    return FakeReply(
        status=429, content="Rate limit reached", headers={k.replace("_", "-"): v for k, v in headers.items()}
    )


@pytest.mark.parametrize(
    "headers",
    [{"Retry-After": "0.3"}, {"retry_after_ms": "300"}, {"retry_after_ms": "300", "Retry-After": "60"}],
    ids=["seconds", "milliseconds", "ms-first"],
)
async def test_a_short_retry_after_is_waited_out_and_the_call_answers(
    fake_openai: FakeOpenAI, headers: dict[str, str]
) -> None:
    fake_openai.queue(limited(**headers), "fine now")
    started = time.perf_counter()
    async with client_for(fake_openai, timeout_s=5) as llm:
        result = await llm.chat("m", MESSAGES)
    elapsed = time.perf_counter() - started
    assert result.text == "fine now"
    assert len(fake_openai.requests) == 2
    assert 0.3 <= elapsed < 2.0


async def test_an_http_date_retry_after_is_honoured(fake_openai: FakeOpenAI) -> None:
    soon = email.utils.formatdate(time.time() + 1, usegmt=True)  # whole seconds: waits 0-1 s
    fake_openai.queue(FakeReply(status=429, headers={"Retry-After": soon}), "ok")
    async with client_for(fake_openai, timeout_s=5) as llm:
        assert (await llm.chat("m", MESSAGES)).text == "ok"
    assert len(fake_openai.requests) == 2


@pytest.mark.parametrize(
    ("reply", "config", "why"),
    [
        (limited(Retry_After="30"), {}, "Retry-After 30s is over LOCI_LLM_RETRY_AFTER_MAX_S=10s"),
        (limited(Retry_After="1"), {"retry_after_max_s": 0}, "over LOCI_LLM_RETRY_AFTER_MAX_S=0s"),
        (limited(Retry_After="3"), {"timeout_s": 2}, "Retry-After 3s is past the call's timeout"),
        (limited(), {}, "no Retry-After, not retried"),
    ],
    ids=["over-the-setting", "setting-zero", "past-the-deadline", "no-header"],
)
async def test_a_long_or_missing_retry_after_falls_back_at_once_naming_the_429(
    fake_openai: FakeOpenAI, reply: FakeReply, config: dict[str, Any], why: str
) -> None:
    fake_openai.set_default(lambda _body: reply)
    started = time.perf_counter()
    async with client_for(fake_openai, **{"timeout_s": 5, **config}) as llm:
        with pytest.raises(UpstreamUnavailable) as info:
            await llm.chat("m", MESSAGES)
    assert time.perf_counter() - started < 0.5
    assert len(fake_openai.requests) == 1
    assert "HTTP 429: Rate limit reached" in str(info.value) and why in str(info.value)


async def test_retries_are_bounded_then_the_429_is_the_reason(fake_openai: FakeOpenAI) -> None:
    fake_openai.set_default(lambda _body: limited(Retry_After="0.1"))
    async with client_for(fake_openai, timeout_s=5) as llm:
        with pytest.raises(UpstreamUnavailable, match=r"HTTP 429: .*still rate-limited after 2 retries"):
            await llm.chat("m", MESSAGES)
    assert len(fake_openai.requests) == 1 + RATE_LIMIT_RETRIES


async def test_the_waits_of_one_call_add_up_to_the_setting_at_most(fake_openai: FakeOpenAI) -> None:
    fake_openai.set_default(lambda _body: limited(Retry_After="0.4"))
    async with client_for(fake_openai, timeout_s=5, retry_after_max_s=0.7) as llm:
        with pytest.raises(UpstreamUnavailable, match=r"Retry-After 0\.4s is over LOCI_LLM_RETRY_AFTER_MAX_S=0\.7s"):
            await llm.chat("m", MESSAGES)
    assert len(fake_openai.requests) == 2  # waited 0.4 once; a second 0.4 would make 0.8


async def test_other_errors_are_never_retried_even_with_retry_after(fake_openai: FakeOpenAI) -> None:
    fake_openai.set_default(lambda _body: FakeReply(status=503, headers={"Retry-After": "0"}))
    async with client_for(fake_openai, timeout_s=5) as llm:
        with pytest.raises(UpstreamUnavailable, match="HTTP 503"):
            await llm.chat("m", MESSAGES)
    assert len(fake_openai.requests) == 1


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "2"}, 2.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"retry-after": "-3"}, 0.0),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "x", "retry-after": "4"}, 4.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, 10.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:27:00 GMT"}, 0.0),
    ],
)
def test_retry_after_parsing(headers: dict[str, str], expected: float | None) -> None:
    now = email.utils.parsedate_to_datetime("Wed, 21 Oct 2015 07:28:00 GMT").timestamp()
    assert retry_after_s(httpx.Headers(headers), now=now) == expected


def test_a_negative_wait_setting_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="LOCI_LLM_RETRY_AFTER_MAX_S"):
        LLMConfig(base_url="http://h/v1", api_key=None, retry_after_max_s=-1)


def test_the_setting_reaches_the_process_client(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCI_LLM_BASE_URL", "http://h/v1")
    monkeypatch.setenv("LOCI_LLM_RETRY_AFTER_MAX_S", "3")
    llm = build_llm(load_settings())
    assert llm is not None and llm.config.retry_after_max_s == 3
    monkeypatch.setenv("LOCI_LLM_RETRY_AFTER_MAX_S", "-1")
    with pytest.raises(ConfigurationError, match="invalid setting LOCI_LLM_RETRY_AFTER_MAX_S"):
        load_settings()
