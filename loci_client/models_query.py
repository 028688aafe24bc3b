"""Answers of the scoped memory query (`LociClient.memory_query`)."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from loci_client._model import Model
from loci_client.models_memories import MemoryOut

__all__ = ["QueryBullet", "QueryDrawer", "QueryItem", "QueryOut"]


class QueryBullet(Model):
    """One result as a short line: ``kind`` is ``memory`` or ``drawer`` (a conversation
    excerpt, whose ``category`` is ``conversation``)."""

    id: int
    kind: str
    category: str
    text: str


class QueryDrawer(Model):
    """Where a drawer lives and what was said."""

    aaak: str
    wing: str
    room_label: str
    conversation_id: str | None
    turn_seq: int | None
    role: str
    content: str
    occurred_at: datetime
    speaker: str | None = None
    """Who said it (the turn's ``name``), when the conversation named its speakers."""


class QueryItem(Model):
    """One result with every field (``return="full"``): ``memory`` or ``drawer`` is set."""

    id: int
    kind: str
    category: str
    score: float
    similarity: float | None
    ranks: dict[str, int]
    memory: MemoryOut | None = None
    drawer: QueryDrawer | None = None


class QueryOut(Model):
    """``bullets`` (within the token budget) or ``items`` (``return="full"``), best first."""

    mode: str = Field(alias="return")
    bullets: list[QueryBullet]
    items: list[QueryItem]
    omitted: int
    skipped: str | None
    timings_ms: dict[str, float]
