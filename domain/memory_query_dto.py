"""What `POST /v1/memory/query` (and the MCP `memory_query` tool) takes and answers.

The schema states every rule it can, so a bad body is a 400 naming the field before any
query runs; the categories are a setting (``LOCI_MEMORY_CATEGORIES``) and the dates need
parsing, so `domain.memory_query` checks those.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

from domain.fields import Id
from domain.memory_dto import MemoryOut
from loci.inputs import ID_PATTERN, MAX_ID_CHARS, NONBLANK_TEXT_PATTERN, TEXT_PATTERN
from loci.models import MEMORY_LAYERS, MEMORY_SOURCES, ROLES, TOP_K_MAX
from loci.settings import BUDGET_TOKENS_MAX, BUDGET_TOKENS_MIN, CATEGORY_PATTERN

__all__ = [
    "DEFAULT_TOP_K",
    "DRAWER_CATEGORY",
    "QueryBullet",
    "QueryDrawer",
    "QueryFiltersIn",
    "QueryItem",
    "QueryMemoryIn",
    "QueryOut",
]

DEFAULT_TOP_K = 10
"""Results when ``top_k`` is left out: a handful of bullets fits any prompt's budget."""
DRAWER_CATEGORY = "conversation"
"""The ``category`` a drawer (a verbatim excerpt of a past conversation) answers with: it
has no memory category, and a model reading bullets needs to tell the two apart."""
MAX_QUERY_CHARS = 20_000
"""As recall's message (`retrieval.MAX_MESSAGE_CHARS`)."""
MAX_CATEGORIES = 32
"""As many as ``LOCI_MEMORY_CATEGORIES`` may name (each at most 32 characters)."""

ExternalId = Annotated[str, msgspec.Meta(pattern=ID_PATTERN, max_length=MAX_ID_CHARS)]
Importance = Annotated[int, msgspec.Meta(ge=1, le=5, description="1 (trivia) to 5 (essential)")]
Category = Annotated[str, msgspec.Meta(pattern=CATEGORY_PATTERN, description="one of LOCI_MEMORY_CATEGORIES")]
FilterAgent = Annotated[
    str,
    msgspec.Meta(
        pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description="memories this agent wrote, drawers of its chats"
    ),
]
FilterConversation = Annotated[
    str,
    msgspec.Meta(pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description="memories and drawers of this conversation"),
]
Role = Annotated[
    str, msgspec.Meta(pattern=f"^({'|'.join(ROLES)})$", description="turns by this role; leaves memories out")
]
Source = Annotated[
    str,
    msgspec.Meta(
        pattern=f"^({'|'.join(MEMORY_SOURCES)})$",
        description=", ".join(MEMORY_SOURCES) + ": memories saved by this source; leaves drawers out",
    ),
]
Layer = Annotated[
    str,
    msgspec.Meta(
        pattern=f"^({'|'.join(MEMORY_LAYERS)})$",
        description="memories of this layer only, whatever the query asks (archive: conversation summaries, "
        "otherwise searched only for questions about the past); leaves drawers out",
    ),
]
Stamp = Annotated[
    str,
    msgspec.Meta(
        max_length=64,
        pattern=TEXT_PATTERN,
        description="ISO 8601 date-time with its zone: when a memory's version was written, a drawer's turn said",
        examples=["2026-05-03T10:15:00Z"],
    ),
]
Agent = Annotated[
    str,
    msgspec.Meta(
        pattern=ID_PATTERN, max_length=MAX_ID_CHARS, description="the asking agent: whose scope applies",
        examples=["support-bot"],
    ),
]  # fmt: skip
Query = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=MAX_QUERY_CHARS,
        pattern=NONBLANK_TEXT_PATTERN,
        description="what to look for; not blank, no control characters",
    ),
]
Categories = Annotated[
    list[Category],
    msgspec.Meta(max_length=MAX_CATEGORIES, description="only memories of these categories; leaves drawers out"),
]
TopK = Annotated[int, msgspec.Meta(ge=1, le=TOP_K_MAX, description=f"results at most, 1-{TOP_K_MAX}")]
Threshold = Annotated[
    float,
    msgspec.Meta(ge=0.0, le=1.0, description="minimum cosine similarity to the query; word-only matches drop out"),
]
Budget = Annotated[
    int,
    msgspec.Meta(ge=BUDGET_TOKENS_MIN, le=BUDGET_TOKENS_MAX, description="token budget of the bullets' text"),
]


class QueryFiltersIn(msgspec.Struct, forbid_unknown_fields=True):
    """Every filter is applied in SQL. Memory-only filters (``pinned``, ``importance_*``,
    ``source``, ``layer``) leave drawers out; ``role`` (who spoke a turn) leaves memories out."""

    agent_id: FilterAgent | None = None
    conversation_id: FilterConversation | None = None
    role: Role | None = None
    pinned: bool | None = None
    importance_min: Importance | None = None
    importance_max: Importance | None = None
    updated_after: Stamp | None = None
    updated_before: Stamp | None = None
    source: Source | None = None
    layer: Layer | None = None


class QueryMemoryIn(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """One scoped query over the saved memories and the past conversations an agent may see.
    ``agent`` may be left out only with an agent key, which always asks as its own agent."""

    agent: Agent | None = None
    query: Query
    categories: Categories | None = None
    filters: QueryFiltersIn | None = None
    top_k: TopK = DEFAULT_TOP_K
    threshold: Threshold | None = None
    mode: Literal["bullets", "full"] = msgspec.field(default="bullets", name="return")
    budget_tokens: Budget | None = None


class QueryBullet(msgspec.Struct):
    id: Id
    kind: Literal["memory", "drawer"]
    category: str
    """The memory's category, or ``conversation`` for a drawer."""
    text: str


class QueryDrawer(msgspec.Struct):
    """A drawer's place and words (as recall's items)."""

    aaak: str
    wing: str
    room_label: str
    conversation_id: str | None
    turn_seq: int | None
    role: str
    content: str
    occurred_at: datetime
    speaker: str | None = None
    """Who said it (its turn's ``name``), as recall's items carry it: a group chat's turns of
    role ``other`` are told apart by it alone."""


class QueryItem(msgspec.Struct):
    id: Id
    kind: Literal["memory", "drawer"]
    category: str
    score: float
    """Fused RRF score: comparable within one answer, not across queries."""
    similarity: float | None
    """Cosine similarity to the query, when the semantic search found the item."""
    ranks: dict[str, int]
    memory: MemoryOut | None = None
    drawer: QueryDrawer | None = None


class QueryOut(msgspec.Struct):
    mode: Literal["bullets", "full"] = msgspec.field(name="return")
    bullets: list[QueryBullet]
    """``return: bullets``: best first, within ``budget_tokens``."""
    items: list[QueryItem]
    """``return: full``: best first, with every field of the memory or drawer."""
    omitted: int
    """Results left out because the budget was spent."""
    skipped: str | None
    timings_ms: dict[str, float]
