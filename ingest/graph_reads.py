"""The knowledge graph's reads behind ``/v1/entities``, the MCP tool and the /memory page:
listings, one entity, its timeline. They see only what still has a live source
(`ingest.graph_liveness`), so deleting a drawer forgets what was learned from it at once and
a restore brings it back exactly. The writes are `ingest.graph`.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.orm import aliased

from ingest.extraction import USER_ENTITY
from ingest.graph import EntityOut, RelationOut, entity_slug
from ingest.graph_liveness import effective_valid_to, live_entity, live_relation
from ingest.names import name_key
from loci.db import Database
from loci.errors import InvalidInput, NotFound
from loci.inputs import check_text
from loci.models import Entity, Relation

__all__ = [
    "MAX_ENTITY_OFFSET",
    "MAX_ENTITY_PAGE",
    "MAX_TIMELINE_PAGE",
    "UNLISTED_KINDS",
    "get_entity",
    "search_entities",
    "timeline",
]


def _not_speaker(entity: Any) -> ColumnElement[bool]:
    """Not the row `USER_ENTITY` is stored as: it holds the user's own facts, but a speaker
    label is no entity, so the listings leave it out (its timeline stays readable by id)."""
    return ~and_(entity.kind == USER_ENTITY.kind, entity.slug == entity_slug(USER_ENTITY))


def _entity_out(e: Entity) -> EntityOut:
    return EntityOut(e.id, e.kind, e.name, tuple(e.aliases), e.mention_count, e.first_seen, e.last_seen)


MAX_ENTITY_PAGE = 200
"""Most entities one search returns."""
MAX_ENTITY_OFFSET = 1_000_000
"""Where a listing may start: past any palace's entity count, inside PostgreSQL's bigint."""
MAX_TIMELINE_PAGE = 500
"""Most relations one timeline page holds (``GET /v1/entities/{id}/timeline?limit=``, its default)."""
UNLISTED_KINDS = ("t",)
"""Kinds the listings leave out: a time ("1932", "2026-01-24") is when something happened,
not one of the user's people and things; it stays readable by id, and recall still uses it."""


async def search_entities(
    db: Database, user_id: int, q: str | None, *, limit: int = 50, offset: int = 0
) -> list[EntityOut]:
    """Live entities whose name or an alias contains ``q`` (all when empty), most mentioned first,
    ``limit`` of them from ``offset`` (so every entity can be listed, not only the top page);
    never the user's own row (`USER_ENTITY`) nor a time (`UNLISTED_KINDS`)."""
    if q is not None and len(q) > 200:
        raise InvalidInput("q must be at most 200 characters", field="q")
    if not 1 <= limit <= MAX_ENTITY_PAGE:  # it was clamped silently: -2112535910 gave one entity
        raise InvalidInput(f"limit must be between 1 and {MAX_ENTITY_PAGE}", field="limit")
    if not 0 <= offset <= MAX_ENTITY_OFFSET:
        raise InvalidInput(f"offset must be between 0 and {MAX_ENTITY_OFFSET}", field="offset")
    if q is not None:
        check_text(q, field="q")  # a NUL reached PostgreSQL, whose message came back
    stmt = select(Entity).where(
        Entity.user_id == user_id, Entity.kind.not_in(UNLISTED_KINDS), live_entity(Entity.id), _not_speaker(Entity)
    )
    if q and q.strip():
        stmt = stmt.where(_matching(unicodedata.normalize("NFC", q.strip())))
    stmt = stmt.order_by(Entity.mention_count.desc(), Entity.id).limit(limit).offset(offset)
    async with db.user_session(user_id) as s:
        return [_entity_out(e) for e in (await s.execute(stmt)).scalars()]


def _contains(text: str) -> str:
    """A LIKE pattern for ``text`` anywhere: ``%`` and ``_`` are the user's characters, not
    wildcards ("%" listed every entity)."""
    return "%" + text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _matching(q: str) -> ColumnElement[bool]:
    """Entities whose name or an alias contains ``q`` case-blind (lower-cased by PostgreSQL on
    both sides: Python's ``lower`` differs on "İ" and a final "Σ"), or whose key contains its
    key (`ingest.names.name_key`, the entity's ``slug``: accents and case folded, so "ines"
    finds "Inês", "sao paulo" "São Paulo"). A ``q`` whose key is empty (the "x" of a name
    without a letter the key keeps) is matched by the name alone, not by every "x"."""
    pattern = _contains(q)
    alias = func.array_to_string(Entity.aliases, " ")
    said = or_(
        func.lower(Entity.name).like(func.lower(pattern), escape="\\"),
        func.lower(alias).like(func.lower(pattern), escape="\\"),
    )
    key = name_key(q)
    if key == "x" and "x" not in q.lower():
        return said
    return or_(said, Entity.slug.like(_contains(key), escape="\\"))


async def get_entity(db: Database, user_id: int, entity_id: int) -> EntityOut:
    """One live entity; NotFound for another user's, an unknown or a forgotten one."""
    stmt = select(Entity).where(Entity.id == entity_id, Entity.user_id == user_id, live_entity(Entity.id))
    async with db.user_session(user_id) as s:
        entity = (await s.execute(stmt)).scalar_one_or_none()
    if entity is None:
        raise NotFound(f"entity {entity_id} not found")
    return _entity_out(entity)


async def timeline(
    db: Database, user_id: int, entity_id: int, *, limit: int | None = None, offset: int = 0
) -> tuple[EntityOut, list[RelationOut], bool]:
    """The entity, the live relations it takes part in, newest first (current and closed):
    ``limit`` of them from ``offset``, all without a limit, and whether more follow. The user's own entity is in nearly
    every mined fact, so its whole timeline grows with the memory (4,000 relations made a 1 MB
    page); the route and the page read it a page at a time."""
    if limit is not None and not 1 <= limit <= MAX_TIMELINE_PAGE:
        raise InvalidInput(f"limit must be between 1 and {MAX_TIMELINE_PAGE}", field="limit")
    if not 0 <= offset <= MAX_ENTITY_OFFSET:
        raise InvalidInput(f"offset must be between 0 and {MAX_ENTITY_OFFSET}", field="offset")
    entity = await get_entity(db, user_id, entity_id)
    subj, obj = aliased(Entity), aliased(Entity)
    valid_to = effective_valid_to(Relation).label("valid_to")
    stmt = (
        select(Relation, subj.name, obj.name, valid_to)
        .join(subj, subj.id == Relation.subject_id)
        .outerjoin(obj, obj.id == Relation.object_entity_id)
        .where(
            Relation.user_id == user_id,
            or_(Relation.subject_id == entity_id, Relation.object_entity_id == entity_id),
            live_relation(Relation),
        )
        .order_by(Relation.valid_from.desc(), Relation.id.desc())
        .offset(offset)
        .limit(None if limit is None else limit + 1)
    )
    async with db.user_session(user_id) as s:
        rows = (await s.execute(stmt)).all()
    history = [
        RelationOut(
            r.id,
            r.subject_id,
            subject_name,
            r.predicate,
            r.object_entity_id,
            object_name or r.object_value or "",
            r.valid_from,
            until,
            until is None,
            r.source_drawer_id,
            r.confidence,
        )
        for r, subject_name, object_name, until in rows[:limit]
    ]
    return entity, history, limit is not None and len(rows) > limit
