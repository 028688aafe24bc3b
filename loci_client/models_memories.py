"""Answers of the explicit-memory and profile routes."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from loci_client._model import Model

__all__ = [
    "HistoryOut",
    "LinkOut",
    "MemoryDetail",
    "MemoryEvent",
    "MemoryOut",
    "MemoryPage",
    "ProfileOut",
    "ProfileWrite",
    "ProposalDecision",
    "ProposalOut",
    "ProposalPage",
    "UndoRef",
]


class MemoryOut(Model):
    """An explicit memory."""

    id: int
    lineage_id: int
    layer: str
    category: str
    content: str
    summary: str | None
    body: str | None
    source: str
    confidence: float | None
    importance: int
    pinned: bool
    tags: list[str]
    agent_id: str | None
    conversation_id: str | None
    turn_seqs: list[int]
    valid_from: datetime
    valid_until: datetime | None
    end_reason: str | None
    superseded_by: int | None
    last_confirmed_at: datetime | None
    created_at: datetime
    kind: str
    """durable, contextual, temporary or deadline: how long it holds."""
    expires_at: datetime | None
    """When it leaves the block and recall; None: never."""
    said_at: datetime
    """When it was said: a memory learned from a conversation is dated by its turn, not by
    when it was mined (``valid_from``)."""


class LinkOut(Model):
    """A link between two memories."""

    id: int
    from_id: int
    to_id: int
    relation: str
    created_at: datetime
    removed_at: datetime | None


class UndoRef(Model):
    """How to undo a memory event."""

    event_id: int
    method: str
    path: str


class MemoryEvent(Model):
    """What a memory write did, the memory before and after, and how to undo it."""

    event_id: int | None
    event: str
    memory: MemoryOut | None
    previous: MemoryOut | None
    undo: UndoRef | None
    link: LinkOut | None = None


class MemoryDetail(Model):
    """A memory and its links."""

    memory: MemoryOut
    links: list[LinkOut]


class HistoryOut(Model):
    """One event in a memory's lineage."""

    id: int
    event: str
    lineage_id: int | None
    old_id: int | None
    new_id: int | None
    actor: str
    meta: dict[str, Any]
    created_at: datetime


class MemoryPage(Model):
    """A page of memories (`next_before` for the next)."""

    items: list[MemoryOut]
    next_before: int | None


class ProfileOut(Model):
    """The core profile: its markdown, size against the limit, and its memories. `etag` is this
    version of it: pass it as `put_profile(..., if_match=etag)` to write only if it is current."""

    markdown: str
    size: int
    limit: int
    revision: int
    memories: list[MemoryOut]
    etag: str


class ProfileWrite(Model):
    """The profile after a write and the memory events the write made."""

    profile: ProfileOut
    events: list[MemoryEvent]


class ProposalOut(Model):
    """A change mining wants to make to a sensitive profile field, waiting for the user."""

    id: int
    field: str
    kind: str
    category: str
    content: str
    current: str | None
    status: str
    conversation_id: str | None
    turn_seqs: list[int]
    confidence: float
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None
    memory_id: int | None


class ProposalPage(Model):
    """A page of proposals, newest first (`next_before` for the next)."""

    items: list[ProposalOut]
    next_before: int | None


class ProposalDecision(Model):
    """An approved or rejected proposal, and the write an approval made (None otherwise)."""

    proposal: ProposalOut
    event: MemoryEvent | None
