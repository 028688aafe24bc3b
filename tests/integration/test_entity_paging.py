"""`GET /v1/entities` pages past its first `limit` (``offset``): it listed at most the 200 most
mentioned, so a palace with more people and things could not be listed whole."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

from litestar.testing import AsyncTestClient

from loci.db import Database
from tests.conftest import UserHandle
from tests.palace_seed import seed_palace

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]


async def test_entities_page_on_with_offset_and_a_bad_offset_names_it(
    client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("entity-offset")
    await seed_palace(db, user.id, f"o{secrets.token_hex(3)}")
    h = user.headers
    whole = (await client.get("/v1/entities", params={"limit": 200}, headers=h)).json()
    assert len(whole) >= 2
    paged = []
    for offset in range(len(whole) + 1):
        page = await client.get("/v1/entities", params={"limit": 1, "offset": offset}, headers=h)
        assert page.status_code == 200, page.text
        paged += page.json()
    assert [e["id"] for e in paged] == [e["id"] for e in whole]  # every one, in order, once
    bad = await client.get("/v1/entities", params={"offset": -1}, headers=h)
    assert bad.status_code == 400 and "offset" in bad.text, bad.text
