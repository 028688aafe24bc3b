"""`POST /v1/recall` and `GET /v1/search` over the real app: shapes, 400s, auth, isolation."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from litestar.testing import AsyncTestClient

from loci.db import Database
from loci.embedder import Embedder
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation

NewUser = Callable[..., Awaitable[UserHandle]]
WHEN = datetime(2024, 3, 2, 10, tzinfo=UTC)


async def _user_with_palace(new_user: NewUser, db: Database, embedder: Embedder) -> tuple[UserHandle, int]:
    user = await new_user("http")
    spec = ConversationSpec(
        [
            ("user", "My sister Ingrid lives in Trondheim and works as a marine biologist.", WHEN),
            ("assistant", "Trondheim has a great fjord for marine research.", WHEN),
        ],
        wing="family",
        topic="sister",
        external_id="sess-ingrid",
    )
    placed = await place_conversation(db, embedder, user.id, spec)
    return user, placed.drawer_ids[0]


async def test_recall_returns_ranked_drawers_and_block(
    client: AsyncTestClient,
    new_user: NewUser,
    db: Database,
    embedder: Embedder,  # type: ignore[type-arg]
) -> None:
    user, drawer_id = await _user_with_palace(new_user, db, embedder)
    body = {"message": "Where does Ingrid live?", "top_k": 3, "now": "2024-06-01T00:00:00Z", "budget_tokens": 500}
    r = await client.post("/v1/recall", json=body, headers=user.headers)
    assert r.status_code == 200, r.text
    data = r.json()
    first = data["items"][0]
    assert first["drawer_id"] == drawer_id
    assert first["aaak"].startswith("§ W-") and first["session"] == "sess-ingrid" and first["wing"] == "family"
    assert first["occurred_at"].startswith("2024-03-02") and first["ranks"]["keyword"] >= 1 and first["score"] > 0
    assert "Trondheim" in first["content"] and data["context"].startswith("<memory_context>")
    assert data["preset"] == "hybrid" and data["skipped"] is None and "total" in data["timings_ms"]

    r = await client.get("/v1/search", params={"q": "Ingrid", "top_k": 2}, headers=user.headers)
    assert r.status_code == 200, r.text
    assert r.json()["items"][0]["drawer_id"] == drawer_id


async def test_recall_isolated_and_skips(
    client: AsyncTestClient,
    new_user: NewUser,
    db: Database,
    embedder: Embedder,  # type: ignore[type-arg]
) -> None:
    await _user_with_palace(new_user, db, embedder)
    stranger = await new_user("stranger")
    r = await client.post("/v1/recall", json={"message": "Where does Ingrid live?"}, headers=stranger.headers)
    assert r.status_code == 200 and r.json()["items"] == [] and r.json()["context"] is None
    r = await client.post("/v1/recall", json={"message": "thanks!"}, headers=stranger.headers)
    assert r.json()["skipped"] == "trivial message"
    r = await client.post("/v1/recall", json={"message": "Where does Ingrid live?"})
    assert r.status_code == 401


async def test_recall_bad_input_is_400_with_field(client: AsyncTestClient, new_user: NewUser) -> None:  # type: ignore[type-arg]
    user = await new_user("bad")
    cases = {
        "top_k": {"message": "hi there friend", "top_k": 51},
        "preset": {"message": "hi there friend", "preset": "magic"},
        "now": {"message": "hi there friend", "now": "yesterday-ish"},
        "filters.role": {"message": "hi there friend", "filters": {"role": "robot"}},
        "filters.since": {"message": "hi there friend", "filters": {"since": "2024-05-01", "until": "2024-04-01"}},
        "message": {"message": "   "},
        "budget_tokens": {"message": "hi there friend", "budget_tokens": 5},
        "group_by": {"message": "hi there friend", "group_by": "conversation"},
        # a NUL reached PostgreSQL: in a filter a 500, in the message a lost batch of recall logs
        "filters.wing": {"message": "hi there friend", "filters": {"wing": "tra\x00vel"}},
        "filters.entity": {"message": "hi there friend", "filters": {"entity": "Ma\x00ya"}},
        "message#nul": {"message": "hi \x00there"},  # each rule is stated in the schema now (test_service_openapi)
        "now#nul": {"message": "hi there friend", "now": "2024-05-01T10:00:00Z\x00"},
        "filters.until#nul": {"message": "hi there friend", "filters": {"until": "\x1f2024-05-01"}},
        "as_of#nul": {"message": "hi there friend", "as_of": "2024-05-01T10:00:00Z\x07"},
        "preset#empty": {"message": "hi there friend", "preset": ""},
    }
    for field, body in cases.items():
        r = await client.post("/v1/recall", json=body, headers=user.headers)
        assert r.status_code == 400, (field, r.text)
        assert r.json()["extra"][0]["key"] == field.split("#")[0], (field, r.json())
    r = await client.post("/v1/recall", json={"top_k": 3}, headers=user.headers)
    assert r.status_code == 400
    r = await client.get("/v1/search", params={"q": "x", "top_k": 0}, headers=user.headers)
    assert r.status_code == 400
    for path, params, field in [
        ("/v1/search", {"q": "hi \x00there"}, "q"),
        ("/v1/search", {"q": "hi there", "wing": "tra\x00vel"}, "wing"),
        ("/v1/search", {"q": "hi there", "preset": "magic"}, "preset"),
        ("/v1/entities", {"q": "Ma\x00"}, "q"),
        ("/v1/entities", {"limit": -2112535910}, "limit"),  # clamped silently to 1 before
        ("/v1/entities", {"limit": 201}, "limit"),
    ]:
        r = await client.get(path, params=params, headers=user.headers)
        assert r.status_code == 400 and r.json()["extra"][0]["key"] == field, r.text
