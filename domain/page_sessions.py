"""Sign-in sessions of the /memory pages, held on the server (table ``page_sessions``).

The pages' cookie used to hold the raw API key: signing out deleted only the browser's copy,
and any other copy (a shared computer, a proxy log, a stolen cookie) kept the full API as long
as the key lived. Now signing in with a person's key opens a session and the cookie carries a
fresh random token that only finds that session: it is no API key (``/v1`` refuses it), only
its sha256 is stored, signing out deletes the row so every copy dies at once, and revoking or
deleting the key it was opened with (or deleting the user) ends it too. A cookie that still
holds a raw key from before this change finds no session: its browser signs in again.

No HTTP here: `service.web.session` carries the token in a cookie.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from sqlalchemy import delete, func, insert, text

from domain.accounts import authenticate, touch_key
from loci.db import Database
from loci.models import PageSession
from loci.write_watch import bookkeeping

__all__ = ["SESSION_LIFETIME", "TOKEN_PREFIX", "drop_expired_sessions", "open_page_session", "page_owner", "sign_out"]

SESSION_LIFETIME = timedelta(days=7)
"""How long a sign-in lasts (the cookie's max age too): a week of pages without the key again."""
TOKEN_PREFIX = "locisession_"
"""Marks a page token as one, so a log or a secret scanner tells it from an API key (``loci_``)."""
_MAX_TOKEN_CHARS = 100
"""Longer than any token `open_page_session` makes (``TOKEN_PREFIX`` and 43 characters):
a longer cookie is refused before it costs a round trip."""

_PAGE_OWNER = text("SELECT user_id, key_id, last_used_at FROM loci_page_owner(:hash)")
"""Migration 0031's function: the session, unexpired, whose key is live and a person's and
whose user is active, in one round trip (it scopes itself, as ``loci_key_owner`` does)."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _hash(token: str | None) -> str | None:
    """The stored hash of ``token``, or None for what no page token looks like (a raw API
    key from an old cookie, say), so it costs no round trip."""
    if not token or not token.startswith(TOKEN_PREFIX) or len(token) > _MAX_TOKEN_CHARS:
        return None
    return _digest(token)


async def open_page_session(db: Database, key: str) -> str | None:
    """A new session for the person whose live key ``key`` is, and its token (shown once,
    never stored); None for an unknown or revoked key, or an agent's key: the pages show a
    person everything of theirs, which an agent key (bound to one agent's access list) may
    not see. The user's expired sessions go in the same transaction, so rows do not pile up."""
    owner = await authenticate(db, key) if key else None
    if owner is None or owner.agent_id is not None or owner.key_id is None:
        return None
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    async with db.system_session() as s:
        bookkeeping(s)  # a sign-in is no user's memory: no recall cache to drop
        await s.execute(
            delete(PageSession).where(PageSession.user_id == owner.user_id, PageSession.expires_at <= func.now())
        )
        await s.execute(
            insert(PageSession).values(
                token_hash=_digest(token),
                user_id=owner.user_id,
                key_id=owner.key_id,
                expires_at=func.now() + SESSION_LIFETIME,
            )
        )
    return token


async def page_owner(db: Database, token: str | None) -> int | None:
    """The user a page token signs in as, or None (no such session, expired, its key revoked,
    or no token at all: a raw API key from an old cookie included). No cache: signing out or
    revoking the key stops the next page load. A use notes the key's last use, as a request
    with the key would."""
    wanted = _hash(token)
    if wanted is None:
        return None
    row = await db.first_row_alone(_PAGE_OWNER, {"hash": wanted})
    if row is None:
        return None
    await touch_key(db, int(row.key_id), row.last_used_at)
    return int(row.user_id)


async def sign_out(db: Database, token: str | None) -> None:
    """End the session ``token`` finds, if any: every copy of the cookie stops working at once."""
    wanted = _hash(token)
    if wanted is None:
        return
    async with db.system_session() as s:
        bookkeeping(s)
        await s.execute(delete(PageSession).where(PageSession.token_hash == wanted))


async def drop_expired_sessions(db: Database) -> int:
    """Delete every user's sessions past their time (the hourly job): they open nothing any
    more, and a sign-in sweeps only its own user's."""
    async with db.system_session() as s:
        bookkeeping(s)
        result = await s.execute(delete(PageSession).where(PageSession.expires_at <= func.now()))
        return int(result.rowcount or 0)  # type: ignore[attr-defined]
