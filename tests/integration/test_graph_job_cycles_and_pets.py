"""What the graph missed on `GET /v1/entities/{id}/timeline`: a title that outlived the job it
was held at, a job taken again that never opened a second span, and a pet told by its name.

* "I work at Acme as a designer", weeks later "I quit my job at Acme": `works at Acme` closed
  but `works as designer` stayed current, so recall treated the title as held now
  (`loci.relation_ends.HELD_AT`).
* "I joined Acme" / "I quit Acme" / "I rejoined Acme" / "I left Acme again": one span; the
  rejoin was no fact, and the second leave only repeated the open `worked at Acme`, so it
  closed nothing (`ENDED_BY`: going back ends the former employer's row too).
* "My turtle is called Sushi" recorded an attribute `turtle` of an item; now Sushi is the
  user's `pet` (a person-kind entity) and a `turtle` (`species`).

Mined as the worker mines them (offline) on embedded Postgres + Valkey, read over HTTP.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from litestar.testing import AsyncTestClient

from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.graph_timeline import entity_named, mine_chat, spans, timeline, users_rows

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def test_quitting_the_job_ends_the_title_held_there(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "hired", ["I work at Acme as a designer, mostly the checkout flow."], day=0)
    await mine_chat(deps, user, "quit", ["I quit my job at Acme, the commute was killing me."], day=21)
    rows = await users_rows(client, user, "Acme")
    assert spans(rows, "works at") == [("Acme", False)], rows
    assert spans(rows, "works as") == [("designer", False)], rows  # it stayed current
    assert spans(rows, "worked at") == [("Acme", True)], rows


async def test_a_job_left_taken_again_and_left_again_reads_as_twospans(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    said = ["I joined Acme.", "I quit Acme.", "I rejoined Acme.", "I left Acme again."]
    await mine_chat(deps, user, "acme", said, day=0, gap=30)
    rows = await users_rows(client, user, "Acme")
    jobs = [(r["predicate"], r["current"]) for r in rows if r["predicate"] in {"works at", "worked at"}]
    assert jobs == [("works at", False), ("worked at", False), ("works at", False), ("worked at", True)], rows
    first, second = (r for r in rows if r["predicate"] == "works at")
    assert first["valid_to"] < second["valid_from"] < second["valid_to"], rows

    # forgetting the second leave reopens the second span only: the first leave closed the first
    last_leave = [r for r in rows if r["predicate"] == "worked at"][-1]
    gone = await client.delete(f"/v1/drawers/{last_leave['source_drawer_id']}", headers=user.headers)
    assert gone.status_code == 200, gone.text
    rows = await users_rows(client, user, "Acme")
    jobs = [(r["predicate"], r["current"]) for r in rows if r["predicate"] in {"works at", "worked at"}]
    assert jobs == [("works at", False), ("worked at", False), ("works at", True)], rows


async def test_a_pet_told_by_its_name_is_the_users_pet_with_its_species(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    said = ["My turtle is called Sushi and she hates the cold.", "I also have a parrot named Kiwi who talks all day."]
    await mine_chat(deps, user, "pets", said, day=0)
    sushi = await entity_named(client, user, "Sushi")
    assert sushi["kind"] == "p", sushi
    rows = await timeline(client, user, sushi["id"])
    facts = {(r["subject"], r["predicate"], r["object"], r["current"]) for r in rows}
    assert ("Sushi", "species", "turtle", True) in facts, rows
    pet = [r for r in rows if r["predicate"] == "pet"]
    assert [(r["object"], r["current"]) for r in pet] == [("Sushi", True)], rows
    mine = {r["object"] for r in await timeline(client, user, pet[0]["subject_id"]) if r["predicate"] == "pet"}
    assert mine == {"Sushi", "Kiwi"}


@pytest.mark.parametrize("back", ["I rejoined Globex, same team as before.", "I'm back working at Globex this week."])
async def test_going_back_to_a_job_left_in_an_earlier_chat_opens_it_again(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, back: str
) -> None:
    """Three chats: the job, the leave, the return, said with the work ("back at X" alone is as
    often a shop or an app gone back to, and records no job)."""
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "hired", ["I work at Globex and I live in Lisbon."], day=0)
    await mine_chat(deps, user, "left", ["I left Globex last Friday."], day=30)
    await mine_chat(deps, user, "back", [back], day=90)
    rows = await users_rows(client, user, "Globex")
    jobs = [(r["predicate"], r["object"], r["current"]) for r in rows if r["predicate"] in {"works at", "worked at"}]
    assert jobs == [("works at", "Globex", False), ("worked at", "Globex", False), ("works at", "Globex", True)], rows
    first, second = (r for r in rows if r["predicate"] == "works at")
    assert first["valid_to"] <= second["valid_from"], rows
    assert spans(rows, "lives in") == [("Lisbon", True)], rows  # nothing else closed
    assert not spans(rows, "visited"), rows


async def test_going_back_to_a_shop_leaves_the_job_as_it_was(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """ "I bought shoes at Decathlon", then "I'm back at Decathlon": the purchase types Decathlon an
    organisation, and "back at" an organisation read as the job again superseded Globex."""
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "hired", ["I work at Globex and I live in Lisbon."], day=0)
    shop = ["I bought shoes at Decathlon.", "I'm back at Decathlon to return them."]
    await mine_chat(deps, user, "shop", shop, day=9)
    await mine_chat(deps, user, "apps", ["I'm back at Google Docs for the draft.", "I'm back at Starbucks."], day=12)
    rows = await users_rows(client, user, "Globex")
    assert spans(rows, "works at") == [("Globex", True)], rows
