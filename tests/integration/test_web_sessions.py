"""The /memory pages' sign-in is a server-side session (`domain.page_sessions`), not the key.

The cookie used to hold the raw API key, so signing out deleted only the browser's copy and
any other copy (a shared computer, a proxy log, a stolen cookie) kept the full API. These
tests copy the cookie to a second client, as someone who found it would, and check that it
is no key, and that signing out, revoking the key, expiry and deleting the user end it.
"""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from httpx import ASGITransport, AsyncClient, Response
from litestar.testing import AsyncTestClient
from sqlalchemy import text

from loci.db import Database
from service import jobs
from service.state import AppState
from service.web.session import COOKIE
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
ORIGIN = "http://testserver.local"


@pytest.fixture
async def browser(client: Client) -> AsyncIterator[AsyncClient]:
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url=ORIGIN) as c:
        yield c


async def _sign_in(client: Client, key: str) -> str:
    """Sign in on a browser of its own and answer its cookie's value."""
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url=ORIGIN) as signing:
        answer = await signing.post("/memory/login", data={"key": key})
        assert answer.status_code == 303 and answer.headers["location"] == "/memory", answer.text
        value = signing.cookies.get(COOKIE)
    assert value
    return value


async def _page_with(client: Client, cookie: str) -> Response:
    """``GET /memory`` from a client holding only ``cookie`` (a copy of someone's)."""
    async with AsyncClient(transport=ASGITransport(app=client.app), base_url=ORIGIN) as copy:
        return await copy.get("/memory", headers={"Cookie": f"{COOKIE}={cookie}"})


def _sent_to_sign_in(page: Response) -> bool:
    dropped = f'{COOKIE}=""' in page.headers.get("set-cookie", "")
    return page.status_code == 303 and page.headers["location"] == "/memory/login" and dropped


async def _sessions(db: Database, user_id: int) -> list[tuple[str, int]]:
    async with db.system_session() as s:
        rows = await s.execute(
            text("SELECT token_hash, key_id FROM page_sessions WHERE user_id = :u ORDER BY id"), {"u": user_id}
        )
        return [(r.token_hash, r.key_id) for r in rows]


