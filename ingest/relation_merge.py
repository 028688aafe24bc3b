"""Two entities' relations made one timeline, as mining would have written them in one.

Used when a restore joins an entity to the one mining would have put its mentions on
(`ingest.entity_unify`): the relations move with the mentions, and each timeline they land
in (one subject's predicate) is put back into the shape `ingest.graph.record_relation`
keeps, so the unique "one current row" indexes hold and the history reads in time order:

* a single-valued predicate is one chain in ``valid_from`` order: a row still open, or
  closed after the next value began, is closed when the next value begins (a row ended
  earlier, by `ingest.predicates.ENDED_BY`, keeps its end); a value that only repeats the
  one before it while that one held is the repeat ``record_relation`` never stores, so it
  is dropped and the row before takes its end and its sources (the turns that said it:
  `ingest.relation_sources`);
* a multi-valued predicate keeps one current row per value: a later current repeat is dropped.

A repeat is dropped only when both rows are live (`ingest.graph_liveness.live_relation`):
beside a row whose drawer is in the trash the live one is kept, and the trashed one is
closed when it begins, so a later restore or purge of either loses nothing.

Mining itself stores a repeat of a trashed row in the same way (`record_relation`); when the
restore makes both live, `fold_repeats` makes the restored entities' timelines one in the
same way, so a restore gives the timeline mining would have given with nothing trashed.

When only the mentions after a drawer join (a short name heard before the longer one was,
`ingest.entity_unify`), a row moves by its first telling, and a row first told before that
drawer but told again after it keeps only its earlier turns: each later one is told of the
entity joined into, as mining would have told it (`_retell`, through `record_relation`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ARRAY, BigInteger, ColumnElement, and_, delete, func, literal, select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.graph import record_relation, same_value
from ingest.graph_liveness import live_relation
from ingest.relation_sources import adopt_sources
from loci.models import Drawer, Relation, RelationSource

__all__ = ["fold_repeats", "move_objects", "move_subjects"]


@dataclass(slots=True)
class _Fact:
    id: int
    subject: int
    predicate: str
    multi: bool
    value: str | None
    object_id: int | None
    valid_from: datetime
    valid_to: datetime | None
    live: bool


@dataclass(slots=True)
class _Edit:
    """What one timeline needs: rows to drop (each with the row it repeats, which takes its
    sources), and rows whose ``valid_to`` changes."""

    drop: dict[int, int]
    close: dict[int, datetime | None]


async def _facts(s: AsyncSession, where: ColumnElement[bool]) -> list[_Fact]:
    rows = await s.execute(
        select(
            Relation.id,
            Relation.subject_id,
            Relation.predicate,
            Relation.multi,
            Relation.object_value,
            Relation.object_entity_id,
            Relation.valid_from,
            Relation.valid_to,
            live_relation(Relation),
        ).where(where)
    )
    return [_Fact(*row) for row in rows]


def _same_thing(before: _Fact, after: _Fact) -> bool:
    """Both rows give the same value: `record_relation`'s rule (the same words, or the same entity)."""
    return same_value(after.value, after.object_id, before.value, before.object_id)


def _repeats(before: _Fact, after: _Fact) -> bool:
    """``after`` is the repeat mining never stores: the same value, both rows live."""
    return _same_thing(before, after) and before.live and after.live


def _chain(facts: list[_Fact], edit: _Edit) -> None:
    """One single-valued timeline (see the module doc)."""
    kept: list[_Fact] = []
    for f in sorted(facts, key=lambda f: (f.valid_from, f.id)):
        last = kept[-1] if kept else None
        held = last is not None and (last.valid_to is None or last.valid_to >= f.valid_from)
        if last is not None and held and _repeats(last, f):
            edit.drop[f.id] = last.id
            last.valid_to = f.valid_to
            edit.close[last.id] = f.valid_to
            continue
        if last is not None and (last.valid_to is None or last.valid_to > f.valid_from):
            last.valid_to = f.valid_from
            edit.close[last.id] = f.valid_from
        kept.append(f)


