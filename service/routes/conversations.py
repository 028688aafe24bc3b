"""Conversations: store, append, complete (→ mining job), mine on demand, read, delete, restore.

Thin handlers: parse the body, make one call into `ingest` or `domain.conversations`
(which enqueues only after the write committed), map the result to a DTO.
``{conversation_id}`` is the client's own id (or the one Loci generated on create).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import msgspec
from litestar import Controller, Response, delete, get, post
from litestar.openapi import ResponseSpec
from litestar.params import JSONBody, QueryParameter

import ingest
from domain.conversation_list import ConversationPage, list_conversations
from domain.conversation_trash import ConversationMoved, delete_conversation
from domain.conversations import (
    MAX_SEQ,
    MAX_TURN_PAGE,
    Mining,
    append_to_conversation,
    complete_and_mine,
    conversation_with_turns,
    mine_now,
    restore_and_mine,
    store_conversation,
)
from ingest import MAX_TITLE_CHARS
from loci.idempotency import Once
from loci.inputs import (
    ID_ALPHABET,
    ID_PATTERN,
    MAX_ID_CHARS,
    MAX_SPEAKER_CHARS,
    NAME_PATTERN,
    NONBLANK_TEXT_PATTERN,
    SPEAKER_PATTERN,
    TEXT_PATTERN,
)
from loci.models import ROLES
from loci.timexpr import local_time, parse_timestamp
from service.auth import AGENT_KEY_OPT
from service.deps import CallerDep, StateDep
from service.routes._docs import ConversationPath, Limit, Offset, errors
from service.routes._idempotency import IDEMPOTENT, IdempotencyKeyHeader

__all__ = ["ConversationController"]


# What `ingest` checks, stated in the schema from the same definitions (ingest keeps its
# checks: the CLI, import and the benchmark store turns without HTTP).
Role = Annotated[
    str,
    msgspec.Meta(
        pattern=f"^({'|'.join(ROLES)})$",
        description=f"{', '.join(ROLES)}: `user` is the account owner, `other` another person in the conversation",
    ),
]
Content = Annotated[
    str, msgspec.Meta(pattern=NONBLANK_TEXT_PATTERN, description="the turn's text; not blank, no control characters")
]
ClientId = Annotated[
    str, msgspec.Meta(pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description=f"1-{MAX_ID_CHARS} of {ID_ALPHABET}")
]
Title = Annotated[str, msgspec.Meta(max_length=MAX_TITLE_CHARS, pattern=NAME_PATTERN)]
Stamp = Annotated[
    str,
    msgspec.Meta(
        pattern=TEXT_PATTERN,
        description=(
            "ISO 8601 (no zone: UTC) or 'YYYY/MM/DD (Day) HH:MM', in the years 1900-2200; the offset is kept:"
            " relative dates in the turn are read on that clock, and the turn is read back with it"
        ),
        examples=["2026-05-03T10:15:00Z"],
    ),
]
Speaker = Annotated[
    str,
    msgspec.Meta(
        pattern=SPEAKER_PATTERN,
        max_length=MAX_SPEAKER_CHARS,
        description=f"who wrote the turn (as in the OpenAI message format), 1-{MAX_SPEAKER_CHARS} characters on"
        " one line: tells people apart, e.g. user 'Sam' and other 'Priya'",
    ),
]


class TurnBody(msgspec.Struct, forbid_unknown_fields=True):
    role: Role
    content: Content
    created_at: Stamp | None = None
    name: Speaker | None = None


class NewConversation(msgspec.Struct, forbid_unknown_fields=True):
    turns: list[TurnBody] = msgspec.field(default_factory=list)
    id: ClientId | None = None
    agent_id: ClientId | None = None
    title: Title | None = None


class NewTurns(msgspec.Struct, forbid_unknown_fields=True):
    turns: list[TurnBody]


class TurnOut(msgspec.Struct):
    seq: int
    role: str
    content: str
    created_at: datetime
    """In the offset it was sent with (``Z`` when it had none)."""
    name: str | None = None


class ConversationOut(msgspec.Struct):
    id: str
    status: str
    turn_count: int
    mined_seq: int
    turns: list[TurnOut] | None = None
    mining_error: str | None = None
    """Why mining last failed; null once it succeeds or new turns arrive."""
    mining_failed_at: datetime | None = None
    """Set when it failed for a reason retrying cannot fix: it waits for new turns or ``POST …/mine``."""
    next_after_seq: int | None = None
    """Where the next page of turns starts (``?after_seq=``); None when ``turns`` ends the conversation."""


class MiningQueued(msgspec.Struct):
    conversation: ConversationOut
    job_id: str | None
    """Null when nothing was enqueued: auto_mine is off, or the queue was unreachable."""
    mining: str
    """"queued", or why not: auto_mine is off, or pending (the sweep enqueues it once the queue is back)."""


def _turns(body: list[TurnBody], offset: int = 0) -> list[ingest.TurnIn]:
    return [
        ingest.TurnIn(
            t.role,
            t.content,
            (
                parse_timestamp(t.created_at, field=f"turns[{i}].created_at", keep_offset=True)
                if t.created_at is not None
                else None
            ),
            t.name,
        )
        for i, t in enumerate(body, start=offset)
    ]


def _out(ref: ingest.ConversationRef, turns: list[TurnOut] | None = None) -> ConversationOut:
    return ConversationOut(
        ref.external_id, ref.status, ref.turn_count, ref.mined_seq, turns, ref.mining_error, ref.mining_failed_at
    )


def _queued(m: Mining) -> MiningQueued:
    return MiningQueued(_out(m.conversation), m.job_id, m.mining)


class ConversationController(Controller):
    path = "/v1/conversations"
    tags = ("conversations",)

    @post(
        "",
        operation_id="createConversation",
        opt=AGENT_KEY_OPT,
        summary="Store a conversation (idempotent by id)",
        description=(
            "Stores a conversation and its turns. A client-supplied `id` makes the call idempotent: the"
            " same id with the same turns is a no-op, extra turns are appended, different content for a"
            " stored turn, or any turn at the seq of a turn deleted for good (append new turns instead),"
            " is a 409 naming it. Nothing is stored when any turn is invalid. `id` and `agent_id` are"
            " 1-128 characters of `A-Z a-z 0-9 . _ : @ -` starting with a letter or digit; `created_at`"
            " must fall in the years 1900-2200; control characters other than tab, newline and carriage"
            " return are refused in content and title. A turn's optional `name` says who wrote it (the"
            " OpenAI message's `name`): in a chat between people the account owner's turns are `user` and"
            " everyone else's `other`, each with their name. An agent key stores the conversation as its"
            " agent (`agent_id` may be left out; another agent is a 403), and appends to and completes"
            " only its agent's conversations (another's is a 404); an id the user or another agent holds is a 409"
            " for it, whatever the turns. 201 when the call stored something (the"
            " conversation or new turns), 200 when it was all stored already." + IDEMPOTENT
        ),
        responses={
            200: ResponseSpec(data_container=ConversationOut, description="A re-send: everything was stored already"),
            **errors(400, 409, 413),
        },
        status_code=201,
    )
    async def create(
        self,
        data: JSONBody[NewConversation],
        caller: CallerDep,
        app_state: StateDep,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[ConversationOut]:
        agent = caller.agent(data.agent_id)
        ref = await store_conversation(
            app_state.db,
            caller.user_id,
            external_id=data.id,
            agent_id=agent,
            turns=_turns(data.turns),
            title=data.title,
            limits=app_state.settings.mining,
            once=Once.of(idempotency_key, "createConversation", agent, data),
            key_agent=caller.agent_id,
        )
        return Response(_out(ref), status_code=201 if ref.stored else 200)

    @post(
        "/{conversation_id:str}/turns",
        operation_id="appendTurns",
        opt=AGENT_KEY_OPT,
        summary="Append turns",
        description=(
            "Appends turns to an open or completed conversation; completing it again mines only the new turns."
            " Turns that all carry a `created_at` and repeat the conversation's last turns (role, name, content"
            " and time) are a re-send: nothing is stored, the answer is the conversation as it is. 201 when"
            " the call stored new turns, 200 when it stored nothing." + IDEMPOTENT
        ),
        responses={
            200: ResponseSpec(data_container=ConversationOut, description="A re-send: nothing new was stored"),
            **errors(400, 404, 409, 413),
        },
        status_code=201,
    )
    async def append(
        self,
        conversation_id: ConversationPath,
        data: JSONBody[NewTurns],
        caller: CallerDep,
        app_state: StateDep,
        idempotency_key: IdempotencyKeyHeader = None,
    ) -> Response[ConversationOut]:
        key = Once.of(idempotency_key, "appendTurns", conversation_id, caller.agent_id, data)
        ref = await append_to_conversation(
            app_state.db, caller.user_id, conversation_id, _turns(data.turns), limits=app_state.settings.mining,
            agent=caller.agent_id, once=key,
        )  # fmt: skip
        return Response(_out(ref), status_code=201 if ref.stored else 200)

    @post(
        "/{conversation_id:str}/complete",
        operation_id="completeConversation",
        opt=AGENT_KEY_OPT,
        summary="Mark finished; mines in the background when auto_mine is on",
        description=(
            "Marks the conversation finished. With the user's `auto_mine` setting on, mining is "
            "enqueued (the turns are committed first) and the job id is returned; the caller never "
            "waits for mining. When the job queue is unreachable the completion still stands: the answer "
            "is 202 with `job_id: null` and `mining` saying it is pending, and the sweep enqueues it "
            "within minutes of the queue coming back."
        ),
        responses=errors(404),
        status_code=202,
    )
    async def complete(self, conversation_id: ConversationPath, caller: CallerDep, app_state: StateDep) -> MiningQueued:
        db, queue = app_state.db, app_state.queue
        return _queued(await complete_and_mine(db, queue, caller.user_id, conversation_id, caller.agent_id))

    @post(
        "/{conversation_id:str}/mine",
        operation_id="mineConversation",
        summary="Mine now (on demand), whatever auto_mine says",
        description=(
            "Enqueues mining of the turns past the conversation's mined watermark, whatever `auto_mine` says."
            " Clears a recorded mining failure, so a conversation the sweep gave up on is tried again."
            " 503 (with `Retry-After`) when the job queue is unreachable."
        ),
        responses=errors(404),
        status_code=202,
    )
    async def mine(self, conversation_id: ConversationPath, caller: CallerDep, app_state: StateDep) -> MiningQueued:
        return _queued(await mine_now(app_state.db, app_state.queue, caller.user_id, conversation_id))

    @get(
        "",
        operation_id="listConversations",
        summary="The caller's conversations, newest first",
        description=(
            "Each with its id, title, agent, status, turn count, first and last turn time and mining state"
            " (`mined_seq`, `mining`: mined, unmined or failed with `mining_error`). Newest created first,"
            " paginated by `limit`/`offset`; `next_offset` is null on the last page. Trashed conversations are"
            " left out (`GET /v1/trash` lists them). `agent_id` keeps one agent's conversations."
        ),
        responses=errors(400),
    )
    async def list_all(
        self,
        caller: CallerDep,
        app_state: StateDep,
        limit: Limit = 50,
        offset: Offset = 0,
        agent_id: Annotated[
            str | None,
            QueryParameter(pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description="only this agent's"),
        ] = None,
    ) -> ConversationPage:
        return await list_conversations(app_state.db, caller.user_id, limit=limit, offset=offset, agent=agent_id)

    @get(
        "/{conversation_id:str}",
        operation_id="getConversation",
        summary="A conversation with its turns",
        description=(
            "The conversation, its status, mined watermark and turns, `limit` at a time past `after_seq`"
            " (`next_after_seq` reads on); `mining_error` says why mining last"
            " failed, and `mining_failed_at` is set when it will not be retried until new turns or `…/mine`."
        ),
        responses=errors(400, 404),
    )
    async def read(
        self,
        conversation_id: ConversationPath,
        caller: CallerDep,
        app_state: StateDep,
        after_seq: Annotated[
            int, QueryParameter(ge=0, le=MAX_SEQ, description="the turns after this seq: the answer's next_after_seq")
        ] = 0,
        limit: Annotated[
            int, QueryParameter(ge=1, le=MAX_TURN_PAGE, description=f"page size, 1-{MAX_TURN_PAGE}")
        ] = MAX_TURN_PAGE,
    ) -> ConversationOut:
        db, user_id = app_state.db, caller.user_id
        ref, turns, more = await conversation_with_turns(db, user_id, conversation_id, after_seq=after_seq, limit=limit)
        out = _out(
            ref, [TurnOut(t.seq, t.role, t.content, local_time(t.created_at, t.utc_offset), t.name) for t in turns]
        )
        out.next_after_seq = more
        return out

    @delete(
        "/{conversation_id:str}",
        status_code=200,
        operation_id="deleteConversation",
        summary="Move a conversation to the trash (or purge it)",
        description=(
            "Moves the conversation, its turns and everything mined from it (its rooms, closets and "
            "drawers, the relations learned from them, entities nothing else mentions) to the trash "
            "for 30 days; it then answers 404 and is not mined. `purge=true` removes it (live or "
            "already trashed) for good now instead."
        ),
        responses=errors(404, 409),
    )
    async def remove(
        self,
        conversation_id: ConversationPath,
        caller: CallerDep,
        app_state: StateDep,
        purge: Annotated[bool, QueryParameter(description="remove for good now (no restore)")] = False,
    ) -> ConversationMoved:
        return await delete_conversation(app_state.db, caller.user_id, conversation_id, purge=purge)

    @post(
        "/{conversation_id:str}/restore",
        status_code=200,
        operation_id="restoreConversation",
        summary="Restore a trashed conversation",
        description=(
            "Brings back the conversation with its turns and what was mined from it and trashed with it; "
            "a 409 names the wing to restore first when one of those rooms' wing is itself in the trash."
        ),
        responses=errors(404, 409),
    )
    async def restore(
        self, conversation_id: ConversationPath, caller: CallerDep, app_state: StateDep
    ) -> ConversationMoved:
        return await restore_and_mine(app_state.db, app_state.queue, caller.user_id, conversation_id)
