"""Users and API keys, shared by the admin HTTP routes and the `loci users/keys` CLI.

Keys are ``loci_<prefix>_<secret>`` with 256 bits of randomness; only their sha256 is
stored (a slow hash adds nothing for random secrets and would tax every request). The
prefix is kept in clear so people can tell keys apart in listings.

A key is a **user key** (``agent_id`` NULL: it acts as the user, with whatever agent a
request declares) or an **agent key**, bound to one agent's external id: every request
made with it acts as that agent, within its access list (`domain.agent_access.effective_agent`).
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import select, text, update

from loci.db import Database
from loci.errors import Conflict, InvalidInput, NotFound
from loci.inputs import EMAIL_PATTERN, check_id, check_name
from loci.models import ApiKey, MemorySettings, User
from loci.write_watch import bookkeeping

__all__ = [
    "EMAIL_PATTERN",
    "MAX_EMAIL_CHARS",
    "MAX_NAME_CHARS",
    "MAX_USER_PAGE",
    "Account",
    "IssuedKey",
    "KeyInfo",
    "KeyOwner",
    "authenticate",
    "create_key",
    "create_user",
    "get_account",
    "hash_key",
    "list_keys",
    "list_users",
    "revoke_key",
    "touch_key",
]


@dataclass(frozen=True, slots=True)
class IssuedKey:
    id: int
    user_id: int
    name: str
    prefix: str
    key: str  # shown once, never stored
    created_at: datetime
    agent_id: str | None = None
    """The agent the key acts as; None: a user key."""


@dataclass(frozen=True, slots=True)
class KeyInfo:
    """A key as listings show it: never the secret, always whom it acts as."""

    id: int
    name: str
    prefix: str
    agent_id: str | None
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True, slots=True)
class KeyOwner:
    """Who a live key acts as: its user and, for an agent key, the agent."""

    user_id: int
    agent_id: str | None = None
    key_id: int | None = None
    """The key's row (what a /memory page session is opened with, `domain.page_sessions`)."""


@dataclass(frozen=True, slots=True)
class Account:
    """Who a key acts as (``GET /v1/me``, the /memory sign-in)."""

    id: int
    name: str
    email: str | None
    created_at: datetime


MAX_NAME_CHARS = 200
"""A user's or a key's name, after trimming: the ``users.name`` and ``api_keys.name`` columns' width."""
MAX_EMAIL_CHARS = 254
"""The longest address SMTP carries (RFC 5321's path limit less its brackets). Only the shape is
checked (`loci.inputs.EMAIL_PATTERN`): Loci sends no mail, so deliverability is not its to judge,
and a library that checks more would look the domain up in DNS, which this service cannot rely on."""
_EMAIL = re.compile(EMAIL_PATTERN)
MAX_USER_PAGE = 1000
"""Most users one `list_users` call answers: an admin pages on with ``after``."""
KEY_TOUCH_INTERVAL = timedelta(minutes=5)
"""How stale a key's ``last_used_at`` may get: it says roughly when, not each request."""


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


async def create_user(db: Database, name: str, email: str | None = None) -> User:
    name = name.strip()
    if not name or len(name) > MAX_NAME_CHARS:
        raise InvalidInput(f"name must be 1-{MAX_NAME_CHARS} characters", field="name")
    check_name(name, field="name")
    if email is not None:
        email = email.strip()
        if len(email) > MAX_EMAIL_CHARS or not _EMAIL.fullmatch(email):
            raise InvalidInput(
                f"email must look like name@example.org (at most {MAX_EMAIL_CHARS} characters)", field="email"
            )
    async with db.system_session() as s:
        user = User(name=name, email=email)
        s.add(user)
        await s.flush()
        s.add(MemorySettings(user_id=user.id))
    return user


async def list_users(db: Database, *, after: int = 0, limit: int = 100) -> list[Account]:
    """Users by id, those with an id above ``after`` (0: from the first), at most ``limit``
    (1-`MAX_USER_PAGE`): keyset pages, so a page never skips or repeats a user when others are
    created or deleted meanwhile. An admin listing: it reads every user's row."""
    if not 0 <= after < 2**63:  # past a bigint PostgreSQL refuses the comparison itself
        raise InvalidInput("after must be 0 or a user id", field="after")
    if not 1 <= limit <= MAX_USER_PAGE:
        raise InvalidInput(f"limit must be 1-{MAX_USER_PAGE}", field="limit")
    async with db.system_session() as s:
        rows = (await s.execute(select(User).where(User.id > after).order_by(User.id).limit(limit))).scalars()
        return [Account(u.id, u.name, u.email, u.created_at) for u in rows]


