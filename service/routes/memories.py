"""Explicit memories over HTTP: save, update, forget, purge, confirm, restore, link, undo, read
(the core profile as Markdown: `service.routes.profile`).

Thin handlers: each parses, makes one call into `domain.memories` (writes), `domain.memory_purge`,
`domain.memory_read` or `domain.memory_undo`, and returns its DTO. Every write answers a `MemoryEvent` naming its undo.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from litestar import Controller, Response, delete, get, post
from litestar.openapi import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import Body, JSONBody, QueryParameter

from domain import memories, memory_purge, memory_read, memory_undo
from domain.agent_access import key_scope
from domain.memory_dto import (
    ConfirmIn,
    ForgetIn,
    HistoryOut,
    LinkIn,
    MemoryDetail,
    MemoryEvent,
    MemoryIn,
    MemoryPage,
    MemoryUpdateIn,
    PurgeIn,
    told,
)
from domain.memory_read import LIST_LIMIT_MAX, MemoryQuery
from domain.memory_rows import check_category
from domain.memory_scope import parse_as_of
from loci.idempotency import Once
from loci.inputs import ID_PATTERN, MAX_ID_CHARS, TEXT_PATTERN
from loci.models import MEMORY_LAYERS, MEMORY_SOURCES
from loci.settings import CATEGORY_PATTERN
from service.auth import AGENT_KEY_OPT
from service.deps import CallerDep, StateDep
from service.routes._docs import IdPath, IdQuery, errors
from service.routes._idempotency import IDEMPOTENT, IdempotencyKeyHeader

__all__ = ["MemoryController", "memory_errors"]


class Candidate(msgspec.Struct):
    id: int
    category: str
    content: str


class ConflictItem(msgspec.Struct):
    """One entry of a 409's ``extra``: a candidate memory (``id``, ``category``, ``content``) for
    an ambiguous text, or the field the conflict is about (``key``, ``message``: an
    ``Idempotency-Key`` already used for another body)."""

    id: int | None = None
    category: str | None = None
    content: str | None = None
    key: str | None = None
    message: str | None = None


class ConflictBody(msgspec.Struct):
    status_code: int
    detail: str
    extra: list[ConflictItem] | None = None
    """For a text matching several memories: the candidates (at most 10), to retry with an id;
    for a reused ``Idempotency-Key``: that header."""


class CoreRoom(msgspec.Struct):
    key: str
    message: str
    size: int
    limit: int
    entries: list[Candidate]


class CoreLimitBody(msgspec.Struct):
    status_code: int
    detail: str
    extra: list[CoreRoom]


_CONFLICT = ResponseSpec(
    data_container=ConflictBody,
    description="Text matching several memories (`extra` lists them), or a state that refuses the write",
    generate_examples=False,
    examples=[
        Example(
            summary="Ambiguous text",
            value={
                "status_code": 409,
                "detail": "2 active memories contain 'coffee': send one's id as id_or_text (or more of its text)",
                "extra": [
                    {"id": 7, "category": "preference", "content": "Likes coffee black"},
                    {"id": 9, "category": "fact", "content": "Drinks coffee at 7"},
                ],
            },
        )
    ],
)
_CORE_FULL = ResponseSpec(
    data_container=CoreLimitBody,
    description="The core profile would go over LOCI_MEMORY_CORE_MAX_CHARS; `extra` has its size, limit and entries",
    generate_examples=False,
)


def memory_errors(*codes: int) -> dict[int, ResponseSpec]:
    out = errors(*(c for c in codes if c not in (409, 422)))
    if 409 in codes:
        out[409] = _CONFLICT
    if 422 in codes:
        out[422] = _CORE_FULL
    return out


AsOf = Annotated[
    str | None,
    QueryParameter(
        description="ISO 8601 time with its zone: what was valid then (default: now)",
        max_length=64,
        pattern=TEXT_PATTERN,
    ),
]
AgentQuery = Annotated[str | None, QueryParameter(pattern=ID_PATTERN, max_length=MAX_ID_CHARS)]
_EVENT = (
    "Answers a `memory_event`: {event_id, event, memory, previous, undo: {event_id, method, path} or null; "
    "null for an agent key, which may not undo}."
)
SAVE_EXAMPLE = Example(
    summary="Save a preference", value={"content": "Prefers answers in metric units", "category": "preference"}
)


class MemoryController(Controller):
    path = "/v1/memories"
    tags = ("memories",)

    @post(
        "",
        operation_id="saveMemory",
        opt=AGENT_KEY_OPT,
        summary="Save a memory (idempotent by content)",
        description=(
            "Content identical (trimmed, ignoring case) to an active memory of the same category (shared, or the "
            "writing agent's own) returns that memory with event `unchanged` and status 200, writing nothing. "
            "`category` must be one of LOCI_MEMORY_CATEGORIES; content at most LOCI_MEMORY_CONTENT_MAX_CHARS. "
            "A core memory that would take the profile over LOCI_MEMORY_CORE_MAX_CHARS is a 422; a category outside "
            "the `agent_id`'s access list is a 403. A `conversation_id` in the trash (or unknown) is a 404 naming it, "
            "a turn seq it does not have a 400 naming `turn_seqs`; a deadline whose date has passed is a 400 "
            "(naming `kind`, or `content` when the kind was inferred)." + IDEMPOTENT + " " + _EVENT
        ),
        responses={
            200: ResponseSpec(MemoryEvent, description="Already saved: nothing written"),
            **memory_errors(400, 403, 404, 409, 422),
        },
    )
    async def save(
        self,
        app_state: StateDep,
        caller: CallerDep,
        data: Annotated[MemoryIn, Body(examples=[SAVE_EXAMPLE])],
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[MemoryEvent]:
        body = caller.acting(data)
        key = Once.of(idempotency_key, "saveMemory", body)
        saved = await memories.save_memory(
            app_state.memory_store(), caller.user_id, body, key, key_agent=caller.agent_id
        )
        event = told(saved, caller.agent_id)
        return Response(event, status_code=200 if event.event == "unchanged" else 201)

    @post(
        "/update",
        operation_id="updateMemory",
        opt=AGENT_KEY_OPT,
        status_code=200,
        summary="Change a memory (a new version; the old one stays in history)",
        description="Fields left out keep their value; the memory's links follow the new version. " + _EVENT,
        responses=memory_errors(400, 404, 409, 422),
    )
    async def update(self, app_state: StateDep, caller: CallerDep, data: JSONBody[MemoryUpdateIn]) -> MemoryEvent:
        event = await memories.update_memory(
            app_state.memory_store(), caller.user_id, caller.acting(data), key_agent=caller.agent_id
        )
        return told(event, caller.agent_id)

    @post(
        "/forget",
        operation_id="forgetMemory",
        opt=AGENT_KEY_OPT,
        status_code=200,
        summary="Forget a memory (kept for history and restore)",
        description=_EVENT,
        responses=memory_errors(400, 404, 409),
    )
    async def forget(self, app_state: StateDep, caller: CallerDep, data: JSONBody[ForgetIn]) -> MemoryEvent:
        event = await memories.forget_memory(app_state.memory_store(), caller.user_id, caller.acting(data))
        return told(event, caller.agent_id)

    @post(
        "/purge",
        operation_id="purgeMemory",
        status_code=200,
        summary="Delete a memory for good (every version; cannot be undone)",
        description=(
            "Deletes every version of the memory (`id_or_text`: the id of any version, active or ended, or text "
            "found in exactly one active memory), its links, the content of its history (one `purge` event with "
            "no content stays), the proposals about it and the stored answers of retried saves that quote it. "
            "Not undoable: `undo` is null and `previous` is the version named, as it was. User keys only: an "
            "agent key is a 403 (agents forget). A second purge is a 404. " + _EVENT
        ),
        responses=memory_errors(400, 403, 404, 409),
    )
    async def purge(self, app_state: StateDep, caller: CallerDep, data: JSONBody[PurgeIn]) -> MemoryEvent:
        return await memory_purge.purge_memory(app_state.memory_store(), caller.user_id, data)

    @post(
        "/confirm",
        operation_id="confirmMemory",
        opt=AGENT_KEY_OPT,
        status_code=200,
        summary="Mark a memory as still true now",
        description="Sets `last_confirmed_at` only. " + _EVENT,
        responses=memory_errors(400, 404, 409),
    )
    async def confirm(self, app_state: StateDep, caller: CallerDep, data: JSONBody[ConfirmIn]) -> MemoryEvent:
        event = await memories.confirm_memory(app_state.memory_store(), caller.user_id, caller.acting(data))
        return told(event, caller.agent_id)

    @post(
        "/{memory_id:str}/restore",
        operation_id="restoreMemory",
        status_code=200,
        summary="Bring a forgotten memory back (as a new version)",
        description="409 when the memory already has an active version. " + _EVENT,
        responses=memory_errors(400, 404, 409, 422),
    )
    async def restore(self, app_state: StateDep, caller: CallerDep, memory_id: IdPath) -> MemoryEvent:
        return await memories.restore_memory(app_state.memory_store(), caller.user_id, memory_id)

    @post(
        "/links",
        operation_id="linkMemories",
        opt=AGENT_KEY_OPT,
        status_code=200,
        summary="Link two active memories",
        description=_EVENT + " `link` holds the link.",
        responses=memory_errors(400, 404, 409),
    )
    async def link(self, app_state: StateDep, caller: CallerDep, data: JSONBody[LinkIn]) -> MemoryEvent:
        event = await memories.link_memories(app_state.memory_store(), caller.user_id, caller.acting(data))
        return told(event, caller.agent_id)

    @delete(
        "/links/{link_id:str}",
        operation_id="unlinkMemories",
        status_code=200,
        summary="Remove a link (kept for as_of reads)",
        description="409 when the link was removed already (saying when). " + _EVENT,
        responses=memory_errors(400, 404, 409),
    )
    async def unlink(self, app_state: StateDep, caller: CallerDep, link_id: IdPath) -> MemoryEvent:
        return await memories.unlink_memories(app_state.memory_store(), caller.user_id, link_id)

    @post(
        "/undo/{event_id:str}",
        operation_id="undoMemoryEvent",
        status_code=200,
        summary="Undo one write (the latest of its memory)",
        description=(
            "Reverses the write a history event recorded, by writing forward (an undone update ends the new "
            "version and re-adds the old content). 409 when the memory changed since, or it was undone already. "
            + _EVENT
        ),
        responses=memory_errors(400, 404, 409, 422),
    )
    async def undo(self, app_state: StateDep, caller: CallerDep, event_id: IdPath) -> MemoryEvent:
        return await memory_undo.undo_event(app_state.memory_store(), caller.user_id, event_id)

    @get(
        "",
        operation_id="listMemories",
        opt=AGENT_KEY_OPT,
        summary="Active memories (or those valid at as_of), newest first",
        description="Keyset-paginated: pass `next_before` as `before`.",
        responses=memory_errors(400),
    )
    async def list_memories(
        self,
        app_state: StateDep,
        caller: CallerDep,
        layer: Annotated[str | None, QueryParameter(pattern=f"^({'|'.join(MEMORY_LAYERS)})$")] = None,
        category: Annotated[str | None, QueryParameter(pattern=CATEGORY_PATTERN)] = None,
        source: Annotated[str | None, QueryParameter(pattern=f"^({'|'.join(MEMORY_SOURCES)})$")] = None,
        agent_id: AgentQuery = None,
        as_of: AsOf = None,
        limit: Annotated[int, QueryParameter(ge=1, le=LIST_LIMIT_MAX)] = 50,
        before: IdQuery = None,
    ) -> MemoryPage:
        when = parse_as_of(as_of)
        scope = await key_scope(
            app_state.db, caller.user_id, caller.agent_id, agent_only=app_state.settings.memory.agent_only_categories
        )
        if category is not None:
            check_category(category, app_state.settings.memory)  # an unknown one listed nothing, in silence
            scope.check_category(category)
        within = scope.within(app_state.settings.memory.categories)
        query = MemoryQuery(layer, category, source, agent_id, when, limit, before, within, caller.agent_id)
        return await memory_read.list_memories(app_state.db, caller.user_id, query)

    @get(
        "/{memory_id:str}",
        operation_id="getMemory",
        opt=AGENT_KEY_OPT,
        summary="One version of a memory, with its links",
        description="Any version of the caller's memories; links valid at `as_of` (default: when it was valid).",
        responses=memory_errors(400, 404),
    )
    async def get_memory(
        self, app_state: StateDep, caller: CallerDep, memory_id: IdPath, as_of: AsOf = None
    ) -> MemoryDetail:
        when = parse_as_of(as_of)
        scope = await key_scope(
            app_state.db, caller.user_id, caller.agent_id, agent_only=app_state.settings.memory.agent_only_categories
        )
        within = scope.within(app_state.settings.memory.categories)
        return await memory_read.get_memory(app_state.db, caller.user_id, memory_id, when, within, caller.agent_id)

    @get(
        "/{memory_id:str}/history",
        operation_id="getMemoryHistory",
        opt=AGENT_KEY_OPT,
        summary="Every write of a memory, oldest first",
        description="The history event ids are what `POST /v1/memories/undo/{event_id}` takes.",
        responses=memory_errors(400, 404),
    )
    async def history(self, app_state: StateDep, caller: CallerDep, memory_id: IdPath) -> list[HistoryOut]:
        scope = await key_scope(
            app_state.db, caller.user_id, caller.agent_id, agent_only=app_state.settings.memory.agent_only_categories
        )
        within = scope.within(app_state.settings.memory.categories)
        return await memory_read.memory_history(app_state.db, caller.user_id, memory_id, within, caller.agent_id)
