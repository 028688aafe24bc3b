"""Keys as bearer tokens, admin routes, health and readiness, over real HTTP."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from domain.accounts import create_key
from loci.errors import InvalidInput
from tests.conftest import UserHandle

Client = AsyncTestClient[Any]


async def test_healthz_and_readyz(client: Client) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    ready = await client.get("/readyz")
    assert ready.status_code == 200, ready.text
    components = ready.json()["components"]
    assert {components[c]["status"] for c in ("database", "queue", "embedder")} == {"ready"}


async def test_startup_freezes_the_loaded_heap(client: Client) -> None:
    """The lifespan freezes what start-up loaded, so full collections skip the model."""
    import gc

    assert (await client.get("/healthz")).status_code == 200
    assert gc.get_freeze_count() > 100_000


async def test_openapi_lists_routes(client: Client) -> None:
    spec = (await client.get("/schema/openapi.json")).json()
    assert "/v1/admin/users" in spec["paths"]
    assert "/readyz" in spec["paths"]


async def test_admin_creates_user_and_key_which_authenticates(client: Client, admin_headers: dict[str, str]) -> None:
    user = (await client.post("/v1/admin/users", json={"name": "carol"}, headers=admin_headers)).json()
    issued = await client.post(f"/v1/admin/users/{user['id']}/keys", json={"name": "laptop"}, headers=admin_headers)
    assert issued.status_code == 201
    key = issued.json()["key"]
    assert key.startswith("loci_")
    probe = await client.get("/v1/me", headers={"Authorization": f"Bearer {key}"})
    assert probe.status_code == 200
    assert probe.json()["id"] == user["id"]
    revoked = await client.delete(f"/v1/admin/users/{user['id']}/keys/{issued.json()['id']}", headers=admin_headers)
    assert revoked.status_code == 204
    after = await client.get("/v1/me", headers={"Authorization": f"Bearer {key}"})
    assert after.status_code == 401


async def test_missing_bad_and_wrong_kind_of_key_get_401(
    client: Client, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    assert (await client.get("/v1/me")).status_code == 401
    bad = await client.get("/v1/me", headers={"Authorization": "Bearer loci_nope_nope"})
    assert bad.status_code == 401
    assert "invalid" in bad.json()["detail"]
    user = await new_user()
    as_admin = await client.post("/v1/admin/users", json={"name": "x"}, headers=user.headers)
    assert as_admin.status_code == 401


async def test_admin_input_errors_are_clear(client: Client, admin_headers: dict[str, str]) -> None:
    missing = await client.post("/v1/admin/users", json={}, headers=admin_headers)
    assert missing.status_code == 400
    assert "name" in missing.text
    blank = await client.post("/v1/admin/users", json={"name": "  "}, headers=admin_headers)
    assert blank.status_code == 400
    assert blank.json()["extra"][0]["key"] == "name"
    unknown = await client.post("/v1/admin/users/987654/keys", headers=admin_headers)
    assert unknown.status_code == 404
    malformed = await client.post("/v1/admin/users", content=b"{not json", headers=admin_headers)
    assert malformed.status_code == 400


async def test_a_key_name_is_checked_like_a_user_name(client: Client, admin_headers: dict[str, str], db: Any) -> None:
    """A NUL in a key's name once reached PostgreSQL (found by the schemathesis run), and a long
    one was cut silently: both are a 400 naming ``name``, over HTTP and from the domain call the CLI makes."""
    user = (await client.post("/v1/admin/users", json={"name": "dana"}, headers=admin_headers)).json()
    for bad in ["lap\x00top", "  ", "k" * 201, "bell\x07"]:
        answer = await client.post(f"/v1/admin/users/{user['id']}/keys", json={"name": bad}, headers=admin_headers)
        assert answer.status_code == 400, bad
        assert answer.json()["extra"][0]["key"] == "name"
        with pytest.raises(InvalidInput) as refused:
            await create_key(db, user["id"], bad)
        assert refused.value.field == "name"
    trimmed = await client.post(f"/v1/admin/users/{user['id']}/keys", json={"name": " laptop "}, headers=admin_headers)
    assert trimmed.status_code == 201
    assert trimmed.json()["name"] == "laptop"


async def test_the_key_lookup_never_leaves_system_visibility_behind(
    db: Any, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    """``loci_key_owner`` turns system visibility on for its own query only: called inside
    a user's transaction it finds the key, and the transaction still sees only that user."""
    from sqlalchemy import text

    from domain.accounts import authenticate, hash_key

    user, other = await new_user(), await new_user()
    owner = await authenticate(db, user.key)
    assert owner is not None and owner.user_id == user.id
    assert await authenticate(db, user.key + "x") is None
    async with db.user_session(user.id) as s:
        found = (await s.execute(text("SELECT user_id FROM loci_key_owner(:h)"), {"h": hash_key(other.key)})).one()
        assert found.user_id == other.id
        setting = (await s.execute(text("SELECT current_setting('loci.system', true)"))).scalar_one()
        assert setting != "on"
        visible = (await s.execute(text("SELECT DISTINCT user_id FROM api_keys"))).scalars().all()
        assert visible == [user.id]
