"""What a model reads is dated on the user's own time zone: the recall block, the scoped
query's bullets, the MCP ``entity_timeline`` tool and the LLM reranker's candidates.

A user in New York who set ``time_zone`` and chatted at 22:30 on 28 February (03:30 UTC on 1
March) had recall's ``<memory_context>`` say ``2026-03-01 03:30`` with no zone, which a model
reads as the user's own clock: a chat "last night" placed the next morning. The block now reads
``2026-02-28 22:30`` and names the zone once in its preamble; a user without a zone gets the
block they always got, byte for byte (the LongMemEval bench compares blocks).
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from litestar.testing import AsyncTestClient

from ingest import sources_from_first
from loci.db import Database
from loci.embedder import Embedder
from loci.models import DrawerEntity, Entity, Relation
from loci.settings import Settings
from retrieval import RecallDeps, RecallRequest, RerankCandidate, RerankOutcome, get_preset, recall
from retrieval.render import PREAMBLE, ZONED_PREAMBLE
from service.mcp.server import run_tool
from service.state import AppState, Caller
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation

Client = AsyncTestClient[Any]
NewUser = Callable[..., Awaitable[UserHandle]]
ZONE = "America/New_York"
SAID = datetime(2026, 3, 1, 3, 30, tzinfo=UTC)
"""22:30 EST on 28 February in New York."""
TURN = "I repainted the garden shed a deep teal colour."
QUESTION = "What colour did I paint the garden shed?"
NOW = "2026-03-02T12:00:00Z"


async def _user_with_a_late_chat(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, zone: str | None
) -> tuple[UserHandle, int]:
    """A user (in ``zone``, or none) whose one turn was said at `SAID`, and an entity whose one
    fact that turn stated; answers the user and the entity's id."""
    user = await new_user("tz-block")
    if zone is not None:
        r = await client.put("/v1/settings", json={"time_zone": zone}, headers=user.headers)
        assert r.status_code == 200, r.text
    spec = ConversationSpec([("user", TURN, SAID)], wing="home", topic="shed", external_id="shed")
    placed = await place_conversation(db, embedder, user.id, spec)
    async with db.user_session(user.id) as s:
        shed = Entity(user_id=user.id, kind="i", name="garden shed", slug=f"shed-{secrets.token_hex(3)}")
        s.add(shed)
        await s.flush()
        drawer = placed.drawer_ids[0]
        s.add(DrawerEntity(user_id=user.id, drawer_id=drawer, entity_id=shed.id))  # a live entity is named in one
        s.add(Relation(user_id=user.id, subject_id=shed.id, predicate="is", object_value="teal", valid_from=SAID,
                       source_drawer_id=drawer))  # fmt: skip
        await s.flush()
        await sources_from_first(s, user.id)  # the turn said it, as mining records it
        return user, shed.id


async def _recall(client: Client, user: UserHandle, **extra: Any) -> dict[str, Any]:
    body = {"message": QUESTION, "now": NOW, **extra}
    r = await client.post("/v1/recall", json=body, headers=user.headers)
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    assert data["context"], data
    return data


async def test_the_recall_block_dates_a_turn_on_the_users_zone(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    user, _ = await _user_with_a_late_chat(client, db, embedder, new_user, ZONE)
    miss = await _recall(client, user, conversation_id="tz-chat")
    block = miss["context"]
    assert ZONED_PREAMBLE.format(zone=ZONE) in block.split("\n"), block
    assert f" · 2026-02-28 22:30 · user: {TURN}" in block, block  # it read 2026-03-01 03:30, in UTC
    assert "2026-03-01" not in block and "03:30" not in block, block
    assert miss["items"][0]["occurred_at"].startswith("2026-03-01T03:30:00"), miss["items"]  # data stays UTC
    hit = await _recall(client, user, conversation_id="tz-chat")  # the cache renders it again, as dated
    assert hit["stats"]["cache"] == "hit" and hit["context"] == block, hit


async def test_without_a_zone_the_block_is_the_utc_block_it_always_was(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    user, _ = await _user_with_a_late_chat(client, db, embedder, new_user, None)
    block = (await _recall(client, user))["context"]
    lines = block.split("\n")
    assert lines[1] == PREAMBLE, block
    assert f" · 2026-03-01 03:30 · user: {TURN}" in block and "zone" not in block, block


async def test_the_scoped_query_and_the_timeline_tool_date_on_the_users_zone(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, settings: Settings
) -> None:
    for zone, day in ((ZONE, "2026-02-28"), (None, "2026-03-01")):
        user, shed = await _user_with_a_late_chat(client, db, embedder, new_user, zone)
        body = {"agent": "assistant", "query": QUESTION, "top_k": 3}
        r = await client.post("/v1/memory/query", json=body, headers=user.headers)
        assert r.status_code == 200, r.text
        drawn = [b["text"] for b in r.json()["bullets"] if b["kind"] == "drawer"]
        assert drawn == [f"{day} user: {TURN}"], (zone, r.json())  # the bullet was the UTC day
        state = AppState(settings=settings, db=db, embedder=embedder)
        tool = await run_tool(state, Caller(user.id), "entity_timeline", {"entity": shed})
        said = tool.content[0].text  # type: ignore[union-attr]
        assert not tool.is_error and f"- garden shed is teal ({day})" in said, said
        named = "(dates in the user's zone, America/New_York)"
        assert (named in said) is (zone is not None), said  # no zone: the answer it always was


class _DatesSeen:
    """A `Reranker` that keeps the fused order and records the dates its candidates carry."""

    def __init__(self) -> None:
        self.dates: list[str] = []

    async def rerank(
        self, query: str, candidates: Sequence[RerankCandidate], top_k: int, model: str | None = None
    ) -> RerankOutcome:
        self.dates += [c.date for c in candidates]
        return RerankOutcome((), "kept")


async def test_the_reranker_reads_the_users_day(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, settings: Settings
) -> None:
    for zone, day in ((ZONE, "2026-02-28"), (None, "2026-03-01")):
        user, _ = await _user_with_a_late_chat(client, db, embedder, new_user, zone)
        seen = _DatesSeen()
        request = RecallRequest(user.id, QUESTION, now=datetime(2026, 3, 2, 12, tzinfo=UTC),
                                config=get_preset("hybrid+rerank"), log=False)  # fmt: skip
        await recall(RecallDeps(db=db, embedder=embedder, settings=settings, reranker=seen), request)
        assert seen.dates == [day], (zone, seen.dates)
