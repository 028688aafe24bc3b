"""A fact is held up by every turn that said it, not only the first.

Mining dropped a fact said again while its row was current, so the row had one source, the
chat that said it first: "Derek Hale lives in Leeds" said in chat A and again in chat B
disappeared when A was trashed, though B still said it, and purging A deleted the row, B's
statement of it lost for good. Each repeat is now one more source of the row
(``relation_sources``); the fact stands while any of them is live, and a purge deletes it
only when none is left.

Mined as the worker mines them (offline); trashed, purged, restored, exported and imported
over HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import select

from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Conversation, Drawer, Relation, RelationSource, Room
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.test_forgetting_across_chats import _graph, mine_chat
from tests.integration.test_mining_beside_the_trash import JANUARY, TOLD, _again, _first, _told

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

SINCE = "2026-03-01T10:01:00Z"
"""When chat A (``spring``) said the fact: the row's ``valid_from``."""
AGAIN = "2026-07-01T10:01:00Z"
"""When chat B (``quote``) said it again: the row's ``valid_from`` once chat A is purged."""


async def _said_both(db: Database, deps: MiningDeps, user: UserHandle, case: str) -> tuple[str, tuple[str, str]]:
    """Chat A (``spring``) says the fact, chat B (``quote``) says it again; nothing trashed."""
    name, said, fact = TOLD[case]
    for chat in (_first(said), _again(said)):
        await mine_chat(db, deps, user, *chat)
    return name, fact


async def _sources(db: Database, user: UserHandle, fact: tuple[str, str]) -> list[list[str]]:
    """For each row of ``fact``: the conversations whose turns said it, ``source_drawer_id``'s first."""
    chat = select(Conversation.external_id).join(Room, Room.conversation_id == Conversation.id)
    chat = chat.join(Drawer, Drawer.room_id == Room.id)
    async with db.user_session(user.id) as s:
        rows = (await s.execute(select(Relation).where(Relation.predicate == fact[0]))).scalars().all()
        out = []
        for r in rows:
            if (r.object_value or "").lower() != fact[1].lower():
                continue
            first = (await s.execute(chat.where(Drawer.id == r.source_drawer_id))).scalar_one()
            said = select(RelationSource.drawer_id).where(RelationSource.relation_id == r.id)
            others = (await s.execute(chat.where(Drawer.id.in_(said)))).scalars().all()
            out.append([first, *sorted(set(others) - {first})])
    return out


async def _delete(client: Client, user: UserHandle, chat: str, **params: Any) -> None:
    answer = await client.delete(f"/v1/conversations/{chat}", params=params, headers=user.headers)
    assert answer.status_code == 200, answer.text


async def _restore(client: Client, user: UserHandle, chat: str) -> None:
    answer = await client.post(f"/v1/conversations/{chat}/restore", headers=user.headers)
    assert answer.status_code in (200, 201), answer.text


@pytest.mark.parametrize("case", list(TOLD))
async def test_a_fact_said_in_two_chats_outlives_trashing_and_purging_the_first(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, case: str
) -> None:
    user, alone = await new_user(), await new_user("only chat B")
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    name, fact = await _said_both(db, deps, user, case)
    await mine_chat(db, deps, alone, *_again(TOLD[case][1]))
    assert await _told(client, user, name, fact) == [(SINCE, None)]
    assert await _sources(db, user, fact) == [["spring", "quote"]]  # one row, said by both chats

    await _delete(client, user, "spring")
    assert await _told(client, user, name, fact) == [(SINCE, None)]  # chat B still says it
    entities = (await _graph(client, user))["entities"]
    assert entities == (await _graph(client, alone))["entities"]  # counted from chat B alone

    assert (await client.post("/v1/trash/purge", headers=user.headers)).status_code in (200, 201)
    assert await _told(client, user, name, fact) == [(AGAIN, None)]  # since chat B: A's date went with A
    assert await _sources(db, user, fact) == [["quote"]]  # the first source left
    assert await _graph(client, user) == await _graph(client, alone)  # all that is left is what B told

    await _delete(client, user, "quote")
    assert await _told(client, user, name, fact) == []  # no live turn says it
    await _restore(client, user, "quote")
    assert await _told(client, user, name, fact) == [(AGAIN, None)]

    await _delete(client, user, "quote", purge="true")
    assert await _sources(db, user, fact) == []  # no turn left to say it: the row went too


