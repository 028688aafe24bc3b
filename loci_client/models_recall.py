"""Answers of recall, search, the session-start context, the palace, trash, preferences and portability."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import PrivateAttr

from loci_client._model import Model

__all__ = [
    "ActivityOut",
    "ActivityPage",
    "AgentOut",
    "AgentPage",
    "CategoryOut",
    "ContextOut",
    "DrawerOut",
    "ExportDoc",
    "ImportResult",
    "InsightsOut",
    "Moved",
    "Node",
    "PalacePage",
    "Purged",
    "RecallOut",
    "RecallStatsOut",
    "RecalledMemoryOut",
    "RecalledOut",
    "SettingsOut",
    "TrashEntry",
    "TrashPage",
]


class RecalledOut(Model):
    """A recalled drawer, with its rank in each signal."""

    drawer_id: int
    aaak: str
    wing: str
    room_id: int
    room_label: str
    session: str | None
    turn_seq: int | None
    part: int
    role: str
    content: str
    occurred_at: datetime
    ranks: dict[str, int]
    score: float
    speaker: str | None = None


class RecalledMemoryOut(Model):
    """A recalled explicit memory, with its rank in each signal."""

    id: int
    layer: str
    category: str
    content: str
    source: str
    confidence: float | None
    valid_from: datetime
    ranks: dict[str, int]
    score: float
    said_at: datetime
    """When it was said (a memory learned from a conversation: its turn); what the block dates it by."""


class RecallStatsOut(Model):
    """How deep recall went for the message (``depth``, ``top_k``) and whether the answer came
    from the conversation's cache (``cache``: ``hit``, ``miss``, or None without a conversation);
    ``top_k`` counts rooms with ``group_by`` ``room``, and ``drawers`` what came back."""

    depth: str
    top_k: int
    cache: str | None = None
    drawers: int = 0


class RecallOut(Model):
    """What recall found: the `<memory_context>` block to put before an LLM call, and its items."""

    items: list[RecalledOut]
    context: str | None
    timings_ms: dict[str, float]
    preset: str
    skipped: str | None = None
    memories: list[RecalledMemoryOut] | None = None
    revision: int | None = None
    delta: list[str] | None = None
    stats: RecallStatsOut | None = None


class CategoryOut(Model):
    """One category of the session-start block."""

    category: str
    count: int
    tokens: int


class ContextOut(Model):
    """The session-start memory block and its revision."""

    block: str
    revision: int
    token_count: int
    categories: list[CategoryOut]
    omitted: int
    delta: list[str]
    delta_text: str
    as_of: datetime | None
    _etag: str | None = PrivateAttr(default=None)

    @property
    def etag(self) -> str | None:
        """The answer's ``ETag`` header (not a body field): pass it back as ``get_context(etag=…)``,
        which then answers None for as long as the block and its delta stay the same."""
        return self._etag


class Node(Model):
    """One wing, room, closet or drawer of the palace."""

    id: int
    level: str
    label: str
    drawers: int | None = None
    children: int | None = None
    first_at: datetime | None = None
    last_at: datetime | None = None
    seq: int | None = None
    kind: str | None = None
    aaak: str | None = None
    role: str | None = None
    speaker: str | None = None
    tags: dict[str, Any] | None = None
    preview: str | None = None


class PalacePage(Model):
    """A page of the palace's children of one parent."""

    level: str
    parent_id: int | None
    items: list[Node]
    total: int
    limit: int
    offset: int
    next_offset: int | None


class TrashEntry(Model):
    """An item in the trash and when it is purged."""

    kind: str
    id: int
    label: str
    deleted_at: datetime
    purge_after: datetime
    drawers: int
    conversation: str | None = None


class TrashPage(Model):
    """A page of the trash, newest deleted first; `next_offset` is None on the last."""

    items: list[TrashEntry]
    total: int
    limit: int
    offset: int
    next_offset: int | None


class Purged(Model):
    """Counts of rows the purge deleted."""

    wings: int | None = None
    rooms: int | None = None
    closets: int | None = None
    drawers: int | None = None
    conversations: int | None = None
    turns: int | None = None
    relations: int | None = None
    entities: int | None = None
    memories: int | None = None


class DrawerOut(Model):
    """One drawer (a verbatim turn or part) with where it lives."""

    id: int
    aaak: str
    role: str
    content: str
    tags: dict[str, Any]
    occurred_at: datetime
    created_at: datetime
    wing_id: int
    wing: str
    room_id: int
    room: str
    closet_id: int
    closet: str
    part: int
    seq: int
    speaker: str | None = None


class Moved(Model):
    """A palace item moved to the trash, purged or restored."""

    kind: str
    id: int
    drawers: int
    purged: bool | None = None


class AgentOut(Model):
    """An agent's record."""

    external_id: str
    name: str | None
    recall_enabled: bool
    created_at: datetime


class AgentPage(Model):
    """A page of agents by id; `next_offset` is None on the last."""

    items: list[AgentOut]
    total: int
    limit: int
    offset: int
    next_offset: int | None


class InsightsOut(Model):
    """Whether the daily insight job runs for this user (it needs an LLM), and why not."""

    enabled: bool
    reason: str | None
    per_day: int


class SettingsOut(Model):
    """The user's memory settings."""

    enabled: bool
    top_k: int
    use_rerank: bool
    rerank_model: str | None
    auto_mine: bool
    updated_at: datetime
    insights: InsightsOut
    time_zone: str | None = None
    """The user's IANA zone (``Asia/Tokyo``): the clock of saves and recalls that bring none; None: UTC."""


class ActivityOut(Model):
    """One event of the activity feed."""

    id: int
    type: str
    payload: dict[str, Any]
    at: datetime


class ActivityPage(Model):
    """A page of the activity feed (`next_before` for the next)."""

    items: list[ActivityOut]
    next_before: int | None


class ImportResult(Model):
    """Counts of rows an import created."""

    conversations: int
    turns: int
    wings: int
    rooms: int
    closets: int
    drawers: int
    entities: int
    relations: int
    memories: int | None = None
    memory_links: int | None = None
    memory_history: int | None = None
    memory_proposals: int | None = None
    agents_closed: list[str] | None = None
    """Agents created closed (no category, no wing): the file carried no access; set theirs."""
    agents_opened: list[str] | None = None
    """Agents the user already had, limited, that the file's access now lets read a category or
    wing they could not, gives a wider mode (rag to all, a cap dropped or raised), or whose recall
    it switched back on (agents survive an empty memory): check that this is what you meant."""
    defaults_opened: list[str] | None = None
    """Categories whose default mode the file widened: every agent without a mode of its own for
    them, listed in the file or not, and callers naming no agent, now read more of them."""


class ExportDoc(Model):
    """A whole memory as one JSON document; its sections stay plain dicts, so an import sends them back unchanged."""

    format: str
    version: int
    exported_at: datetime | None = None
    settings: dict[str, Any] | None = None
    agents: list[dict[str, Any]] | None = None
    conversations: list[dict[str, Any]] | None = None
    wings: list[dict[str, Any]] | None = None
    rooms: list[dict[str, Any]] | None = None
    closets: list[dict[str, Any]] | None = None
    drawers: list[dict[str, Any]] | None = None
    entities: list[dict[str, Any]] | None = None
    drawer_entities: list[dict[str, Any]] | None = None
    relations: list[dict[str, Any]] | None = None
    memories: list[dict[str, Any]] | None = None
    memory_links: list[dict[str, Any]] | None = None
    memory_history: list[dict[str, Any]] | None = None
    memory_proposals: list[dict[str, Any]] | None = None
    access: dict[str, Any] | None = None
