"""What every model module shares: the declarative base, column helpers and the
value sets the schema's CHECK constraints spell out (importers validate against
the same tuples, so a kind is listed in one place only)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import BigInteger, DateTime, ForeignKey, Identity, Index, func
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from loci.inputs import MAX_SPEAKER_CHARS

__all__ = [
    "COST_SOURCES",
    "EMBEDDING_DIM",
    "ENTITY_KINDS",
    "MAX_SPEAKER_CHARS",
    "PERSON_ROLES",
    "ROLES",
    "TS",
    "WING_KINDS",
    "Base",
    "created_column",
    "hnsw_index",
    "pk_column",
    "user_fk_column",
]

EMBEDDING_DIM = 384
"""Locked by migration: a model of another size needs a migration and a re-embed."""

ROLES = ("user", "assistant", "system", "tool", "other")
"""Who wrote a turn. The first four are the OpenAI message roles; ``other`` is another
person in the conversation (a friend in a two-person chat, a member of a group chat),
told apart by the turn's ``name``. ``user`` is always the account owner, whose memory
this is: what only the owner says about themself (preferences, stated facts) is read
from ``user`` turns alone, never from another person's "I ..."."""
PERSON_ROLES: tuple[Literal["user", "other"], ...] = ("user", "other")
"""The roles a human writes: mining embeds them by default (``LOCI_MINING_EMBED_ROLES``)."""
ENTITY_KINDS = ("p", "l", "o", "e", "i", "t")
"""person, location (place), organisation, event, item (thing, product), time: in this order
in a drawer's flattened tags. Organisations came with migration 0016."""
WING_KINDS = ("person", "place", "project", "topic", "agent")
COST_SOURCES = ("memory_embed", "memory_extract", "memory_rerank", "memory_qa")

TS = DateTime(timezone=True)


def pk_column() -> Mapped[int]:
    return mapped_column(BigInteger, Identity(always=False), primary_key=True)


def hnsw_index(name: str) -> Index:
    """The cosine HNSW graph on ``embedding``; drawers and their sentences are built alike,
    which `retrieval.candidates.use_exact_search` assumes when it prices a walk."""
    return Index(
        name,
        "embedding",
        postgresql_using="hnsw",
        postgresql_with={"m": 16, "ef_construction": 64},
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )


def user_fk_column() -> Mapped[int]:
    return mapped_column(BigInteger, ForeignKey("users.id", ondelete="CASCADE"), nullable=False)


def created_column() -> Mapped[datetime]:
    return mapped_column(TS, nullable=False, server_default=func.now())


class Base(DeclarativeBase):
    pass
