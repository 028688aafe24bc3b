"""Relations that end other relations: a visit carries out the plan to make it
(`ingest.predicates.FULFILLED_BY`), notice handed in ends the job and the title held there
(`ENDED_BY`, `HELD_AT`). Run by `ingest.graph.record_relation` inside the window's
transaction."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select, true, update
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.predicates import ENDED_BY, FULFILLED_BY, HELD_AT
from loci.models import Relation

__all__ = ["close_ended", "close_plans", "fulfilled_at"]


def _same_value(relation: Any, value: str, object_entity_id: int | None) -> ColumnElement[bool]:
    """``relation`` names the same thing: the same entity, or the same words in any case."""
    same_words = func.lower(func.coalesce(relation.object_value, "")) == " ".join(value.lower().split())
    if object_entity_id is None:
        return same_words
    return or_(same_words, relation.object_entity_id == object_entity_id)


async def fulfilled_at(
    s: AsyncSession,
    user_id: int,
    subject_id: int,
    plan: str,
    value: str,
    object_entity_id: int | None,
    since: datetime,
) -> datetime | None:
    """When the subject first carried out ``plan`` for ``value`` at or after ``since``, if ever."""
    stmt = select(func.min(Relation.valid_from)).where(
        Relation.user_id == user_id,
        Relation.subject_id == subject_id,
        Relation.predicate == FULFILLED_BY[plan],
        Relation.valid_from >= since,
        _same_value(Relation, value, object_entity_id),
    )
    found: datetime | None = (await s.execute(stmt)).scalar()
    return found


async def close_plans(
    s: AsyncSession,
    user_id: int,
    subject_id: int,
    predicate: str,
    value: str,
    object_entity_id: int | None,
    at: datetime,
) -> None:
    """Close the subject's open plans that ``predicate`` carries out for ``value``, made by ``at``."""
    plans = [plan for plan, done_by in FULFILLED_BY.items() if done_by == predicate]
    where = (Relation.valid_from <= at,)
    await _close(s, user_id, subject_id, plans, _same_value(Relation, value, object_entity_id), where, at)


async def close_ended(
    s: AsyncSession,
    user_id: int,
    subject_id: int,
    predicate: str,
    value: str,
    object_entity_id: int | None,
    at: datetime,
    *,
    told: datetime | None = None,
) -> None:
    """Close the subject's current rows that ``predicate`` ends for ``value`` (`ENDED_BY`:
    notice handed in at Northwind ends working at Northwind), then the current rows held at
    what closed (`HELD_AT`: the title held at that job). A day said ("today") starts before
    the job's own row may: the row then closes where it began, never before. A row starting
    after ``told`` (when the ending was said) is a later fact, learned first: not ended."""
    ended = [current for current, ender in ENDED_BY.items() if ender == predicate and current not in HELD_AT]
    same = _same_value(Relation, value, object_entity_id)
    until = func.greatest(Relation.valid_from, at)
    by_then = (Relation.valid_from <= func.greatest(at, told),) if told is not None else ()
    closed = await _close(s, user_id, subject_id, ended, same, by_then, until)
    held = [p for p, at_row in HELD_AT.items() if ENDED_BY.get(p) == predicate and at_row in closed]
    await _close(s, user_id, subject_id, held, true(), by_then, until)


async def _close(
    s: AsyncSession,
    user_id: int,
    subject_id: int,
    predicates: list[str],
    same: ColumnElement[bool],
    where: tuple[ColumnElement[bool], ...],
    valid_to: Any,
) -> list[str]:
    """End the subject's open rows of ``predicates`` about the same thing (``same``), at
    ``valid_to``; the predicate of each row closed."""
    if not predicates:
        return []
    closed = await s.execute(
        update(Relation)
        .where(
            Relation.user_id == user_id,
            Relation.subject_id == subject_id,
            Relation.predicate.in_(predicates),
            Relation.valid_to.is_(None),
            same,
            *where,
        )
        .values(valid_to=valid_to)
        .returning(Relation.predicate)
    )
    return list(closed.scalars())
