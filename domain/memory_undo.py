"""Undo: reverse the write one history event recorded, by writing forward.

Rows stay append-only: undoing an update does not re-open the old row (that would make
it valid twice, with a gap, and break "as of" reads of the time in between); it
end-dates the new row (``end_reason='undo'``) and inserts a copy of the old one, so the
timeline reads "A, then B, then A again". Undoing an add or a restore end-dates the
row; undoing a forget restores; a link is removed or re-opened; a confirm puts back the
previous ``last_confirmed_at`` (and an extracted memory's confidence) kept in its event.

Only the latest write of a lineage can be undone: after a later write the reversal
would silently drop it. That rule also refuses undoing twice (the undo is the latest
write then) and undoing an undo (write again instead).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from domain.memories import reactivate
from domain.memory_dto import MemoryEvent
from domain.memory_lookup import active_by_id, any_version
from domain.memory_rows import (
    UNDOABLE,
    MemoryStore,
    check_core_room,
    copy_links,
    copy_row,
    end_row,
    event_out,
    lock_user,
    outside_block,
    record_event,
    transaction_now,
)
from loci.errors import Conflict, NotFound
from loci.models import Memory, MemoryHistory, MemoryLink
from loci.settings import MemorySettings

__all__ = ["undo_event"]

Outcome = tuple[Memory | None, Memory | None, MemoryLink | None]
"""What an undo shows: the memory after, the one before, the link it touched."""
Reverser = Callable[[AsyncSession, int, MemoryHistory, MemorySettings], Awaitable[Outcome]]

EVENT_ID = "event_id"
"""What every refusal of an undo names: the caller sent only the event (the route's path parameter);
the rows it reaches are the event's, so a row gone or changed since is that event's 404 or 409."""


async def _undo_add(s: AsyncSession, user_id: int, event: MemoryHistory, _: MemorySettings) -> Outcome:
    row = await active_by_id(s, user_id, _id(event.new_id), field=EVENT_ID)
    end_row(row, await transaction_now(s), "undo")
    return row, None, None


async def _undo_update(s: AsyncSession, user_id: int, event: MemoryHistory, settings: MemorySettings) -> Outcome:
    new = await active_by_id(s, user_id, _id(event.new_id), field=EVENT_ID)
    old = await _replaced(s, user_id, event)
    if old.layer == "core":
        await check_core_room(s, user_id, settings, adding=[old.content], removing=[new.id])
    now = await transaction_now(s)
    end_row(new, now, "undo")
    again = await copy_row(s, old, valid_from=now)
    s.add(again)
    await s.flush()
    await copy_links(s, user_id, new.id, again.id)
    return again, new, None


async def _replaced(s: AsyncSession, user_id: int, event: MemoryHistory) -> Memory:
    """The version an update replaced; purged since (its event kept with ``old_id`` NULL by
    `domain.memory_trash`, or an imported history naming a row no longer there), a 409:
    there is nothing to go back to, and the memory stays as it is."""
    try:
        return await any_version(s, user_id, _id(event.old_id), field=EVENT_ID)
    except (Conflict, NotFound) as e:
        raise Conflict(
            f"event {event.id} cannot be undone: the version it replaced was deleted for good; "
            "update or forget the memory instead",
            field=EVENT_ID,
        ) from e


async def _undo_forget(s: AsyncSession, user_id: int, event: MemoryHistory, settings: MemorySettings) -> Outcome:
    row = await any_version(s, user_id, _id(event.old_id), field=EVENT_ID)
    return await reactivate(s, user_id, row, settings, field=EVENT_ID), row, None


async def _undo_confirm(s: AsyncSession, user_id: int, event: MemoryHistory, _: MemorySettings) -> Outcome:
    row = await active_by_id(s, user_id, _id(event.new_id), field=EVENT_ID)
    previous = event.meta.get("previous_confirmed_at")
    row.last_confirmed_at = datetime.fromisoformat(previous) if isinstance(previous, str) else None
    confidence = event.meta.get("previous_confidence")
    if row.source == "extracted" and isinstance(confidence, int | float):
        row.confidence = float(confidence)
    return row, None, None


async def _link_of(s: AsyncSession, user_id: int, event: MemoryHistory) -> MemoryLink:
    link_id = event.meta.get("link_id")
    found = await s.execute(select(MemoryLink).where(MemoryLink.user_id == user_id, MemoryLink.id == link_id))
    link = found.scalar_one_or_none()
    if link is None:
        raise Conflict(f"the link of event {event.id} no longer exists", field=EVENT_ID)
    return link


async def _undo_link(s: AsyncSession, user_id: int, event: MemoryHistory, _: MemorySettings) -> Outcome:
    link = await _link_of(s, user_id, event)
    link.removed_at = await transaction_now(s)
    return await any_version(s, user_id, link.from_id, field=EVENT_ID), None, link


async def _undo_unlink(s: AsyncSession, user_id: int, event: MemoryHistory, _: MemorySettings) -> Outcome:
    link = await _link_of(s, user_id, event)
    link.removed_at = None
    return await any_version(s, user_id, link.from_id, field=EVENT_ID), None, link


_REVERSERS: dict[str, Reverser] = {
    "add": _undo_add,
    "restore": _undo_add,  # a restore added a version: end it
    "update": _undo_update,
    "forget": _undo_forget,
    "confirm": _undo_confirm,
    "link": _undo_link,
    "unlink": _undo_unlink,
}
assert set(_REVERSERS) == UNDOABLE


def _id(value: int | None) -> int:
    if value is None:  # every undoable event records its rows; a purge may have removed them since
        raise Conflict("the rows of this event no longer exist", field=EVENT_ID)
    return value


async def _latest_check(s: AsyncSession, user_id: int, event: MemoryHistory) -> None:
    later = (
        await s.execute(
            select(MemoryHistory)
            .where(
                MemoryHistory.user_id == user_id,
                MemoryHistory.lineage_id == event.lineage_id,
                MemoryHistory.id > event.id,
            )
            .order_by(MemoryHistory.id)
            .limit(1)
        )
    ).scalar_one_or_none()
    if later is None:
        return
    if later.event == "undo" and later.meta.get("undoes") == event.id:
        raise Conflict(f"event {event.id} was undone already (event {later.id})", field=EVENT_ID)
    raise Conflict(
        f"the memory changed after event {event.id} (event {later.id}, {later.event}): "
        "only the latest write of a memory can be undone",
        field=EVENT_ID,
    )


def _not_undoable(event: MemoryHistory) -> str:
    """Why ``event`` has no undo, and what does the job instead: a memory the system ended
    (its time ran out, unused, merged) comes back by a restore of its last version."""
    hint = f"; to bring the memory back, restore it (POST /v1/memories/{event.old_id}/restore)"
    ended = event.event in ("expire", "merge") and event.old_id is not None
    return f"event {event.id} ({event.event}) cannot be undone: only {', '.join(sorted(UNDOABLE))} events can" + (
        hint if ended else ""
    )


async def undo_event(store: MemoryStore, user_id: int, event_id: int) -> MemoryEvent:
    """Reverse history event ``event_id`` (see the module); one transaction, one ``undo`` event."""
    async with store.db.user_session(user_id) as s:
        await lock_user(s, user_id)
        found = await s.execute(
            select(MemoryHistory).where(MemoryHistory.user_id == user_id, MemoryHistory.id == event_id)
        )
        event = found.scalar_one_or_none()
        if event is None:
            raise NotFound(f"memory event {event_id} not found", field=EVENT_ID)
        if event.event not in UNDOABLE:
            raise Conflict(_not_undoable(event), field=EVENT_ID)
        await _latest_check(s, user_id, event)
        memory, previous, link = await _REVERSERS[event.event](s, user_id, event, store.settings)
        history = await record_event(
            s, user_id, "undo", actor="user", lineage_id=event.lineage_id,
            old_id=previous.id if previous is not None else event.new_id,
            new_id=memory.id if memory is not None else None, undoes=event.id, undone=event.event,
            **outside_block(store.settings, memory, previous),
        )  # fmt: skip
        return await event_out(s, history, memory, previous, link)
