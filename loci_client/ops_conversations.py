"""Operations on the account, conversations, mining jobs and the knowledge graph's entities."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from loci_client._transport import Request, model, no_content, operation
from loci_client.models_conversations import (
    ConversationMoved,
    ConversationOut,
    ConversationPage,
    EntityDTO,
    JobOut,
    Me,
    MiningQueued,
    TimelineDTO,
)
from loci_client.requests import Turn, body, dump_all, idempotent, path

Turns = Sequence[Turn | Mapping[str, Any]]


@operation("getMe", model(Me))
def get_me() -> Request:
    """The account the API key belongs to."""
    return Request("GET", "/v1/me")


@operation("deleteMe", no_content())
def delete_me(confirm: str) -> Request:
    """Delete the account and everything in it; ``confirm`` is the user's name as `get_me` shows it."""
    return Request("DELETE", "/v1/me", params={"confirm": confirm})


@operation("createConversation", model(ConversationOut))
def create_conversation(
    turns: Turns = (),
    *,
    id: str | None = None,
    agent_id: str | None = None,
    title: str | None = None,
    idempotency_key: str | None = None,
) -> Request:
    """Store a conversation (the same id and turns again is a no-op). Sent with an
    ``Idempotency-Key`` (``idempotency_key``, else a fresh one): retries never store it twice."""
    fields = body(id=id, agent_id=agent_id, title=title, turns=dump_all(turns))
    return Request("POST", "/v1/conversations", json=fields, headers=idempotent(idempotency_key))


@operation("appendTurns", model(ConversationOut))
def append_turns(conversation_id: str, turns: Turns, *, idempotency_key: str | None = None) -> Request:
    """Append turns to a stored conversation. Sent with an ``Idempotency-Key``
    (``idempotency_key``, else a fresh one): retries never append the turns twice."""
    return Request(
        "POST",
        path("/v1/conversations/{conversation_id}/turns", conversation_id=conversation_id),
        json={"turns": dump_all(turns)},
        headers=idempotent(idempotency_key),
    )


@operation("listConversations", model(ConversationPage))
def list_conversations(*, limit: int | None = None, offset: int | None = None, agent_id: str | None = None) -> Request:
    """The caller's conversations, newest first; pass `next_offset` as ``offset`` for the next page."""
    return Request("GET", "/v1/conversations", params={"limit": limit, "offset": offset, "agent_id": agent_id})


@operation("completeConversation", model(MiningQueued))
def complete_conversation(conversation_id: str) -> Request:
    """Mark a conversation complete; mining is queued when the user's auto_mine is on."""
    return Request("POST", path("/v1/conversations/{conversation_id}/complete", conversation_id=conversation_id))


@operation("mineConversation", model(MiningQueued))
def mine_conversation(conversation_id: str) -> Request:
    """Queue mining of a conversation now."""
    return Request("POST", path("/v1/conversations/{conversation_id}/mine", conversation_id=conversation_id))


@operation("getConversation", model(ConversationOut))
def get_conversation(conversation_id: str, *, after_seq: int | None = None, limit: int | None = None) -> Request:
    """A conversation with its turns and mining state: ``limit`` turns (the server's page size
    without it) past ``after_seq``; the answer's ``next_after_seq`` reads on."""
    return Request(
        "GET",
        path("/v1/conversations/{conversation_id}", conversation_id=conversation_id),
        params={"after_seq": after_seq, "limit": limit},
    )


@operation("deleteConversation", model(ConversationMoved))
def delete_conversation(conversation_id: str, *, purge: bool | None = None) -> Request:
    """Move a conversation to the trash (``purge=True``: delete it for good)."""
    return Request(
        "DELETE", path("/v1/conversations/{conversation_id}", conversation_id=conversation_id), params={"purge": purge}
    )


@operation("restoreConversation", model(ConversationMoved))
def restore_conversation(conversation_id: str) -> Request:
    """Bring a trashed conversation back."""
    return Request("POST", path("/v1/conversations/{conversation_id}/restore", conversation_id=conversation_id))


@operation("getJob", model(JobOut))
def get_job(job_id: str) -> Request:
    """A mining job's status."""
    return Request("GET", path("/v1/jobs/{job_id}", job_id=job_id))


@operation("searchEntities", model(list[EntityDTO]))
def search_entities(q: str | None = None, *, limit: int | None = None, offset: int | None = None) -> Request:
    """Entities whose name or alias matches ``q`` (all, most mentioned first, without it),
    ``limit`` at a time from ``offset`` (the next page: ``offset + limit``)."""
    return Request("GET", "/v1/entities", params={"q": q, "limit": limit, "offset": offset})


@operation("getEntity", model(EntityDTO))
def get_entity(entity_id: int) -> Request:
    """One entity."""
    return Request("GET", path("/v1/entities/{entity_id}", entity_id=entity_id))


@operation("entityTimeline", model(TimelineDTO))
def entity_timeline(entity_id: int, *, limit: int | None = None, offset: int | None = None) -> Request:
    """An entity's facts over time, newest first: ``limit`` at a time (the server's page size
    without it) from ``offset``; the answer's ``next_offset`` is where the next page starts."""
    return Request(
        "GET", path("/v1/entities/{entity_id}/timeline", entity_id=entity_id), params={"limit": limit, "offset": offset}
    )
