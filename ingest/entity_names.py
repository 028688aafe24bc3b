"""An entity's name, slug and aliases as its live mentions spell it, refreshed when drawers come and go.

Mining names an entity by the first spelling that is no short name of a longer one and keeps
every spelling as an alias (`ingest.graph.upsert_entities`); a later chat's "Callum" lands on
the "Callum Hendry" an earlier one made (`ingest.entity_merge`). Each drawer link records the
spellings its drawer used (``drawer_entities.surfaces``), so when drawers are trashed,
restored or purged (`ingest.entity_stats.refresh_entities`) the words are worked out again
from what is still live, by the same rule (`ingest.entity_merge.display_name`):

* the spellings are those of the live links, and the values of live relations that name the
  entity as their object, in the order mining wrote them (drawer by drawer);
* a spelling is short when it abbreviates another of them (`ingest.entity_merge.shortens`);
  the name is the first that is not, else the first; the aliases are all of them in lower case,
  the ones still stored keeping their order;
* the slug follows a changed name when no other entity of the user's, of the same kind, holds
  that slug (not even one in the trash, which a restore brings back); else it stays.

So deleting the chat that said "Callum Hendry" leaves "Callum", and restoring it gives the
name back. An entity with no live spelling, or with a live link whose spelling is not known
(one an import wrote), keeps what it has.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ARRAY, BigInteger, and_, func, literal, select, tuple_, union_all, update
from sqlalchemy.dialects.postgresql import distinct_on
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.entity_merge import display_name, shortens
from ingest.extraction import USER_ENTITY, EntityMention
from ingest.graph import entity_slug
from ingest.graph_liveness import live_relation
from ingest.relation_sources import first_live_source
from loci.models import Drawer, DrawerEntity, Entity, Relation

__all__ = ["refresh_names"]

_AFTER_MENTIONS = 1_000_000
"""A relation's value comes after its drawer's own mentions, as mining saw it (after the turn's)."""


@dataclass(slots=True)
class _Named:
    """What refresh_names may write for one entity."""

    id: int
    name: str
    aliases: list[str]
    slug: str


def _among(column: Any, ids: Collection[int]) -> Any:
    """``column = ANY(:ids)``: one array parameter, however many ids."""
    return column == func.any(literal(sorted(ids), ARRAY(BigInteger)))


async def _spellings(s: AsyncSession, entity_ids: Collection[int]) -> dict[int, list[str | None]]:
    """entity → its live spellings, each once, in the order mining wrote them; None stands
    for a live link whose spelling is not known."""
    said = func.jsonb_array_elements_text(func.coalesce(DrawerEntity.surfaces, func.jsonb_build_array(None)))
    spelled = said.table_valued("value", with_ordinality="ord").render_derived(name="spelled")
    links = (
        select(DrawerEntity.entity_id.label("entity_id"), Drawer.id.label("at"), spelled.c.ord, spelled.c.value)
        .join(Drawer, Drawer.id == DrawerEntity.drawer_id)
        .join(spelled, literal(True))
        .where(_among(DrawerEntity.entity_id, entity_ids), Drawer.deleted_at.is_(None))
    )
    values = select(
        Relation.object_entity_id, first_live_source(Relation), literal(_AFTER_MENTIONS), Relation.object_value
    ).where(_among(Relation.object_entity_id, entity_ids), Relation.object_value.is_not(None), live_relation(Relation))
    both = union_all(links, values).subquery()
    first = (
        select(both.c.entity_id, both.c.value, both.c.at, both.c.ord)
        .ext(distinct_on(both.c.entity_id, both.c.value))
        .order_by(both.c.entity_id, both.c.value, both.c.at, both.c.ord)
        .subquery()
    )
    rows = await s.execute(select(first).order_by(first.c.entity_id, first.c.at, first.c.ord))
    out: dict[int, list[str | None]] = {}
    for entity_id, value, _, _ in rows:
        out.setdefault(int(entity_id), []).append(value)
    return out


def _named(entity: Any, spellings: Sequence[str]) -> _Named:
    """The entity's name, aliases and wished-for slug from its live ``spellings`` (module doc)."""
    keys = {x: entity_slug(EntityMention(entity.kind, x)) for x in spellings}
    flagged = [(x, any(shortens(entity.kind, x, keys[x], keys[y]) for y in spellings if y != x)) for x in spellings]
    name = display_name(flagged)[:300]
    live = {x.lower() for x in spellings}
    aliases = [a for a in entity.aliases if a in live] + sorted(live - set(entity.aliases))
    slug = entity.slug if name == entity.name else entity_slug(EntityMention(entity.kind, name))[:300]
    return _Named(entity.id, name, aliases, slug)


async def _free_slugs(s: AsyncSession, user_id: int, wanted: dict[int, tuple[str, str]]) -> dict[int, str]:
    """entity → the new slug of ``wanted`` (entity → (kind, slug)) that no other entity holds
    or wants too: a collision leaves the slug as it is."""
    counts: dict[tuple[str, str], int] = {}
    for key in wanted.values():
        counts[key] = counts.get(key, 0) + 1
    held = await s.execute(
        select(Entity.kind, Entity.slug).where(
            Entity.user_id == user_id, tuple_(Entity.kind, Entity.slug).in_(list(set(wanted.values())))
        )
    )
    taken = {(str(kind), str(slug)) for kind, slug in held}
    return {i: key[1] for i, key in wanted.items() if counts[key] == 1 and key not in taken}


async def refresh_names(s: AsyncSession, user_id: int, entity_ids: Collection[int]) -> None:
    """Name the entities ``entity_ids`` again from their live spellings (see the module doc)."""
    if not entity_ids:
        return
    spelled = await _spellings(s, entity_ids)
    known = {i: [x for x in v if x is not None] for i, v in spelled.items() if None not in v and v}
    if not known:
        return
    rows = await s.execute(
        select(Entity.id, Entity.kind, Entity.name, Entity.slug, Entity.aliases).where(
            Entity.user_id == user_id,
            _among(Entity.id, known),
            ~and_(Entity.kind == USER_ENTITY.kind, Entity.slug == entity_slug(USER_ENTITY)),
        )
    )
    stored = {e.id: e for e in rows}
    named = [_named(e, known[e.id]) for e in stored.values()]
    changed = [n for n in named if (n.name, n.aliases) != (stored[n.id].name, list(stored[n.id].aliases))]
    if changed:
        await s.execute(update(Entity), [{"id": n.id, "name": n.name, "aliases": n.aliases} for n in changed])
    moves = {n.id: (stored[n.id].kind, n.slug) for n in named if n.slug != stored[n.id].slug}
    free = await _free_slugs(s, user_id, moves) if moves else {}
    if free:
        try:
            async with s.begin_nested():  # a window committing the same slug meanwhile: keep the old one
                await s.execute(update(Entity), [{"id": i, "slug": slug} for i, slug in free.items()])
        except IntegrityError:
            pass
