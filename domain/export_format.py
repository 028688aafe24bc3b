"""The export document: the JSON a user's memory is exported as and imported from.

One format for both directions (`domain.export` writes it, `domain.importer` reads it),
so the two cannot drift. Unknown fields are ignored on import, so a newer or older file
still decodes; ``deleted_at`` fields stay in the format for older files that carried
trashed rows. Every string states the API's rule for its kind (`Text`, `ExternalId`,
`SpeakerName`), so the schema of ``POST /v1/import`` says what `domain.import_checks`
refuses, and decoding refuses it first.

Version 2 added the explicit memories: every version of every memory (active and ended:
the ended ones are the history), their links and their write events. A version 1 file
has none of the three lists, which default to empty, so it still imports.

Version 3 added ``access``, the per-agent access configuration as `GET /v1/access` answers it
(`domain.import_access`); it is checked strictly (an unknown key is refused, as by
`PUT /v1/access`), since a misspelt limit ignored would widen what an agent sees. A server
that reads only versions 1 and 2 refuses a version 3 file rather than dropping its access.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec

from domain.agent_access_edit import AccessDoc
from loci.inputs import ID_PATTERN, MAX_ID_CHARS, MAX_SPEAKER_CHARS, SPEAKER_PATTERN, TEXT_PATTERN
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
VERSION = 3
SUPPORTED_VERSIONS = (1, 2, 3)
"""The versions an import reads: 1 is 2 without the memory tables, 2 is 3 without ``access``."""

Text = Annotated[str, msgspec.Meta(pattern=TEXT_PATTERN)]
"""Any other string of the file: no control characters but tab, newline and carriage return."""
ExternalId = Annotated[str, msgspec.Meta(pattern=ID_PATTERN, max_length=MAX_ID_CHARS)]
"""An agent's or a conversation's own id, as the API takes it (`loci.inputs.check_id`)."""
SpeakerName = Annotated[str, msgspec.Meta(pattern=SPEAKER_PATTERN, max_length=MAX_SPEAKER_CHARS)]
"""A turn's ``name`` or a drawer's ``speaker`` (`loci.inputs.check_speaker`)."""


class SettingsDoc(msgspec.Struct):
    """Unknown fields are ignored, so older exports that carry ``embedding_model`` (read by
    nothing: the embedder is process-wide) still import."""

    enabled: bool = True
    top_k: int = TOP_K_DEFAULT
    use_rerank: bool = False
    rerank_model: Text | None = None
    auto_mine: bool = True
    time_zone: Text | None = None
    """The user's IANA zone (`loci.zones`); exports made before it carry none: UTC."""


class AgentDoc(msgspec.Struct):
    external_id: ExternalId
    name: Text | None = None
    recall_enabled: bool = True
    created_at: datetime | None = None


class TurnDoc(msgspec.Struct):
    id: int
    seq: int
    role: Text
    content: Text
    created_at: datetime
    name: SpeakerName | None = None
    """Who wrote the turn (``turns.name``); absent in exports made before speakers had names."""


class ConversationDoc(msgspec.Struct):
    id: int
    external_id: ExternalId
    status: Text = "open"
    agent: ExternalId | None = None
    title: Text | None = None
    created_at: datetime | None = None
    completed_at: datetime | None = None
    mined_seq: int = 0
    mined_at: datetime | None = None
    turns: list[TurnDoc] = []


class WingDoc(msgspec.Struct):
    id: int
    seq: int
    kind: Text
    name: Text
    slug: Text
    aliases: list[Text] = []
    created_at: datetime | None = None
    deleted_at: datetime | None = None


class RoomDoc(msgspec.Struct):
    id: int
    wing_id: int
    seq: int
    label: Text
    started_at: datetime
    ended_at: datetime
    conversation_id: int | None = None
    deleted_at: datetime | None = None


class ClosetDoc(msgspec.Struct):
    id: int
    room_id: int
    topic: Text
    slug: Text
    deleted_at: datetime | None = None


