"""The knowledge graph, read-only: search entities, one entity, its relation timeline."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from litestar import Controller, get
from litestar.params import QueryParameter

from ingest import (
    MAX_ENTITY_OFFSET,
    MAX_ENTITY_PAGE,
    MAX_TIMELINE_PAGE,
    EntityOut,
    RelationOut,
    get_entity,
    search_entities,
    timeline,
)
from loci.db import Database
from loci.inputs import TEXT_PATTERN
from service.deps import CallerDep, StateDep
from service.routes._docs import IdPath, errors

__all__ = ["EntityController", "TimelineDTO", "entity_timeline"]


class EntityDTO(msgspec.Struct):
    id: int
    kind: str
    name: str
    aliases: list[str]
    mention_count: int
    first_seen: datetime | None
    last_seen: datetime | None


class RelationDTO(msgspec.Struct):
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


class TimelineDTO(msgspec.Struct):
    entity: EntityDTO
    relations: list[RelationDTO]
    next_offset: int | None = None
    """Where the next page starts (``?offset=``); None when this page holds the last relation."""


def _entity(e: EntityOut) -> EntityDTO:
    return EntityDTO(e.id, e.kind, e.name, list(e.aliases), e.mention_count, e.first_seen, e.last_seen)


def _relation(r: RelationOut) -> RelationDTO:
    return RelationDTO(
        r.id,
        r.subject_id,
        r.subject,
        r.predicate,
        r.object_entity_id,
        r.object,
        r.valid_from,
        r.valid_to,
        r.current,
        r.source_drawer_id,
        r.confidence,
    )


async def entity_timeline(
    db: Database, user_id: int, entity_id: int, *, limit: int = MAX_TIMELINE_PAGE, offset: int = 0
) -> TimelineDTO:
    """The timeline route's answer, a page of it, shared with the MCP `entity_timeline` tool."""
    entity, relations, more = await timeline(db, user_id, entity_id, limit=limit, offset=offset)
    return TimelineDTO(_entity(entity), [_relation(r) for r in relations], offset + limit if more else None)


class EntityController(Controller):
    path = "/v1/entities"
    tags = ("entities",)

    @get(
        "",
        operation_id="searchEntities",
        summary="Entities whose name or alias contains q",
        description=(
            "Entities (people, places, organisations, events, items; times are read by id only) "
            "whose name or alias contains `q`, most mentioned first; `offset` pages past the first `limit`."
        ),
        responses=errors(400),
    )
    async def search(
        self,
        caller: CallerDep,
        app_state: StateDep,
        q: Annotated[
            str | None,
            QueryParameter(
                max_length=200, pattern=TEXT_PATTERN, description="part of a name or alias; no control characters"
            ),
        ] = None,
        limit: Annotated[int, QueryParameter(ge=1, le=MAX_ENTITY_PAGE, description="page size, 1-200")] = 50,
        offset: Annotated[
            int,
            QueryParameter(ge=0, le=MAX_ENTITY_OFFSET, description="how many to skip: the next page is offset + limit"),
        ] = 0,
    ) -> list[EntityDTO]:
        found = await search_entities(app_state.db, caller.user_id, q, limit=limit, offset=offset)
        return [_entity(e) for e in found]

    @get(
        "/{entity_id:str}",
        operation_id="getEntity",
        summary="One entity",
        description="One entity of the knowledge graph.",
        responses=errors(404),
    )
    async def read(self, entity_id: IdPath, caller: CallerDep, app_state: StateDep) -> EntityDTO:
        return _entity(await get_entity(app_state.db, caller.user_id, entity_id))

    @get(
        "/{entity_id:str}/timeline",
        operation_id="entityTimeline",
        summary="Relation history, newest first",
        description=(
            "The entity and the relations it takes part in, current and superseded, newest first, "
            "with validity intervals; `limit` at a time, `next_offset` where the next page starts."
        ),
        responses=errors(400, 404),
    )
    async def history(
        self,
        entity_id: IdPath,
        caller: CallerDep,
        app_state: StateDep,
        limit: Annotated[
            int, QueryParameter(ge=1, le=MAX_TIMELINE_PAGE, description=f"page size, 1-{MAX_TIMELINE_PAGE}")
        ] = MAX_TIMELINE_PAGE,
        offset: Annotated[
            int,
            QueryParameter(ge=0, le=MAX_ENTITY_OFFSET, description="how many to skip: the answer's next_offset"),
        ] = 0,
    ) -> TimelineDTO:
        return await entity_timeline(app_state.db, caller.user_id, entity_id, limit=limit, offset=offset)