async def test_the_cookie_is_a_session_token_and_no_api_key(
    browser: AsyncClient, client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("cookie")
    answer = await browser.post("/memory/login", data={"key": user.key})
    assert answer.status_code == 303 and user.key not in answer.headers["set-cookie"]
    token = browser.cookies.get(COOKIE)
    assert token and token.startswith("locisession_") and token != user.key
    assert (await browser.get("/memory")).status_code == 200
    assert (await _page_with(client, token)).status_code == 200  # a copy works while signed in
    refused = await client.get("/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert refused.status_code == 401  # but never as a key of the API
    [(stored, _)] = await _sessions(db, user.id)
    assert stored == hashlib.sha256(token.encode()).hexdigest()  # the hash, never the token


async def test_signing_out_ends_every_copy_of_the_cookie(
    browser: AsyncClient, client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("sign-out")
    assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
    token = browser.cookies.get(COOKIE)
    assert token and (await _page_with(client, token)).status_code == 200
    other = await _sign_in(client, user.key)  # the same person on another computer
    signed_out = await browser.post("/memory/logout")
    assert signed_out.status_code == 303 and signed_out.headers["location"] == "/memory/login"
    assert _sent_to_sign_in(await _page_with(client, token))  # the copy is dead at once
    assert (await browser.get("/memory")).status_code == 303
    assert (await _page_with(client, other)).status_code == 200  # that sign-in was not this one
    assert len(await _sessions(db, user.id)) == 1
    assert (await client.get("/v1/me", headers=user.headers)).status_code == 200  # the key itself lives on


async def test_signing_in_again_ends_the_session_the_browser_held(
    browser: AsyncClient, client: Client, db: Database, new_user: NewUser
) -> None:
    """A sign-in on a browser that is signed in already replaces its session: the old one had
    stayed open for its week, so a copy of the first cookie outlived the sign-out that followed."""
    user = await new_user("sign-in-again")
    assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
    first = browser.cookies.get(COOKIE)
    assert first and (await _page_with(client, first)).status_code == 200
    assert (await browser.post("/memory/login", data={"key": user.key})).status_code == 303
    second = browser.cookies.get(COOKIE)
    assert second and second != first
    assert _sent_to_sign_in(await _page_with(client, first))
    assert (await _page_with(client, second)).status_code == 200
    assert [h for h, _ in await _sessions(db, user.id)] == [hashlib.sha256(second.encode()).hexdigest()]
    await browser.post("/memory/logout")
    assert await _sessions(db, user.id) == []


async def test_revoking_the_key_ends_the_sessions_opened_with_it(
    client: Client, db: Database, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    user = await new_user("revoked")
    keys = f"/v1/admin/users/{user.id}/keys"
    second = (await client.post(keys, json={"name": "laptop"}, headers=admin_headers)).json()
    first = [k["id"] for k in (await client.get(keys, headers=admin_headers)).json() if k["id"] != second["id"]]
    phone, desk = await _sign_in(client, user.key), await _sign_in(client, user.key)
    laptop = await _sign_in(client, second["key"])
    assert sorted(k for _, k in await _sessions(db, user.id)) == sorted([*first, *first, second["id"]])
    assert (await client.delete(f"{keys}/{first[0]}", headers=admin_headers)).status_code == 204
    assert _sent_to_sign_in(await _page_with(client, phone))
    assert _sent_to_sign_in(await _page_with(client, desk))
    assert (await _page_with(client, laptop)).status_code == 200  # opened with the key still live


async def test_an_expired_session_is_refused_and_swept_at_the_next_sign_in(
    client: Client, db: Database, new_user: NewUser
) -> None:
    user = await new_user("expired")
    old = await _sign_in(client, user.key)
    assert (await _page_with(client, old)).status_code == 200
    async with db.system_session() as s:
        await s.execute(
            text("UPDATE page_sessions SET expires_at = now() - interval '1 second' WHERE user_id = :u"),
            {"u": user.id},
        )
    assert _sent_to_sign_in(await _page_with(client, old))
    fresh = await _sign_in(client, user.key)
    assert (await _page_with(client, fresh)).status_code == 200
    [(stored, _)] = await _sessions(db, user.id)  # the expired row went with the new sign-in
    assert stored == hashlib.sha256(fresh.encode()).hexdigest()


async def test_a_cookie_holding_a_raw_api_key_signs_in_no_more(client: Client, new_user: NewUser) -> None:
    """What a browser signed in before server-side sessions still holds: it signs in again."""
    user = await new_user("raw-key")
    assert _sent_to_sign_in(await _page_with(client, user.key))
    assert (await client.get("/v1/me", headers=user.headers)).status_code == 200  # the key still works


async def test_deleting_the_user_removes_their_sessions(client: Client, db: Database, new_user: NewUser) -> None:
    user = await new_user("leaving")
    token = await _sign_in(client, user.key)
    assert len(await _sessions(db, user.id)) == 1
    name = (await client.get("/v1/me", headers=user.headers)).json()["name"]
    assert (await client.delete("/v1/me", params={"confirm": name}, headers=user.headers)).status_code == 204
    assert await _sessions(db, user.id) == []
    assert _sent_to_sign_in(await _page_with(client, token))


async def test_the_hourly_job_drops_every_users_expired_sessions(
    client: Client, db: Database, new_user: NewUser, app_state: AppState
) -> None:
    """A user who never signs in again would keep their expired rows: the sign-in sweeps only
    its own user's, so the hourly job (`service.jobs.drop_expired_rows`) drops everyone's."""
    gone, kept = await new_user("never-back"), await new_user("still-here")
    await _sign_in(client, gone.key)
    live = await _sign_in(client, kept.key)
    async with db.system_session() as s:
        await s.execute(
            text("UPDATE page_sessions SET expires_at = now() - interval '1 second' WHERE user_id = :u"),
            {"u": gone.id},
        )
    dropped = await jobs.drop_expired_rows({"state": app_state})
    assert dropped["page_sessions"] >= 1
    assert await _sessions(db, gone.id) == []
    assert [h for h, _ in await _sessions(db, kept.id)] == [hashlib.sha256(live.encode()).hexdigest()]


async def test_the_sign_in_page_says_the_cookie_holds_a_session_never_the_key(client: Client) -> None:
    """The page said the key "is kept in a cookie", which stopped being true with server-side
    sessions: someone deciding whether to sign in on a shared computer reads what it keeps."""
    page = (await client.get("/memory/login")).text
    assert "kept in a cookie" not in page
    assert "never the key" in page
