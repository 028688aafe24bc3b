"""What the explicit-memory API takes and answers (msgspec structs, shared by every adapter).

The schema states every rule it can (lengths, alphabets, ranges) so a bad body is a 400
naming the field before any query runs. Two rules are settings and cannot be in a static
schema: the allowed categories (``LOCI_MEMORY_CATEGORIES``) and the content limit
(``LOCI_MEMORY_CONTENT_MAX_CHARS``, at most `CONTENT_MAX_CHARS_MAX`, the bound stated
here); `domain.memory_rows.clean_content` and `check_category` apply them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

from domain.fields import Id, When
from loci.inputs import ID_PATTERN, MAX_ID_CHARS, NONBLANK_TEXT_PATTERN, TEXT_PATTERN
from loci.models import MEMORY_KINDS, MEMORY_LAYERS, MEMORY_LINK_RELATIONS
from loci.settings import CATEGORY_PATTERN, CONTENT_MAX_CHARS_MAX

__all__ = [
    "MAX_ID",
    "MAX_TAGS",
    "MAX_TAG_CHARS",
    "MAX_TEXT_CHARS",
    "ConfirmIn",
    "ForgetIn",
    "HistoryOut",
    "LinkIn",
    "LinkOut",
    "MemoryDetail",
    "MemoryEvent",
    "MemoryIn",
    "MemoryOut",
    "MemoryPage",
    "MemoryUpdateIn",
    "ProfileEntry",
    "ProfileIn",
    "ProfileOut",
    "ProfileWrite",
    "PurgeIn",
    "UndoRef",
    "told",
]

MAX_ID = 2**53 - 1
"""Largest id a body may name (as `service.routes._docs.MAX_ID`: exact in a float, so in JavaScript)."""
MAX_TAGS = 20
"""Tags per memory: labels to filter by, not a second content field."""
MAX_TAG_CHARS = 64
MAX_TEXT_CHARS = 20_000
"""A summary or body: the body is longer detail (searched, never injected), still not a document."""
MAX_TURN_SEQS = 200
MAX_REASON_CHARS = 500

Content = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=CONTENT_MAX_CHARS_MAX,
        pattern=NONBLANK_TEXT_PATTERN,
        description="one short statement; trimmed; at most LOCI_MEMORY_CONTENT_MAX_CHARS (default 500)",
        examples=["Prefers answers in metric units"],
    ),
]
Text = Annotated[str, msgspec.Meta(max_length=MAX_TEXT_CHARS, pattern=TEXT_PATTERN)]
Category = Annotated[
    str,
    msgspec.Meta(pattern=CATEGORY_PATTERN, description="one of LOCI_MEMORY_CATEGORIES", examples=["preference"]),
]
Layer = Annotated[str, msgspec.Meta(pattern=f"^({'|'.join(MEMORY_LAYERS)})$", description=", ".join(MEMORY_LAYERS))]
Relation = Annotated[
    str, msgspec.Meta(pattern=f"^({'|'.join(MEMORY_LINK_RELATIONS)})$", description=", ".join(MEMORY_LINK_RELATIONS))
]
Kind = Annotated[
    str,
    msgspec.Meta(
        pattern=f"^({'|'.join(MEMORY_KINDS)})$",
        description="how long it holds: durable (never expires), contextual (7 days), temporary (1 day), "
        "deadline (when the date in its content has passed); left out: inferred from the category and the "
        "text's time words (loci.memory_kinds)",
        examples=["contextual"],
    ),
]
Importance = Annotated[int, msgspec.Meta(ge=1, le=5, description="1 (trivia) to 5 (essential)")]
Tag = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_TAG_CHARS, pattern=NONBLANK_TEXT_PATTERN)]
Tags = Annotated[list[Tag], msgspec.Meta(max_length=MAX_TAGS)]
AgentId = Annotated[str, msgspec.Meta(pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description="the agent writing")]
MemoryId = Annotated[int, msgspec.Meta(ge=1, le=MAX_ID)]
IdOrText = Annotated[
    int | Annotated[str, msgspec.Meta(pattern=NONBLANK_TEXT_PATTERN)],
    msgspec.Meta(
        description="an active memory's id, or text found (case-insensitively) in exactly one active memory; "
        "text of digits only ('3') is the id too, unless other memories' text holds it (a 409 listing them); "
        "an id or text that names none is a 404; blank text is a 400; text holds no control characters",
        examples=["metric units"],
    ),
]
"""Text must hold a visible character and no control character (the schema says so, so a blank
text is refused as the schema's, a 400 naming the field; `domain.memory_lookup` refuses it too, for
callers that skip the schema: the MCP tools); otherwise unconstrained on purpose: too long text and
ids out of range simply name nothing (404)."""
TurnSeqs = Annotated[list[Annotated[int, msgspec.Meta(ge=1, le=2**31 - 1)]], msgspec.Meta(max_length=MAX_TURN_SEQS)]
Source = Literal["user", "agent"]


class MemoryIn(msgspec.Struct, forbid_unknown_fields=True):
    """A save. ``source`` defaults to ``agent`` when ``agent_id`` is given, else ``user``."""

    content: Content
    category: Category
    layer: Layer = "knowledge"
    summary: Text | None = None
    body: Text | None = None
    importance: Importance = 3
    pinned: bool = False
    tags: Tags = msgspec.field(default_factory=list)
    agent_id: AgentId | None = None
    source: Source | None = None
    conversation_id: Annotated[str, msgspec.Meta(pattern=ID_PATTERN, max_length=MAX_ID_CHARS)] | None = None
    turn_seqs: TurnSeqs = msgspec.field(default_factory=list)
    kind: Kind | None = None


class MemoryUpdateIn(msgspec.Struct, forbid_unknown_fields=True):
    """Fields left out keep their value; ``null`` clears ``summary`` or ``body``."""

    id_or_text: IdOrText
    content: Content | msgspec.UnsetType = msgspec.UNSET
    summary: Text | msgspec.UnsetType | None = msgspec.UNSET
    body: Text | msgspec.UnsetType | None = msgspec.UNSET
    category: Category | msgspec.UnsetType = msgspec.UNSET
    layer: Layer | msgspec.UnsetType = msgspec.UNSET
    importance: Importance | msgspec.UnsetType = msgspec.UNSET
    pinned: bool | msgspec.UnsetType = msgspec.UNSET
    tags: Tags | msgspec.UnsetType = msgspec.UNSET
    kind: Kind | msgspec.UnsetType = msgspec.UNSET
    """A new kind restarts its time from this version; new content keeps the kind and
    restarts it too (a deadline is read again from the new text)."""
    agent_id: AgentId | None = None


class ForgetIn(msgspec.Struct, forbid_unknown_fields=True):
    id_or_text: IdOrText
    reason: Annotated[str, msgspec.Meta(max_length=MAX_REASON_CHARS, pattern=TEXT_PATTERN)] | None = None
    agent_id: AgentId | None = None


class ConfirmIn(msgspec.Struct, forbid_unknown_fields=True):
    id_or_text: IdOrText
    agent_id: AgentId | None = None


PurgeTarget = Annotated[
    int | Annotated[str, msgspec.Meta(pattern=NONBLANK_TEXT_PATTERN)],
    msgspec.Meta(
        description="the id of any version of the memory, active or ended (every version goes), or text found "
        "(case-insensitively) in exactly one active memory; an id or text that names none is a 404, "
        "blank text a 400",
        examples=["metric units"],
    ),
]


class PurgeIn(msgspec.Struct, forbid_unknown_fields=True):
    """What `POST /v1/memories/purge` deletes for good: a user's decision, so no ``agent_id``."""

    id_or_text: PurgeTarget


