"""``page_sessions``: the /memory pages' sign-in is a server-side session, not the API key.

The ``loci_session`` cookie held the user's raw API key, so signing out only deleted the
browser's copy: any other copy (a shared computer, a proxy log, a stolen cookie) kept the
full API until the key was revoked. Now sign-in stores a row here and the cookie carries a
random token whose sha256 alone is kept (`domain.page_sessions`); signing out deletes the
row, so every copy of the cookie dies at once, and the cookie never opens ``/v1``.

A session belongs to its user and to the key it was opened with: both foreign keys cascade,
so deleting the user or the key ends its sessions, and ``loci_page_owner`` answers only for
a session that has not expired whose key is still live (not revoked, a person's key) and
whose user is active: revoking the key signs its pages out on their next load.

``loci_page_owner(token_hash)`` is the lookup every page makes, built like ``loci_key_owner``
(0025): it turns system visibility on for its own query and puts the caller's value back,
so it runs as one autocommit statement, one round trip. Rows are per user under the same
row-level security policy as every other user table.

Revision ID: 0031
Revises: 0030
Create Date: 2026-11-29 19:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | None = None
depends_on: str | None = None

ROLE = "loci_app"
CURRENT_USER = "NULLIF(current_setting('loci.user_id', true), '')::bigint"
SYSTEM = "current_setting('loci.system', true) = 'on'"
TABLE = "page_sessions"
_TS = sa.DateTime(timezone=True)

FUNCTION = """
CREATE FUNCTION loci_page_owner(wanted text)
RETURNS TABLE (user_id bigint, key_id bigint, last_used_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    before text := current_setting('loci.system', true);
BEGIN
    PERFORM set_config('loci.system', 'on', true);
    RETURN QUERY
        SELECT p.user_id::bigint, k.id::bigint, k.last_used_at
        FROM page_sessions p
        JOIN api_keys k ON k.id = p.key_id AND k.user_id = p.user_id
        JOIN users u ON u.id = p.user_id
        WHERE p.token_hash = wanted AND p.expires_at > now()
          AND k.revoked_at IS NULL AND k.agent_id IS NULL AND u.is_active;
    PERFORM set_config('loci.system', COALESCE(before, ''), true);
END
$$
"""


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("id", sa.BigInteger(), sa.Identity(always=False), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, comment="sha256 of the cookie's token, never the token"),
        sa.Column("user_id", sa.BigInteger(), nullable=False),
        sa.Column("key_id", sa.BigInteger(), nullable=False, comment="the API key it was opened with"),
        sa.Column("created_at", _TS, server_default=sa.text("now()"), nullable=False),
        sa.Column("expires_at", _TS, nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["key_id"], ["api_keys.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    # The sign-in's sweep of a user's expired rows, and the cascades from users and keys.
    op.create_index("ix_page_sessions_user_id_expires_at", TABLE, ["user_id", "expires_at"])
    op.create_index("ix_page_sessions_key_id", TABLE, ["key_id"])
    op.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON {TABLE} TO {ROLE}")
    op.execute(f"GRANT USAGE, SELECT ON SEQUENCE {TABLE}_id_seq TO {ROLE}")
    op.execute(f"ALTER TABLE {TABLE} ENABLE ROW LEVEL SECURITY")
    op.execute(f"ALTER TABLE {TABLE} FORCE ROW LEVEL SECURITY")
    op.execute(
        f"CREATE POLICY {TABLE}_owner ON {TABLE} "
        f"USING (user_id = {CURRENT_USER} OR {SYSTEM}) "
        f"WITH CHECK (user_id = {CURRENT_USER} OR {SYSTEM})"
    )
    op.execute(FUNCTION)


def downgrade() -> None:
    op.execute("DROP FUNCTION loci_page_owner(text)")
    op.drop_table(TABLE)
