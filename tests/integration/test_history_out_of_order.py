"""A past history loaded at once, not in date order: what mining learns must follow the turns'
dates, not the order the chats were mined in.

A user moving to Loci posts two years of chats (with their real past ``created_at``) newest
first, or shuffled, and completes them together. Before:

* the graph closed a value learned late at the *current* row's start: "lives in Lisbon"
  (2023) stayed in force until Berlin (2025), over Porto (2024); a repeat told earlier than it
  was first learned ("dating Sofia" in January, mined after "my girlfriend Sofia" in May) kept
  the later start, and "works at Globex" from 2023 closed the 2024 "worked at Globex" as a
  rejoin would (`ingest.graph_history`);
* the memories learned from the chats took the last *mined* value: "Works at Globex",
  "Diet: vegetarian" and "Partner is Marta" (2023) replaced the 2025 ones, and the consent
  proposal left waiting for the city was Lisbon (`ingest.memory_reconcile`, `_older`).

Mined as the worker mines them (offline) on embedded Postgres + Valkey, read over HTTP.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.graph_timeline import T0, entity_named, mine_chat, timeline

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

CHATS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("c1", 0, (
        "I live in Lisbon and I work at Globex as a data analyst.",
        "My girlfriend Marta and I love the beach. I'm vegetarian, by the way.",
        "My phone is an iPhone 11 and the battery is dying.",
    )),
    ("c2", 120, ("I bought a Honda Civic last week, my first car!",)),
    ("c3", 400, ("I moved to Porto last week. The flat is great.",)),
    ("c4", 480, (
        "I left Globex to join Initech. I work at Initech as a product manager now.",
        "I upgraded my phone to a Pixel 8.",
    )),
    ("c5", 610, ("I sold my Honda Civic, I take the metro now.",)),
    ("c6", 700, ("I'm vegan now, I stopped eating dairy too.", "Also, Marta and I broke up. I'm dating Sofia now.")),
    ("c7", 830, (
        "I moved to Berlin last month for a new job. I work at Zalando as a senior product manager.",
        "My girlfriend Sofia moved with me.",
    )),
    ("c8", 930, ("I upgraded my phone to an iPhone 16.",)),
)  # fmt: skip
"""Eight chats over two and a half years: moved twice, changed job twice, a car bought then
sold, a partner, a diet and a phone upgraded twice."""


_FIRST = -1000
"""The first chat, in days from `T0`: the history ends before today."""


def _day(n: int) -> str:
    """The date ``n`` days after the first chat."""
    return (T0 + timedelta(days=n + _FIRST)).date().isoformat()


async def _mine(deps: MiningDeps, user: UserHandle, chats: Sequence[tuple[str, int, tuple[str, ...]]]) -> None:
    """Each chat mined as the worker does, dated ``day`` days from the first; all in the past
    (a memory's ``said_at`` is never after now)."""
    for key, day, texts in chats:
        await mine_chat(deps, user, key, list(texts), day=day + _FIRST)


async def _entity(client: Client, user: UserHandle, name: str) -> int:
    found = (await client.get("/v1/entities", params={"q": name}, headers=user.headers)).json()
    return int(next(e["id"] for e in found if e["name"] == name))


async def _history(client: Client, user: UserHandle) -> list[tuple[str, str, str, str, str | None]]:
    """Every fact of the user's, their phone's and their car's timelines, in a comparable form."""
    me = (await timeline(client, user, (await entity_named(client, user, "Globex"))["id"]))[0]["subject_id"]
    ids = {me, await _entity(client, user, "phone"), await _entity(client, user, "Honda Civic")}
    rows = {r["id"]: r for i in ids for r in await timeline(client, user, i)}.values()
    return sorted((r["subject"], r["predicate"], r["object"], r["valid_from"], r["valid_to"]) for r in rows)


async def test_a_history_mined_out_of_order_reads_as_if_mined_in_date_order(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    in_order, newest_first, shuffled = await new_user(), await new_user(), await new_user()
    await _mine(deps, in_order, CHATS)
    await _mine(deps, newest_first, CHATS[::-1])
    await _mine(deps, shuffled, random.Random(7).sample(CHATS, len(CHATS)))
    told = await _history(client, in_order)
    assert await _history(client, newest_first) == told
    assert await _history(client, shuffled) == told

    mine = [r for r in told if r[0] == "User"]
    lives = sorted((start[:10], value, (end or "")[:10]) for _, p, value, start, end in mine if p == "lives in")
    lives = [(value, start, end) for start, value, end in lives]
    porto, berlin = lives[1][1], lives[2][1]
    assert [(v, end) for v, _, end in lives] == [("Lisbon", porto), ("Porto", berlin), ("Berlin", "")], lives
    jobs = [(p, value, (end or "")[:10]) for _, p, value, _, end in mine if p in {"works at", "worked at"}]
    assert ("works at", "Globex", _day(480)) in jobs, jobs  # closed where Initech starts (c4), not at Zalando
    assert ("worked at", "Globex", "") in jobs, jobs  # a 2023 job told late does not end its own ending
    partner = [(value, start[:10]) for _, p, value, start, _ in mine if p == "partner"]
    assert partner == [("Marta", _day(0)), ("Sofia", _day(700))], partner  # since "dating Sofia" (c6)


def _active(memories: list[dict[str, Any]]) -> set[str]:
    return {m["content"] for m in memories if m["layer"] != "archive"}


async def test_an_old_chat_mined_last_does_not_overwrite_what_a_newer_one_said(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    user = await new_user()
    await _mine(deps, user, CHATS[::-1])
    listed = (await client.get("/v1/memories", params={"limit": 100}, headers=user.headers)).json()["items"]
    active = _active(listed)
    assert {"Works at Zalando", "Diet: vegan", "Partner is Sofia"} <= active, active
    assert not active & {"Works at Globex", "Diet: vegetarian", "Partner is Marta", "Works as a data analyst"}, active
    block = (await client.get("/v1/context", headers=user.headers)).json()["block"]
    assert "Works at Zalando" in block and "Globex" not in block, block

    employer = next(m for m in listed if m["content"] == "Works at Zalando")
    events = (await client.get(f"/v1/memories/{employer['id']}/history", headers=user.headers)).json()
    skipped = {e["meta"]["candidate"] for e in events if e["event"] == "skip"}
    assert skipped == {"Works at Initech", "Works at Globex"}, events  # recorded, not written

    proposals = (await client.get("/v1/memories/proposals", headers=user.headers)).json()["items"]
    waiting = [p["content"] for p in proposals if p["status"] == "pending"]
    assert waiting == ["Lives in Berlin"], proposals  # the city asked about is the newest one told


async def test_a_job_told_after_its_ending_is_born_closed_and_a_fact_told_earlier_starts_earlier(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    user = await new_user()
    await _mine(deps, user, [("quit", 400, ("I handed in my notice at Globex today.",))])
    await _mine(deps, user, [("allergy", 300, ("I'm allergic to penicillin, just so you know.",))])
    await _mine(deps, user, [("hired", 0, ("I work at Globex, in the payments team.", "I'm allergic to penicillin."))])
    me = (await timeline(client, user, await _entity(client, user, "Globex")))[0]["subject_id"]
    rows = await timeline(client, user, me)
    facts = [(r["predicate"], r["object"], r["valid_from"][:10], (r["valid_to"] or "")[:10]) for r in rows]
    assert ("works at", "Globex", _day(0), _day(400)) in facts, facts  # ended by the quit told before it
    assert ("worked at", "Globex", _day(400), "") in facts, facts
    assert [f for f in facts if f[0] == "allergic to"] == [("allergic to", "penicillin", _day(0), "")], facts


async def test_the_palace_lists_wings_by_date_whatever_order_they_were_mined_in(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    user = await new_user()
    await _mine(deps, user, CHATS[::-1])
    wings = (await client.get("/v1/palace", headers=user.headers)).json()["items"]
    starts = [w["first_at"] for w in wings]
    assert len(starts) > 1 and starts == sorted(starts), wings  # were newest mined first


async def _facts(client: Client, user: UserHandle, via: str) -> list[tuple[str, str, str, str]]:
    """The user's facts, found through the entity ``via``, as (predicate, value, from, to) days."""
    me = (await timeline(client, user, await _entity(client, user, via)))[0]["subject_id"]
    rows = await timeline(client, user, me)
    return sorted((r["predicate"], r["object"], r["valid_from"][:10], (r["valid_to"] or "")[:10]) for r in rows)


async def _both_orders(
    deps: MiningDeps, new_user: NewUser, chats: Sequence[tuple[str, int, tuple[str, ...]]]
) -> tuple[UserHandle, UserHandle]:
    """Two users told ``chats``: one mined in date order, one newest first."""
    in_order, newest_first = await new_user(), await new_user()
    await _mine(deps, in_order, chats)
    await _mine(deps, newest_first, chats[::-1])
    return in_order, newest_first


_HIRED, _QUIT = "I work at Globex, in the payments team.", "I handed in my notice at Globex today."
_BACK = "I rejoined Globex today. I work at Globex again."


@pytest.mark.parametrize(
    ("said", "spans"),
    [
        # the first "works at" repeats the rejoined job's value (single-valued: `_tell_late`)
        ((_HIRED, _QUIT, _BACK), [("worked at", 300, 500), ("works at", 100, 300), ("works at", 500, None)]),
        # the first "worked at" repeats the last one's (multi-valued: `record_relation`)
        ((_QUIT, _BACK, _QUIT), [("worked at", 100, 300), ("worked at", 500, None), ("works at", 300, 500)]),
    ],
)
async def test_a_job_left_and_taken_again_keeps_both_spans_when_the_first_is_mined_last(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    new_user: NewUser,
    client: Client,
    said: tuple[str, str, str],
    spans: list[tuple[str, int, int | None]],
) -> None:
    """The first telling repeats the last span's value, but the ending said between them (the
    notice, the rejoin) ends it: another span, not the last one starting earlier (which left
    both open, over the span between)."""
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    chats = tuple((f"c{day}", day, (text,)) for day, text in zip((100, 300, 500), said, strict=True))
    in_order, newest_first = await _both_orders(deps, new_user, chats)
    told = await _facts(client, in_order, "Globex")
    assert [(p, start, end) for p, _, start, end in told] == [
        (p, _day(start), _day(end) if end is not None else "") for p, start, end in spans
    ], told
    assert await _facts(client, newest_first, "Globex") == told


async def test_a_job_mined_after_its_ending_is_remembered_as_ended(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """The notice mined first ends no memory (none says the job yet); the older "I work at
    Globex" mined after it must not then be remembered as current while the graph has it closed."""
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    chats = (
        ("hired", 100, ("I work at Globex as a data analyst.",)),
        ("quit", 500, ("I handed in my notice at Globex today.",)),
    )
    in_order, newest_first = await _both_orders(deps, new_user, chats)
    remembered = []
    for user in (in_order, newest_first):
        listed = (await client.get("/v1/memories", params={"limit": 100}, headers=user.headers)).json()["items"]
        remembered.append(sorted((m["content"], m["layer"]) for m in listed))
    assert ("No longer works at Globex", "knowledge") in remembered[0], remembered[0]
    assert remembered[1] == remembered[0]
    block = (await client.get("/v1/context", headers=newest_first.headers)).json()["block"]
    assert "Works at Globex" not in block, block


async def test_a_job_ended_today_in_the_chat_that_states_it_is_remembered_as_ended(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """ "I work at Globex", then minutes later "I handed in my notice today": the graph closes the
    job, but the notice is dated from the day's start, before the statement, so the memory
    stayed "Works at Globex" (a review of the fix above)."""
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    user = await new_user("ended-today")
    await mine_chat(
        deps, user, "today", ("I work at Globex as a data analyst.", "I handed in my notice at Globex today."), day=300
    )
    listed = (await client.get("/v1/memories", params={"limit": 100}, headers=user.headers)).json()["items"]
    contents = [m["content"] for m in listed]
    assert "No longer works at Globex" in contents and "Works at Globex" not in contents, contents


async def test_purging_the_chat_that_moved_a_start_earlier_dates_the_fact_by_the_turn_left(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    """ "Dating Sofia" in January mined after "my girlfriend Sofia" in May moves her start to
    January; purging January's chat must take that date with it, as it does mined in order."""
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    chats = (
        ("jan", 700, ("Marta and I broke up. I'm dating Sofia now.",)),
        ("may", 820, ("My girlfriend Sofia moved with me to Berlin.",)),
    )
    users = await _both_orders(deps, new_user, chats)
    for user in users:
        assert [f for f in await _facts(client, user, "Sofia") if f[0] == "partner"] == [
            ("partner", "Sofia", _day(700), "")
        ]
        purged = await client.delete("/v1/conversations/jan", params={"purge": "true"}, headers=user.headers)
        assert purged.status_code < 300, purged.text
    told = await _facts(client, users[0], "Sofia")
    assert [f for f in told if f[0] == "partner"] == [("partner", "Sofia", _day(820), "")], told
    assert await _facts(client, users[1], "Sofia") == told
