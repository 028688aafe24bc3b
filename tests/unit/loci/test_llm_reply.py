"""What LLMClient keeps of a misbehaving endpoint's reply (`loci.llm_reply`), over real HTTP.

Each case is one a walkthrough's hostile endpoint sent: the values it put in a reply's
bookkeeping or error body reached a row PostgreSQL refused, and failed the mining job
or the reranked recall that wrote it.
"""

from __future__ import annotations

import json

import pytest

from loci.errors import UpstreamBadOutput, UpstreamUnavailable
from loci.llm import LLMClient, LLMConfig, estimate_tokens
from loci.llm_reply import MAX_CALL_TOKENS, MAX_REPLY_BYTES
from tests.fakes.openai_server import FakeOpenAI, FakeReply, fake_openai

__all__ = ["fake_openai"]

MODEL = "test-model"
MESSAGES = [{"role": "system", "content": "Answer in JSON."}, {"role": "user", "content": "hi"}]


def client_for(fake: FakeOpenAI) -> LLMClient:
    return LLMClient(LLMConfig(base_url=fake.base_url, api_key="sk-test", prices={MODEL: (1.0, 1.0)}))


@pytest.mark.parametrize(
    "served",
    ["M\x00ini", "m" * 10_000, "gpt\x1b[31m", "\ud800", " "],
    ids=["nul", "10k-chars", "escape", "lone-surrogate", "blank"],
)
async def test_a_served_model_no_row_can_hold_is_the_model_asked_for(fake_openai: FakeOpenAI, served: str) -> None:
    fake_openai.queue(FakeReply(content="ok", model=served, usage=(10, 2)))
    async with client_for(fake_openai) as llm:
        result = await llm.chat(MODEL, MESSAGES)
    assert result.model == MODEL and result.cost == pytest.approx(12 / 1_000_000)  # priced as asked


async def test_a_dated_variant_of_the_model_is_kept(fake_openai: FakeOpenAI) -> None:
    fake_openai.queue(FakeReply(content="ok", model="test-model-2024-08-06"))
    async with client_for(fake_openai) as llm:
        assert (await llm.chat(MODEL, MESSAGES)).model == "test-model-2024-08-06"


async def test_usage_no_call_can_have_is_estimated(fake_openai: FakeOpenAI) -> None:
    """``10**12`` tokens overflowed ``usage_costs``' integer columns and failed the job."""
    fake_openai.queue(FakeReply(content="four", usage=(10**12, MAX_CALL_TOKENS + 1)))
    async with client_for(fake_openai) as llm:
        result = await llm.chat(MODEL, MESSAGES)
    prompt = "".join(m["content"] for m in MESSAGES)
    assert (result.prompt_tokens, result.completion_tokens) == (estimate_tokens(prompt), estimate_tokens("four"))


async def test_an_error_body_with_control_characters_makes_a_printable_reason(fake_openai: FakeOpenAI) -> None:
    """The reason becomes a job's ``first_fallback``, stored as JSON: a NUL in it failed the job."""
    fake_openai.queue(FakeReply(content="boom\x00\x1b[31m\ud800 red", status=500))
    async with client_for(fake_openai) as llm:
        with pytest.raises(UpstreamUnavailable) as caught:
            await llm.chat(MODEL, MESSAGES)
    assert str(caught.value).endswith("returned HTTP 500: boom\ufffd\ufffd[31m\ufffd red")


async def test_a_flood_is_read_no_further_than_the_cap(fake_openai: FakeOpenAI) -> None:
    ranking = json.dumps({"ranking": list(range(MAX_REPLY_BYTES // 4))})
    reply = {"model": MODEL, "choices": [{"message": {"role": "assistant", "content": ranking}}]}
    fake_openai.queue(FakeReply(raw_body=json.dumps(reply)))
    async with client_for(fake_openai) as llm:
        with pytest.raises(UpstreamBadOutput, match="sent a reply over 1,000,000 bytes"):
            await llm.chat(MODEL, MESSAGES)
        fake_openai.queue(FakeReply(content="still fine"))
        assert (await llm.chat(MODEL, MESSAGES)).text == "still fine"  # the client is usable after
