"""Idempotency keys: a retried write answers what its first try did and writes nothing twice.

A client sends an ``Idempotency-Key`` header (any 1-255 visible ASCII characters, a UUID
say) on a write that creates something: storing a conversation, appending turns, saving a
memory. The same key with the same request within `KEPT` (a day) answers the first try's
answer again, writing nothing; the same key with another request (another
route, conversation, acting agent or body) is a `KeyReused` conflict. Keys are per user.

The key lives in PostgreSQL, in the write's own transaction: `claim` inserts it first
thing, the write runs, `remember` stores its answer, and all of it commits or rolls back
together. So an answer is on record exactly when its write is (a crash or a 503 between
them cannot leave one without the other, which a key in Valkey beside the database could),
a failed write leaves the key unused for the retry, and Valkey stays a queue whose loss
loses nothing. Two requests with one key at once serialise on the key's unique index: the
second waits for the first's commit, then replays its answer (or, had it rolled back,
claims the key and writes). A key past its time counts as unused, and `drop_expired`
deletes those rows. The answer is stored as the domain's record (a `ConversationRef`, a
`MemoryEvent`), which each adapter maps as it always does, so a replay is the same answer.
A conversation write's key names its conversation and is deleted with it (`remember`): after
a purge the same key and transcript store the conversation anew.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

import msgspec
from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import Database
from loci.errors import Conflict, InvalidInput
from loci.models import IdempotencyKey

__all__ = ["HEADER", "KEPT", "KEY_PATTERN", "MAX_KEY_CHARS", "KeyReused", "Once", "claim", "drop_expired", "remember"]

HEADER = "Idempotency-Key"
MAX_KEY_CHARS = 255
"""As Stripe's keys: room for a UUID, a hash, or a client's own ``job-42:attempt`` scheme."""
KEY_PATTERN = rf"^[!-~]{{1,{MAX_KEY_CHARS}}}$"
"""Visible ASCII, no spaces: what an HTTP header carries unchanged."""
_KEY = re.compile(KEY_PATTERN)
KEPT = timedelta(hours=24)
"""How long a key replays its answer: Stripe's day, ample for a client's retries. No longer,
as a save's answer quotes the memory, and a forgotten memory may be purged a day after it
ended (``LOCI_MEMORY_TRASH_DAYS`` >= 1); the daily memory job drops expired keys first."""

T = TypeVar("T")


class KeyReused(Conflict):
    """The key already stands for another request (a 409): a client reusing a key by mistake
    must not get another write's answer, nor write twice. It names the header as its field, as
    a malformed key's 400 does, so a client reads which input clashed."""

    def __init__(self, message: str) -> None:
        super().__init__(message, field=HEADER)


@dataclass(frozen=True, slots=True)
class Once:
    """One write's key and a digest of what it asks, held for ``hold``."""

    key: str
    request: str
    hold: timedelta = KEPT

    @classmethod
    def of(cls, key: str | None, *request: Any) -> Once | None:
        """The key's record for a request made of ``request`` (the operation's name, its path's
        ids, the acting agent and the decoded body: anything msgspec encodes), or None without
        a key. The body is encoded with its fields sorted, so two spellings of one JSON body
        are one request."""
        if key is None:
            return None
        if not _KEY.match(key):
            raise InvalidInput(f"{HEADER} must be 1-{MAX_KEY_CHARS} visible ASCII characters", field=HEADER)
        digest = hashlib.sha256(msgspec.json.encode(list(request), order="sorted")).hexdigest()
        return cls(key, digest)


async def claim(s: AsyncSession, user_id: int, once: Once | None, answer: type[T]) -> T | None:
    """Claim ``once``'s key in ``s``'s transaction: None to go on and write (also without a
    key), or the answer a write with this key already gave, as ``answer``. Call it before
    the write and `remember` after it, in the same transaction; `KeyReused` when the key
    stands for another request."""
    if once is None:
        return None
    stmt = pg_insert(IdempotencyKey).values(
        user_id=user_id, key=once.key, request=once.request, expires_at=func.now() + once.hold
    )
    stmt = stmt.on_conflict_do_update(  # a key past its time is free again
        index_elements=[IdempotencyKey.user_id, IdempotencyKey.key],
        set_={
            "request": stmt.excluded.request,
            "response": None,
            "created_at": func.now(),
            "expires_at": stmt.excluded.expires_at,
        },
        where=IdempotencyKey.expires_at <= func.now(),
    )
    if (await s.execute(stmt.returning(IdempotencyKey.id))).first() is not None:
        return None
    found = await s.execute(
        select(IdempotencyKey.request, IdempotencyKey.response).where(
            IdempotencyKey.user_id == user_id, IdempotencyKey.key == once.key
        )
    )
    request, response = found.one()
    if request != once.request:
        raise KeyReused(f"{HEADER} {once.key!r} was used for another request; send a new key for a new request")
    if response is None:  # every write that claims remembers in the same transaction
        raise KeyReused(f"{HEADER} {once.key!r} is held by a write that stored no answer")
    return msgspec.convert(response, answer, strict=False)


async def remember(
    s: AsyncSession, user_id: int, once: Once | None, answer: Any, *, conversation_id: int | None = None
) -> None:
    """Store ``answer`` (the write's result) under ``once``'s key, in the write's transaction.
    ``conversation_id``: the conversation the answer is about, whose deletion for good deletes
    the key (a foreign key's cascade), so a purged conversation's answer is never replayed."""
    if once is None:
        return
    await s.execute(
        update(IdempotencyKey)
        .where(IdempotencyKey.user_id == user_id, IdempotencyKey.key == once.key)
        .values(response=msgspec.to_builtins(answer), conversation_id=conversation_id)
    )


async def drop_expired(db: Database) -> int:
    """Delete every user's keys past their time (they already count as unused): the answers
    they hold can quote what a user wrote, kept no longer than promised."""
    async with db.system_session() as s:
        result = await s.execute(delete(IdempotencyKey).where(IdempotencyKey.expires_at <= func.now()))
        return int(result.rowcount or 0)  # type: ignore[attr-defined]
