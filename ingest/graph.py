"""The temporal knowledge graph: entities, and relations with validity intervals.

Writes run inside the pipeline's window transaction. A relation is never overwritten:
a new value for the same (subject, predicate) closes the current row (``valid_to`` =
the new ``valid_from``) and inserts the new one, so the timeline keeps every value the
user ever had. A value learned late (older than a value already stored) goes in between, as
a closed, historical row, instead of replacing what is current: mining order is no statement
order (`ingest.graph_history`).

A plan is closed, in the same way, by the row that carries it out (a visit to the planned
place: `ingest.predicates.FULFILLED_BY`), and a plan told after its trip is stored closed.

The read functions behind the ``/v1/entities`` routes are `ingest.graph_reads`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from psycopg.types.json import Jsonb
from sqlalchemy import ARRAY, BigInteger, Text, bindparam, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.entity_merge import display_name, short_names
from ingest.entity_retype import retype_guesses
from ingest.extraction import USER_ENTITY, EntityMention
from ingest.graph_history import ended_at, later_row, move_start, row_in_force, told_at
from ingest.graph_liveness import live_entity, live_relation
from ingest.names import name_key, slugify
from ingest.predicates import FULFILLED_BY, canonical_predicate, is_multi_valued
from ingest.relation_close import close_ended, close_plans, fulfilled_at
from ingest.relation_sources import add_source, add_told
from loci.column_insert import ColumnInsert, insert_columns
from loci.compiled import compiled_rows, driver_sql
from loci.models import Entity, Relation

__all__ = [
    "EntityOut",
    "RelationOut",
    "entity_slug",
    "record_relation",
    "same_value",
    "upsert_entities",
]


@dataclass(frozen=True, slots=True)
class EntityOut:
    id: int
    kind: str
    name: str
    aliases: tuple[str, ...]
    mention_count: int
    first_seen: datetime | None
    last_seen: datetime | None


@dataclass(frozen=True, slots=True)
class RelationOut:
    id: int
    subject_id: int
    subject: str
    predicate: str
    object_entity_id: int | None
    object: str
    valid_from: datetime
    valid_to: datetime | None
    current: bool
    source_drawer_id: int | None
    confidence: float


def entity_slug(m: EntityMention) -> str:
    return name_key(m.name) if m.kind == "p" else slugify(m.name)


async def upsert_entities(
    s: AsyncSession, user_id: int, seen: Iterable[tuple[EntityMention, datetime, int]]
) -> tuple[dict[EntityMention, int], int]:
    """Insert or bump entities from (mention, when, turn) sightings; returns ({mention: entity
    id}, how many were new). An entity's ``mention_count`` grows by the distinct turns that
    name it, however many of its spellings one turn uses ("Mike is great, Mike Doyle really
    is." is one), as `ingest.entity_stats` recounts it.

    Each distinct mention's slug is worked out once, here; callers look entities up by
    the mention itself, so spellings that share a slug share the id. A name keeps the
    kind it was first stored with (`_stored`), so "Lisbon" is one entity even
    when a later window guesses another kind for it. A short name of one known longer
    name is that entity (`ingest.entity_merge`): "Mike" is "Mike Doyle", "Niro EV" the "Kia Niro EV".
    """
    seen = list(seen)
    keys: dict[EntityMention, tuple[str, str]] = {m: (m.kind, entity_slug(m)) for m, _, _ in seen}
    settled, stale = await _stored(s, user_id, keys.values())
    stale = await retype_guesses(s, user_id, keys.values(), settled, stale)
    keys = {m: (settled.get(slug, kind) if kind != "t" else kind, slug) for m, (kind, slug) in keys.items()}
    short = await short_names(s, user_id, keys)
    keys |= short
    spelled: dict[tuple[str, str], list[tuple[str, bool]]] = {}
    for m, key in keys.items():
        spelled.setdefault(key, []).append((m.name, m in short))
    names = {key: display_name(spellings) for key, spellings in spelled.items()}
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    turns: set[tuple[tuple[str, str], int]] = set()  # (entity, turn) already counted
    for mention, at, turn in seen:
        key = keys[mention]
        counted = _mentions(mention) if (key, turn) not in turns else 0
        turns.add((key, turn))
        row = rows.get(key)
        if row is None:
            rows[key] = {
                "user_id": user_id,
                "kind": key[0],
                "name": names[key][:300],  # a stored entity keeps its name (see the upsert)
                "slug": key[1][:300],
                "aliases": [mention.name.lower()],
                "mention_count": counted,
                "first_seen": at,
                "last_seen": at,
            }
            continue
        row["mention_count"] += counted
        row["last_seen"] = max(at, row["last_seen"])
        row["first_seen"] = min(at, row["first_seen"])
        if mention.name.lower() not in row["aliases"]:
            row["aliases"].append(mention.name.lower())
    if not rows:
        return {}, 0
    ids, created = await _upsert_rows(s, list(rows.values()), stale)
    return {mention: ids[key] for mention, key in keys.items()}, created


def _mentions(m: EntityMention) -> int:
    """What one sighting adds to the count: the user is the subject of their facts, never mentioned."""
    return 0 if m == USER_ENTITY else 1


async def _stored(
    s: AsyncSession, user_id: int, keys: Iterable[tuple[str, str]]
) -> tuple[dict[str, str], set[tuple[str, str]]]:
    """slug → the one kind its entity has: the stored one (the oldest, should two exist),
    else the first kind this batch gives it (times keep their own kind and slugs); and the
    stored (kind, slug) of those with no live source (`_REPLACE`), each asked once here."""
    keys = list(keys)
    if not keys:
        return {}, set()
    slugs = sorted({slug[:300] for _, slug in keys})
    stored = await compiled_rows(s, _stored_sql(), {"user_id": user_id, "slugs": slugs})
    kinds: dict[str, str] = {}
    stale: set[tuple[str, str]] = set()
    for slug, kind, live in stored:
        if kind != "t":
            kinds[slug] = kind
        if not live:
            stale.add((kind, slug))
    for kind, slug in keys:
        if kind != "t":
            kinds.setdefault(slug, kind)
    return kinds, stale


@cache
def _stored_sql() -> str:
    """`_stored`'s read, with `live_entity`, compiled once (`loci.compiled`): every window asks it."""
    user_id, slugs = bindparam("user_id", type_=BigInteger), bindparam("slugs", type_=ARRAY(Text))
    stmt = select(Entity.slug, Entity.kind, live_entity(Entity.id)).where(Entity.user_id == user_id)
    return driver_sql(stmt.where(Entity.slug == func.any(slugs)).order_by(Entity.id.desc()))


_ADD = (
    "mention_count = entities.mention_count + excluded.mention_count, "
    "first_seen = least(entities.first_seen, excluded.first_seen), "
    "last_seen = greatest(entities.last_seen, excluded.last_seen), "
    "aliases = ARRAY(SELECT DISTINCT unnest(entities.aliases || excluded.aliases))"
)
"""What the upsert writes to a stored, live entity: the window's figures added to its own."""
_REPLACE = ", ".join(f"{c} = excluded.{c}" for c in ("mention_count", "first_seen", "last_seen", "aliases", "name"))
"""What it writes to a stored entity with no live source (`_stored`), whose chats are all in
the trash: the window's figures alone. Those it has are its trashed sources' (kept for a
restore, which recounts them from both: `ingest.entity_stats`) and must not show under a
later chat's mention: "Derek Hale" named again while the chat that first named him is in
the trash is seen since now, mentioned once, spelled as now."""


def _entity_upsert(update_with: str) -> ColumnInsert:
    """The window's entities, one array per column (`loci.column_insert`), each row's aliases
    as a jsonb list; a stored (user, kind, slug) is updated with ``update_with``."""
    columns = (("user_id", "bigint"), ("kind", "varchar"), ("name", "varchar"), ("slug", "varchar"),
               ("aliases", "jsonb"), ("mention_count", "integer"), ("first_seen", "timestamptz"),
               ("last_seen", "timestamptz"))  # fmt: skip
    aliases = "ARRAY(SELECT a FROM jsonb_array_elements_text(aliases) WITH ORDINALITY AS e(a, n) ORDER BY n)"
    suffix = f"ON CONFLICT (user_id, kind, slug) DO UPDATE SET {update_with} RETURNING id, kind, slug, (xmax = 0)"
    return ColumnInsert(Entity.__tablename__, columns, suffix, (("aliases", aliases),))


_UPSERTS = {False: _entity_upsert(_ADD), True: _entity_upsert(_REPLACE)}  # stale (`_stored`) or not


async def _upsert_rows(
    s: AsyncSession, rows: list[dict[str, Any]], stale: set[tuple[str, str]]
) -> tuple[dict[tuple[str, str], int], int]:
    """INSERT … ON CONFLICT for the window's entities, one statement for those of ``stale``
    keys (`_REPLACE`) and one for the others (each (kind, slug) is in one row only, so no
    statement touches an entity twice); ({(kind, slug): id}, new ones)."""
    ids: dict[tuple[str, str], int] = {}
    created = 0
    groups: dict[bool, list[tuple[Any, ...]]] = {True: [], False: []}
    for r in rows:
        groups[(r["kind"], r["slug"]) in stale].append((
            r["user_id"], r["kind"], r["name"], r["slug"], Jsonb(r["aliases"]), r["mention_count"],
            r["first_seen"], r["last_seen"],
        ))  # fmt: skip
    for is_stale in (True, False):
        for entity_id, kind, slug, inserted in await insert_columns(s, _UPSERTS[is_stale], groups[is_stale]):
            ids[(kind, slug)] = int(entity_id)
            created += int(bool(inserted))
    return ids, created


def same_value(value: str | None, object_id: int | None, other: str | None, other_id: int | None) -> bool:
    """Two facts give the same value: the same words (case and spacing aside), or the same
    entity. What `record_relation` counts as a repeat, and a restore's merge too
    (`ingest.relation_merge`)."""
    words = " ".join((value or "").lower().split()) == " ".join((other or "").lower().split())
    return words or (other_id is not None and object_id == other_id)


async def _current_rows(s: AsyncSession, user_id: int, subject_id: int, predicate: str) -> list[tuple[Relation, bool]]:
    """The subject's current rows of the predicate, newest first, each with whether it is
    live (`live_relation`), locked until the window commits."""
    stmt = (
        select(Relation, live_relation(Relation))
        .where(
            Relation.user_id == user_id,
            Relation.subject_id == subject_id,
            Relation.predicate == predicate,
            Relation.valid_to.is_(None),
        )
        .order_by(Relation.valid_from.desc(), Relation.id.desc())
        .with_for_update(of=Relation)
    )
    return [(r, bool(live)) for r, live in (await s.execute(stmt)).all()]


def _gives(r: Relation, value: str, object_entity_id: int | None) -> bool:
    """The row gives this value: the same words, or the same entity."""
    return same_value(r.object_value, r.object_entity_id, value, object_entity_id)


def _superseded(
    rows: list[tuple[Relation, bool]], multi: bool, value: str, object_entity_id: int | None
) -> Relation | None:
    """The current row a new value takes the place of: a single-valued predicate's one, or for
    a multi-valued one the trashed row of this value (the one current row per value)."""
    if multi:
        return next((r for r, live in rows if not live and _gives(r, value, object_entity_id)), None)
    return rows[0][0] if rows else None


async def record_relation(
    s: AsyncSession,
    user_id: int,
    *,
    subject_id: int,
    predicate: str,
    value: str,
    object_entity_id: int | None,
    valid_from: datetime,
    source_drawer_id: int | None,
    confidence: float,
) -> bool:
    """Add a fact; False when it only repeats a current value (its row takes the turn as one
    more source: `ingest.relation_sources`). A single-valued predicate (`ingest.predicates`)
    supersedes: the current row is closed at the new ``valid_from`` and the new one opened,
    in the caller's transaction. A multi-valued one ("sister", "visited") only adds a row.

    Only a live row (one a turn not in the trash said) is repeated: a fact told again
    while the chat that first told it is trashed is stored with its own source, or it would
    not show while that chat is in the trash and would go with it when the trash is purged.
    The trashed row is superseded by it as by a new value (for a multi-valued predicate, the
    one current row of that value); a restore folds the two back into one
    (`ingest.relation_merge.fold_repeats`).
    """
    predicate = canonical_predicate(predicate)[:200]
    multi = is_multi_valued(predicate)
    told = {
        "user_id": user_id, "subject_id": subject_id, "predicate": predicate, "object_entity_id": object_entity_id,
        "object_value": value, "valid_from": valid_from, "valid_to": None, "source_drawer_id": source_drawer_id,
        "confidence": confidence, "multi": multi,
    }  # fmt: skip
    later = None if multi else await later_row(s, user_id, subject_id, predicate, valid_from)
    if later is not None:  # learned after a later value: it goes in between (`ingest.graph_history`)
        return await _tell_late(s, told, later)
    rows = await _current_rows(s, user_id, subject_id, predicate)
    repeated = next((r for r, live in rows if live and _gives(r, value, object_entity_id)), None)
    ending = await ended_at(s, *_about(told), valid_from)
    if repeated is not None and not _ended_before(ending, repeated):  # one more turn that said it
        if valid_from < repeated.valid_from:  # said before it was first learned: it holds since
            await move_start(s, user_id, repeated, valid_from, source_drawer_id)
        else:
            await add_source(s, user_id, repeated.id, source_drawer_id)
        return False
    current = _superseded(rows, multi, value, object_entity_id)
    valid_to: datetime | None = None
    if current is not None:
        if valid_from >= current.valid_from:
            await s.execute(update(Relation).where(Relation.id == current.id).values(valid_to=valid_from))
        else:
            valid_to = current.valid_from
    if predicate in FULFILLED_BY:  # a plan told after the trip it was for is already over
        valid_to = _first(valid_to, await fulfilled_at(s, *_about(told), valid_from))
    told["valid_to"] = _first(valid_to, ending)
    await close_plans(s, user_id, subject_id, predicate, value, object_entity_id, valid_from)
    await close_ended(s, *_about(told), valid_from, told=await told_at(s, predicate, source_drawer_id))
    await add_told(s, told)
    return True


def _about(told: dict[str, Any]) -> tuple[int, int, str, str, int | None]:
    """(user, subject, predicate, value, object entity) of a row about to be told."""
    return told["user_id"], told["subject_id"], told["predicate"], told["object_value"], told["object_entity_id"]


def _ended_before(ending: datetime | None, row: Relation) -> bool:
    """An ending of the fact was said before ``row`` starts: a fact told earlier is another
    span (left, then back: "I handed in my notice" between two "I work at Globex"), not
    ``row`` starting earlier."""
    return ending is not None and ending < row.valid_from


def _first(*times: datetime | None) -> datetime | None:
    """The earliest of the ends known, None when none is."""
    return min((at for at in times if at is not None), default=None)


async def _tell_late(s: AsyncSession, told: dict[str, Any], later: Relation) -> bool:
    """A single-valued fact older than ``later``, the timeline's next row (module docstring of
    `ingest.graph_history`): the row in force then closes at it, and it closes where ``later``
    starts; a repeat of either neighbour adds its turn there instead (of ``later`` only when
    no ending of it was said in between: `_ended_before`). False when nothing new was stored."""
    user_id, subject_id, predicate, value, object_id = _about(told)
    at, drawer = told["valid_from"], told["source_drawer_id"]
    earlier = await row_in_force(s, user_id, subject_id, predicate, at)
    if earlier is not None and _gives(earlier, value, object_id):
        await add_source(s, user_id, earlier.id, drawer)
        return False
    if earlier is not None:
        await s.execute(update(Relation).where(Relation.id == earlier.id).values(valid_to=at))
    ending = await ended_at(s, *_about(told), at)
    if _gives(later, value, object_id) and not _ended_before(ending, later):
        await move_start(s, user_id, later, at, drawer)
        return False
    told["valid_to"] = _first(later.valid_from, ending)
    await close_ended(s, *_about(told), at, told=await told_at(s, predicate, drawer))
    await add_told(s, told)
    return True
