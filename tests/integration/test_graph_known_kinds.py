"""A name the user's graph already knows keeps its kind in a later chat that gives it no cue.

The offline extractor typed names from the current window only, so a fact that needs a kind
was lost when the kind had been said in an earlier chat:

* "I work at Acme as a designer", three weeks later "I quit Acme.": Acme was an item in the
  second chat ("quit" says nothing of what it is), the leave needs an employer
  (`ingest.relation_rules.Rule.needs_kind`), so `works at Acme` stayed current;
* "My sister Zaria lives in Bristol", later "Zaria moved to Leeds.": Zaria, also a city the
  gazetteer knows, was a place, so the move was nobody's;
* "We adopted a dog called Biscuit", later "Biscuit is sick": an everyday word opening a
  sentence, no mention; and "I left Biscuit at the vet" made Biscuit a former employer.

Mined as the worker mines them (offline) on embedded Postgres + Valkey, read over HTTP;
what a trashed chat taught types nothing (`ingest.graph_liveness.live_entity`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient

from domain.conversation_trash import delete_conversation
from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.graph_timeline import entity_named, fact_rows, mine_chat, timeline

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def test_quitting_an_employer_named_in_an_earlier_chat_closes_the_job(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "hired", ["I work at Acme as a designer."], day=0)
    await mine_chat(deps, user, "quit", ["I quit Acme."], day=21)
    acme = await entity_named(client, user, "Acme")
    assert acme["kind"] == "o", acme
    rows = await timeline(client, user, acme["id"])
    assert [(p, o, now) for _, p, o, now in fact_rows(rows)] == [
        ("works at", "Acme", False),
        ("worked at", "Acme", True),
    ]
    jobs = await timeline(client, user, rows[0]["subject_id"])  # the user's own timeline
    work = [(p, o, now) for _, p, o, now in fact_rows(jobs) if p in {"works at", "works as", "worked at"}]
    assert work == [("works at", "Acme", False), ("works as", "designer", False), ("worked at", "Acme", True)], jobs
    hired, left = (next(r for r in jobs if r["predicate"] == p) for p in ("works at", "worked at"))
    assert hired["valid_to"] == left["valid_from"], jobs  # the job closed where the leave began


async def test_a_window_knows_the_kinds_an_earlier_window_of_the_chat_gave(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """Every window is extracted before the first is written, so the graph cannot tell the
    second window what the first typed: the job hands it on (`ingest.known_kinds.with_window_kinds`)."""
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    filler = [f"Still thinking about the garden, note {n}." for n in range(settings.mining.window_turns)]
    await mine_chat(deps, user, "long", ["I work at Acme as a designer.", *filler, "I quit Acme."], day=0)
    acme = await entity_named(client, user, "Acme")
    rows = await timeline(client, user, acme["id"])
    assert [(p, now) for _, p, _, now in fact_rows(rows)] == [("works at", False), ("worked at", True)], rows


async def test_a_person_and_a_pet_known_from_earlier_chats_stay_people(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(
        deps, user, "family", ["My sister Zaria lives in Bristol.", "We adopted a dog called Biscuit."], day=0
    )
    await mine_chat(
        deps, user, "news", ["Zaria moved to Leeds.", "Biscuit is sick, so I left Biscuit at the vet."], day=30
    )
    zaria = await entity_named(client, user, "Zaria")
    assert zaria["kind"] == "p", zaria
    homes = [(o, now) for s, p, o, now in fact_rows(await timeline(client, user, zaria["id"])) if s == "Zaria"]
    assert homes == [("Bristol", False), ("Leeds", True)]
    biscuit = await entity_named(client, user, "Biscuit")
    assert biscuit["kind"] == "p", biscuit
    assert biscuit["mention_count"] == 2, biscuit  # chat 2's turn names the dog too
    facts = fact_rows(await timeline(client, user, biscuit["id"]))
    assert all(p not in {"worked at", "works at"} for _, p, _, _ in facts), facts  # a vet visit, not a job


async def test_a_kind_learned_only_from_a_trashed_chat_types_nothing(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "hired", ["I work at Acme as a designer."], day=0)
    await delete_conversation(db, user.id, "hired")
    await mine_chat(deps, user, "quit", ["I quit Acme."], day=21)
    acme = await entity_named(client, user, "Acme")
    assert fact_rows(await timeline(client, user, acme["id"])) == []
