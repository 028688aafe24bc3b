"""Indexes behind every foreign key, the embedding backfill of any role, and the trash purge.

**Foreign keys.** PostgreSQL indexes the referenced side of a foreign key, never the
referencing side, so each ``ON DELETE CASCADE`` / ``SET NULL`` looked up the referencing
rows with a sequential scan, once per deleted parent row. At 400,000 drawers an account's
deletion spent 115-156 ms per wing on ``drawers.wing_id``, 58 ms per memory on
``memories.superseded_by`` and 35 ms per conversation on ``memories.conversation_id``:
``DELETE /v1/admin/users/{id}`` of a user with 400 wings ran past the 30 s statement timeout
and answered 503 on every retry (71 ms with these indexes). Every foreign key now has an
index leading with its columns (`tests/integration/test_foreign_key_indexes.py` fails on a
new one without). A nullable column that is mostly NULL gets a partial index ``WHERE col IS
NOT NULL``: the action's ``col = $1`` implies it, so the planner uses it, and it holds only
the rows that point somewhere. The ``user_id`` ones cascade once per deleted user (one scan
per table), but a scan of a table of millions is seconds inside the delete's 30 s.

**Embedding backfill.** ``ingest.embed.backfill_null_embeddings`` reads, per role in
``LOCI_MINING_EMBED_ROLES``, ``embedding IS NULL AND role = :r ORDER BY id LIMIT n``; 0008's
index names only ``role = 'user'``, so ``other`` (and ``assistant``) walked the table every
five minutes. ``ix_drawers_unembedded_role (role, id) WHERE embedding IS NULL`` answers every
role in index order, ``user`` included, so 0008's index is dropped (downgrade makes it again).

**Trash purge.** ``domain.forget.purge_expired`` lists the users with trash older than the
cutoff in six tables, then reads each user's trashed rows: both were sequential scans of
tables whose trashed rows are a handful. ``(user_id, deleted_at) WHERE deleted_at IS NOT
NULL`` on each serves both (the listing scans the small partial index; a user's read seeks it).

A plain ``CREATE INDEX`` (not CONCURRENTLY, which cannot run in alembic's transaction, as
0038 says): the migrations run before the API and the workers. Built on a generated
400,000-drawer table on the shared 2-core VM: see README, Upgrading.

Revision ID: 0044
Revises: 0043
Create Date: 2026-11-30 04:30:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0044"
down_revision: str | None = "0043"
branch_labels: str | None = None
depends_on: str | None = None

INDEXES: tuple[tuple[str, str, str, str | None], ...] = (
    # foreign keys: (name, table, columns, predicate)
    ("ix_drawers_wing_id", "drawers", "wing_id", None),
    ("ix_memories_superseded_by", "memories", "superseded_by", "superseded_by IS NOT NULL"),
    ("ix_memories_conversation_id", "memories", "conversation_id", "conversation_id IS NOT NULL"),
    ("ix_memory_proposals_conversation_id", "memory_proposals", "conversation_id", "conversation_id IS NOT NULL"),
    ("ix_conversations_agent_id", "conversations", "agent_id", "agent_id IS NOT NULL"),
    ("ix_api_keys_user_id", "api_keys", "user_id", None),
    ("ix_drawer_entities_user_id", "drawer_entities", "user_id", None),
    ("ix_memory_links_user_id", "memory_links", "user_id", None),
    ("ix_relation_sources_user_id", "relation_sources", "user_id", None),
    ("ix_relations_user_id", "relations", "user_id", None),  # its (user_id, …) indexes hold current rows only
    ("ix_closets_user_id", "closets", "user_id", None),
    ("ix_rooms_user_id", "rooms", "user_id", None),
    ("ix_turns_user_id", "turns", "user_id", None),
    # the embedding backfill of every role
    ("ix_drawers_unembedded_role", "drawers", "role, id", "embedding IS NULL"),
    # the trash purge's users and each user's trashed rows
    *(
        (f"ix_{table}_trashed", table, "user_id, deleted_at", "deleted_at IS NOT NULL")
        for table in ("wings", "rooms", "closets", "drawers", "conversations", "turns")
    ),
)


REPLACED = "ix_drawers_unembedded_user"
"""0008's ``(id) WHERE embedding IS NULL AND role = 'user'``: ``ix_drawers_unembedded_role`` serves its query."""


def upgrade() -> None:
    for name, table, columns, predicate in INDEXES:
        where = f" WHERE {predicate}" if predicate else ""
        op.execute(f"CREATE INDEX IF NOT EXISTS {name} ON {table} ({columns}){where}")
    op.execute(f"DROP INDEX IF EXISTS {REPLACED}")


def downgrade() -> None:
    op.execute(f"CREATE INDEX IF NOT EXISTS {REPLACED} ON drawers (id) WHERE embedding IS NULL AND role = 'user'")
    for name, _, _, _ in reversed(INDEXES):
        op.execute(f"DROP INDEX IF EXISTS {name}")
