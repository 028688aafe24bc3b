"""Answers of the conversation, job, entity and account routes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from loci_client._model import Model

__all__ = [
    "ConversationMoved",
    "ConversationOut",
    "ConversationPage",
    "ConversationSummary",
    "EntityDTO",
    "JobOut",
    "Me",
    "MiningQueued",
    "RelationDTO",
    "TimelineDTO",
    "TurnOut",
]


class Me(Model):
    """The caller's account."""

    id: int
    name: str
    email: str | None
    created_at: datetime


class ConversationOut(Model):
    """A conversation's state; `turns` only where the route returns them."""

    id: str
    status: str
    turn_count: int
    mined_seq: int
    turns: list[TurnOut] | None = None
    mining_error: str | None = None
    mining_failed_at: datetime | None = None
    next_after_seq: int | None = None
    """Where the next page of turns starts (``after_seq=``); None after the last."""


class ConversationSummary(Model):
    """One conversation of `list_conversations`: its turns' count and time span, its mining state."""

    id: str
    title: str | None
    agent_id: str | None
    status: str
    turn_count: int
    first_turn_at: datetime | None
    last_turn_at: datetime | None
    created_at: datetime
    completed_at: datetime | None
    mined_seq: int
    mining: str
    """mined, unmined (turns past `mined_seq`) or failed (`mining_error` says why)"""
    mined_at: datetime | None = None
    mining_error: str | None = None
    fallback_count: int = 0
    """how often the latest mining run fell back from the LLM to the offline path (as `get_job` counts)"""
    first_fallback: str | None = None
    """the first of them, where and why"""


class ConversationPage(Model):
    """A page of conversations, newest first; `next_offset` is None on the last."""

    items: list[ConversationSummary]
    total: int
    limit: int
    offset: int
    next_offset: int | None


class TurnOut(Model):
    """One stored turn."""

    seq: int
    role: str
    content: str
    created_at: datetime
    name: str | None = None


class MiningQueued(Model):
    """What completing or mining a conversation queued (`job_id` for GET /v1/jobs/{id})."""

    conversation: ConversationOut
    job_id: str | None
    mining: str


class ConversationMoved(Model):
    """A conversation moved to the trash, purged or restored, with its drawer count."""

    id: str
    drawers: int
    purged: bool | None = None


class JobOut(Model):
    """A mining job's status: queued, running, done or failed (`error` says why)."""

    id: str
    status: str
    conversation_id: str
    result: dict[str, Any] | None = None
    error: str | None = None


class EntityDTO(Model):
    """An entity of the knowledge graph."""

    id: int
    kind: str
    name: str
    aliases: list[str]
    mention_count: int
    first_seen: datetime | None
    last_seen: datetime | None


class RelationDTO(Model):
    """One temporal fact about an entity."""

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


class TimelineDTO(Model):
    """An entity and its facts over time."""

    entity: EntityDTO
    relations: list[RelationDTO]
    next_offset: int | None = None
    """Where the next page starts (``offset=``); None on the last page."""
