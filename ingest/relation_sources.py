"""Which turns said a relation (``relation_sources``): a fact holds while one of them is live.

A relation row is written once, by the first turn that said it; each turn that says it again
while it is current adds its drawer here instead of a row (`ingest.graph.record_relation`).
So trashing the chat that said it first leaves it standing on the others
(`ingest.graph_liveness.live_relation`), and purging that chat deletes the row only when no
other turn said it (`forget_sources`). ``relations.source_drawer_id`` is always one of the
sources: the first one, or after a purge the first one left, and then the row is dated as
that turn told it: nothing in it comes from the purged chat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ARRAY,
    BigInteger,
    ColumnElement,
    and_,
    case,
    delete,
    func,
    insert,
    literal,
    or_,
    select,
    true,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from ingest.predicates import ENDED_BY, FULFILLED_BY, HELD_AT
from loci.batching import row_batches
from loci.models import Drawer, Relation, RelationSource

__all__ = [
    "add_source",
    "add_sources",
    "add_told",
    "adopt_sources",
    "first_live_source",
    "forget_sources",
    "live_sources",
    "sources_from_first",
]


def _among(column: Any, ids: Sequence[int]) -> Any:
    """``column = ANY(:ids)``: one array parameter, however many ids."""
    return column == func.any(literal(list(ids), ARRAY(BigInteger)))


async def add_source(s: AsyncSession, user_id: int, relation_id: int, drawer_id: int | None) -> None:
    """Record that ``drawer_id`` said the relation (once: saying it twice adds nothing)."""
    if drawer_id is None:
        return
    row = {"relation_id": relation_id, "drawer_id": drawer_id, "user_id": user_id}
    await s.execute(pg_insert(RelationSource).values(row).on_conflict_do_nothing())


async def add_told(s: AsyncSession, relation: Mapping[str, Any]) -> None:
    """Insert a new ``relation`` (`Relation`'s column values) with its ``source_drawer_id`` as
    its first source, in one statement (a CTE): a window's new facts each took a second round
    trip for their source."""
    new = insert(Relation).values(dict(relation))
    drawer_id, user_id = relation.get("source_drawer_id"), relation["user_id"]
    if drawer_id is None:
        await s.execute(new)
        return
    row = new.returning(Relation.id).cte("new_relation")
    said = select(row.c.id, literal(drawer_id, BigInteger), literal(user_id, BigInteger))
    await s.execute(insert(RelationSource).from_select(["relation_id", "drawer_id", "user_id"], said))


async def adopt_sources(s: AsyncSession, into: Mapping[int, int]) -> None:
    """Before rows are dropped as repeats of others (``into``: dropped → kept), the kept row
    takes their sources, so every turn that said the fact still holds it up."""
    if not into:
        return
    pairs = select(
        func.unnest(literal(list(into), ARRAY(BigInteger))).label("dropped"),
        func.unnest(literal(list(into.values()), ARRAY(BigInteger))).label("kept"),
    ).subquery()
    moved = select(pairs.c.kept, RelationSource.drawer_id, RelationSource.user_id).join(
        pairs, pairs.c.dropped == RelationSource.relation_id
    )
    stmt = pg_insert(RelationSource).from_select(["relation_id", "drawer_id", "user_id"], moved)
    await s.execute(stmt.on_conflict_do_nothing())


def first_live_source(relation: Any) -> ColumnElement[int | None]:
    """The first live drawer that said ``relation`` (the model or an alias); NULL when none is.

    What an export names as its ``source_drawer_id``: the one source an import rebuilds
    (`sources_from_first`), and one the file holds, where the first turn may be in the trash."""
    said, drawer = aliased(RelationSource), aliased(Drawer)
    first = (
        select(func.min(said.drawer_id))
        .join(drawer, drawer.id == said.drawer_id)
        .where(said.relation_id == relation.id, drawer.deleted_at.is_(None))
    )
    return first.scalar_subquery()


def live_sources(relation: Any) -> ColumnElement[list[int]]:
    """Every live drawer that said ``relation``, first first: what an export carries (the
    first of them it holds as ``source_drawer_id``, the others as ``sources``)."""
    said, drawer = aliased(RelationSource), aliased(Drawer)
    ids = (
        select(said.drawer_id)
        .join(drawer, drawer.id == said.drawer_id)
        .where(said.relation_id == relation.id, drawer.deleted_at.is_(None))
        .order_by(said.drawer_id)
    )
    return func.array(ids.scalar_subquery())


async def add_sources(s: AsyncSession, user_id: int, pairs: Sequence[tuple[int, int]]) -> None:
    """Record each (relation, drawer) in ``pairs`` as said (an import's ``sources``)."""
    rows = [{"relation_id": r, "drawer_id": d, "user_id": user_id} for r, d in pairs]
    for batch in row_batches(rows):
        await s.execute(pg_insert(RelationSource).values(list(batch)).on_conflict_do_nothing())


async def sources_from_first(s: AsyncSession, user_id: int) -> None:
    """Each of the user's relations has its ``source_drawer_id`` among its sources: after an
    import (a file's other ``sources`` are added by `add_sources`; an older file names only that one)."""
    rows = select(Relation.id, Relation.source_drawer_id, Relation.user_id).where(
        Relation.user_id == user_id, Relation.source_drawer_id.is_not(None)
    )
    stmt = pg_insert(RelationSource).from_select(["relation_id", "drawer_id", "user_id"], rows)
    await s.execute(stmt.on_conflict_do_nothing())


async def forget_sources(s: AsyncSession, user_id: int, drawers: Sequence[int]) -> list[tuple[int, int | None]]:
    """A purge of ``drawers``: they no longer said anything. Deletes the relations no turn is
    left to say (and any with no source at all), and points the others' ``source_drawer_id``
    at the first source left, dated as that turn told it (`_retold_from`, the rows it closed
    with it: `_move_closes`); returns the deleted rows' (subject, object entity)."""
    said = await s.execute(
        delete(RelationSource)
        .where(RelationSource.user_id == user_id, _among(RelationSource.drawer_id, drawers))
        .returning(RelationSource.relation_id)
    )
    touched = sorted({int(x) for x in said.scalars()})
    unsaid = ~select(RelationSource.drawer_id).where(RelationSource.relation_id == Relation.id).exists()
    gone = await s.execute(
        delete(Relation)
        .where(
            Relation.user_id == user_id,
            unsaid,
            _among(Relation.id, touched)
            | Relation.source_drawer_id.is_(None)
            | _among(Relation.source_drawer_id, drawers),
        )
        .returning(Relation.subject_id, Relation.object_entity_id)
    )
    rows = [(int(subject), obj) for subject, obj in gone.all()]
    await _move_closes(s, user_id, drawers)
    await s.execute(
        update(Relation)
        .where(
            Relation.user_id == user_id,
            _among(Relation.id, touched) | _among(Relation.source_drawer_id, drawers),
        )
        .values(source_drawer_id=_first_source(Relation), valid_from=_retold_from(Relation, drawers))
        .execution_options(synchronize_session=False)
    )
    return rows


def _first_source(relation: Any) -> ColumnElement[int | None]:
    """The first drawer left that said ``relation`` (NULL when none is)."""
    said = aliased(RelationSource)
    first = select(func.min(said.drawer_id)).where(said.relation_id == relation.id)
    return first.correlate(relation).scalar_subquery()


def _retold_from(relation: Any, purged: Sequence[int]) -> ColumnElement[datetime]:
    """``valid_from`` once ``purged`` went: where the purge took the first telling, the time of
    the first one left, so the fact reads "since" only what a turn still there said (chat A's
    March date goes with chat A); otherwise unchanged.

    The time is the drawer's ``occurred_at``: a repeat keeps no date of its own (as in
    `ingest.relation_merge._retell`), so a date the later turn's words gave is not recovered.
    It never passes the row's ``valid_to`` (a close a later row made stays a valid interval).
    """
    drawer = aliased(Drawer)
    told = select(drawer.occurred_at).where(drawer.id == _first_source(relation)).scalar_subquery()
    since = func.least(func.coalesce(told, relation.valid_from), func.coalesce(relation.valid_to, told))
    return case((_among(relation.source_drawer_id, purged), since), else_=relation.valid_from)


def _closes(new: Any, old: Any) -> ColumnElement[bool]:
    """``new`` is what closes ``old`` when mined (`ingest.graph.record_relation`): a later value
    (of a multi-valued predicate only the same one), the fact that ends it (`ENDED_BY`; a title
    `HELD_AT` the job whatever its value), or the visit that carries out the plan (`FULFILLED_BY`)."""
    same = or_(
        func.lower(func.coalesce(old.object_value, "")) == func.lower(func.coalesce(new.object_value, "")),
        old.object_entity_id == new.object_entity_id,
    )
    ends = [and_(old.predicate == new.predicate, or_(~new.multi, same))]
    ends += [
        and_(old.predicate == ended, new.predicate == by, same if ended not in HELD_AT else true())
        for ended, by in ENDED_BY.items()
    ]
    ends += [and_(old.predicate == plan, new.predicate == by, same) for plan, by in FULFILLED_BY.items()]
    return or_(*ends)


async def _move_closes(s: AsyncSession, user_id: int, purged: Sequence[int]) -> None:
    """Before a fact whose first telling ``purged`` held is re-dated (`_retold_from`): the rows it
    closed at the old date close at the new one, as mining the turns left would have closed them
    (and as reads show: `ingest.graph_liveness.effective_valid_to` finds no closer at the old
    date, so it closes them at the next live value). Stored, not only read, as recall reads the
    stored close (`retrieval.superseded`: a turn ranks below the one whose row starts where its
    row ends)."""
    new = aliased(Relation)
    await s.execute(
        update(Relation)
        .where(
            Relation.user_id == user_id,
            new.user_id == user_id,
            _among(new.source_drawer_id, purged),
            Relation.subject_id == new.subject_id,
            Relation.id != new.id,
            Relation.valid_to == new.valid_from,
            _closes(new, Relation),
        )
        .values(valid_to=func.greatest(Relation.valid_from, _retold_from(new, purged)))
        .execution_options(synchronize_session=False)
    )
