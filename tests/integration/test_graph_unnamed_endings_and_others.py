"""What the graph missed on `GET /v1/entities/{id}/timeline`: a job ended without naming the
employer, and the same changes told about someone else.

* "I work at Acme as a designer", weeks later "I quit my job today." (or "I got laid off last
  week.", "I retired in March.", "I handed in my notice."): nothing was recorded, and `works at
  Acme` and `works as designer` stayed current. Now the writer records `worked at` the job current
  then (`loci.relation_ends.ENDS_CURRENT`, `ingest.relation_current`), which ends both as "I quit
  my job at Acme" does, and forgetting that chat makes the job current again.
* "Hannah got a new job at Initech.", "Maya left Spotify.", "Priya got engaged to Sam.", and "my
  brother started at Google" a chat after "my brother Derek": nothing either (only "Tom moved to
  Berlin" worked); now each is the person's own `works at`, `worked at`, `partner`, and "my
  brother" is Derek (`ingest.relation_current.name_kin`).

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


@pytest.mark.parametrize(
    ("ending", "on"),
    [
        ("I quit my job today, the commute was killing me.", "2026-04-01"),  # told on day 30
        ("I got laid off last week, the whole team went.", "2026-03-23"),  # the week before's Monday
        ("I handed in my notice. Two more weeks of this.", "2026-04-01"),
    ],
)
async def test_a_job_ended_without_naming_it_ends_the_current_job_and_title(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    new_user: NewUser,
    client: Client,
    ending: str,
    on: str,
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "hired", ["I work at Acme as a designer, mostly the checkout flow."], day=0)
    await mine_chat(deps, user, "ended", [ending], day=30)
    rows = await users_rows(client, user, "Acme")
    assert spans(rows, "works at") == [("Acme", False)], rows
    assert spans(rows, "works as") == [("designer", False)], rows
    assert spans(rows, "worked at") == [("Acme", True)], rows
    left = next(r for r in rows if r["predicate"] == "worked at")
    job = next(r for r in rows if r["predicate"] == "works at")
    assert job["valid_to"] == left["valid_from"], rows
    assert left["valid_from"][:10] == on, rows

    # forgetting the chat that ended it makes the job and the title current again
    gone = await client.delete(f"/v1/drawers/{left['source_drawer_id']}", headers=user.headers)
    assert gone.status_code == 200, gone.text
    rows = await users_rows(client, user, "Acme")
    assert spans(rows, "works at") == [("Acme", True)], rows
    assert spans(rows, "works as") == [("designer", True)], rows


async def test_an_unnamed_ending_with_no_job_known_records_nothing_and_a_rejoin_still_opens(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """No job to end: no row (not a `worked at` of nothing). A job quit, then another taken and
    quit without a name, ends only the one current then."""
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    said = ["I retired in March. My sister Ana lives in Leeds.", "I joined Globex.", "I quit my job."]
    await mine_chat(deps, user, "career", said, day=0, gap=40)
    ana = await timeline(client, user, (await entity_named(client, user, "Ana"))["id"])
    me = next(r["subject_id"] for r in ana if r["subject"] == "User")
    rows = sorted(await timeline(client, user, me), key=lambda r: (r["valid_from"], r["id"]))
    jobs = [(r["predicate"], r["object"], r["current"]) for r in rows if r["predicate"] in {"works at", "worked at"}]
    assert jobs == [("works at", "Globex", False), ("worked at", "Globex", True)], rows


async def test_other_peoples_jobs_and_partners_are_their_own_relations(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    before = ["My brother Derek lives in Leeds. Hannah works at Globex. Maya works at Spotify, she loves it."]
    await mine_chat(deps, user, "before", before, day=0)
    said = [
        "My brother started at Google last month, he is thrilled.",  # Derek, named in the first chat
        "Hannah got a new job at Initech. Maya left Spotify. Priya got engaged to Sam!",
        "My sister married Tom in May.",  # no sister named: no one's partner
    ]
    await mine_chat(deps, user, "news", said, day=60)

    async def fact_rows(name: str) -> set[tuple[str, str, bool]]:
        rows = await timeline(client, user, (await entity_named(client, user, name))["id"])
        return {(r["predicate"], r["object"], r["current"]) for r in rows if r["subject"] == name}

    assert ("works at", "Google", True) in await fact_rows("Derek")
    assert {("works at", "Globex", False), ("works at", "Initech", True)} <= await fact_rows("Hannah")
    assert {("works at", "Spotify", False), ("worked at", "Spotify", True)} <= await fact_rows("Maya")
    assert ("partner", "Sam", True) in await fact_rows("Priya")
    derek = await timeline(client, user, (await entity_named(client, user, "Derek"))["id"])
    assert ("User", "brother") in {(r["subject"], r["predicate"]) for r in derek}, derek  # the user's brother
    tom = await timeline(client, user, (await entity_named(client, user, "Tom"))["id"])
    assert not [r for r in tom if r["predicate"] == "partner"], tom
