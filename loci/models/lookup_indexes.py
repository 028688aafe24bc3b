"""Indexes that serve lookups by a foreign key, the embedding backfill and the trash purge (0044).

Declared here, on the tables of the other modules, because they share one reason: without
them a ``CASCADE`` / ``SET NULL`` action, or a periodic job's read, scans a whole table
(see migration 0044; `tests/integration/test_foreign_key_indexes.py` fails on a foreign key
added without one). A nullable reference that is mostly NULL is indexed where it is set.
"""

from __future__ import annotations

from typing import cast

from sqlalchemy import Index, Table, text

from loci.models._base import Base
from loci.models.accounts import ApiKey, Conversation, Turn
from loci.models.graph import DrawerEntity, Relation, RelationSource
from loci.models.memories import Memory, MemoryLink
from loci.models.palace import Closet, Drawer, Room, Wing
from loci.models.proposals import MemoryProposal

__all__ = ["LOOKUP_INDEXES"]


def _index(name: str, model: type[Base], columns: tuple[str, ...], where: str | None = None) -> Index:
    table = cast(Table, model.__table__)
    return Index(name, *(table.c[c] for c in columns), postgresql_where=text(where) if where else None)


def _set(column: str) -> str:
    return f"{column} IS NOT NULL"


LOOKUP_INDEXES: tuple[Index, ...] = (
    _index("ix_drawers_wing_id", Drawer, ("wing_id",)),
    _index("ix_memories_superseded_by", Memory, ("superseded_by",), _set("superseded_by")),
    _index("ix_memories_conversation_id", Memory, ("conversation_id",), _set("conversation_id")),
    _index(
        "ix_memory_proposals_conversation_id",
        MemoryProposal,
        ("conversation_id",),
        _set("conversation_id"),
    ),
    _index("ix_conversations_agent_id", Conversation, ("agent_id",), _set("agent_id")),
    *(
        _index(f"ix_{model.__tablename__}_user_id", model, ("user_id",))
        for model in (ApiKey, DrawerEntity, MemoryLink, RelationSource, Relation, Closet, Room, Turn)
    ),
    _index("ix_drawers_unembedded_role", Drawer, ("role", "id"), "embedding IS NULL"),
    *(
        _index(f"ix_{model.__tablename__}_trashed", model, ("user_id", "deleted_at"), _set("deleted_at"))
        for model in (Wing, Room, Closet, Drawer, Conversation, Turn)
    ),
)
"""Each attaches to its table's metadata as it is made; the tuple only names them."""