@pytest.mark.parametrize("case", list(TOLD))
async def test_a_fact_goes_with_the_last_chat_that_said_it_and_comes_back_with_either(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, case: str
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    name, fact = await _said_both(db, deps, user, case)
    whole = await _graph(client, user)

    for chat in ("quote", "spring"):
        await _delete(client, user, chat)
    assert await _told(client, user, name, fact) == []
    await _restore(client, user, "quote")
    assert await _told(client, user, name, fact) == [(SINCE, None)]  # chat B alone holds it up
    await _restore(client, user, "spring")
    assert await _graph(client, user) == whole

    await _delete(client, user, "quote", purge="true")  # the later chat purged: the first still says it
    assert await _told(client, user, name, fact) == [(SINCE, None)]
    assert await _sources(db, user, fact) == [["spring"]]


async def _moved(client: Client, source: UserHandle, target: UserHandle, form: str) -> None:
    """Export ``source``'s memory and import it into ``target``, as JSON or NDJSON."""
    exported = await client.get("/v1/export", params={"format": form}, headers=source.headers)
    assert exported.status_code == 200, exported.text
    headers = {**target.headers, "content-type": "application/x-ndjson" if form == "ndjson" else "application/json"}
    imported = await client.post("/v1/import", content=exported.content, headers=headers)
    assert imported.status_code == 201, imported.text


@pytest.mark.parametrize("form", ["json", "ndjson"])
async def test_an_export_carries_every_turn_that_said_a_fact(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, form: str
) -> None:
    """Imported, the fact is still said by both chats: trashing the first leaves it standing."""
    user, target = await new_user("exporter"), await new_user("importer")
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    name, fact = await _said_both(db, deps, user, "lives in")
    await _moved(client, user, target, form)
    assert await _sources(db, target, fact) == [["spring", "quote"]]
    await _delete(client, target, "spring")
    assert await _told(client, target, name, fact) == [(SINCE, None)]


@pytest.mark.parametrize("form", ["json", "ndjson"])
async def test_an_export_names_the_live_turn_that_said_a_fact_whose_first_chat_is_trashed(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, form: str
) -> None:
    """Chat A in the trash, the fact goes out on chat B's turn, and the import holds it."""
    user, target = await new_user("exporter"), await new_user("importer")
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    name, fact = await _said_both(db, deps, user, "lives in")
    await _delete(client, user, "spring")
    await _moved(client, user, target, form)
    assert await _told(client, target, name, fact) == [(SINCE, None)]
    assert await _sources(db, target, fact) == [["quote"]]


async def test_an_import_refuses_a_source_the_file_does_not_hold(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user, target = await new_user("exporter"), await new_user("importer")
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await _said_both(db, deps, user, "lives in")
    doc = (await client.get("/v1/export", headers=user.headers)).json()
    said = next(i for i, r in enumerate(doc["relations"]) if r["sources"])
    doc["relations"][said]["sources"] = [max(d["id"] for d in doc["drawers"]) + 1]
    refused = await client.post("/v1/import", json=doc, headers=target.headers)
    assert refused.status_code == 400, refused.text
    assert refused.json()["extra"][0]["key"] == f"relations[{said}].sources[0]", refused.json()


CLOSED = {
    # a new value closes the old one: York until Leeds
    "moved": ("Derek Hale lives in York.", "Derek Hale lives in Leeds.", ("Derek Hale", "lives in", "York")),
    # notice handed in ends the job and the title held there
    "notice": (
        "I work at Pellow Digital as a designer.",
        "I handed in my notice at Pellow Digital.",
        ("Pellow Digital", "works at", "Pellow Digital"),
    ),
    # the visit carries out the plan
    "trip": ("I booked flights for my trip to Japan.", "I visited Japan.", ("Japan", "plans to visit", "Japan")),
}
"""Per case: what a January chat said, what chats A and B then both say that closes it, and
the closed row (the entity whose timeline shows it, its predicate, its object)."""


@pytest.mark.parametrize("case", list(CLOSED))
async def test_purging_the_first_telling_of_a_fact_moves_where_it_closed_the_one_before(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, case: str
) -> None:
    """The January row was closed at chat A's March; chat A purged, what closed it stands on
    chat B alone, and the graph, as read and as stored, is the one mining January and chat B gives."""
    before, closer, (name, *closed) = CLOSED[case]
    user, alone = await new_user(), await new_user("winter and chat B")
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    winter = ("winter", [("user", None, before)], JANUARY)
    for who, chats in ((user, [winter, _first(closer), _again(closer)]), (alone, [winter, _again(closer)])):
        for chat in chats:
            await mine_chat(db, deps, who, *chat)
    assert await _told(client, user, name, tuple(closed)) == [("2026-01-01T10:00:00Z", SINCE)]

    await _delete(client, user, "spring", purge="true")
    assert await _told(client, user, name, tuple(closed)) == [("2026-01-01T10:00:00Z", AGAIN)]
    assert await _graph(client, user) == await _graph(client, alone)
    assert await _stored(db, user) == await _stored(db, alone)  # as mining January and chat B stores it


async def _stored(db: Database, user: UserHandle) -> list[tuple[str, str | None, str, str | None]]:
    """The user's relation rows as stored (what recall's `retrieval.superseded` reads), not as read."""
    async with db.user_session(user.id) as s:
        rows = (await s.execute(select(Relation))).scalars().all()
    out = [(r.predicate, r.object_value, r.valid_from.isoformat(), r.valid_to and r.valid_to.isoformat()) for r in rows]
    return sorted(out, key=str)
