"""Facts whose words name something only the graph knows, recorded as if it were named.

The extractor sees one window's words, never the graph. Two sayings need the graph to be
recorded, and the window's writer, inside its transaction, looks it up:

* an ending that names nothing ("I quit my job today" while at Acme) is recorded as the named
  one, `worked at Acme` (`name_current`, `loci.relation_ends.ENDS_CURRENT`). The rows of the
  window's earlier facts are flushed by then, so "I work at Acme. I quit my job today." in one
  turn works. When several jobs are open, the newest is the one ended;
* a people word as the subject ("my brother started at Google", a `KIN` subject) is the one
  person the user's graph holds as the user's brother (`name_kin`): "my brother Derek" told in
  an earlier chat. None, or two ("my sister Ana", "my sister Zoe"), and the fact is dropped.

Only live rows count (`ingest.graph_liveness.live_relation`): what only a trashed chat told is
nothing the user still has.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.extraction import KIN, USER_ENTITY, EntityMention, RelationFact
from ingest.graph import entity_slug
from ingest.graph_liveness import live_relation
from ingest.predicates import ENDS_CURRENT
from loci.models import Entity, Relation

__all__ = ["Named", "name_current", "name_kin"]


@dataclass(frozen=True, slots=True)
class Named:
    """A fact as the graph records it: its predicate, value and the value's entity, if any."""

    predicate: str
    value: str
    object_entity_id: int | None


async def name_current(s: AsyncSession, user_id: int, subject_id: int, said: Named) -> Named | None:
    """``said`` as recorded: unchanged, unless its predicate ends whatever is current
    (`ENDS_CURRENT`); then the ender valued as the subject's current row of the ended predicate,
    or None (nothing to record) when the subject holds none."""
    if said.predicate not in ENDS_CURRENT:
        return said
    ended, ender = ENDS_CURRENT[said.predicate]
    current = (
        await s.execute(
            select(Relation.object_value, Relation.object_entity_id)
            .where(
                Relation.user_id == user_id,
                Relation.subject_id == subject_id,
                Relation.predicate == ended,
                Relation.valid_to.is_(None),
                live_relation(Relation),
            )
            .order_by(Relation.valid_from.desc(), Relation.id.desc())
            .limit(1)
        )
    ).first()
    if current is None or not current.object_value:
        return None
    return Named(ender, current.object_value, current.object_entity_id)


async def name_kin(s: AsyncSession, user_id: int, facts: Sequence[RelationFact]) -> list[RelationFact]:
    """``facts`` with each `KIN` subject made the one person the user's graph holds by that
    word now, and those it holds no one (or two) by left out. One statement, only when a
    fact has such a subject."""
    roles = {f.subject.name for f in facts if f.subject.kind == KIN}
    if not roles:
        return list(facts)
    me, person = Entity.__table__.alias("me"), Entity.__table__.alias("person")
    rows = await s.execute(
        select(Relation.predicate, func.min(person.c.kind), func.min(person.c.name))
        .join(me, me.c.id == Relation.subject_id)
        .join(person, person.c.id == Relation.object_entity_id)
        .where(
            Relation.user_id == user_id,
            me.c.kind == USER_ENTITY.kind,
            me.c.slug == entity_slug(USER_ENTITY),
            Relation.predicate.in_(sorted(roles)),
            Relation.valid_to.is_(None),
            live_relation(Relation),
        )
        .group_by(Relation.predicate)
        .having(func.count(func.distinct(Relation.object_entity_id)) == 1)
    )
    named = {role: EntityMention(kind, name) for role, kind, name in rows}
    return [
        f if f.subject.kind != KIN else replace(f, subject=named[f.subject.name])
        for f in facts
        if f.subject.kind != KIN or f.subject.name in named
    ]
