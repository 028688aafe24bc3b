"""The migrating user may ``SET ROLE loci_app``, on PostgreSQL 16 and later too.

0002 granted ``loci_app`` to the migrating user only when ``pg_has_role(…, 'MEMBER')`` was
false. From PostgreSQL 16, a CREATEROLE user that is not a superuser (managed PostgreSQL's
usual migration user) is made a member of the role it creates, with ADMIN but without SET:
``MEMBER`` was true, the grant was skipped, and every ``SET ROLE loci_app`` of the app was
refused ("permission denied to set role"). 0002 now asks for ``SET``; this revision does the
same check and grant for a database already past 0002.

A user that may not grant the role (it did not create it and holds no ADMIN on it: the
database was migrated by someone else) is warned, not failed: the role may be served by
another user (``LOCI_DB_APP_ROLE``), and `loci serve` and `loci worker` say at start-up when
their user may not switch to it (`loci.preflight.check_app_role`).

Downgrade changes nothing: the grant is what 0002 meant to make.

Revision ID: 0036
Revises: 0035
Create Date: 2026-11-29 22:30:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0036"
down_revision: str | None = "0035"
branch_labels: str | None = None
depends_on: str | None = None

ROLE = "loci_app"
MAY_SET = "CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'SET' ELSE 'MEMBER' END"
"""As in 0002: ``SET`` exists from PostgreSQL 16; before it, a member may switch."""


def upgrade() -> None:
    op.execute(
        f"""
        DO $$
        BEGIN
            IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}')
               AND NOT pg_has_role(current_user, '{ROLE}', {MAY_SET}) THEN
                EXECUTE format('GRANT {ROLE} TO %I', current_user);
            END IF;
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE WARNING '% may not SET ROLE {ROLE} and may not grant it: %', current_user, SQLERRM;
        END $$;
        """
    )


def downgrade() -> None:
    pass
