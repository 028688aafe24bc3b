"""A recall without ``now`` for a user with a time zone reads its message once.

Recall reads the message before the user's zone is known (it comes with the controls, in the
transaction, while the query vectors are computed), and read it all again on the zone's clock:
`retrieval.query.on_users_clock` re-ran `analyse` where only the time spans and what follows
from them depend on the clock. Now the clock-free reading (`read_message`) is done once and
dated once (`on_clock_of`) on the clock the controls give (`users_clock`); what comes back is
what the request with that ``now`` gets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from litestar.testing import AsyncTestClient

import retrieval.query
from loci.db import Database
from loci.embedder import Embedder
from loci.timexpr import find_time_expressions
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation

Client = AsyncTestClient[Any]
NewUser = Callable[..., Awaitable[UserHandle]]
ZONE = "Pacific/Kiritimati"
"""UTC+14: its date differs from UTC's most of the day, so its "yesterday" is another day."""
MESSAGE = "What did I do yesterday at the market?"


async def _zoned_user_with_walks(client: Client, db: Database, embedder: Embedder, new_user: NewUser) -> UserHandle:
    user = await new_user("tz-once")
    r = await client.put("/v1/settings", json={"time_zone": ZONE}, headers=user.headers)
    assert r.status_code == 200, r.text
    now = datetime.now(UTC)
    for days, text in ((1, "I walked to the market for fresh bread."), (2, "I walked to the museum by the canal.")):
        spec = ConversationSpec([("user", text, now - timedelta(days=days))], external_id=f"walk-{days}")
        await place_conversation(db, embedder, user.id, spec)
    return user


def _count(monkeypatch: pytest.MonkeyPatch, counts: Counter[str]) -> None:
    """Count the message's readings: its clock-free part (`retrieval.query.sub_queries`, read
    once per reading) and its dating (`retrieval.query.find_time_expressions`)."""
    sub_queries = retrieval.query.sub_queries

    def counted_sub_queries(message: str) -> tuple[str, ...]:
        counts["read"] += 1
        return sub_queries(message)

    def counted_find(*args: Any, **kwargs: Any) -> Any:
        counts["dated"] += 1
        return find_time_expressions(*args, **kwargs)

    monkeypatch.setattr(retrieval.query, "sub_queries", counted_sub_queries)
    monkeypatch.setattr("retrieval.query.find_time_expressions", counted_find)


async def test_recall_and_the_scoped_query_read_the_message_once(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = await _zoned_user_with_walks(client, db, embedder, new_user)
    counts: Counter[str] = Counter()
    _count(monkeypatch, counts)
    r = await client.post("/v1/recall", json={"message": MESSAGE, "top_k": 5}, headers=user.headers)
    assert r.status_code == 200, r.text
    assert r.json()["items"], r.json()
    assert counts == {"read": 1, "dated": 1}, counts  # it was read twice, and dated twice
    counts.clear()
    r = await client.post("/v1/memory/query", json={"query": MESSAGE, "agent": "helper"}, headers=user.headers)
    assert r.status_code == 200, r.text
    assert counts == {"read": 1, "dated": 1}, counts


def _ranked(body: dict[str, Any]) -> list[tuple[int, dict[str, int], float]]:
    return [(i["drawer_id"], i["ranks"], i["score"]) for i in body["items"]]


async def test_recall_without_now_answers_as_with_now_on_the_users_clock(
    client: Client, db: Database, embedder: Embedder, new_user: NewUser
) -> None:
    """Without ``now`` the zone's clock is the request's: the same drawers, ranks, scores and
    block as a request sending the present on that zone, and its "yesterday" is the zone's."""
    user = await _zoned_user_with_walks(client, db, embedder, new_user)
    for _ in range(3):  # the zone's day must not turn between the two requests
        local = datetime.now(ZoneInfo(ZONE))
        bare = await client.post("/v1/recall", json={"message": MESSAGE, "top_k": 5}, headers=user.headers)
        timed = await client.post(
            "/v1/recall", json={"message": MESSAGE, "top_k": 5, "now": local.isoformat()}, headers=user.headers
        )
        if datetime.now(ZoneInfo(ZONE)).date() == local.date():
            break
    assert bare.status_code == 200 and timed.status_code == 200, (bare.text, timed.text)
    assert _ranked(bare.json()) == _ranked(timed.json()) and bare.json()["context"] == timed.json()["context"]
    assert any("temporal" in ranks for _, ranks, _ in _ranked(bare.json())), bare.json()  # the span was read
