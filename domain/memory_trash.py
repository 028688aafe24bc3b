"""Memories mining extracted go where the turns they came from go: trash, restore, purge.

Deleting a drawer or a conversation must forget everything derived from it (`domain.trash`),
and an extracted memory is derived from the turns it cites (``conversation_id`` and
``turn_seqs``). So when turns are stamped into the trash, the active extracted memories
they back end with reason ``trash`` at that same stamp, with a ``forget`` event (actor
``system``) so the session-start block's revision moves; a restore of that stamp brings
them back as they were and removes those events, so a delete followed by a restore leaves
memory exactly as it was. A purge deletes them for good with their history, keeping one
``purge`` row per memory that says only that it happened; a ``skip`` event that quoted
what a purged turn said goes too, as do the proposals made from it and their events. A
version a later conversation made from a purged one survives it, and so does the event that
made it (its purged side cut off), or that memory's history would lose its own start.

Only extracted rows follow their turns: a version the user or an agent wrote (even an
update of an extracted memory, which keeps its provenance) is theirs, not the transcript's;
it stays, and stops citing the purged turns (`_uncite`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ARRAY, Integer, Text, and_, bindparam, delete, exists, func, literal, or_, select, text, update
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.expression import Exists

from domain.memory_scope import Version, purge_reach
from domain.purge_versions import version_records
from loci.memory_writes import end_row, lock_user, record_event
from loci.models import Memory, MemoryHistory, MemoryProposal, Turn

__all__ = ["QUOTING_KEYS", "purge_derived", "restore_derived", "trash_derived"]

TRASH_REASON = "trash"
QUOTING_EVENTS = ("skip", "propose", "reject", "lapse")
"""Events whose ``meta`` quotes what a turn said (``candidate``, with ``conversation_id`` and
``turn_seqs``) without a memory row of their own: a purge of that turn removes them."""
QUOTING_KEYS = ("reason", "candidate")
"""``meta`` keys of mining's events that may quote a statement (a retraction's reason quotes it)."""
_QUOTING_KEYS = literal(list(QUOTING_KEYS), ARRAY(Text))
_EARLIER_PURGED = literal({"earlier": "purged"}, JSONB)
"""What an event kept by `_keep_survivors_events` says instead of the version it no longer names."""


async def _purge_proposals(s: AsyncSession, user_id: int, turns: Sequence[tuple[int, int]]) -> None:
    """Proposals (`loci.models.MemoryProposal`) built from purged ``(conversation, seq)`` turns
    go with them, answered or not: what they say came from those turns."""
    for conversation_id, seq in turns:
        await s.execute(
            delete(MemoryProposal).where(
                MemoryProposal.user_id == user_id,
                MemoryProposal.conversation_id == conversation_id,
                MemoryProposal.turn_seqs.contains([seq]),
            )
        )


def _backed_by(turns: Sequence[int] | None, stamp: datetime | None) -> Exists:
    """The memory cites a turn among ``turns`` (ids), or one stamped ``stamp``."""
    match = and_(
        Turn.user_id == Memory.user_id,
        Turn.conversation_id == Memory.conversation_id,
        Turn.seq == func.any(Memory.turn_seqs),
    )
    which = Turn.id.in_(list(turns)) if turns is not None else Turn.deleted_at == stamp
    return exists().where(match, which)


async def trash_derived(s: AsyncSession, user_id: int, stamp: datetime) -> int:
    """End the active extracted memories backed by the turns just stamped ``stamp``."""
    await lock_user(s, user_id)
    query = select(Memory).where(
        Memory.user_id == user_id, Memory.source == "extracted", Memory.valid_until.is_(None), _backed_by(None, stamp)
    )
    rows = list((await s.execute(query)).scalars())
    for row in rows:
        end_row(row, stamp, TRASH_REASON)
        await record_event(
            s, user_id, "forget", actor="system", lineage_id=row.lineage_id, old_id=row.id, trash=stamp.isoformat()
        )
    return len(rows)


async def restore_derived(s: AsyncSession, user_id: int, stamp: datetime) -> int:
    """Bring back what `trash_derived` ended at ``stamp`` (unless its memory has an active
    version again: one active version per memory), and drop the events it wrote."""
    await lock_user(s, user_id)
    query = select(Memory).where(
        Memory.user_id == user_id, Memory.end_reason == TRASH_REASON, Memory.valid_until == stamp
    )
    back = 0
    for row in (await s.execute(query)).scalars():
        live = select(Memory.id).where(
            Memory.user_id == user_id, Memory.lineage_id == row.lineage_id, Memory.valid_until.is_(None)
        )
        if (await s.execute(live)).first() is not None:
            continue
        row.valid_until = row.end_reason = None
        await s.execute(
            delete(MemoryHistory).where(
                MemoryHistory.user_id == user_id,
                MemoryHistory.event == "forget",
                MemoryHistory.old_id == row.id,
                MemoryHistory.meta["trash"].astext == stamp.isoformat(),
            )
        )
        back += 1
    return back


async def _keep_survivors_events(s: AsyncSession, user_id: int, purged: Sequence[int]) -> None:
    """An event of mining that made a surviving row from a purged one (a later conversation's
    ``update`` of a memory the purged one taught) is that row's creation: it stays, with the
    purged side cut off (``old_id`` NULL, and no ``reason`` or ``candidate``, which may quote the
    purged words), so the surviving memory's history still says where it came from. Undoing it
    is a 409: there is nothing to go back to (`domain.memory_undo`)."""
    await s.execute(
        update(MemoryHistory)
        .where(
            MemoryHistory.user_id == user_id,
            MemoryHistory.actor.startswith("system"),
            MemoryHistory.old_id.in_(purged),
            MemoryHistory.new_id.is_not(None),
            MemoryHistory.new_id.not_in(purged),
        )
        .values(old_id=None, meta=MemoryHistory.meta.op("-")(_QUOTING_KEYS).op("||")(_EARLIER_PURGED))
        .execution_options(synchronize_session=False)
    )


_UNCITE = text("""
UPDATE memories m
SET turn_seqs = ARRAY(
    SELECT x FROM unnest(m.turn_seqs) WITH ORDINALITY AS u(x, i) WHERE x <> ALL(:seqs) ORDER BY i
)
WHERE m.user_id = :uid AND m.conversation_id = :conv AND m.turn_seqs && :seqs
""").bindparams(bindparam("seqs", type_=ARRAY(Integer)))


async def _uncite(s: AsyncSession, user_id: int, turns: Sequence[tuple[int, int]]) -> None:
    """The memories that outlive a purge (a person's or an agent's, every version) stop citing
    the purged turns: a citation of a turn that is gone points at nothing, and once the whole
    conversation goes (its id on the memory is set null by its key) the seqs would cite no
    conversation at all, which no write accepts (`domain.memory_citations`)."""
    by_conversation: dict[int, list[int]] = {}
    for conversation_id, seq in turns:
        by_conversation.setdefault(int(conversation_id), []).append(int(seq))
    for conversation_id, seqs in by_conversation.items():
        await s.execute(_UNCITE, {"uid": user_id, "conv": conversation_id, "seqs": seqs})


async def purge_derived(s: AsyncSession, user_id: int, turn_ids: Sequence[int]) -> int:
    """Delete for good the extracted memories backed by ``turn_ids`` (live or trashed),
    their history, and skips that quoted those turns; one ``purge`` row per memory stays,
    recording what the deleted versions were (`memory_scope.REACH`: which agents' revision
    it moves, their other events having lost their rows)."""
    if not turn_ids:
        return 0
    await lock_user(s, user_id)
    doomed = select(
        Memory.id, Memory.lineage_id, Memory.layer, Memory.category, Memory.agent_id, Memory.valid_until.is_(None)
    ).where(Memory.user_id == user_id, Memory.source == "extracted", _backed_by(turn_ids, None))
    found = (await s.execute(doomed)).all()
    ids = [int(i) for i, *_ in found]
    turns = (await s.execute(select(Turn.conversation_id, Turn.seq).where(Turn.id.in_(list(turn_ids))))).all()
    quoted = [
        and_(
            MemoryHistory.meta["conversation_id"].astext == str(conv),
            MemoryHistory.meta["turn_seqs"].contains([seq]),
        )
        for conv, seq in turns
    ]
    if quoted:
        await s.execute(
            delete(MemoryHistory).where(
                MemoryHistory.user_id == user_id, MemoryHistory.event.in_(QUOTING_EVENTS), or_(*quoted)
            )
        )
        await _purge_proposals(s, user_id, turns)
    await _uncite(s, user_id, turns)
    if not ids:
        return 0
    recorded = await version_records(s, user_id, ids)  # before their history goes
    mining = MemoryHistory.actor.startswith("system")  # a person's own events on it are theirs
    await _keep_survivors_events(s, user_id, ids)
    await s.execute(
        delete(MemoryHistory).where(
            MemoryHistory.user_id == user_id, mining, or_(MemoryHistory.old_id.in_(ids), MemoryHistory.new_id.in_(ids))
        )
    )
    await s.execute(delete(Memory).where(Memory.user_id == user_id, Memory.id.in_(ids)))
    versions: dict[int, list[Version]] = {}
    for _, lineage, layer, category, agent, active in found:
        versions.setdefault(int(lineage), []).append((layer, category, agent, bool(active)))
    for lineage, deleted in sorted(versions.items()):
        await record_event(
            s, user_id, "purge", actor="system", lineage_id=lineage, why="its conversation was purged",
            reach=purge_reach(deleted), versions=recorded.get(lineage, []),  # VERSIONS
        )  # fmt: skip
    return len(ids)
