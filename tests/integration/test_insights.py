"""Insights: the daily LLM job against the local fake OpenAI-compatible server, then what
the user sees over HTTP; and the job and the settings without an LLM.

The fake model answers five insights for one user: one repeats the insight the user
already holds, one is in the first person, one is too long; of the rest only three may be
written a day. A second run within 24 hours asks nothing.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from domain.insights import RUN_EVENT, derive_insights, insights_status
from domain.memory_rows import MemoryStore
from domain.page_sessions import open_page_session
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient, LLMConfig
from loci.models import Activity, Memory, MemoryHistory
from loci.settings import Settings
from service import jobs
from service.state import AppState
from service.web.session import COOKIE
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.memory_seed import seed_memory

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]

HELD = "The user tends to plan trips around food."
ANSWER = [
    {"text": "The user tends to plan trips around food", "confidence": 0.7},  # held already
    {"text": "I love ramen.", "confidence": 0.9},  # not third person
    {"text": "The user " + "really " * 60 + "likes noodles.", "confidence": 0.6},  # too long
    {"text": "The user usually cooks on weekends.", "confidence": 0.6},
    {"text": "The user prefers walking to driving in cities.", "confidence": 0.55},
    {"text": "The user often asks for vegetarian options.", "confidence": 0.65},
    {"text": "The user keeps a running list of restaurants to try.", "confidence": 0.5},
]


@pytest.fixture
def llm_settings(settings: Settings, fake_openai: FakeOpenAI) -> Settings:
    return settings.model_copy(update={"llm": settings.llm.model_copy(update={"base_url": fake_openai.base_url})})


@pytest.fixture
async def llm(fake_openai: FakeOpenAI) -> AsyncIterator[LLMClient]:
    client = LLMClient(LLMConfig(fake_openai.base_url, "sk-test", timeout_s=5))
    yield client
    await client.aclose()


async def ok(response: Any) -> dict[str, Any]:
    assert response.status_code in (200, 201), response.text
    body: dict[str, Any] = response.json()
    return body


async def active_user(client: Client, db: Database, embedder: Embedder, user: UserHandle) -> None:
    """A conversation from today and the insight the user already holds."""
    now = datetime.now(UTC)
    turns = [
        {"role": "user", "content": text, "created_at": (now - timedelta(hours=2 - i)).isoformat()}
        for i, text in enumerate(["We're going to Osaka mostly for the street food.", "Any vegetarian takoyaki?"])
    ]
    await ok(await client.post("/v1/conversations", json={"id": "trip", "turns": turns}, headers=user.headers))
    await seed_memory(db, user.id, HELD, category="insight", source="extracted", confidence=0.6, embedder=embedder)


async def insights(db: Database, user_id: int) -> list[Memory]:
    async with db.user_session(user_id) as s:
        query = select(Memory).where(Memory.category == "insight", Memory.valid_until.is_(None))
        return list((await s.execute(query.order_by(Memory.id))).scalars())


async def test_the_job_writes_at_most_three_and_skips_within_a_day(
    client: Client, db: Database, embedder: Embedder, llm_settings: Settings, llm: LLMClient,
    fake_openai: FakeOpenAI, new_user: NewUser,
) -> None:  # fmt: skip
    user = await new_user("insights")
    await active_user(client, db, embedder, user)
    fake_openai.queue(FakeReply(content=json.dumps({"insights": ANSWER})))
    store = MemoryStore(db, embedder, llm_settings.memory)
    now = datetime.now(UTC)
    [run] = (await derive_insights(store, llm_settings, llm, now, users=[user.id])).results
    assert run.skipped is None and len(run.written) == 3 and run.dropped == 4
    sent = fake_openai.requests[0]["body"]["messages"][1]["content"]
    assert "street food" in sent and HELD in sent
    found = await insights(db, user.id)
    assert [m.content for m in found] == [HELD] + [a["text"] for a in ANSWER[3:6]]
    assert all(m.source == "extracted" and m.confidence is not None for m in found)
    async with db.user_session(user.id) as s:
        runs = (await s.execute(select(Activity).where(Activity.type == RUN_EVENT))).scalars().all()
        actors = (await s.execute(select(MemoryHistory.actor).where(MemoryHistory.new_id == found[-1].id))).scalars()
        assert [r.payload["written"] for r in runs] == [3] and list(actors) == ["system:insights"]

    [again] = (await derive_insights(store, llm_settings, llm, now + timedelta(hours=23), users=[user.id])).results
    assert again.skipped == "ran in the last 24 hours" and again.written == ()
    assert len(fake_openai.requests) == 1 and len(await insights(db, user.id)) == 4

    block = await ok(await client.get("/v1/context", headers=user.headers))
    assert "cooks on weekends" not in block["block"] and "plan trips" not in block["block"]
    listed = await ok(await client.get("/v1/memories", params={"category": "insight"}, headers=user.headers))
    assert len(listed["items"]) == 4  # the user sees (and may forget) them


async def test_bad_json_twice_writes_nothing_and_records_no_run(
    client: Client, db: Database, embedder: Embedder, llm_settings: Settings, llm: LLMClient,
    fake_openai: FakeOpenAI, new_user: NewUser,
) -> None:  # fmt: skip
    user = await new_user("insights-bad")
    await active_user(client, db, embedder, user)
    fake_openai.queue("not json at all", FakeReply(content=json.dumps({"insights": "nope"})))
    store = MemoryStore(db, embedder, llm_settings.memory)
    [run] = (await derive_insights(store, llm_settings, llm, datetime.now(UTC), users=[user.id])).results
    assert run.skipped == "the model gave no usable answer" and len(fake_openai.requests) == 2
    assert [m.content for m in await insights(db, user.id)] == [HELD]
    async with db.user_session(user.id) as s:
        assert not (await s.execute(select(Activity).where(Activity.type == RUN_EVENT))).scalars().all()


async def test_without_an_llm_it_is_off_says_why_and_the_job_skips(
    client: Client, app_state: AppState, llm_settings: Settings, new_user: NewUser, caplog: pytest.LogCaptureFixture
) -> None:
    assert app_state.settings.llm.base_url is None and app_state.llm is None
    user = await new_user("insights-off")
    shown = (await ok(await client.get("/v1/settings", headers=user.headers)))["insights"]
    assert shown["enabled"] is False and shown["per_day"] == 0 and "LOCI_LLM_BASE_URL" in shown["reason"]
    signed_in = await open_page_session(app_state.db, user.key)  # the cookie holds a session, not the key
    page = await client.get("/memory/settings", headers={"Cookie": f"{COOKIE}={signed_in}"})
    assert page.status_code == 200 and "Off: needs an LLM" in page.text
    with caplog.at_level(logging.INFO, logger="loci.insights"):
        result = await jobs.derive_insights({"state": app_state})
    assert result == {"users": 0, "written": 0, "failed_users": 0, "off": shown["reason"]}
    assert any("insights skipped" in r.getMessage() and "LOCI_LLM_BASE_URL" in r.getMessage() for r in caplog.records)
    on = insights_status(llm_settings)
    assert (on.enabled, on.reason, on.per_day) == (True, None, 3)
