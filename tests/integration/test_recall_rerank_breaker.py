"""`hybrid+rerank` over real HTTP against a hanging OpenAI-compatible server: the process's
circuit breaker (`retrieval.rerank_breaker`) makes one recall wait, the next ones not, and
asks again once after the cool-down (its clock is moved here, never slept out)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import func, select

from loci.db import Database
from loci.embedder import Embedder
from loci.models import RetrievalLog
from loci.settings import Settings
from retrieval import RerankBreaker
from service.app import create_app
from service.state import AppState
from tests.conftest import UserHandle, make_state
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.palace_fixture import ConversationSpec, place_conversation

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
WHEN = datetime(2024, 3, 2, 10, tzinfo=UTC)
COOLDOWN_S = 45.0
HANG = FakeReply(content=json.dumps({"ranking": [2, 1]}), delay_s=30)
GOOD = FakeReply(content=json.dumps({"ranking": [2, 1]}))


class Clock:
    """The breaker's monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def service(
    settings: Settings, embedder: Embedder, fake_openai: FakeOpenAI
) -> AsyncIterator[tuple[Client, AppState, Clock]]:
    """The app with an LLM endpoint (the fake server), a short rerank timeout and a breaker
    on a clock of the test's."""
    retrieval = settings.retrieval.model_copy(update={"rerank_timeout_s": 0.3})
    llm = settings.llm.model_copy(update={"base_url": fake_openai.base_url, "api_key": "sk-test"})
    quick = settings.model_copy(update={"retrieval": retrieval, "llm": llm})
    clock = Clock()
    state = make_state(quick, embedder)  # its LLM client is the lifespan's, made and closed in the app's loop
    state.rerank_breaker = RerankBreaker(cooldown_s=COOLDOWN_S, clock=clock)
    async with AsyncTestClient(app=create_app(quick, state=state, run_worker=False)) as client:
        yield client, state, clock
    await state.db.dispose()


async def _user_with_palace(new_user: NewUser, db: Database, embedder: Embedder) -> UserHandle:
    user = await new_user("breaker")
    spec = ConversationSpec(
        [
            ("user", "My sister Ingrid lives in Trondheim and works as a marine biologist.", WHEN),
            ("assistant", "Trondheim has a great fjord for marine research.", WHEN),
        ],
        wing="family",
        topic="sister",
    )
    await place_conversation(db, embedder, user.id, spec)
    return user


async def _recall(client: Client, user: UserHandle, db: Database) -> tuple[dict[str, Any], str]:
    """One ``hybrid+rerank`` recall over HTTP, and what its log row says of the rerank stage.

    The rows are queued in the client's event loop (`retrieval.log_queue`), which this one
    cannot settle, so it waits for the row (as test_recall_cache does)."""
    async with db.user_session(user.id) as s:
        logged = await s.scalar(select(func.count()).select_from(RetrievalLog)) or 0
    body = {"message": "Where does Ingrid live?", "preset": "hybrid+rerank", "now": "2024-06-01T00:00:00Z"}
    r = await client.post("/v1/recall", json=body, headers=user.headers)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    assert "rerank" in data["timings_ms"]
    for _ in range(200):
        async with db.user_session(user.id) as s:
            rows = (await s.execute(select(RetrievalLog.notes).order_by(RetrievalLog.id))).scalars().all()
        if len(rows) > logged:
            return data, str(rows[-1]["rerank"])
        await asyncio.sleep(0.05)
    raise AssertionError("the recall's log row was never written")


async def test_a_hanging_endpoint_is_asked_once_per_cooldown_and_an_answer_closes_the_breaker(
    service: tuple[Client, AppState, Clock],
    new_user: NewUser,
    db: Database,
    embedder: Embedder,
    fake_openai: FakeOpenAI,
) -> None:
    client, state, clock = service
    user = await _user_with_palace(new_user, db, embedder)
    model = state.settings.llm.rerank_model
    fake_openai.set_default(lambda _body: HANG)

    first, note = await _recall(client, user, db)  # waits out the rerank timeout, then RRF
    assert "timed out" in note and len(fake_openai.requests) == 1
    assert state.rerank_breaker.state(model) == "open"
    rrf_order = [i["drawer_id"] for i in first["items"]]
    for _ in range(3):  # the circuit is open: RRF at once, the endpoint not asked
        data, note = await _recall(client, user, db)
        assert note.startswith("fallback to RRF: rerank skipped, circuit open"), note
        assert [i["drawer_id"] for i in data["items"]] == rrf_order
    assert len(fake_openai.requests) == 1

    clock.now += COOLDOWN_S  # cool-down over: one recall asks again, still no answer
    _, note = await _recall(client, user, db)
    assert "timed out" in note and len(fake_openai.requests) == 2
    _, note = await _recall(client, user, db)  # reopened for another cool-down
    assert "circuit open" in note and len(fake_openai.requests) == 2

    clock.now += COOLDOWN_S  # the endpoint is back: the probe's answer closes the breaker
    fake_openai.set_default(lambda _body: GOOD)
    data, note = await _recall(client, user, db)
    assert note.startswith("reranked by") and len(fake_openai.requests) == 3
    assert "rerank" in data["items"][0]["ranks"]
    assert state.rerank_breaker.state(model) == "closed"
    _, note = await _recall(client, user, db)  # closed: every recall asks
    assert note.startswith("reranked by") and len(fake_openai.requests) == 4


async def test_an_unusable_answer_keeps_the_breaker_closed(
    service: tuple[Client, AppState, Clock],
    new_user: NewUser,
    db: Database,
    embedder: Embedder,
    fake_openai: FakeOpenAI,
) -> None:
    """Bad JSON is an answer: the endpoint is up, so the next recall asks again."""
    client, state, _ = service
    user = await _user_with_palace(new_user, db, embedder)
    fake_openai.set_default(lambda _body: FakeReply(content="{not json"))
    for n in (1, 2):
        _, note = await _recall(client, user, db)
        assert "unparseable" in note and len(fake_openai.requests) == n
    assert state.rerank_breaker.state(state.settings.llm.rerank_model) == "closed"
