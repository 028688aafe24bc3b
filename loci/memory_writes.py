"""The writes every memory change is built from, shared by the API (`domain`) and mining.

One transaction, one lock, rows copied never edited, one history row per write (see
`loci.models.memories`). They live in the core because two layers write memories: the
explicit-memory API in `domain` and extraction at mining in `ingest`, which must not
import `domain`; both take the same per-user lock, so a user's memory writes run one at a
time whoever makes them.

Every write takes a per-user advisory lock first: two identical saves cannot both insert,
the core profile's total cannot be raced past its cap, and "the latest event of a lineage"
(what undo checks) cannot change under a write. Writes are short (embeddings are computed
before the transaction opens, or beside its first reads and ready by the insert), and
different users never wait for each other.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import HELD_LOCK
from loci.models import Memory, MemoryHistory

__all__ = [
    "DESCRIBED",
    "changed_fields",
    "copy_links",
    "copy_row",
    "end_row",
    "lock_user",
    "new_memory_row",
    "record_event",
    "transaction_now",
    "user_lock",
]


_NOW = "loci.transaction_now"
"""Where a session keeps its transaction's timestamp once read (``Session.info``)."""


def user_lock(user_id: int) -> str:
    """The advisory lock key of ``user_id``'s memory writes; a session opened with it
    (`Database.user_session`'s ``lock``) holds it from its first round trip."""
    return f"memories:{int(user_id)}"


async def lock_user(s: AsyncSession, user_id: int) -> None:
    """Serialise this user's memory writes until the transaction ends (see the module); the
    same round trip reads the transaction's timestamp, which every write then needs. A
    session opened with the lock (the API's hot writes) already holds both: no round trip."""
    key = user_lock(user_id)
    held = s.info.get(HELD_LOCK)
    if held is not None and held[0] == key:
        s.info[_NOW] = held[1]
        return
    locked = await s.execute(text("SELECT pg_advisory_xact_lock(hashtextextended(:key, 0)), now()"), {"key": key})
    s.info[_NOW] = locked.one()[1]


async def transaction_now(s: AsyncSession) -> datetime:
    """The transaction's timestamp: every row a write ends or starts shares it, so nothing
    is ever valid twice (or never) at one instant."""
    if _NOW not in s.info:
        s.info[_NOW] = (await s.execute(select(func.now()))).scalar_one()
    now: datetime = s.info[_NOW]
    return now


_COPIED = [
    "user_id",
    "lineage_id",
    "layer",
    "category",
    "content",
    "summary",
    "body",
    "source",
    "confidence",
    "confidence_base",
    "importance",
    "pinned",
    "tags",
    "agent_id",
    "conversation_id",
    "turn_seqs",
    "said_at",
    "kind",
    "expires_at",
    "last_confirmed_at",
    "recall_count",
    "last_recalled_at",
    "embedding",
]


async def copy_row(s: AsyncSession, row: Memory, **changes: Any) -> Memory:
    """A new version of ``row`` (same lineage), with ``changes`` applied; not yet added.
    The old vector is loaded only when the copy keeps it (the column is deferred)."""
    if "embedding" not in changes:
        await s.refresh(row, ["embedding"])
    values = {name: getattr(row, name) for name in _COPIED if name not in changes}
    values.update(changes)
    return Memory(**values)


DESCRIBED = (
    "layer", "category", "content", "summary", "body", "source", "confidence", "importance", "pinned", "tags",
    "agent_id", "kind",
)  # fmt: skip
"""What a version says and how it is held: the fields an update event's ``changed`` may list.
Left out: what follows from them (the vector, ``expires_at``, ``said_at``), where it came from
(``conversation_id``, ``turn_seqs``) and bookkeeping (recall counts, ``last_confirmed_at``)."""


def changed_fields(old: Memory, new: Memory) -> list[str]:
    """The `DESCRIBED` fields whose values differ between two versions, sorted: an update event's
    ``changed``, read from the rows rather than from what was asked, so a change the write makes
    on its own (``source`` becoming the writer's, an extracted confidence dropped) is listed, and
    a field asked for with the value it had is not."""
    return sorted(name for name in DESCRIBED if getattr(old, name) != getattr(new, name))


def end_row(row: Memory, when: datetime, reason: str, superseded_by: int | None = None) -> None:
    row.valid_until = when
    row.end_reason = reason
    row.superseded_by = superseded_by


_COPY_LINKS = text("""
INSERT INTO memory_links (user_id, from_id, to_id, relation)
SELECT l.user_id,
       CASE WHEN l.from_id = :old THEN :new ELSE l.from_id END,
       CASE WHEN l.to_id = :old THEN :new ELSE l.to_id END,
       l.relation
FROM memory_links l
JOIN memories other ON other.id = CASE WHEN l.from_id = :old THEN l.to_id ELSE l.from_id END
WHERE l.user_id = :uid AND (l.from_id = :old OR l.to_id = :old)
  AND l.removed_at IS NULL AND other.valid_until IS NULL AND other.id <> :new
ON CONFLICT DO NOTHING
""")


async def copy_links(s: AsyncSession, user_id: int, old_id: int, new_id: int) -> None:
    """Point ``old_id``'s active links (to still-active memories) at ``new_id`` too. The old
    links stay as they were: they are what an ``as_of`` read before this write sees."""
    await s.flush()
    await s.execute(_COPY_LINKS, {"old": old_id, "new": new_id, "uid": user_id})


async def record_event(
    s: AsyncSession,
    user_id: int,
    event: str,
    *,
    actor: str,
    lineage_id: int | None,
    old_id: int | None = None,
    new_id: int | None = None,
    **meta: Any,
) -> MemoryHistory:
    row = MemoryHistory(
        user_id=user_id, event=event, lineage_id=lineage_id, old_id=old_id, new_id=new_id, actor=actor, meta=meta
    )
    s.add(row)
    await s.flush()
    return row


async def new_memory_row(s: AsyncSession, user_id: int, **values: Any) -> Memory:
    """Insert a memory that starts its own lineage (its lineage id is its own id, taken from
    the sequence first so the row is written once)."""
    new_id = int((await s.execute(text("SELECT nextval(pg_get_serial_sequence('memories', 'id'))"))).scalar_one())
    row = Memory(id=new_id, user_id=user_id, lineage_id=new_id, **values)
    s.add(row)
    await s.flush()
    return row
