"""Where a fact learned late fits in its timeline: mining order is no statement order.

A history imported at once (two years of chats posted newest first, or shuffled, and
completed together) mines a 2023 chat after a 2025 one. The timeline must read as if the
chats had been mined in the order they were said: a single-valued fact is in force from its
``valid_from`` until the next value's, whichever was mined first. So a value older than the
timeline's next row (`later_row`):

- goes in between: the row in force at its time (`row_in_force`) closes there, and the new
  row is born closed at the next row's ``valid_from`` (not at the current row's, which
  left a 2023 job open until 2025 when a 2024 one came between);
- repeats the row in force: that row takes the turn as one more source, as a current repeat does;
- repeats the next row: that row starts earlier (the value was already held then), and the
  row in force closes at the new start ("dating Sofia" in January, mined after "my girlfriend
  Sofia" in May, makes Sofia the partner since January), dated by the earlier turn now
  (`move_start`); unless an ending of the value was said in between ("I handed in my notice
  at Globex" between two "I work at Globex"): then it is another span, born closed at that
  ending (`ended_at`), as a multi-valued repeat told before its ending is
  (`ingest.graph.record_relation`).

And a fact whose ender (`ingest.predicates.ENDED_BY`: "worked at Globex" for "works at
Globex") is already known from a later chat is born closed there (`ended_at`), as a plan
told after its trip is (`ingest.relation_close.fulfilled_at`). Run by
`ingest.graph.record_relation` inside the window's transaction; only live rows count (a
row whose every telling is in the trash neither bounds nor is bounded: `live_relation`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ColumnElement, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.graph_liveness import live_relation
from ingest.predicates import ENDED_BY
from ingest.relation_sources import add_source
from loci.models import Drawer, Relation

__all__ = ["ended_at", "later_row", "move_start", "row_in_force", "told_at"]

_ENDERS = frozenset(ENDED_BY.values())


def _timeline(user_id: int, subject_id: int, predicate: str) -> tuple[ColumnElement[bool], ...]:
    return (
        Relation.user_id == user_id,
        Relation.subject_id == subject_id,
        Relation.predicate == predicate,
        live_relation(Relation),
    )


async def later_row(s: AsyncSession, user_id: int, subject_id: int, predicate: str, at: datetime) -> Relation | None:
    """The subject's earliest live row of ``predicate`` starting after ``at``, locked until
    the window commits; None when ``at`` is the latest (the ordinary case, mining in order)."""
    stmt = (
        select(Relation)
        .where(*_timeline(user_id, subject_id, predicate), Relation.valid_from > at)
        .order_by(Relation.valid_from, Relation.id)
        .limit(1)
        .with_for_update(of=Relation)
    )
    row: Relation | None = (await s.execute(stmt)).scalar()
    return row


async def row_in_force(s: AsyncSession, user_id: int, subject_id: int, predicate: str, at: datetime) -> Relation | None:
    """The subject's live row of ``predicate`` in force at ``at`` (started by then, not ended
    before), latest start first, locked until the window commits."""
    stmt = (
        select(Relation)
        .where(
            *_timeline(user_id, subject_id, predicate),
            Relation.valid_from <= at,
            (Relation.valid_to.is_(None)) | (Relation.valid_to > at),
        )
        .order_by(Relation.valid_from.desc(), Relation.id.desc())
        .limit(1)
        .with_for_update(of=Relation)
    )
    row: Relation | None = (await s.execute(stmt)).scalar()
    return row


async def move_start(s: AsyncSession, user_id: int, row: Relation, at: datetime, drawer_id: int | None) -> None:
    """``row``'s value was already said at ``at``: it starts there, with that turn as a source
    and as the one it is dated by (``source_drawer_id``), the earliest telling now. So purging
    that turn's chat re-dates it to the first telling left, as in date order
    (`ingest.relation_sources.forget_sources`); left on the later turn, the purge would keep
    the moved date."""
    moved = {"valid_from": at} if drawer_id is None else {"valid_from": at, "source_drawer_id": drawer_id}
    await s.execute(update(Relation).where(Relation.id == row.id).values(**moved))
    await add_source(s, user_id, row.id, drawer_id)


async def ended_at(
    s: AsyncSession,
    user_id: int,
    subject_id: int,
    predicate: str,
    value: str,
    object_entity_id: int | None,
    since: datetime,
) -> datetime | None:
    """When a live row ending ``predicate`` for the same thing (the same entity, or the same
    words in any case) was first said at or after ``since``, if ever: "worked at Globex" in
    2024 ends a "works at Globex" from 2023 learned after it."""
    if predicate not in ENDED_BY:
        return None
    same = func.lower(func.coalesce(Relation.object_value, "")) == " ".join(value.lower().split())
    if object_entity_id is not None:
        same = or_(same, Relation.object_entity_id == object_entity_id)
    stmt = select(func.min(Relation.valid_from)).where(
        *_timeline(user_id, subject_id, ENDED_BY[predicate]),
        Relation.valid_from >= since,
        same,
    )
    found: datetime | None = (await s.execute(stmt)).scalar()
    return found


async def told_at(s: AsyncSession, predicate: str, drawer_id: int | None) -> datetime | None:
    """When the turn of ``drawer_id`` said an ending (``predicate`` ends another: `ENDED_BY`),
    which closes only what was in force by then; None for any other predicate."""
    if drawer_id is None or predicate not in _ENDERS:
        return None
    found: datetime | None = (await s.execute(select(Drawer.occurred_at).where(Drawer.id == drawer_id))).scalar()
    return found
