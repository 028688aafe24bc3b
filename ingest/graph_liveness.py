"""What the graph still knows: the liveness rules every read of entities and relations shares.

Nothing in the graph is rewritten when a drawer is trashed or restored; the reads (the
entity routes, export) look again through these expressions instead, so deleting a drawer
forgets what was learned from it at once and a restore brings it back exactly:

* a relation is live while one of the drawers that said it is (`live_relation`: its
  ``relation_sources``, `ingest.relation_sources`); one with no source left (purged) is gone too;
* an entity is live while a live drawer mentions it or it takes part in a live relation
  (`live_entity`);
* a closed relation whose closer (the one that superseded it, or the one that ended it:
  `ingest.predicates.ENDED_BY`, starting where it closed) is no longer live is closed by the
  next live value instead, or is current again (`effective_valid_to`): forgetting "I moved to
  Lisbon" makes "I live in Paris" current again, forgetting "I handed in my notice at
  Northwind" the job and the title held there (`HELD_AT`), but not a job left earlier;
* a row of a multi-valued predicate ("visited Whitby") is closed only by the same value
  (a row of it told again while the first was in the trash: `ingest.graph.record_relation`),
  never by another one ("visited York");
* a plan ends with the first live row that carries it out (`ingest.predicates.FULFILLED_BY`:
  a visit to the same place, from the plan on), so forgetting the visit makes the plan
  current again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, case, func, null, or_, select, true
from sqlalchemy.orm import aliased

from ingest.predicates import ENDED_BY, FULFILLED_BY, HELD_AT
from loci.models import Drawer, DrawerEntity, Relation, RelationSource

__all__ = ["effective_valid_to", "live_entity", "live_relation"]


def live_relation(relation: Any) -> ColumnElement[bool]:
    """True while ``relation`` (the model or an alias) has a live source drawer: any turn
    that said it (``relation_sources``, by its primary key), not only the first."""
    said, source = aliased(RelationSource), aliased(Drawer)
    return (
        select(said.drawer_id)
        .join(source, source.id == said.drawer_id)
        .where(said.relation_id == relation.id, source.deleted_at.is_(None))
        .exists()
    )


def live_entity(entity_id: Any) -> ColumnElement[bool]:
    """True while a live drawer mentions the entity or it takes part in a live relation."""
    link, drawer, rel = aliased(DrawerEntity), aliased(Drawer), aliased(Relation)
    mentioned = (
        select(link.drawer_id)
        .join(drawer, drawer.id == link.drawer_id)
        .where(link.entity_id == entity_id, drawer.deleted_at.is_(None))
        .exists()
    )
    related = (
        select(rel.id)
        .where(or_(rel.subject_id == entity_id, rel.object_entity_id == entity_id), live_relation(rel))
        .exists()
    )
    return or_(mentioned, related)


def effective_valid_to(relation: Any) -> ColumnElement[datetime | None]:
    """``valid_to`` as the live relations tell it (see the module doc).

    Unchanged while the relation that closed it (a live one starting exactly at
    ``valid_to``) is live, so with nothing trashed every row reads as stored.
    """
    other = aliased(Relation)
    successor = and_(  # a later value of the fact; one value of many is ended only by itself
        other.predicate == relation.predicate, or_(~relation.multi, _same_thing(other, relation))
    )
    same_fact = and_(
        other.user_id == relation.user_id,
        other.subject_id == relation.subject_id,
        successor,
        other.id != relation.id,
        live_relation(other),
    )
    ender = or_(
        *(
            and_(
                relation.predicate == ended,
                other.predicate == by,
                true() if ended in HELD_AT else _same_thing(other, relation),  # the title ends with the job
            )
            for ended, by in ENDED_BY.items()
        )
    )
    closer = and_(
        other.user_id == relation.user_id,
        other.subject_id == relation.subject_id,
        other.id != relation.id,
        live_relation(other),
    )
    # Where `ingest.relation_close` closed it: at the successor or ender, or, for a row closed
    # where it began, at an ender from before ("today" may start before the job's row). That
    # look back is a subquery of its own behind the row's own test: inside one OR, PostgreSQL
    # read every earlier row of the subject for each closed row whatever the row was (a
    # BitmapOr branch), O(n²) in the user's relations: 12,000 took the timeline and the JSON
    # export past the statement timeout (503); now 0.1 s.
    at_end = select(other.id).where(closer, other.valid_from == relation.valid_to, or_(successor, ender))
    looking_back = select(other.id).where(closer, ender, other.valid_from <= relation.valid_to)
    closer_live = or_(at_end.exists(), and_(relation.valid_to == relation.valid_from, looking_back.exists()))
    next_live = select(func.min(other.valid_from)).where(same_fact, other.valid_from > relation.valid_from)
    return case(
        *(
            (relation.predicate == plan, _first_live_fulfilment(relation, done_by))
            for plan, done_by in FULFILLED_BY.items()
        ),
        (relation.valid_to.is_(None), null()),
        (closer_live, relation.valid_to),
        else_=next_live.scalar_subquery(),
    )


def _same_thing(other: Any, relation: Any) -> ColumnElement[bool]:
    """Both rows name the same thing: the same words in any case, or the same entity."""
    return or_(
        func.lower(func.coalesce(other.object_value, "")) == func.lower(func.coalesce(relation.object_value, "")),
        other.object_entity_id == relation.object_entity_id,
    )


def _first_live_fulfilment(relation: Any, done_by: str) -> Any:
    """A plan's end as the live relations tell it: the first live row carrying it out (the same
    subject, ``done_by``, the same thing) from the plan on; NULL, a current plan, when none is."""
    other = aliased(Relation)
    same_thing = _same_thing(other, relation)
    return (
        select(func.min(other.valid_from))
        .where(
            other.user_id == relation.user_id,
            other.subject_id == relation.subject_id,
            other.predicate == done_by,
            other.valid_from >= relation.valid_from,
            same_thing,
            live_relation(other),
        )
        .scalar_subquery()
    )
