"""``loci_key_owner(key_hash)``: the API-key lookup every request makes, in one round trip.

Authentication runs before every call, the session-start block and recall included. As a
system transaction it cost three round trips (the opening with the RLS setting, the
SELECT, the COMMIT). This function sets the system visibility for its own query and puts
the caller's value back before it returns, so it can run as a single autocommit statement
(one round trip, no BEGIN, no COMMIT) and can never leave a caller's transaction with
system visibility. It answers only what the key's hash already identifies: the key's id,
its user, its agent and when it was last used, for a live key of an active user.

Revision ID: 0025
Revises: 0022
Create Date: 2026-11-25 16:50:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0025"
down_revision: str | None = "0022"
branch_labels: str | None = None
depends_on: str | None = None

FUNCTION = """
CREATE FUNCTION loci_key_owner(wanted text)
RETURNS TABLE (key_id bigint, user_id bigint, agent_id text, last_used_at timestamptz)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    before text := current_setting('loci.system', true);
BEGIN
    PERFORM set_config('loci.system', 'on', true);
    RETURN QUERY
        SELECT k.id::bigint, k.user_id::bigint, k.agent_id::text, k.last_used_at
        FROM api_keys k JOIN users u ON u.id = k.user_id
        WHERE k.key_hash = wanted AND k.revoked_at IS NULL AND u.is_active;
    PERFORM set_config('loci.system', COALESCE(before, ''), true);
END
$$
"""


def upgrade() -> None:
    op.execute(FUNCTION)


def downgrade() -> None:
    op.execute("DROP FUNCTION loci_key_owner(text)")
