"""Explicit memories: ``memories``, ``memory_links`` and ``memory_history``.

What a user or an agent saves on purpose lives beside the palace (`loci.models.memories`
says why it is bitemporal and append-only). All three tables carry ``user_id`` and sit
under the same row-level security policy as every other user table.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24 10:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from pgvector.sqlalchemy import VECTOR
from sqlalchemy.dialects import postgresql

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | None = None
depends_on: str | None = None

ROLE = "loci_app"
CURRENT_USER = "NULLIF(current_setting('loci.user_id', true), '')::bigint"
SYSTEM = "current_setting('loci.system', true) = 'on'"
TABLES = ("memories", "memory_links", "memory_history")
# Frozen value sets as of this revision (the models may grow theirs in a later one).
LAYERS = "('core', 'knowledge', 'archive')"
SOURCES = "('user', 'agent', 'extracted')"
END_REASONS = "('update', 'forget', 'merge', 'decay', 'undo')"
RELATIONS = "('relates_to', 'supersedes', 'contradicts', 'part_of', 'example_of')"
EVENTS = "('add', 'update', 'forget', 'confirm', 'link', 'unlink', 'restore', 'decay', 'merge', 'purge', 'undo')"
_TS = sa.DateTime(timezone=True)
_TSV = (
    "setweight(to_tsvector('english'::regconfig, content), 'A') || "
    "setweight(to_tsvector('english'::regconfig, COALESCE(summary, '')), 'B') || "
    "setweight(to_tsvector('english'::regconfig, COALESCE(body, '')), 'C')"
)


def _memories() -> None:
    op.create_table(
        "memories",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("lineage_id", sa.BigInteger(), nullable=False, comment="id of this memory's first version"),
        sa.Column("layer", sa.String(16), nullable=False),
        sa.Column("category", sa.String(32), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=True, comment="a shorter line injected instead of content"),
        sa.Column("body", sa.Text(), nullable=True, comment="longer detail: searched and recalled, never injected"),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=True, comment="NULL for explicit (trusted); 0..1 extracted"),
        sa.Column("importance", sa.SmallInteger(), server_default=sa.text("3"), nullable=False),
        sa.Column("pinned", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("tags", postgresql.ARRAY(sa.Text()), server_default="{}", nullable=False),
        sa.Column("agent_id", sa.String(128), nullable=True, comment="the agent that wrote it, if one did"),
        sa.Column("conversation_id", sa.BigInteger(), nullable=True),
        sa.Column("turn_seqs", postgresql.ARRAY(sa.Integer()), server_default="{}", nullable=False),
        sa.Column("valid_from", _TS, server_default=sa.text("now()"), nullable=False),
        sa.Column("valid_until", _TS, nullable=True),
        sa.Column("end_reason", sa.String(16), nullable=True),
        sa.Column("superseded_by", sa.BigInteger(), nullable=True),
        sa.Column("last_confirmed_at", _TS, nullable=True),
        sa.Column("recall_count", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("last_recalled_at", _TS, nullable=True),
        sa.Column("created_at", _TS, server_default=sa.text("now()"), nullable=False),
        sa.Column("embedding", VECTOR(384), nullable=True),
        sa.Column("tsv", postgresql.TSVECTOR(), sa.Computed(_TSV, persisted=True), nullable=True),
        sa.CheckConstraint(f"layer IN {LAYERS}", name="memory_layer"),
        sa.CheckConstraint(f"source IN {SOURCES}", name="memory_source"),
        sa.CheckConstraint(f"end_reason IN {END_REASONS}", name="memory_end_reason"),
        sa.CheckConstraint("(source = 'extracted') = (confidence IS NOT NULL)", name="memory_confidence_by_source"),
        sa.CheckConstraint("confidence >= 0 AND confidence <= 1", name="memory_confidence_range"),
        sa.CheckConstraint("importance BETWEEN 1 AND 5", name="memory_importance"),
        sa.CheckConstraint("(valid_until IS NULL) = (end_reason IS NULL)", name="memory_end_has_reason"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["conversation_id"], ["conversations.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["superseded_by"], ["memories.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_memories_embedding_hnsw",
        "memories",
        ["embedding"],
        postgresql_using="hnsw",
        postgresql_with={"m": 16, "ef_construction": 64},
        postgresql_ops={"embedding": "vector_cosine_ops"},
    )
    op.create_index("ix_memories_tsv", "memories", ["tsv"], postgresql_using="gin")
    op.create_index(
        "ix_memories_user_active",
        "memories",
        ["user_id", "layer", "category"],
        postgresql_where=sa.text("valid_until IS NULL"),
    )
    op.create_index("ix_memories_user_lineage", "memories", ["user_id", "lineage_id"])


def _links_and_history() -> None:
    op.create_table(
        "memory_links",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("from_id", sa.BigInteger(), nullable=False),
        sa.Column("to_id", sa.BigInteger(), nullable=False),
        sa.Column("relation", sa.String(32), nullable=False),
        sa.Column("created_at", _TS, server_default=sa.text("now()"), nullable=False),
        sa.Column("removed_at", _TS, nullable=True, comment="unlinked (or undone) since"),
        sa.CheckConstraint(f"relation IN {RELATIONS}", name="memory_link_relation"),
        sa.CheckConstraint("from_id <> to_id", name="memory_link_not_self"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["from_id"], ["memories.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["to_id"], ["memories.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("from_id", "to_id", "relation"),
    )
    op.create_index(op.f("ix_memory_links_from_id"), "memory_links", ["from_id"])
    op.create_index(op.f("ix_memory_links_to_id"), "memory_links", ["to_id"])
    op.create_table(
        "memory_history",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("event", sa.String(16), nullable=False),
        sa.Column("lineage_id", sa.BigInteger(), nullable=True),
        sa.Column("old_id", sa.BigInteger(), nullable=True),
        sa.Column("new_id", sa.BigInteger(), nullable=True),
        sa.Column("actor", sa.String(200), nullable=False, comment="user, agent:<id> or system"),
        sa.Column("meta", postgresql.JSONB(), server_default=sa.text("'{}'::jsonb"), nullable=False),
        sa.Column("created_at", _TS, server_default=sa.text("now()"), nullable=False),
        sa.CheckConstraint(f"event IN {EVENTS}", name="memory_history_event"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_memory_history_user_lineage", "memory_history", ["user_id", "lineage_id"])
    op.create_index("ix_memory_history_user_id", "memory_history", ["user_id", "id"])


def upgrade() -> None:
    _memories()
    _links_and_history()
    for table in TABLES:
        op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {table} TO {ROLE}")
        op.execute(f"GRANT USAGE, SELECT ON SEQUENCE {table}_id_seq TO {ROLE}")
        op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
        op.execute(
            f"CREATE POLICY {table}_owner ON {table} "
            f"USING (user_id = {CURRENT_USER} OR {SYSTEM}) "
            f"WITH CHECK (user_id = {CURRENT_USER} OR {SYSTEM})"
        )


def downgrade() -> None:
    for table in reversed(TABLES):
        op.drop_table(table)
