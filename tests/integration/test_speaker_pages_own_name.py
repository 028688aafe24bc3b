"""The /memory pages tell the user's own turns from another person's of the same name.

Walking a group-chat app through Loci (h-spk): in a work channel the user, Sam, met Sam from
design. Recall's block told them apart (`Sam (user)`, `Sam (other)`), but the pages showed
both as "Sam said", so the user could not tell whose "I'm allergic to penicillin" a drawer
held. The pages now mark the user's own named turns "(you)". Stored, completed and mined
through the real HTTP API and arq worker, the pages read through the app as a browser would.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from httpx import ASGITransport, AsyncClient
from litestar.testing import AsyncTestClient

from service.state import AppState
from tests.conftest import UserHandle
from tests.integration.test_speakers import _mined_chat, _recall

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]

THEIRS = "I'm allergic to penicillin, not that it matters for an offsite."
MINE = "Ha. I'm the other Sam, from engineering, and I'm allergic to cats."


@pytest.fixture
async def browser(client: Client) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url="http://testserver.local") as c:
        yield c


async def test_the_users_own_turn_and_a_namesakes_read_differently(
    client: Client, app_state: AppState, new_user: NewUser, browser: AsyncClient
) -> None:
    user = await new_user("speaker-namesake")
    turns = [
        {"role": "other", "name": "Sam", "content": "Hi, Sam from design here. " + THEIRS},
        {"role": "user", "name": "Sam", "content": MINE},
    ]
    dated = [{**t, "created_at": f"2024-05-24T18:0{i}:00Z"} for i, t in enumerate(turns)]
    await _mined_chat(client, app_state, user, "offsite", dated)
    items = (await _recall(client, user, "What did Sam say about allergies?"))["items"]
    by_role = {i["role"]: i["drawer_id"] for i in items}
    assert set(by_role) == {"user", "other"}, items
    assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
    mine = await browser.get(f"/memory/drawers/{by_role['user']}")
    theirs = await browser.get(f"/memory/drawers/{by_role['other']}")
    assert "<h1><bdi>Sam</bdi> (you) said</h1>" in mine.text, mine.text
    assert "<h1><bdi>Sam</bdi> said</h1>" in theirs.text, theirs.text
    search = await browser.get("/memory/search", params={"q": "What did Sam say about allergies?"})
    assert "· <bdi>Sam</bdi> (you) ·" in search.text and "· <bdi>Sam</bdi> ·" in search.text, search.text