class LinkIn(msgspec.Struct, forbid_unknown_fields=True):
    from_id: MemoryId
    to_id: MemoryId
    relation: Relation
    agent_id: AgentId | None = None


class MemoryOut(msgspec.Struct):
    id: Id
    lineage_id: Id
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
    valid_from: When
    valid_until: datetime | None
    end_reason: str | None
    superseded_by: int | None
    last_confirmed_at: datetime | None
    created_at: When
    kind: str
    expires_at: datetime | None
    """When it leaves the block and recall (its kind's time); null: never."""
    said_at: When
    """When what it says was said: for a memory learned from a conversation (mined, or a
    conversation's summary) the turn's time, else when it was written (``valid_from``). What it
    is dated by in the blocks; ``valid_from`` is when Loci learned it, which ``as_of`` reads,
    decay and expiry measure from."""


class LinkOut(msgspec.Struct):
    id: Id
    from_id: int
    to_id: int
    relation: str
    created_at: When
    removed_at: datetime | None


class MemoryDetail(msgspec.Struct):
    memory: MemoryOut
    links: list[LinkOut]
    """Links whose both ends (and the link itself) are valid at ``as_of``, or, without it, at
    the last moment this version was valid (now, for an active one)."""


class UndoRef(msgspec.Struct):
    event_id: int
    method: str
    path: str


