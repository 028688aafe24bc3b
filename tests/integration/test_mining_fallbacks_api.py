"""Mining's LLM fallbacks as `GET /v1/jobs/{id}` shows them, over real HTTP and a real arq
worker (burst mode), against the fake OpenAI server answering garbage or hanging: the job
result counts the fallbacks and names the first, beside ``extractor: offline``; so does each
conversation of `GET /v1/conversations`."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from loci.embedder import Embedder
from loci.models import Activity
from loci.settings import Settings
from loci_client import ConversationPage
from service.app import create_app
from service.state import AppState
from tests.conftest import UserHandle, bumps_on_either_loop, make_state
from tests.fakes.openai_server import FakeOpenAI, FakeReply
from tests.integration.test_mining_api import TURNS, run_jobs

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


@pytest.fixture
async def service(
    settings: Settings, embedder: Embedder, fake_openai: FakeOpenAI
) -> AsyncIterator[tuple[Client, AppState]]:
    """The app mining with the LLM extractor over the fake server (its client made by the
    lifespan, as `loci serve` makes it), with a short LLM timeout for the hanging case."""
    llm = settings.llm.model_copy(update={"base_url": fake_openai.base_url, "api_key": "sk-test", "timeout_s": 0.5})
    mining = settings.mining.model_copy(update={"extractor": "llm"})
    with_llm = settings.model_copy(update={"llm": llm, "mining": mining})
    state = make_state(with_llm, embedder)
    app = create_app(with_llm, state=state, run_worker=False)
    async with AsyncTestClient(app=app) as client, bumps_on_either_loop(client, with_llm):
        yield client, state
    await state.db.dispose()


async def _mine(client: Client, state: AppState, user: UserHandle, conversation: str) -> dict[str, Any]:
    """Store, complete and mine one conversation; the job as `GET /v1/jobs/{id}` answers it."""
    made = await client.post("/v1/conversations", json={"id": conversation, "turns": TURNS}, headers=user.headers)
    assert made.status_code == 201, made.text
    done = await client.post(f"/v1/conversations/{conversation}/complete", headers=user.headers)
    job_id = done.json()["job_id"]
    await run_jobs(state)
    job: dict[str, Any] = (await client.get(f"/v1/jobs/{job_id}", headers=user.headers)).json()
    assert job["status"] == "done", job
    return job


async def _event_fallbacks(state: AppState, user_id: int) -> list[dict[str, Any]]:
    async with state.db.user_session(user_id) as s:
        event = (await s.execute(select(Activity).where(Activity.type == "memory_mined"))).scalar_one()
    fallbacks: list[dict[str, Any]] = event.payload["fallbacks"]
    return fallbacks


@pytest.mark.parametrize(
    ("reply", "first"),
    [
        (FakeReply(content="{not json at all"), r"window \d+: malformed output after retry"),
        (FakeReply(content="{}", delay_s=30), r"window \d+: endpoint unavailable: .* timed out after 0\.5s"),
    ],
    ids=["garbage", "hanging"],
)
async def test_the_job_result_counts_the_fallbacks_and_names_the_first(
    service: tuple[Client, AppState], new_user: NewUser, fake_openai: FakeOpenAI, reply: FakeReply, first: str
) -> None:
    client, state = service
    user = await new_user("fallbacks")
    fake_openai.set_default(lambda _body: reply)
    result = (await _mine(client, state, user, "fell-back"))["result"]
    assert result["extractor"] == "offline" and result["drawers"] == len(TURNS), result
    assert result["fallback_count"] == len(await _event_fallbacks(state, user.id)) >= 1
    assert re.match(first, result["first_fallback"]), result["first_fallback"]


async def test_a_job_that_never_asked_the_llm_reports_no_fallback(
    service: tuple[Client, AppState], new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``extractor: offline`` by configuration, not by failure: no fallback counted."""
    client, state = service
    user = await new_user("no-fallbacks")
    offline = state.settings.mining.model_copy(update={"extractor": "offline"})
    monkeypatch.setattr(state, "settings", state.settings.model_copy(update={"mining": offline}))
    result = (await _mine(client, state, user, "offline-only"))["result"]
    assert (result["extractor"], result["fallback_count"], result["first_fallback"]) == ("offline", 0, None)


async def test_the_conversation_list_shows_the_fallbacks_the_job_counted(
    service: tuple[Client, AppState], new_user: NewUser, fake_openai: FakeOpenAI
) -> None:
    client, state = service
    user = await new_user("listed-fallbacks")
    fake_openai.set_default(lambda _body: FakeReply(status=429, content="Rate limit reached"))
    result = (await _mine(client, state, user, "rate-limited"))["result"]
    stored = await client.post("/v1/conversations", json={"id": "unmined", "turns": TURNS}, headers=user.headers)
    assert stored.status_code == 201
    listed = await client.get("/v1/conversations", headers=user.headers)
    unmined, fell_back = ConversationPage.model_validate(listed.json()).items  # the client's typed answer
    assert (fell_back.id, fell_back.fallback_count) == ("rate-limited", result["fallback_count"])
    assert fell_back.fallback_count >= 1 and fell_back.first_fallback == result["first_fallback"]
    assert fell_back.first_fallback is not None and "HTTP 429: Rate limit reached" in fell_back.first_fallback
    assert (unmined.id, unmined.fallback_count, unmined.first_fallback) == ("unmined", 0, None)
