"""What a memory's history tells an agent key of an event's ``meta`` (`domain.memory_read._kept_meta`),
over real HTTP: a withheld candidate takes with it the ``reason`` that quotes it and its
``category``; a purge's counts are never told, and its per-version record (the delta's
bookkeeping) to no caller, user keys included."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator

import httpx
import pytest

from domain.memory_rows import record_event
from domain.memory_scope import REACH
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.integration.test_agent_key_leaks import _limited_agent, _propose
from tests.live_server import live_server

NewUser = Callable[..., Awaitable[UserHandle]]
VERSIONS = "versions"
"""`domain.purge_versions.VERSIONS`, spelt out so this runs against a tree without it."""


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def _event(db: Database, user_id: int, event: str, lineage: int, **meta: object) -> None:
    async with db.user_session(user_id) as s:
        await record_event(s, user_id, event, actor="system:mining", lineage_id=lineage, **meta)  # type: ignore[arg-type]


async def test_a_withheld_candidate_takes_its_reason_and_category(
    base_url: str, db: Database, new_user: NewUser
) -> None:
    user = await new_user("leak-reason")
    secret = "Lives at 12 Hidden Lane"
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        agent = await _limited_agent(http, db, user)
        shown = (await http.post("/v1/memories", json={"content": "Likes walks", "category": "preference"})).json()
        memory = shown["memory"]
        # Mining proposes words of a category kept from the agent about a version it may read,
        # then the proposal lapses: the user retracted what it said.
        proposal = await _propose(db, user.id, memory["id"], memory["lineage_id"], "fact", secret)
        await _event(
            db, user.id, "lapse", memory["lineage_id"], proposal_id=proposal, candidate=secret,
            reason=f"retracted: {secret}",
        )  # fmt: skip
        mine = (await http.get(f"/v1/memories/{memory['id']}/history")).json()
        assert [h["meta"].get("reason") for h in mine if h["event"] == "lapse"] == [f"retracted: {secret}"]
        told = (await http.get(f"/v1/memories/{memory['id']}/history", headers=agent)).json()
        assert [h["event"] for h in told] == ["add", "propose", "lapse"], told
        assert "Hidden Lane" not in str(told), told
        propose, lapse = told[1]["meta"], told[2]["meta"]
        assert propose["candidate"] is None and propose["category"] is None, propose
        assert lapse["candidate"] is None and lapse["reason"] is None, lapse


async def test_a_purge_tells_an_agent_no_counts_nor_versions(base_url: str, db: Database, new_user: NewUser) -> None:
    user = await new_user("leak-purge-meta")
    async with httpx.AsyncClient(base_url=base_url, headers=user.headers) as http:
        agent = await _limited_agent(http, db, user)
        shown = (await http.post("/v1/memories", json={"content": "Likes walks", "category": "preference"})).json()
        memory = shown["memory"]
        hidden = {"layer": "core", "category": "fact", "agent_id": None}
        versions = [{**hidden, "created": 1, "ended": 2, "confidence": None}]
        await _event(
            db, user.id, "purge", memory["lineage_id"], rows=3, born=1, ended=2, why="its conversation was purged",
            **{REACH: [{**hidden, "active": False}], VERSIONS: versions},
        )  # fmt: skip
        mine = (await http.get(f"/v1/memories/{memory['id']}/history")).json()
        [purged] = [h["meta"] for h in mine if h["event"] == "purge"]
        assert purged["rows"] == 3 and VERSIONS not in purged, purged  # the user: all but the bookkeeping
        told = (await http.get(f"/v1/memories/{memory['id']}/history", headers=agent)).json()
        [seen] = [h["meta"] for h in told if h["event"] == "purge"]
        assert seen["why"] == "its conversation was purged", seen
        assert all(seen[k] is None for k in ("rows", "born", "ended", REACH)), seen
        assert VERSIONS not in seen, seen  # told to no caller (`domain.memory_read._INTERNAL`)
