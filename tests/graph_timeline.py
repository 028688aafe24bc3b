"""Test helpers for the knowledge graph end to end: mine a chat as the worker does (offline),
then read an entity and its timeline over HTTP, as a user would see them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from litestar.testing import AsyncTestClient

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from tests.conftest import UserHandle

Client = AsyncTestClient  # type: ignore[type-arg]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
"""When the first chat of a test starts."""


async def mine_chat(
    deps: MiningDeps, user: UserHandle, key: str, texts: Sequence[str], *, day: int, gap: int = 0
) -> None:
    """One chat of user turns starting ``day`` days after `T0`, ``gap`` days apart (0: minutes
    apart), mined as the worker does."""
    start = T0 + timedelta(days=day)
    step = timedelta(days=gap) if gap else timedelta(minutes=1)
    turns = [TurnIn("user", text, start + i * step) for i, text in enumerate(texts)]
    ref = await store_conversation(deps.db, user.id, external_id=key, agent_id=None, turns=turns)
    await complete_conversation(deps.db, user.id, key)
    assert (await mine_conversation(deps, ref.id)).extractor == "offline"


async def entity_named(client: Client, user: UserHandle, name: str) -> dict[str, Any]:
    """The one entity `GET /v1/entities?q=` finds for ``name``."""
    found = (await client.get("/v1/entities", params={"q": name}, headers=user.headers)).json()
    assert [e["name"] for e in found] == [name], found
    entity: dict[str, Any] = found[0]
    return entity


async def timeline(client: Client, user: UserHandle, entity_id: int) -> list[dict[str, Any]]:
    """An entity's relations from `GET /v1/entities/{id}/timeline`, oldest first."""
    answer = await client.get(f"/v1/entities/{entity_id}/timeline", headers=user.headers)
    assert answer.status_code == 200, answer.text
    rows: list[dict[str, Any]] = answer.json()["relations"]
    return sorted(rows, key=lambda r: (r["valid_from"], r["id"]))


async def users_rows(client: Client, user: UserHandle, via: str) -> list[dict[str, Any]]:
    """The user's own timeline, oldest first, found through an entity a fact of theirs names."""
    named = await timeline(client, user, (await entity_named(client, user, via))["id"])
    return await timeline(client, user, named[0]["subject_id"])


def spans(rows: list[dict[str, Any]], predicate: str) -> list[tuple[str, bool]]:
    """(value, current) of each row of ``predicate``."""
    return [(r["object"], r["current"]) for r in rows if r["predicate"] == predicate]


def fact_rows(rows: list[dict[str, Any]]) -> list[tuple[str, str, str, bool]]:
    """(subject, predicate, value, current) of each row."""
    return [(r["subject"], r["predicate"], r["object"], r["current"]) for r in rows]
