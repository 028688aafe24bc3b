"""``keyword_matches``: the keyword signal's full-text lookup, able to use its GIN index.

Under row-level security Postgres never uses an index for ``tsv @@ query``: ``@@`` is not
leakproof, so it may only run after the policy's check, row by row. For a user with
thousands of drawers the keyword signal therefore read the whole palace backwards through
``(user_id, occurred_at)``, detoasting every ``tsv``, and ``ix_drawers_user_tsv`` (0004)
sat unused.

This function runs the lookup as its owner. It takes the user from the same
transaction-local ``loci.user_id`` the policies read (never from an argument), filters
on it explicitly, returns only that user's rows, and fixes its ``search_path``; so it
shows nothing the policy would hide, while the planner may now choose the GIN index.
(``pg_temp`` comes last on that path, so a caller's temporary table cannot stand in for
``drawers``.)
``EXECUTE … USING`` plans each call with its actual values. The policy stops applying
inside only when the owner may bypass it (a superuser, as with the embedded server, or a
role with BYPASSRLS); otherwise the function still answers correctly, as slowly as before.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-23 05:30:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | None = None
depends_on: str | None = None

ROLE = "loci_app"
SIGNATURE = "keyword_matches(tsquery, timestamptz, timestamptz, text, integer)"


def upgrade() -> None:
    op.execute(
        """
        DO $outer$
        BEGIN
        EXECUTE format($f$
            CREATE FUNCTION %1$I.keyword_matches(
                q tsquery, since timestamptz, until timestamptz, only_role text, cap integer)
            RETURNS TABLE (id bigint, wing_id bigint, room_id bigint, role varchar, occurred_at timestamptz,
                           tsv tsvector)
            LANGUAGE plpgsql STABLE SECURITY DEFINER ROWS 500
            SET search_path = pg_catalog, %1$I, pg_temp
            AS $body$
            DECLARE
                uid bigint := NULLIF(current_setting('loci.user_id', true), '')::bigint;
            BEGIN
                IF uid IS NULL THEN
                    RETURN;
                END IF;
                RETURN QUERY EXECUTE
                    'SELECT d.id, d.wing_id, d.room_id, d.role, d.occurred_at, d.tsv FROM drawers d '
                    'WHERE d.user_id = $1 AND d.deleted_at IS NULL AND d.tsv @@ $2 '
                    'AND ($3::timestamptz IS NULL OR d.occurred_at >= $3) '
                    'AND ($4::timestamptz IS NULL OR d.occurred_at < $4) '
                    'AND ($5::text IS NULL OR d.role = $5) '
                    'ORDER BY d.occurred_at DESC LIMIT $6'
                    USING uid, q, since, until, only_role, cap;
            END
            $body$
        $f$, current_schema());
        END
        $outer$
        """
    )
    op.execute(f"REVOKE ALL ON FUNCTION {SIGNATURE} FROM PUBLIC")
    op.execute(f"GRANT EXECUTE ON FUNCTION {SIGNATURE} TO {ROLE}")


def downgrade() -> None:
    op.execute(f"DROP FUNCTION {SIGNATURE}")