async def get_account(db: Database, user_id: int) -> Account:
    """The caller's own user row, read under row-level security (NotFound if it is gone)."""
    async with db.user_session(user_id) as s:
        user = await s.get(User, user_id)
    if user is None:
        raise NotFound("user not found")
    return Account(user.id, user.name, user.email, user.created_at)


async def create_key(db: Database, user_id: int, name: str = "default", agent: str | None = None) -> IssuedKey:
    """A new key for ``user_id``; with ``agent`` (an agent's external id, as apps send it in
    ``agent_id``) the key acts as that agent on every request (400 naming ``agent_id`` if malformed).

    ``name`` is a label an admin reads in key listings: trimmed, 1-`MAX_NAME_CHARS` characters
    without control characters (it used to be cut silently, and a NUL reached PostgreSQL)."""
    name = name.strip()
    if not name or len(name) > MAX_NAME_CHARS:
        raise InvalidInput(f"name must be 1-{MAX_NAME_CHARS} characters", field="name")
    check_name(name, field="name")
    if agent is not None:
        check_id(agent, field="agent_id")
    prefix = secrets.token_hex(4)
    key = f"loci_{prefix}_{secrets.token_urlsafe(32)}"
    async with db.system_session() as s:
        if await s.get(User, user_id) is None:
            raise NotFound(f"user {user_id} not found")
        row = ApiKey(user_id=user_id, name=name, prefix=prefix, key_hash=hash_key(key), agent_id=agent)
        s.add(row)
        await s.flush()
        await s.refresh(row)
    return IssuedKey(row.id, user_id, row.name, prefix, key, row.created_at, row.agent_id)


async def list_keys(db: Database, user_id: int) -> list[KeyInfo]:
    """Every key of ``user_id``, revoked ones included, oldest first (404 for an unknown user)."""
    async with db.system_session() as s:
        if await s.get(User, user_id) is None:
            raise NotFound(f"user {user_id} not found")
        rows = (await s.execute(select(ApiKey).where(ApiKey.user_id == user_id).order_by(ApiKey.id))).scalars()
        return [KeyInfo(k.id, k.name, k.prefix, k.agent_id, k.created_at, k.last_used_at, k.revoked_at) for k in rows]


async def revoke_key(db: Database, user_id: int, key_id: int) -> None:
    """Revoke a live key of ``user_id``: NotFound for no such key of theirs, Conflict (saying
    when) for one revoked already, so a second revoke does not read as a mistyped id."""
    async with db.system_session() as s:
        result = await s.execute(
            update(ApiKey)
            .where(ApiKey.id == key_id, ApiKey.user_id == user_id, ApiKey.revoked_at.is_(None))
            .values(revoked_at=text("now()"))
        )
        if result.rowcount:  # type: ignore[attr-defined]
            return
        revoked = await s.scalar(select(ApiKey.revoked_at).where(ApiKey.id == key_id, ApiKey.user_id == user_id))
    if revoked is None:
        raise NotFound(f"key {key_id} of user {user_id} not found")
    raise Conflict(f"key {key_id} was already revoked at {revoked.isoformat(timespec='seconds')}")


_KEY_OWNER = text("SELECT key_id, user_id, agent_id, last_used_at FROM loci_key_owner(:hash)")
"""Migration 0025's function: the lookup scopes itself, so it runs as one statement alone,
one round trip where a system transaction took three, on the path every request takes."""


async def authenticate(db: Database, key: str) -> KeyOwner | None:
    """Who a live key acts as (its user, and its agent for an agent key), or None.
    No cache: revocation is immediate."""
    if not key.startswith("loci_") or len(key) > 200:
        return None
    row = await db.first_row_alone(_KEY_OWNER, {"hash": hash_key(key)})
    if row is None:
        return None
    await touch_key(db, int(row.key_id), row.last_used_at)
    return KeyOwner(int(row.user_id), row.agent_id, int(row.key_id))


async def touch_key(db: Database, key_id: int, last_used_at: datetime | None) -> None:
    """Note that a key (or a page session opened with it) was used, at most every few minutes:
    a write per recall would be waste, and so would the round trip of an UPDATE that matches
    nothing, so ``last_used_at`` as the lookup read it is looked at first."""
    if last_used_at is not None and last_used_at >= datetime.now(UTC) - KEY_TOUCH_INTERVAL:
        return
    async with db.system_session() as s:
        bookkeeping(s)  # a key's last use is no user's memory: no recall cache to drop
        await s.execute(
            text(
                "UPDATE api_keys SET last_used_at = now() WHERE id = :id "
                "AND (last_used_at IS NULL OR last_used_at < now() - :stale)"
            ),
            {"id": key_id, "stale": KEY_TOUCH_INTERVAL},
        )
