"""A mining job stops asking an LLM endpoint that failed to answer (`loci.llm_latch`).

Against the repository's real fake OpenAI server: an endpoint that hangs, rate-limits or
errs used to cost every stage of every window its own timeout; now the first failure is the
job's only call, every stage falls back offline with that reason, and nothing is lost.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from ingest import MiningDeps, TurnIn, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient, LLMConfig
from loci.models import Activity, Drawer
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.fakes.openai_server import FakeOpenAI, FakeReply

NewUser = Callable[..., Awaitable[UserHandle]]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
LINES = [
    ("user", "I'm moving to Lisbon in March with my partner Jo."),
    ("assistant", "Exciting! Have you found a flat yet?"),
    ("user", "Not yet, we decided to rent in Alfama before buying."),
    ("assistant", "Renting first is wise."),
    ("user", "I'm vegetarian, so good markets nearby matter to me."),
    ("assistant", "Campo de Ourique has a great market."),
]
TURNS = [TurnIn(role, text, T0 + timedelta(minutes=i)) for i, (role, text) in enumerate(LINES)]
WINDOW = {"subject": {"kind": "place", "name": "Lisbon"}, "topics": ["moving"], "entities": [], "relations": []}


@pytest.fixture
async def llm(fake_openai: FakeOpenAI) -> AsyncIterator[LLMClient]:
    client = LLMClient(LLMConfig(fake_openai.base_url, "sk-test", timeout_s=0.5))
    yield client
    await client.aclose()


def deps_for(settings: Settings, db: Database, embedder: Embedder, llm: LLMClient) -> MiningDeps:
    """Three windows of two turns, each asked for its extraction and its memories, plus the
    archive summary: seven calls when the endpoint answers."""
    mining = settings.mining.model_copy(update={"extractor": "llm", "extract_memories": True, "window_turns": 2})
    return MiningDeps(db, embedder, settings.model_copy(update={"mining": mining}), llm)


async def mined(db: Database, user_id: int) -> tuple[dict[str, Any], int]:
    async with db.user_session(user_id) as s:
        event = (await s.execute(select(Activity).where(Activity.type == "memory_mined"))).scalar_one()
        drawers = await s.scalar(select(func.count()).select_from(Drawer))
    return event.payload, int(drawers or 0)


@pytest.mark.parametrize(
    ("reply", "cause"),
    [
        (FakeReply(content=json.dumps(WINDOW), delay_s=5), "timed out after 0.5s"),
        (FakeReply(content="slow down", status=429), "HTTP 429"),
        (FakeReply(status=429, headers={"Retry-After": "60"}), "HTTP 429: fake error 429 (Retry-After 60s is over"),
        (FakeReply(content="model 'gpt-4o-mini' not found", status=404), "HTTP 404"),
    ],
    ids=["hangs", "rate-limits", "rate-limits-long", "unknown-model"],
)
async def test_a_failing_endpoint_is_asked_once_per_job_and_every_stage_says_why(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    new_user: NewUser,
    fake_openai: FakeOpenAI,
    llm: LLMClient,
    reply: FakeReply,
    cause: str,
) -> None:
    user = await new_user()
    fake_openai.set_default(lambda _body: reply)
    ref = await store_conversation(db, user.id, external_id="outage", agent_id=None, turns=TURNS)
    result = await mine_conversation(deps_for(settings, db, embedder, llm), ref.id)
    assert len(fake_openai.requests) == 1  # seven without the latch: seven timeouts for a hang
    assert result.extractor == "offline" and result.windows == 3 and result.drawers == len(TURNS)
    payload, drawers = await mined(db, user.id)
    assert drawers == len(TURNS)  # nothing lost
    reasons = [str(v) for entry in payload["fallbacks"] for k, v in entry.items() if k != "window"]
    assert len(reasons) == 7  # 3 windows x (extraction, memories) + the archive summary
    assert all(cause in r for r in reasons)
    assert sum("not asked again in this job" in r for r in reasons) == 6
    assert payload["archive"]["by"] == "extractive"


async def test_the_next_job_asks_again_and_bad_output_does_not_stop_the_job(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI, llm: LLMClient
) -> None:
    user = await new_user()
    fake_openai.queue(FakeReply(content="busy", status=503))
    fake_openai.set_default(lambda _body: FakeReply(content="{not json"))
    first = await store_conversation(db, user.id, external_id="first", agent_id=None, turns=TURNS[:2])
    await mine_conversation(deps_for(settings, db, embedder, llm), first.id)
    assert len(fake_openai.requests) == 1
    # A new job asks afresh; the endpoint answers garbage, which latches nothing: every
    # stage still asks (and retries once), because the next answer may be fine.
    second = await store_conversation(db, user.id, external_id="second", agent_id=None, turns=TURNS[2:])
    result = await mine_conversation(deps_for(settings, db, embedder, llm), second.id)
    assert result.extractor == "offline" and result.drawers == 4
    # 2 windows x (extraction, memories) x (answer, corrective retry) + the summary (no retry)
    assert len(fake_openai.requests) == 1 + 2 * 2 * 2 + 1


async def test_a_short_retry_after_is_waited_out_and_the_job_mines_with_the_llm(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, fake_openai: FakeOpenAI
) -> None:
    user = await new_user()
    fake_openai.queue(FakeReply(status=429, headers={"Retry-After": "0.5"}), json.dumps(WINDOW))
    mining = settings.mining.model_copy(update={"extractor": "llm", "extract_memories": False, "window_turns": 8})
    ref = await store_conversation(db, user.id, external_id="limited", agent_id=None, turns=TURNS)
    async with LLMClient(LLMConfig(fake_openai.base_url, "sk-test", timeout_s=5)) as llm:
        deps = MiningDeps(db, embedder, settings.model_copy(update={"mining": mining}), llm)
        result = await mine_conversation(deps, ref.id)
    assert len(fake_openai.requests) == 2  # the 429, then the same call again after 0.5 s
    assert result.extractor == "llm" and result.windows == 1
    payload, _drawers = await mined(db, user.id)
    assert not payload.get("fallbacks")
