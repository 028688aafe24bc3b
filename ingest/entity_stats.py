"""An entity's counts and dates as its live sources tell them, refreshed when drawers come and go.

Mining adds to ``mention_count`` and widens ``first_seen``/``last_seen`` as each window is
written (`ingest.graph.upsert_entities`; to an entity with no live source, whose chats are all
in the trash, it writes the window's figures alone, its only live ones); a later
conversation's mentions land on an entity an earlier one made ("Callum" merged into "Callum
Hendry", a second chat about the battery). When
drawers go to the trash, come back or are purged (`domain.trash`, `domain.forget`), those
figures are worked out again from what is still live, so deleting a conversation takes its
mentions off the count and its dates off the span, and a restore puts them back exactly:

* a turn mentions the entity when one of its live drawers is linked to it, or said a relation
  that names it (as subject or object; first or again: `ingest.relation_sources`): the same
  turns mining counted;
* ``mention_count`` is how many such turns there are (0 for the user's own row, whose facts are
  no mentions), ``first_seen``/``last_seen`` the earliest and latest of their times.

An entity with no live source keeps its figures (it is not listed while nothing live names it,
and a purge deletes it), so a restore of the whole of it finds them unchanged. Its name, slug
and aliases are worked out again in the same way, from the spellings of the live mentions
(`ingest.entity_names`).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import ARRAY, BigInteger, and_, case, func, literal, select, union_all, update
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.entity_names import refresh_names
from ingest.extraction import USER_ENTITY
from ingest.graph import entity_slug
from loci.models import Drawer, DrawerEntity, Entity, Relation, RelationSource

__all__ = ["entities_of_drawers", "refresh_entities"]


def _among(column: Any, ids: Collection[int]) -> Any:
    """``column = ANY(:ids)``: one array parameter, however many ids."""
    return column == func.any(literal(sorted(ids), ARRAY(BigInteger)))


async def entities_of_drawers(s: AsyncSession, user_id: int, drawers: Any) -> set[int]:
    """The entities the drawers matching the condition ``drawers`` (on `Drawer`) mention or
    teach a relation about: those whose figures a change to those drawers moves."""
    chosen = select(Drawer.id).where(drawers, Drawer.user_id == user_id)
    linked = select(DrawerEntity.entity_id).where(DrawerEntity.drawer_id.in_(chosen))
    taught = select(RelationSource.relation_id).where(RelationSource.drawer_id.in_(chosen))
    subjects = select(Relation.subject_id).where(Relation.id.in_(taught))
    objects = select(Relation.object_entity_id).where(Relation.id.in_(taught))
    rows = (await s.execute(union_all(linked, subjects, objects))).scalars()
    return {int(x) for x in rows if x is not None}


def _sources() -> Any:
    """(entity, turn, time) for every live drawer that mentions an entity or said a relation
    naming it (any of its sources: `ingest.relation_sources`); a drawer without a turn (written
    by an import) stands for its own."""
    turn = func.coalesce(Drawer.turn_id, -Drawer.id)
    linked = select(DrawerEntity.entity_id.label("entity_id"), turn.label("turn"), Drawer.occurred_at.label("at")).join(
        Drawer, Drawer.id == DrawerEntity.drawer_id
    )
    facts = [
        select(column.label("entity_id"), turn.label("turn"), Drawer.occurred_at.label("at"))
        .join(RelationSource, RelationSource.relation_id == Relation.id)
        .join(Drawer, Drawer.id == RelationSource.drawer_id)
        .where(column.is_not(None), Drawer.deleted_at.is_(None))
        for column in (Relation.subject_id, Relation.object_entity_id)
    ]
    return union_all(linked.where(Drawer.deleted_at.is_(None)), *facts).subquery()


async def refresh_entities(s: AsyncSession, user_id: int, entity_ids: Collection[int]) -> None:
    """Recount and rename the entities ``entity_ids`` from their live sources (see the module doc)."""
    if not entity_ids:
        return
    src = _sources()
    figures = (
        select(
            src.c.entity_id,
            func.count(func.distinct(src.c.turn)).label("turns"),
            func.min(src.c.at).label("first"),
            func.max(src.c.at).label("last"),
        )
        .where(_among(src.c.entity_id, entity_ids))
        .group_by(src.c.entity_id)
        .subquery()
    )
    user_row = and_(Entity.kind == USER_ENTITY.kind, Entity.slug == entity_slug(USER_ENTITY))
    await s.execute(
        update(Entity)
        .where(Entity.user_id == user_id, Entity.id == figures.c.entity_id)
        .values(
            mention_count=case((user_row, 0), else_=figures.c.turns),  # the user's facts are no mentions
            first_seen=figures.c.first,
            last_seen=figures.c.last,
        )
        .execution_options(synchronize_session=False)
    )
    await refresh_names(s, user_id, entity_ids)
