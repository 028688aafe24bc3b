"""Restoring a conversation leaves one entity per real thing, as mining would have left it.

While a chat is in the trash its entities are not live, and mining resolves names against
the live graph only: a chat mined meanwhile that says "Derek" makes a new "Derek" where the
trashed chat had a "Derek Hale" (a short name joins only a live longer one), or a second
"Derek Hale" under a new slug. Restoring the first chat brought both back: two entities in
`GET /v1/entities`, the timeline of where Derek lives split between them.

Each case is compared with a second user who mined the same chats in the same order with
nothing trashed: the restore must give that user's graph (entities, counts, dates, every
relation with its dates), and every drawer's link to the same entity with the same spellings.
Mined as the worker mines them (offline); trashed, restored and read through the HTTP routes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Drawer, DrawerEntity, Entity
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.test_forgetting_across_chats import Said, _graph, mine_chat

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
Chat = tuple[str, Sequence[Said], datetime]

GYM: Chat = ("gym", [("user", None, "Derek from the gym lent me a book.")], datetime(2026, 1, 30, 10, tzinfo=UTC))
SPRING: Chat = (
    "spring",
    [("user", None, "I had lunch with Derek Hale, he fixes kitchens."), ("user", None, "Derek lives in Leeds.")],
    datetime(2026, 3, 1, 10, tzinfo=UTC),
)
CALL: Chat = ("call", [("user", None, "Derek rang again about the worktop.")], datetime(2026, 5, 1, 10, tzinfo=UTC))
SUMMER: Chat = (
    "summer",
    [("user", None, "Derek rang again about the worktop."), ("user", None, "Derek moved to York.")],
    datetime(2026, 6, 1, 10, tzinfo=UTC),
)
AGAIN: Chat = (
    "again",
    [("user", None, "Derek came round for the worktop."), ("user", None, "Derek lives in Leeds, still.")],
    datetime(2026, 6, 1, 10, tzinfo=UTC),
)
KIN1: Chat = (
    "spring",
    [
        ("user", None, "My brother Derek Hale is a carpenter in Leeds."),
        ("user", None, "I visited Whitby with Derek Hale."),
    ],
    datetime(2026, 3, 1, 10, tzinfo=UTC),
)
KIN2: Chat = (
    "dinner",
    [("user", None, "My brother Derek came for dinner."), ("user", None, "I visited Whitby with Derek last week.")],
    datetime(2026, 6, 1, 10, tzinfo=UTC),
)
QUOTE: Chat = ("quote", [("user", None, "Derek Hale sent the quote.")], datetime(2026, 7, 1, 10, tzinfo=UTC))
GYM_LEEDS: Chat = (
    "gym",
    [("user", None, "Derek from the gym lent me a book."), ("user", None, "Derek lives in Leeds.")],
    datetime(2026, 1, 30, 10, tzinfo=UTC),
)
FIRM: Chat = (
    "spring",
    [("user", None, "I start at Tidewater Software on Monday."), ("user", None, "Tidewater Software is in Ponsonby.")],
    datetime(2026, 3, 1, 10, tzinfo=UTC),
)
FIRM_SHORT: Chat = (
    "contract",
    [("user", None, "Tidewater sent my contract today."), ("user", None, "I work at Tidewater now.")],
    datetime(2026, 6, 1, 10, tzinfo=UTC),
)
FIRM_APOSTROPHE: Chat = (
    "spring",
    [("user", None, "I start at O'Neill Builders on Monday."), ("user", None, "O'Neill Builders is in Cork.")],
    datetime(2026, 3, 1, 10, tzinfo=UTC),
)
FIRM_APOSTROPHE_SHORT: Chat = (
    "contract",
    [("user", None, "O'Neill sent my contract today."), ("user", None, "I work at O'Neill now.")],
    datetime(2026, 6, 1, 10, tzinfo=UTC),
)
LUNCH: Chat = (
    "spring",
    [("user", None, "I had lunch with Derek Hale, he fixes kitchens.")],
    datetime(2026, 3, 1, 10, tzinfo=UTC),
)

CASES: dict[str, tuple[list[Chat], list[Chat], str]] = {
    # the chat mined meanwhile says "Derek": mining would have put it on "Derek Hale"
    "short name": ([SPRING], [SUMMER], "derek"),
    # "Derek Hale" again once the trashed chat's entity was renamed "Derek" by what was left
    "same name": ([SPRING, CALL], [QUOTE], "derek"),
    # the chat mined meanwhile repeats where he lives: one Leeds, as mining stores a repeat once
    "repeated fact": ([SPRING], [AGAIN], "derek"),
    # he is also the object of a multi-valued fact ("brother"): told twice, stored once
    "kin": ([KIN1], [KIN2], "derek"),
    # a "Derek" heard before any "Derek Hale" stays apart, as mining left it
    "earlier short name": ([GYM, SPRING], [SUMMER], "derek"),
    # the earlier "Derek"'s fact told again meanwhile: mining would have told it of "Derek Hale"
    "earlier short name's fact again": ([GYM_LEEDS, LUNCH], [AGAIN], "derek"),
    # a firm said by its first word meanwhile: mining would have put it on "Tidewater Software"
    "firm said short": ([FIRM], [FIRM_SHORT], "tidewater"),
    # its first word is two parts of its key ("o-neill" of "o-neill-builders")
    "firm said short, with an apostrophe": ([FIRM_APOSTROPHE], [FIRM_APOSTROPHE_SHORT], "neill"),
}


async def _links(db: Database, user: UserHandle) -> list[tuple[str, str, Any]]:
    """Every drawer link: the drawer's words, the entity's name, the spellings it was named by."""
    async with db.user_session(user.id) as s:
        rows = await s.execute(
            select(Drawer.content, Entity.name, DrawerEntity.surfaces)
            .join(DrawerEntity, DrawerEntity.drawer_id == Drawer.id)
            .join(Entity, Entity.id == DrawerEntity.entity_id)
            .where(Drawer.user_id == user.id)
        )
        return sorted((str(c), str(n), sf) for c, n, sf in rows)


async def _derek(client: Client, user: UserHandle, q: str = "derek") -> list[dict[str, Any]]:
    listed = await client.get("/v1/entities", params={"q": q}, headers=user.headers)
    assert listed.status_code == 200, listed.text
    return list(listed.json())


@pytest.mark.parametrize("case", list(CASES))
async def test_a_restore_gives_the_graph_mining_would_have_given(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, case: str
) -> None:
    before, meanwhile, q = CASES[case]
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    plain, user = await new_user(f"plain {case}"), await new_user(f"restored {case}")
    for key, turns, at in [*before, *meanwhile]:
        await mine_chat(db, deps, plain, key, turns, at)
    for key, turns, at in before:
        await mine_chat(db, deps, user, key, turns, at)
    assert (await client.delete("/v1/conversations/spring", headers=user.headers)).status_code == 200
    for key, turns, at in meanwhile:
        await mine_chat(db, deps, user, key, turns, at)

    restored = await client.post("/v1/conversations/spring/restore", headers=user.headers)
    assert restored.status_code in (200, 201), restored.text
    names = sorted(e["name"] for e in await _derek(client, user, q))
    assert names == sorted(e["name"] for e in await _derek(client, plain, q)), names
    assert await _graph(client, user) == await _graph(client, plain)
    assert await _links(db, user) == await _links(db, plain)


async def test_the_joined_timeline_keeps_its_order_and_a_second_trash_still_works(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """The move to York closes Leeds; trashing the chat again leaves the "Derek" of the
    other one alone, and restoring once more gives the one "Derek Hale" back."""
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(db, deps, user, *SPRING)
    assert (await client.delete("/v1/conversations/spring", headers=user.headers)).status_code == 200
    await mine_chat(db, deps, user, *SUMMER)
    trashed = await _graph(client, user)
    assert (await client.post("/v1/conversations/spring/restore", headers=user.headers)).status_code in (200, 201)

    (derek,) = await _derek(client, user)
    assert (derek["name"], derek["mention_count"]) == ("Derek Hale", 4)
    history = await client.get(f"/v1/entities/{derek['id']}/timeline", headers=user.headers)
    lives = [(r["object"], r["valid_from"], r["valid_to"]) for r in history.json()["relations"]]
    assert lives == [
        ("York", "2026-06-01T10:01:00Z", None),
        ("Leeds", "2026-03-01T10:01:00Z", "2026-06-01T10:01:00Z"),
    ], lives

    assert (await client.delete("/v1/conversations/spring", headers=user.headers)).status_code == 200
    assert await _graph(client, user) == trashed
    assert (await client.post("/v1/conversations/spring/restore", headers=user.headers)).status_code in (200, 201)
    assert [e["id"] for e in await _derek(client, user)] == [derek["id"]]
