"""The export document: the JSON a user's memory is exported as and imported from.

One format for both directions (`domain.export` writes it, `domain.importer` reads it),
so the two cannot drift. Unknown fields are ignored on import, so a newer or older file
still decodes; ``deleted_at`` fields stay in the format for older files that carried
trashed rows.

Version 2 added the explicit memories: every version of every memory (active and ended:
the ended ones are the history), their links and their write events. A version 1 file
has none of the three lists, which default to empty, so it still imports.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

import msgspec

from loci.models import TOP_K_DEFAULT

__all__ = [
    "FORMAT",
    "SUPPORTED_VERSIONS",
    "VERSION",
    "AgentDoc",
    "ClosetDoc",
    "ConversationDoc",
    "DrawerDoc",
    "DrawerEntityDoc",
    "EntityDoc",
    "ExportDoc",
    "MemoryDoc",
    "MemoryHistoryDoc",
    "MemoryLinkDoc",
    "MemoryProposalDoc",
    "RelationDoc",
    "RoomDoc",
    "SettingsDoc",
    "TurnDoc",
    "WingDoc",
]

FORMAT = "loci-export"
VERSION = 2
SUPPORTED_VERSIONS = (1, 2)
"""The versions an import reads: 1 is 2 without the memory tables."""


class SettingsDoc(msgspec.Struct):
    """Unknown fields are ignored, so older exports that carry ``embedding_model`` (read by
    nothing: the embedder is process-wide) still import."""

    enabled: bool = True
    top_k: int = TOP_K_DEFAULT
    use_rerank: bool = False
    rerank_model: str | None = None
    auto_mine: bool = True


class AgentDoc(msgspec.Struct):
    external_id: str
    name: str | None = None
    recall_enabled: bool = True
    created_at: datetime | None = None


class TurnDoc(msgspec.Struct):
    id: int
    seq: int
    role: str
    content: str
    created_at: datetime
    name: str | None = None
    """Who wrote the turn (``turns.name``); absent in exports made before speakers had names."""


class ConversationDoc(msgspec.Struct):
    id: int
    external_id: str
    status: str = "open"
    agent: str | None = None
    title: str | None = None
    created_at: datetime | None = None
    completed_at: datetime | None = None
    mined_seq: int = 0
    mined_at: datetime | None = None
    turns: list[TurnDoc] = []


class WingDoc(msgspec.Struct):
    id: int
    seq: int
    kind: str
    name: str
    slug: str
    aliases: list[str] = []
    created_at: datetime | None = None
    deleted_at: datetime | None = None


class RoomDoc(msgspec.Struct):
    id: int
    wing_id: int
    seq: int
    label: str
    started_at: datetime
    ended_at: datetime
    conversation_id: int | None = None
    deleted_at: datetime | None = None


class ClosetDoc(msgspec.Struct):
    id: int
    room_id: int
    topic: str
    slug: str
    deleted_at: datetime | None = None


class DrawerDoc(msgspec.Struct):
    id: int
    wing_id: int
    room_id: int
    closet_id: int
    seq: int
    role: str
    content: str
    aaak: str
    occurred_at: datetime
    turn_id: int | None = None
    part: int = 0
    tags: dict[str, Any] = {}
    tag_text: str = ""
    embedding: list[float] | None = None
    created_at: datetime | None = None
    deleted_at: datetime | None = None
    speaker: str | None = None


class EntityDoc(msgspec.Struct):
    id: int
    kind: str
    name: str
    slug: str
    aliases: list[str] = []
    mention_count: int = 0
    first_seen: datetime | None = None
    last_seen: datetime | None = None


class DrawerEntityDoc(msgspec.Struct):
    drawer_id: int
    entity_id: int


class RelationDoc(msgspec.Struct):
    id: int
    subject_id: int
    predicate: str
    valid_from: datetime
    object_entity_id: int | None = None
    object_value: str | None = None
    valid_to: datetime | None = None
    source_drawer_id: int | None = None
    confidence: float = 1.0
    created_at: datetime | None = None


class MemoryDoc(msgspec.Struct):
    """One version of one explicit memory (`loci.models.Memory`): ``id``, ``lineage_id`` and
    ``superseded_by`` are memory ids of this file, ``conversation_id`` a conversation's."""

    id: int
    lineage_id: int
    layer: str
    category: str
    content: str
    source: str
    valid_from: datetime
    summary: str | None = None
    body: str | None = None
    confidence: float | None = None
    confidence_base: float | None = None
    """What ``confidence`` decays from (extracted only); absent in older files: the confidence."""
    importance: int = 3
    pinned: bool = False
    tags: list[str] = []
    agent_id: str | None = None
    conversation_id: int | None = None
    turn_seqs: list[int] = []
    valid_until: datetime | None = None
    end_reason: str | None = None
    superseded_by: int | None = None
    last_confirmed_at: datetime | None = None
    recall_count: int = 0
    last_recalled_at: datetime | None = None
    created_at: datetime | None = None
    embedding: list[float] | None = None
    kind: str = "durable"
    """How long it holds (`loci.memory_kinds`); absent in older files: durable, as they were."""
    expires_at: datetime | None = None


class MemoryLinkDoc(msgspec.Struct):
    id: int
    from_id: int
    to_id: int
    relation: str
    created_at: datetime | None = None
    removed_at: datetime | None = None


class MemoryHistoryDoc(msgspec.Struct):
    """One write event; ``old_id``/``new_id``/``lineage_id`` may name purged memories, which
    the file does not hold (the importer keeps them pointing at nothing: `domain.import_memories`)."""

    id: int
    event: str
    actor: str
    lineage_id: int | None = None
    old_id: int | None = None
    new_id: int | None = None
    meta: dict[str, Any] = {}
    created_at: datetime | None = None


class MemoryProposalDoc(msgspec.Struct):
    """A change mining proposed to a sensitive profile field (`loci.models.MemoryProposal`),
    waiting or answered: a rejected one keeps mining from asking again. ``target_lineage_id``
    and ``memory_id`` are memory ids of this file (null when that memory is not in it)."""

    id: int
    field: str
    kind: str
    category: str
    content: str
    confidence: float
    expires_at: datetime
    status: str = "pending"
    slot: str | None = None
    target_lineage_id: int | None = None
    importance: int = 3
    conversation_id: int | None = None
    turn_seqs: list[int] = []
    extractor: str = "offline"
    created_at: datetime | None = None
    decided_at: datetime | None = None
    memory_id: int | None = None


class ExportDoc(msgspec.Struct):
    format: Literal["loci-export"]
    version: int
    exported_at: datetime | None = None
    settings: SettingsDoc | None = None
    agents: list[AgentDoc] = []
    conversations: list[ConversationDoc] = []
    wings: list[WingDoc] = []
    rooms: list[RoomDoc] = []
    closets: list[ClosetDoc] = []
    drawers: list[DrawerDoc] = []
    entities: list[EntityDoc] = []
    drawer_entities: list[DrawerEntityDoc] = []
    relations: list[RelationDoc] = []
    memories: list[MemoryDoc] = []
    memory_links: list[MemoryLinkDoc] = []
    memory_history: list[MemoryHistoryDoc] = []
    memory_proposals: list[MemoryProposalDoc] = []
