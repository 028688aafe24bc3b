"""After a restore, one entity per real thing: what came back joins the entity mining would
have put it on, or takes in what mining would have put on it.

Why: while a conversation is in the trash its entities are not live, and mining resolves
names against the live graph only. So a chat mined meanwhile makes entities of its own: a
"Derek" when the trashed chat had said "Derek Hale" (a short name is merged only into a live
longer one, `ingest.entity_merge.short_names`), or a second "Derek Hale" once the first was
renamed by what was left of it and its slug given up (`ingest.entity_names`). Restoring the
chat brings both back, with the mentions, relations and timelines split between them.

Which entities are one thing is decided by mining's own rules, read here, not restated:

* **the same key**: the upsert merges every mention whose key (`ingest.graph.entity_slug`)
  an entity's slug is, so two live entities of a kind whose slugs or names' keys meet are
  one: the younger one's everything joins the older;
* **a short name** of exactly one longer live name (`short_names` itself: a person's, a
  product's or a firm's): mining puts a short mention on the longer entity once that
  exists, so the short entity's mentions from drawers mined after the longer one's first
  live source (drawer ids grow in mining order) join it; earlier ones stay, as mining
  left them ("Derek from the gym", before any "Derek Hale" was heard of).

A fact the restored chat told and a chat mined meanwhile told again about the same entity
("Derek Hale lives in Leeds" in both) is one row again, as mining keeps a repeat once
(`ingest.relation_merge.fold_repeats`): mining stored the second with its own source while
the first was in the trash, so that neither the trash nor a purge of it could lose the fact.

Moving loses nothing and doubles nothing: a drawer link moves with its spellings (merged
with the link the drawer already has to the survivor), relations move as subject and as
object with their timelines made one (`ingest.relation_merge`), an entity left with no
link and no relation is deleted, and the survivors are recounted and named again from
their live sources (`ingest.entity_stats.refresh_entities`), as mining would have counted them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, delete, exists, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.entity_merge import short_names
from ingest.entity_stats import refresh_entities
from ingest.extraction import USER_ENTITY, EntityMention
from ingest.graph import entity_slug
from ingest.graph_liveness import live_entity
from ingest.relation_merge import fold_repeats, move_objects, move_subjects
from loci.models import Drawer, DrawerEntity, Entity, Relation, RelationSource

__all__ = ["unify_entities"]


@dataclass(frozen=True, slots=True)
class _Live:
    id: int
    kind: str
    name: str
    slug: str

    @property
    def key(self) -> str:
        """What mining keys a mention of this name by (the upsert's conflict target)."""
        return entity_slug(EntityMention(self.kind, self.name))[:300]

    @property
    def keys(self) -> set[str]:
        return {self.slug, self.key}


async def _live(s: AsyncSession, user_id: int, where: ColumnElement[bool]) -> list[_Live]:
    """The user's live entities matching ``where``, oldest first, never the user's own row."""
    rows = await s.execute(
        select(Entity.id, Entity.kind, Entity.name, Entity.slug)
        .where(
            Entity.user_id == user_id,
            where,
            ~and_(Entity.kind == USER_ENTITY.kind, Entity.slug == entity_slug(USER_ENTITY)),
            live_entity(Entity.id),
        )
        .order_by(Entity.id)
    )
    return [_Live(int(i), str(k), str(n), str(sl)) for i, k, n, sl in rows]


async def _first_source(s: AsyncSession, entity_id: int) -> int | None:
    """The first live drawer that mentions the entity or taught a live fact about it."""
    linked = (
        select(func.min(DrawerEntity.drawer_id))
        .join(Drawer, Drawer.id == DrawerEntity.drawer_id)
        .where(DrawerEntity.entity_id == entity_id, Drawer.deleted_at.is_(None))
    )
    taught = (  # any live turn that said such a fact, not only the first (`ingest.relation_sources`)
        select(func.min(RelationSource.drawer_id))
        .join(Relation, Relation.id == RelationSource.relation_id)
        .join(Drawer, Drawer.id == RelationSource.drawer_id)
        .where(or_(Relation.subject_id == entity_id, Relation.object_entity_id == entity_id))
        .where(Drawer.deleted_at.is_(None))
    )
    found = [x for x in ((await s.scalar(linked)), (await s.scalar(taught))) if x is not None]
    return min(found) if found else None


def _spellings(held: list[str] | None, moved: list[str] | None) -> list[str] | None:
    """One drawer's spellings of two entities made one, in the order stored; unknown (an
    import's link) when either is."""
    if held is None or moved is None:
        return None
    return held + [x for x in moved if x not in held]


async def _move_links(s: AsyncSession, user_id: int, src: int, dst: int, after: int | None) -> None:
    """``src``'s drawer links (of drawers after ``after``, all when None) become ``dst``'s."""
    cond = [DrawerEntity.user_id == user_id, DrawerEntity.entity_id == src]
    if after is not None:
        cond.append(DrawerEntity.drawer_id > after)
    moving = dict((await s.execute(select(DrawerEntity.drawer_id, DrawerEntity.surfaces).where(*cond))).all())
    if not moving:
        return
    held = dict(
        (
            await s.execute(
                select(DrawerEntity.drawer_id, DrawerEntity.surfaces).where(
                    DrawerEntity.entity_id == dst, DrawerEntity.drawer_id.in_(list(moving))
                )
            )
        ).all()
    )
    if held:
        both = [{"drawer_id": d, "entity_id": dst, "surfaces": _spellings(held[d], moving[d])} for d in held]
        await s.execute(update(DrawerEntity), both)
        await s.execute(delete(DrawerEntity).where(*cond, DrawerEntity.drawer_id.in_(list(held))))
    await s.execute(update(DrawerEntity).where(*cond).values(entity_id=dst))


async def _move(s: AsyncSession, user_id: int, src: int, dst: int, after: int | None) -> None:
    """What mining would have put on ``dst``, from drawers after ``after`` (all when None)."""
    await _move_links(s, user_id, src, dst, after)
    await move_subjects(s, user_id, src, dst, after)
    await move_objects(s, user_id, src, dst, after)


async def _same_keys(s: AsyncSession, user_id: int, back: Sequence[_Live]) -> dict[int, int]:
    """Join the entities of ``back`` and the live ones sharing a key with them into the
    oldest of each such set; returns {joined: survivor}."""
    keys = set().union(*(e.keys for e in back))
    names = {e.name.lower() for e in back}
    found = await _live(s, user_id, or_(Entity.slug.in_(keys), func.lower(Entity.name).in_(names)))
    joined: dict[int, int] = {}
    for e in back:
        if e.id in joined:
            continue
        same = [o for o in found if o.kind == e.kind and o.keys & e.keys and o.id not in joined]
        if len(same) < 2:  # e itself is among them
            continue
        keep = min(same, key=lambda o: o.id)
        for other in same:
            if other.id != keep.id:
                await _move(s, user_id, other.id, keep.id, None)
                joined[other.id] = keep.id
    return joined


def _shorter_slugs(e: _Live) -> list[str]:
    """Slugs that could be a short name of ``e``'s (its leading words for a person, its
    trailing ones for a product, its leading ones for a firm: "tidewater" of "Tidewater
    Software", "o-neill" of "O'Neill Builders"); `short_names` decides."""
    parts = e.slug.split("-")
    if e.kind == "p":
        return ["-".join(parts[:n]) for n in range(1, len(parts))]
    if e.kind == "o":  # `short_names` takes one word only, in as many parts as its slug makes of it ("o-neill")
        return ["-".join(parts[:n]) for n in range(1, len(parts))]
    return ["-".join(parts[n:]) for n in range(1, len(parts))] if e.kind == "i" else []


async def _short_ones(s: AsyncSession, user_id: int, back: Sequence[_Live]) -> list[tuple[_Live, _Live]]:
    """(short, longer) pairs with one side in ``back``: the short entity's name is, by
    `short_names`, a short name of exactly the longer live one."""
    shorter = {(e.kind, slug) for e in back for slug in _shorter_slugs(e)}
    slugs = {slug for _, slug in shorter}
    candidates = await _live(s, user_id, Entity.slug.in_(slugs)) if slugs else []
    pool = {e.id: e for e in [*back, *candidates] if e.kind in ("p", "i", "o")}
    mentions = {EntityMention(e.kind, e.name): e for e in pool.values()}
    longer = await short_names(s, user_id, {m: (e.kind, e.key) for m, e in mentions.items()})
    by_key = {(e.kind, e.slug): e for e in await _live(s, user_id, _slug_in(longer.values()))} if longer else {}
    back_ids = {e.id for e in back}
    pairs = []
    for m, key in longer.items():
        short, long = mentions[m], by_key.get(key)
        if long is not None and long.id != short.id and back_ids & {short.id, long.id}:
            pairs.append((short, long))
    return pairs


def _slug_in(keys: Collection[tuple[str, str]]) -> ColumnElement[bool]:
    return or_(*(and_(Entity.kind == kind, Entity.slug == slug) for kind, slug in set(keys)))


async def _take_back_slugs(s: AsyncSession, user_id: int, ids: Collection[int]) -> None:
    """A survivor whose slug is not its name's key (it was renamed while the entity holding
    that key was made) takes the key back now that the joined one gave it up, as mining
    would have keyed it; a slug another entity holds (one in the trash) stays as it is."""
    for e in await _live(s, user_id, Entity.id.in_(list(ids))):
        held = select(Entity.id).where(Entity.user_id == user_id, Entity.kind == e.kind, Entity.slug == e.key)
        if e.slug == e.key or await s.scalar(held.exists().select()):
            continue
        try:
            async with s.begin_nested():  # a window committing the same slug meanwhile: keep the old one
                await s.execute(update(Entity).where(Entity.id == e.id).values(slug=e.key))
        except IntegrityError:
            pass


async def _drop_empty(s: AsyncSession, user_id: int, ids: Collection[int]) -> set[int]:
    """Delete those of ``ids`` nothing refers to any more (no link, no relation, live or not)."""
    if not ids:
        return set()
    linked = exists().where(DrawerEntity.entity_id == Entity.id)
    related = exists().where(or_(Relation.subject_id == Entity.id, Relation.object_entity_id == Entity.id))
    gone = await s.execute(
        delete(Entity)
        .where(Entity.user_id == user_id, Entity.id.in_(list(ids)), ~linked, ~related)
        .returning(Entity.id)
    )
    return {int(i) for i in gone.scalars()}


async def unify_entities(s: AsyncSession, user_id: int, entity_ids: Collection[int]) -> None:
    """Make the live entities of ``entity_ids`` (what a restore brought back) and the live
    ones mining would have merged them with one entity each (see the module doc)."""
    if not entity_ids:
        return
    folded = await fold_repeats(s, user_id, entity_ids)  # facts told again meanwhile: one row each
    back = await _live(s, user_id, Entity.id.in_(list(entity_ids)))
    if not back:
        await refresh_entities(s, user_id, folded)
        return
    joined = await _same_keys(s, user_id, back)
    kept = set(joined.values())
    if joined:  # named again before the short names are read
        await _drop_empty(s, user_id, set(joined))
        await refresh_entities(s, user_id, kept)
        await _take_back_slugs(s, user_id, kept)
    back = await _live(s, user_id, Entity.id.in_(list((set(entity_ids) | kept) - set(joined))))
    touched = kept | folded
    for short, long in await _short_ones(s, user_id, back):
        after = await _first_source(s, long.id)
        if after is not None:
            await _move(s, user_id, short.id, long.id, after)
            touched |= {short.id, long.id}
    emptied = await _drop_empty(s, user_id, touched)
    await refresh_entities(s, user_id, touched - emptied)