def _one_current(facts: list[_Fact], edit: _Edit) -> None:
    """One multi-valued predicate: one current row per value (see the module doc)."""
    current: list[_Fact] = []
    for f in sorted(facts, key=lambda f: (f.valid_from, f.id)):
        if f.valid_to is not None:
            continue
        first = next((c for c in current if _same_thing(c, f)), None)
        if first is None:
            current.append(f)
        elif _repeats(first, f):
            edit.drop[f.id] = first.id
        else:
            edit.close[first.id] = f.valid_from
            current[current.index(first)] = f


async def _normalise(s: AsyncSession, facts: Iterable[_Fact]) -> set[int]:
    """Write what the timelines of ``facts`` (grouped by subject and predicate) need;
    returns the rows dropped."""
    timelines: dict[tuple[int, str], list[_Fact]] = {}
    for f in facts:
        timelines.setdefault((f.subject, f.predicate), []).append(f)
    edit = _Edit({}, {})
    for group in timelines.values():
        (_one_current if group[0].multi else _chain)(group, edit)
    return await _write(s, edit)


async def _write(s: AsyncSession, edit: _Edit) -> set[int]:
    """Apply ``edit``; returns the rows dropped (their sources now the kept rows')."""
    if edit.drop:
        await adopt_sources(s, edit.drop)
        await s.execute(delete(Relation).where(Relation.id.in_(list(edit.drop))))
    closes = [{"id": i, "valid_to": at} for i, at in edit.close.items() if i not in edit.drop]
    if closes:
        await s.execute(update(Relation), closes)
    return set(edit.drop)


def _lanes(facts: Iterable[_Fact]) -> list[list[_Fact]]:
    """The rows that follow one another in time: a single-valued timeline (one subject's
    predicate), or the rows of one value of a multi-valued one (`_same_thing`: the same
    words or the same entity). One pass, however long the user's own timeline is."""
    lanes: list[list[_Fact]] = []
    found: dict[tuple[int, str, str | int | None], int] = {}  # (subject, predicate, words or entity) → lane
    for f in facts:
        keys: list[tuple[int, str, str | int | None]] = [(f.subject, f.predicate, None)]
        if f.multi:
            keys = [(f.subject, f.predicate, " ".join((f.value or "").lower().split()))]
            keys += [(f.subject, f.predicate, f.object_id)] if f.object_id is not None else []
        at = next((found[k] for k in keys if k in found), None)
        if at is None:
            at = len(lanes)
            lanes.append([])
        lanes[at].append(f)
        found.update(dict.fromkeys(keys, at))
    return lanes


async def fold_repeats(s: AsyncSession, user_id: int, subject_ids: Collection[int]) -> set[int]:
    """After a restore: the facts about ``subject_ids`` told again while the chat that first
    told them was in the trash become the one row mining keeps of a repeat.

    `ingest.graph.record_relation` repeats only a live row, so a fact told again beside a
    trashed one is stored with its own source and supersedes the trashed row as a new value
    would (the trashed row closed where the new one begins, or the new one, told as of
    earlier, closed where the trashed one begins). Once both are live again the later one is
    the repeat mining never stores: it is dropped and the earlier one takes its end and its
    sources, as mining would have recorded the repeat (`_chain`). Only a lane (`_lanes`)
    holding such a repeat is written, so a timeline with none is left exactly as mining wrote
    it. Returns the entities the dropped rows named, whose figures may change.
    """
    if not subject_ids:
        return set()
    among = Relation.subject_id == func.any(literal(sorted(subject_ids), ARRAY(BigInteger)))
    facts = await _facts(s, and_(Relation.user_id == user_id, among))
    edit = _Edit({}, {})
    for lane in _lanes(facts):
        one = _Edit({}, {})
        _chain(lane, one)
        if one.drop:
            edit.drop |= one.drop
            edit.close |= one.close
    dropped = await _write(s, edit)
    return {x for f in facts if f.id in dropped for x in (f.subject, f.object_id) if x is not None}


def _from_drawers(after: int | None) -> list[ColumnElement[bool]]:
    """The relations first told by drawers mined after drawer ``after`` (all when None).

    The first telling decides where a row goes: every later one is after ``after`` too. A row
    first told by then but told again after it is the one whose turns split; `_told_again`
    gives those later turns to the entity joined into."""
    return [] if after is None else [Relation.source_drawer_id > after]


@dataclass(slots=True)
class _Retold:
    relation: Relation
    drawer: int
    at: datetime


