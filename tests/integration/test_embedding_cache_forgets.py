"""Deleting for good empties the embedding cache of the deleted words too.

``embedding_cache`` maps (model, sha256 of a text) to its vector, shared across users so that
identical text is embedded once. A purge, an emptied trash and a deleted account used to leave
the vectors of the purged drawers' texts there for good (a vector can be partly inverted back
to text). Migration 0037's trigger deletes a drawer's cached vector with the drawer, cascades
included; the sentences' vectors, whose texts are not stored, go with the hourly job once older
than ``LOCI_EMBEDDING_CACHE_RETENTION_HOURS``.
"""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Sequence

import pytest
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from ingest import drop_stale_cache, sentence_pieces
from loci.db import Database
from loci.embedder import content_hash
from service import jobs
from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_mining_api import run_jobs

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


def _said(tag: str) -> list[str]:
    """Two user turns, each of several sentences of 4+ words (so their sentences are cached
    too), every sentence unique to ``tag`` so no other drawer shares their cache rows."""
    return [
        f"My ferret {tag} sleeps in a hammock all day. {tag} steals socks from the laundry basket.",
        f"The vet said {tag} needs more exercise. We now walk {tag} around the garden each evening.",
    ]


async def _mine(client: Client, app_state: AppState, user: UserHandle, conversation: str, said: Sequence[str]) -> None:
    turns = [
        {"role": role, "content": content, "created_at": f"2024-03-0{i + 1}T09:0{j}:00Z"}
        for i, line in enumerate(said)
        for j, (role, content) in enumerate((("user", line), ("assistant", "That sounds lovely, tell me more.")))
    ]
    body = {"id": conversation, "agent_id": "pets", "turns": turns}
    assert (await client.post("/v1/conversations", json=body, headers=user.headers)).status_code == 201
    assert (await client.post(f"/v1/conversations/{conversation}/complete", headers=user.headers)).status_code == 202
    await run_jobs(app_state)


async def _cached(db: Database, texts: Sequence[str]) -> set[str]:
    """Which of ``texts`` the cache still holds a vector for (any model)."""
    hashes = {content_hash(t): t for t in texts}
    async with db.system_session() as s:
        rows = await s.execute(
            text("SELECT content_hash FROM embedding_cache WHERE content_hash = ANY(:h)"), {"h": list(hashes)}
        )
        return {hashes[h] for h in rows.scalars()}


async def _drawer_hashes(db: Database, user_id: int) -> set[str]:
    async with db.system_session() as s:
        rows = await s.execute(text("SELECT content_hash FROM drawers WHERE user_id = :u"), {"u": user_id})
        return set(rows.scalars())


async def _mined_pair(
    client: Client, app_state: AppState, db: Database, user: UserHandle
) -> tuple[list[str], list[str]]:
    """Two conversations of ``user``: "gone" (to be deleted for good) and "kept"; their user
    turns' texts, each cached under the very hash its drawer stores."""
    gone, kept = _said(f"Gone{secrets.token_hex(4)}"), _said(f"Kept{secrets.token_hex(4)}")
    await _mine(client, app_state, user, "gone", gone)
    await _mine(client, app_state, user, "kept", kept)
    assert await _cached(db, [*gone, *kept]) == {*gone, *kept}, "mining cached every user turn"
    assert {content_hash(t) for t in (*gone, *kept)} <= await _drawer_hashes(db, user.id)
    return gone, kept


@pytest.mark.parametrize("how", ["purge", "empty_trash"])
async def test_a_purged_conversation_leaves_no_vector_of_its_drawers_in_the_cache(
    how: str, client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    user = await new_user(f"cache-{how}")
    gone, kept = await _mined_pair(client, app_state, db, user)
    if how == "purge":
        answer = await client.delete("/v1/conversations/gone", params={"purge": "true"}, headers=user.headers)
    else:
        assert (await client.delete("/v1/conversations/gone", headers=user.headers)).status_code == 200
        assert await _cached(db, gone) == set(gone), "the trash keeps them: a restore may bring the drawers back"
        answer = await client.post("/v1/trash/purge", headers=user.headers)
    assert answer.status_code == 200, answer.text
    assert await _cached(db, gone) == set()
    assert await _cached(db, kept) == set(kept), "the live conversation's vectors stay cached"


async def test_a_deleted_account_leaves_no_vector_of_its_drawers_in_the_cache(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    """The user's drawers go by ``ON DELETE CASCADE``: the trigger fires for the cascade too."""
    leaving, staying = await new_user("cache-leaving"), await new_user("cache-staying")
    gone, _ = await _mined_pair(client, app_state, db, leaving)
    other = _said(f"Other{secrets.token_hex(4)}")
    await _mine(client, app_state, staying, "other", other)
    name = (await client.get("/v1/me", headers=leaving.headers)).json()["name"]
    answer = await client.delete("/v1/me", params={"confirm": name}, headers=leaving.headers)
    assert answer.status_code == 204, answer.text
    assert await _drawer_hashes(db, leaving.id) == set()
    assert await _cached(db, gone) == set()
    assert await _cached(db, other) == set(other), "another user's vectors stay cached"


async def test_the_hourly_job_drops_cached_vectors_past_the_retention(
    client: Client, app_state: AppState, db: Database, new_user: NewUser
) -> None:
    """A purged drawer's sentences are cached under hashes no purge can find (only the drawer's
    text is stored): the hourly job drops every cached vector older than the retention."""
    user = await new_user("cache-age")
    old, fresh = _said(f"Old{secrets.token_hex(4)}"), _said(f"Fresh{secrets.token_hex(4)}")
    await _mine(client, app_state, user, "old", old)
    await _mine(client, app_state, user, "fresh", fresh)
    assert (
        await client.delete("/v1/conversations/old", params={"purge": "true"}, headers=user.headers)
    ).status_code == 200
    old_sentences = [p for t in old for p in sentence_pieces(t)]
    fresh_sentences = [p for t in fresh for p in sentence_pieces(t)]
    assert len(old_sentences) == 4 and await _cached(db, old_sentences) == set(old_sentences), "left by the purge"
    retention = app_state.settings.embedding.cache_retention_hours
    assert retention == 24
    async with db.system_session() as s:  # the purged conversation's sentences were cached a day ago
        await s.execute(
            text("UPDATE embedding_cache SET created_at = now() - make_interval(hours => :h, secs => 1)"
                 " WHERE content_hash = ANY(:hashes)"),
            {"h": retention, "hashes": [content_hash(p) for p in old_sentences]},
        )  # fmt: skip
    assert await drop_stale_cache(db, 0) == 0, "0 keeps every cached vector"
    assert await _cached(db, old_sentences) == set(old_sentences)
    dropped = await jobs.drop_expired_rows({"state": app_state})
    assert dropped["embedding_cache"] >= len(old_sentences)
    assert await _cached(db, old_sentences) == set()
    assert await _cached(db, [*fresh, *fresh_sentences]) == {*fresh, *fresh_sentences}, "younger rows stay"