class MemoryEvent(msgspec.Struct):
    """What one write did. ``event_id`` is the history row (null for ``unchanged``, which writes nothing)."""

    event_id: int | None
    event: Annotated[str, msgspec.Meta(examples=["update"])]
    memory: MemoryOut | None
    previous: MemoryOut | None
    undo: UndoRef | None
    link: LinkOut | None = None


def told(event: MemoryEvent, key_agent: str | None) -> MemoryEvent:
    """``event`` as the caller is told it: an agent's key (``key_agent``) gets no ``undo``
    reference. Undo is the user's (README, "User keys and agent keys": ``/v1/memories/undo``
    answers an agent key 403), and rightly: an undo reverses any event of the user's history,
    outside any agent's access list, where an agent reverses its own write with what it has
    (forget what it saved, update it back). Offered to an agent, the reference could only be
    refused; a user's key naming an agent in the body still gets it."""
    return event if key_agent is None or event.undo is None else msgspec.structs.replace(event, undo=None)


class HistoryOut(msgspec.Struct):
    id: Id
    event: str
    lineage_id: int | None
    old_id: int | None
    new_id: int | None
    actor: str
    meta: dict[str, object]
    created_at: When


class MemoryPage(msgspec.Struct):
    items: list[MemoryOut]
    next_before: int | None
    """Pass as ``before`` for the next (older) page; null at the end."""


class ProfileEntry(msgspec.Struct, forbid_unknown_fields=True):
    category: Category
    content: Content


class ProfileIn(msgspec.Struct, forbid_unknown_fields=True):
    """Exactly one of ``markdown`` (``## Category`` headings, ``- line`` bullets) or ``entries``."""

    markdown: Annotated[str, msgspec.Meta(max_length=MAX_TEXT_CHARS, pattern=TEXT_PATTERN)] | None = None
    entries: Annotated[list[ProfileEntry], msgspec.Meta(max_length=1000)] | None = None


class ProfileOut(msgspec.Struct):
    markdown: str
    size: int
    """Characters of content in the active core memories (what LOCI_MEMORY_CORE_MAX_CHARS caps)."""
    limit: int
    revision: int
    """The caller's memory revision: the id of the latest content-changing history event it may see
    (an agent's: of memories it may read, `domain.memory_scope.revision_query`; 0: none)."""
    memories: list[MemoryOut]
    etag: Annotated[
        str,
        msgspec.Meta(
            examples=['"5d41402abc4b2a76b9719d911017c592"'],
            description="this profile's version, as the ETag header carries it: send it in If-Match to PUT "
            "only if nobody changed the profile since",
        ),
    ]


class ProfileWrite(msgspec.Struct):
    profile: ProfileOut
    events: list[MemoryEvent]