async def _told_again(s: AsyncSession, user_id: int, where: ColumnElement[bool], after: int | None) -> list[_Retold]:
    """The rows matching ``where`` first told by drawer ``after`` or before (none when None:
    everything moves) with each turn after it that told them again, in mining order, when it
    was said: mining would have told those of the entity joined into (`_retell`)."""
    if after is None:
        return []
    rows = await s.execute(
        select(Relation, RelationSource.drawer_id, Drawer.occurred_at)
        .join(RelationSource, RelationSource.relation_id == Relation.id)
        .join(Drawer, Drawer.id == RelationSource.drawer_id)
        .where(Relation.user_id == user_id, where, Relation.source_drawer_id <= after, RelationSource.drawer_id > after)
        .order_by(RelationSource.drawer_id)
    )
    return [_Retold(r, int(drawer), at) for r, drawer, at in rows.all()]


async def _retell(s: AsyncSession, user_id: int, retold: Iterable[_Retold], src: int, dst: int) -> None:
    """Each later telling of a row about ``src`` (as subject or object) is no longer one of its
    sources, and is told of ``dst`` as mining tells a fact (`record_relation`: a repeat of what
    ``dst`` holds adds the turn as its source, a new value supersedes), as of the turn's time:
    a repeat kept no date of its own."""
    for t in retold:
        r = t.relation
        said = (RelationSource.relation_id == r.id, RelationSource.drawer_id == t.drawer)
        await s.execute(delete(RelationSource).where(*said))
        await record_relation(
            s,
            user_id,
            subject_id=dst if r.subject_id == src else r.subject_id,
            predicate=r.predicate,
            value=r.object_value or "",
            object_entity_id=dst if r.object_entity_id == src else r.object_entity_id,
            valid_from=t.at,
            source_drawer_id=t.drawer,
            confidence=r.confidence,
        )


async def move_subjects(s: AsyncSession, user_id: int, src: int, dst: int, after: int | None) -> None:
    """Give ``dst`` the facts about ``src`` learned after drawer ``after`` (all when None),
    each timeline made one first (so the current-row indexes never see two current rows);
    a fact first told by then and told again after is told again of ``dst`` (`_retell`)."""
    retold = await _told_again(s, user_id, Relation.subject_id == src, after)
    await _move_subjects(s, user_id, src, dst, after)
    await _retell(s, user_id, retold, src, dst)


async def _move_subjects(s: AsyncSession, user_id: int, src: int, dst: int, after: int | None) -> None:
    moving = await _facts(s, and_(Relation.user_id == user_id, Relation.subject_id == src, *_from_drawers(after)))
    if not moving:
        return
    held = await _facts(
        s,
        and_(
            Relation.user_id == user_id,
            Relation.subject_id == dst,
            Relation.predicate.in_({f.predicate for f in moving}),
        ),
    )
    for f in moving:  # one timeline with dst's own, as if mined onto dst
        f.subject = dst
    dropped = await _normalise(s, [*moving, *held])
    ids = [f.id for f in moving if f.id not in dropped]
    if ids:
        await s.execute(update(Relation).where(Relation.id.in_(ids)).values(subject_id=dst))


async def move_objects(s: AsyncSession, user_id: int, src: int, dst: int, after: int | None) -> None:
    """Point the facts naming ``src`` as their object (learned after drawer ``after``, all
    when None) at ``dst``, and make each timeline that now names ``dst`` twice one; a fact
    first told by then and told again after is told again naming ``dst`` (`_retell`)."""
    retold = await _told_again(s, user_id, Relation.object_entity_id == src, after)
    await _move_objects(s, user_id, src, dst, after)
    await _retell(s, user_id, retold, src, dst)


async def _move_objects(s: AsyncSession, user_id: int, src: int, dst: int, after: int | None) -> None:
    where = and_(Relation.user_id == user_id, Relation.object_entity_id == src, *_from_drawers(after))
    groups: list[Any] = list(
        (await s.execute(select(Relation.subject_id, Relation.predicate).where(where).distinct())).all()
    )
    if not groups:
        return
    await s.execute(update(Relation).where(where).values(object_entity_id=dst))
    timelines = tuple_(Relation.subject_id, Relation.predicate).in_([tuple(g) for g in groups])
    await _normalise(s, await _facts(s, and_(Relation.user_id == user_id, timelines)))