class DrawerDoc(msgspec.Struct):
    id: int
    wing_id: int
    room_id: int
    closet_id: int
    seq: int
    role: Text
    content: Text
    aaak: Text
    occurred_at: datetime
    turn_id: int | None = None
    part: int = 0
    tags: dict[Text, Any] = {}
    tag_text: Text = ""
    embedding: list[float] | None = None
    created_at: datetime | None = None
    deleted_at: datetime | None = None
    speaker: SpeakerName | None = None


class EntityDoc(msgspec.Struct):
    id: int
    kind: Text
    name: Text
    slug: Text
    aliases: list[Text] = []
    mention_count: int = 0
    first_seen: datetime | None = None
    last_seen: datetime | None = None


class DrawerEntityDoc(msgspec.Struct):
    drawer_id: int
    entity_id: int


class RelationDoc(msgspec.Struct):
    id: int
    subject_id: int
    predicate: Text
    valid_from: datetime
    object_entity_id: int | None = None
    object_value: Text | None = None
    valid_to: datetime | None = None
    source_drawer_id: int | None = None
    """The first turn of the file that said it (its drawer)."""
    confidence: float = 1.0
    created_at: datetime | None = None
    sources: list[int] = []
    """The file's other drawers that said it too (``relation_sources``): the fact holds while
    one of them does. Older files have none; an import always counts ``source_drawer_id``."""


class MemoryDoc(msgspec.Struct):
    """One version of one explicit memory (`loci.models.Memory`): ``id``, ``lineage_id`` and
    ``superseded_by`` are memory ids of this file, ``conversation_id`` a conversation's."""

    id: int
    lineage_id: int
    layer: Text
    category: Text
    content: Text
    source: Text
    valid_from: datetime
    summary: Text | None = None
    body: Text | None = None
    confidence: float | None = None
    confidence_base: float | None = None
    """What ``confidence`` decays from (extracted only); absent in older files: the confidence."""
    importance: int = 3
    pinned: bool = False
    tags: list[Text] = []
    agent_id: ExternalId | None = None
    conversation_id: int | None = None
    turn_seqs: list[int] = []
    valid_until: datetime | None = None
    end_reason: Text | None = None
    superseded_by: int | None = None
    last_confirmed_at: datetime | None = None
    recall_count: int = 0
    last_recalled_at: datetime | None = None
    created_at: datetime | None = None
    embedding: list[float] | None = None
    kind: Text = "durable"
    """How long it holds (`loci.memory_kinds`); absent in older files: durable, as they were."""
    expires_at: datetime | None = None
    said_at: datetime | None = None
    """Learned from a conversation: when it was said; absent (older files, memories written on
    purpose): said when written (``valid_from``)."""


class MemoryLinkDoc(msgspec.Struct):
    id: int
    from_id: int
    to_id: int
    relation: Text
    created_at: datetime | None = None
    removed_at: datetime | None = None


class MemoryHistoryDoc(msgspec.Struct):
    """One write event; ``old_id``/``new_id``/``lineage_id`` may name purged memories, which
    the file does not hold (the importer keeps them pointing at nothing: `domain.import_memories`)."""

    id: int
    event: Text
    actor: Text
    lineage_id: int | None = None
    old_id: int | None = None
    new_id: int | None = None
    meta: dict[Text, Any] = {}
    created_at: datetime | None = None


class MemoryProposalDoc(msgspec.Struct):
    """A change mining proposed to a sensitive profile field (`loci.models.MemoryProposal`),
    waiting or answered: a rejected one keeps mining from asking again. ``target_lineage_id``
    and ``memory_id`` are memory ids of this file (null when that memory is not in it)."""

    id: int
    field: Text
    kind: Text
    category: Text
    content: Text
    confidence: float
    expires_at: datetime
    status: Text = "pending"
    slot: Text | None = None
    target_lineage_id: int | None = None
    importance: int = 3
    conversation_id: int | None = None
    turn_seqs: list[int] = []
    extractor: Text = "offline"
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
    access: AccessDoc | None = None
    """Per-agent access (`GET /v1/access`'s document); absent in files before version 3, whose
    agents an import creates closed (`domain.import_access`)."""
