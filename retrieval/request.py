"""The records that cross the retrieval boundary (the contract other packages use).

Frozen and slotted so a request can be shared between pipeline stages without anyone
mutating it, and so the service and the benchmark build exactly the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from retrieval.config import RetrievalConfig
from retrieval.filters import RecallFilters
from retrieval.params import GroupBy
from retrieval.rerank import Reranker

if TYPE_CHECKING:
    from retrieval.cache import RecallCache

__all__ = [
    "RecallDeps",
    "RecallFilters",
    "RecallRequest",
    "RecallResponse",
    "RecallStats",
    "RecalledDrawer",
    "RecalledMemory",
]


@dataclass(frozen=True, slots=True)
class RecallRequest:
    """One recall. ``None`` fields fall back to the user's memory settings, then to settings;
    ``config`` None is the settings' default preset (``LOCI_RETRIEVAL_PRESET``)."""

    user_id: int
    message: str
    agent_id: str | None = None
    top_k: int | None = None
    filters: RecallFilters = field(default_factory=RecallFilters)
    now: datetime | None = None
    budget_tokens: int | None = None
    config: RetrievalConfig | None = None
    candidate_limit: int = 50
    """How deep each signal's list goes (at least ``top_k``): ten times the default
    ``top_k`` for the hot path; the benchmark asks 1,000 to rank whole haystacks."""
    log: bool = True
    as_of: datetime | None = None
    """Recall the explicit memories valid at this moment (`loci.models.valid_at`) instead of
    the current ones; the drawers are searched as always (a palace keeps no versions)."""
    category_caps: Mapping[str, int] = field(default_factory=dict)
    """At most this many recalled memories of a category: the agent's ``rag`` categories
    with a cap (`domain.agent_access`); a category not named is capped by ``max_items`` only."""
    group_by: GroupBy | None = None
    """`GroupBy.ROOM`: ``top_k`` distinct rooms, each with up to `RetrievalConfig.room_turns`
    of its best drawers, room by room (`retrieval.grouping`)."""
    conversation_id: str | None = None
    """The caller's name for the conversation this message belongs to: within it, the same
    message recalled again reuses the last result (`retrieval.cache`); None never caches."""


@dataclass(frozen=True, slots=True)
class RecallStats:
    """What recall decided, for the caller and the log: how deep (`retrieval.depth`), how many
    it looked for and found, and whether the answer came from the conversation's cache."""

    depth: str
    top_k: int
    """What was asked for: drawers, or with `GroupBy.ROOM` rooms (as the request's ``top_k``)."""
    cache: str | None = None
    """``hit``, ``miss``, or None when the request did not use the cache."""
    drawers: int = 0
    """The drawers that came back: up to ``top_k``, or up to `RetrievalConfig.room_turns` per room."""


@dataclass(frozen=True, slots=True)
class RecalledDrawer:
    """One ranked memory: where it lives, what was said verbatim, and why it ranked."""

    drawer_id: int
    aaak: str
    wing: str
    room_id: int
    room_label: str
    conversation_external_id: str | None
    turn_seq: int | None
    part: int
    role: str
    content: str
    occurred_at: datetime
    ranks: Mapping[str, int]
    score: float
    speaker: str | None = None
    """Who said it (its turn's ``name``), when the caller named the speaker."""


@dataclass(frozen=True, slots=True)
class RecalledMemory:
    """One explicit memory recall found: what it says, who stated it, and why it ranked."""

    memory_id: int
    layer: str
    category: str
    content: str
    source: str
    confidence: float | None
    valid_from: datetime
    ranks: Mapping[str, int]
    score: float
    said_at: datetime | None = None
    """When it was said (`loci.models.said_of`: a mined memory's turn, else ``valid_from``);
    what the block dates it by. None only where a caller built one without it."""

    @property
    def dated(self) -> datetime:
        """The date a reader sees: when it was said, not when Loci learned it."""
        return self.said_at if self.said_at is not None else self.valid_from


@dataclass(frozen=True, slots=True)
class RecallResponse:
    """Ranked drawers, the rendered block (None when nothing is relevant), stage timings."""

    items: tuple[RecalledDrawer, ...]
    context: str | None
    timings_ms: Mapping[str, float]
    preset: str
    skipped: str | None = None
    memories: tuple[RecalledMemory, ...] = ()
    """Explicit memories past the relevance floor, best first (rendered ahead of the drawers)."""
    stats: RecallStats | None = None


@dataclass(frozen=True, slots=True)
class RecallDeps:
    """What recall needs from the process: built once, passed in, never imported.

    Without a ``reranker`` a config that asks for one falls back to the RRF order."""

    db: Database
    embedder: Embedder
    settings: Settings
    reranker: Reranker | None = None
    cache: RecallCache | None = None
    """The per-conversation cache (Valkey); None recalls every message afresh."""
