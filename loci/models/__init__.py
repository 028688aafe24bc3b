"""ORM models: the palace, the temporal knowledge graph, and bookkeeping.

The schema itself is owned by alembic (`migrations/`); these classes must match it,
and a test runs alembic's autogenerate against a migrated database to prove they do.
Every table that holds user data carries ``user_id`` so queries are scoped (and Citus
could shard) by user; row-level security in the migration is the backstop.

One module per area (`accounts`, `palace`, `graph`, `memories`, `bookkeeping`); callers import
every name from ``loci.models`` itself.
"""

from loci.models._base import (
    COST_SOURCES,
    EMBEDDING_DIM,
    ENTITY_KINDS,
    MAX_SPEAKER_CHARS,
    PERSON_ROLES,
    ROLES,
    WING_KINDS,
    Base,
)
from loci.models.accounts import (
    TOP_K_DEFAULT,
    TOP_K_MAX,
    Agent,
    ApiKey,
    Conversation,
    MemorySettings,
    PageSession,
    Turn,
    User,
)
from loci.models.bookkeeping import Activity, IdempotencyKey, PeriodicRun, RetrievalLog, UsageCost
from loci.models.graph import DrawerEntity, Entity, Relation, RelationSource
from loci.models.lookup_indexes import LOOKUP_INDEXES as _LOOKUP_INDEXES  # noqa: F401  (attach them)
from loci.models.memories import (
    MEMORY_END_REASONS,
    MEMORY_EVENTS,
    MEMORY_KINDS,
    MEMORY_LAYERS,
    MEMORY_LINK_RELATIONS,
    MEMORY_SOURCES,
    Memory,
    MemoryHistory,
    MemoryLink,
    said_of,
    unexpired_at,
    valid_at,
)
from loci.models.palace import PREFERENCE_PATTERN, Closet, Drawer, DrawerSentence, EmbeddingCache, Room, Wing
from loci.models.proposals import PROPOSAL_KINDS, PROPOSAL_STATUSES, MemoryProposal

__all__ = [
    "COST_SOURCES",
    "EMBEDDING_DIM",
    "ENTITY_KINDS",
    "MAX_SPEAKER_CHARS",
    "MEMORY_END_REASONS",
    "MEMORY_EVENTS",
    "MEMORY_KINDS",
    "MEMORY_LAYERS",
    "MEMORY_LINK_RELATIONS",
    "MEMORY_SOURCES",
    "PERSON_ROLES",
    "PREFERENCE_PATTERN",
    "PROPOSAL_KINDS",
    "PROPOSAL_STATUSES",
    "ROLES",
    "TOP_K_DEFAULT",
    "TOP_K_MAX",
    "USER_TABLES",
    "WING_KINDS",
    "Activity",
    "Agent",
    "ApiKey",
    "Base",
    "Closet",
    "Conversation",
    "Drawer",
    "DrawerEntity",
    "DrawerSentence",
    "EmbeddingCache",
    "Entity",
    "IdempotencyKey",
    "Memory",
    "MemoryHistory",
    "MemoryLink",
    "MemoryProposal",
    "MemorySettings",
    "PageSession",
    "PeriodicRun",
    "Relation",
    "RelationSource",
    "RetrievalLog",
    "Room",
    "Turn",
    "UsageCost",
    "User",
    "Wing",
    "said_of",
    "unexpired_at",
    "valid_at",
]

USER_TABLES: tuple[str, ...] = tuple(
    t.name for t in Base.metadata.sorted_tables if "user_id" in t.c and t.name != "users"
)
"""Tables under row-level security (users itself is scoped by id)."""
