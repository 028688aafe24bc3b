"""Mining while a chat is in the trash sees only what is live, and loses nothing of its own.

A trashed chat keeps its entity and relation rows (a restore brings them back), but nothing
of it may show or count while it is in the trash. Mining a later chat that named the same
entity or told the same fact landed on those rows:

* the entity's figures were added to the trashed chat's: "Derek Hale" named once in a chat
  mined while the first chat was trashed listed ``mention_count`` 4 and the first chat's
  ``first_seen``;
* a fact told again was dropped as a repeat of the trashed row, so it did not show while
  that chat was in the trash, and once the trash was purged it was gone for good, though the
  later chat, still live, had said it.

Mined as the worker mines them (offline); trashed, purged, restored and read over HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.test_forgetting_across_chats import _graph, mine_chat
from tests.integration.test_restore_entities import Chat

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

MARCH, JULY, JANUARY = (datetime(2026, m, 1, 10, tzinfo=UTC) for m in (3, 7, 1))
TOLD = {
    # a single-valued fact about a named person: where he lives
    "lives in": ("Derek Hale", "Derek Hale lives in Leeds.", ("lives in", "Leeds")),
    # a multi-valued one of the user's: one current row per place visited
    "visited": ("Whitby", "I visited Whitby with my sister.", ("visited", "Whitby")),
    # a plan, which only a visit ends
    "plans to visit": ("Japan", "I booked flights for my trip to Japan in October.", ("plans to visit", "Japan")),
}


def _first(fact: str) -> Chat:
    return ("spring", [("user", None, "I had lunch with Derek Hale, he fixes kitchens."), ("user", None, fact)], MARCH)


def _again(fact: str, at: datetime = JULY) -> Chat:
    """The later chat: the fact again, then another place visited (which ends no other visit)."""
    turns = [("user", None, "Derek Hale sent the quote."), ("user", None, fact), ("user", None, "I visited York.")]
    return ("quote", turns, at)


async def _entities(client: Client, user: UserHandle) -> dict[str, dict[str, Any]]:
    """Every listed entity by name, as listed (its id aside)."""
    listed = await client.get("/v1/entities", params={"limit": 200}, headers=user.headers)
    assert listed.status_code == 200, listed.text
    return {e["name"]: {k: v for k, v in e.items() if k != "id"} for e in listed.json()}


async def _told(client: Client, user: UserHandle, name: str, fact: tuple[str, str]) -> list[tuple[str, str | None]]:
    """The rows of ``fact`` in the timeline of the entity listed as ``name``: (from, to)."""
    listed = await client.get("/v1/entities", params={"q": name}, headers=user.headers)
    ids = [e["id"] for e in listed.json() if e["name"] == name]
    if not ids:
        return []
    history = await client.get(f"/v1/entities/{ids[0]}/timeline", headers=user.headers)
    assert history.status_code == 200, history.text
    rows = history.json()["relations"]
    return [(r["valid_from"], r["valid_to"]) for r in rows if (r["predicate"], r["object"]) == fact]


async def _trash_then_mine(
    db: Database, deps: MiningDeps, client: Client, user: UserHandle, first: Chat, again: Chat
) -> None:
    await mine_chat(db, deps, user, *first)
    assert (await client.delete("/v1/conversations/spring", headers=user.headers)).status_code == 200
    await mine_chat(db, deps, user, *again)


async def test_an_entity_named_again_while_its_chat_is_trashed_shows_only_its_live_figures(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """Listed as if the trashed chat had never been: counts, dates, name and aliases."""
    user, alone = await new_user(), await new_user("only the later chat")
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    first = ("spring", [("user", None, "I had lunch with Dr. Derek Hale, he fixes kitchens.")], MARCH)
    again: Chat = ("quote", [("user", None, "Derek Hale sent the quote.")], JULY)
    await mine_chat(db, deps, alone, *again)
    await _trash_then_mine(db, deps, client, user, first, again)

    listed = await _entities(client, user)
    assert listed == await _entities(client, alone), listed
    assert listed["Derek Hale"] == {
        "kind": "p",
        "name": "Derek Hale",  # not the trashed chat's "Dr. Derek Hale"
        "aliases": ["derek hale"],
        "mention_count": 1,
        "first_seen": "2026-07-01T10:00:00Z",
        "last_seen": "2026-07-01T10:00:00Z",
    }

    assert (await client.post("/v1/conversations/spring/restore", headers=user.headers)).status_code in (200, 201)
    derek = (await _entities(client, user))["Dr. Derek Hale"]  # named again as the first chat spelled him
    assert (sorted(derek["aliases"]), derek["mention_count"], derek["first_seen"], derek["last_seen"]) == (
        ["derek hale", "dr. derek hale"],
        2,
        "2026-03-01T10:00:00Z",
        "2026-07-01T10:00:00Z",
    ), derek


@pytest.mark.parametrize("when", [JULY, JANUARY], ids=["later", "earlier"])
@pytest.mark.parametrize("case", list(TOLD))
async def test_a_fact_told_again_while_its_first_chat_is_trashed_shows_and_outlives_a_purge(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, case: str, when: datetime
) -> None:
    """The later chat's statement shows as current while the first is in the trash (told
    after the first chat, or dated before it), and is still there once the trash is purged."""
    name, said, fact = TOLD[case]
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _trash_then_mine(db, deps, client, user, _first(said), _again(said, when))
    told = f"{when:%Y-%m-%dT%H}:01:00Z"
    assert await _told(client, user, name, fact) == [(told, None)]

    assert (await client.post("/v1/trash/purge", headers=user.headers)).status_code in (200, 201)
    assert await _told(client, user, name, fact) == [(told, None)]


@pytest.mark.parametrize("case", list(TOLD))
async def test_a_restore_folds_the_fact_told_again_into_one_row(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, case: str
) -> None:
    """Restored, the graph is the one mining gives with nothing trashed: the repeat stored
    once, from the first chat, with the later chat as one more source (so, as there, trashing
    the first chat again leaves it standing on the later one)."""
    name, said, fact = TOLD[case]
    plain, user = await new_user("plain"), await new_user("restored")
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    for chat in (_first(said), _again(said)):
        await mine_chat(db, deps, plain, *chat)
    await _trash_then_mine(db, deps, client, user, _first(said), _again(said))

    assert (await client.post("/v1/conversations/spring/restore", headers=user.headers)).status_code in (200, 201)
    assert await _graph(client, user) == await _graph(client, plain)
    assert await _told(client, user, name, fact) == [("2026-03-01T10:01:00Z", None)]

    for who in (user, plain):
        assert (await client.delete("/v1/conversations/spring", headers=who.headers)).status_code == 200
    assert await _told(client, user, name, fact) == [("2026-03-01T10:01:00Z", None)]  # the later chat said it
    assert await _graph(client, user) == await _graph(client, plain)
