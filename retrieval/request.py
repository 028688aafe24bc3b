"""The records that cross the retrieval boundary (the contract other packages use).

Frozen and slotted so a request can be shared between pipeline stages without anyone
mutating it, and so the service and the benchmark build exactly the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient
from loci.settings import Settings

__all__ = ["RecallDeps", "RecallFilters", "RecallRequest", "RecallResponse", "RecalledDrawer"]


@dataclass(frozen=True, slots=True)
class RecallFilters:
    """Narrow every signal: wing (slug or name), entity (slug or name), time range, role."""

    wing: str | None = None
    entity: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    role: str | None = None


@dataclass(frozen=True, slots=True)
class RecallRequest:
    """One recall. ``None`` fields fall back to the user's memory settings, then to settings."""

    user_id: int
    message: str
    agent_id: str | None = None
    top_k: int | None = None
    filters: RecallFilters = field(default_factory=RecallFilters)
    now: datetime | None = None
    budget_tokens: int | None = None
    preset: str | None = None
    candidate_limit: int = 50
    log: bool = True


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


@dataclass(frozen=True, slots=True)
class RecallResponse:
    """Ranked drawers, the rendered block (None when nothing is relevant), stage timings."""

    items: tuple[RecalledDrawer, ...]
    context: str | None
    timings_ms: Mapping[str, float]
    preset: str
    skipped: str | None = None


@dataclass(frozen=True, slots=True)
class RecallDeps:
    """What recall needs from the process: built once, passed in, never imported."""

    db: Database
    embedder: Embedder
    settings: Settings
    llm: LLMClient | None = None
