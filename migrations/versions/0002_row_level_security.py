"""Row-level security: the backstop behind per-user scoping in code.

Creates the ``loci_app`` role the service switches to (NOLOGIN, no BYPASSRLS), grants it
to the migrating user unless that user may already ``SET ROLE`` to it (`MAY_SET`), grants
it data access, and puts a policy on every user table: rows are visible only when
``loci.user_id`` (set per transaction by `Database.user_session`) matches, or when
``loci.system`` is on (admin, auth lookup, sweeps). FORCE makes the policies apply
even to the table owner, so a missed filter cannot leak across users.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 04:00:00
"""

from __future__ import annotations

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | None = None
depends_on: str | None = None

ROLE = "loci_app"
CURRENT_USER = "NULLIF(current_setting('loci.user_id', true), '')::bigint"
SYSTEM = "current_setting('loci.system', true) = 'on'"
MAY_SET = "CASE WHEN current_setting('server_version_num')::int >= 160000 THEN 'SET' ELSE 'MEMBER' END"
"""The privilege the migrating user needs on ``loci_app``: to ``SET ROLE`` to it, as every
connection of the app does. Before PostgreSQL 16 a member may; from 16 a CREATEROLE user
that creates the role is a member with ADMIN but without SET (managed PostgreSQL's migration
users), so only ``'SET'`` says whether the grant is needed. A superuser has every one."""
# The user tables as of this revision, frozen: a later migration that adds a table gives
# it its own policy (taking `loci.models.USER_TABLES` here would name tables that do not
# exist yet when the chain is replayed from scratch).
USER_TABLES = (
    "activity_events", "agents", "api_keys", "entities", "memory_settings", "retrieval_logs", "usage_costs",
    "wings", "conversations", "rooms", "turns", "closets", "drawers", "drawer_entities", "relations",
)  # fmt: skip


def upgrade() -> None:
    op.execute(
        f"""
        DO $$
        BEGIN
            IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{ROLE}') THEN
                CREATE ROLE {ROLE} NOLOGIN NOBYPASSRLS;
            END IF;
            IF NOT pg_has_role(current_user, '{ROLE}', {MAY_SET}) THEN
                EXECUTE format('GRANT {ROLE} TO %I', current_user);
            END IF;
        END $$;
        """
    )
    op.execute(
        f"""
        DO $$
        BEGIN
            EXECUTE format('GRANT USAGE ON SCHEMA %I TO {ROLE}', current_schema());
            EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA %I TO {ROLE}',
                           current_schema());
            EXECUTE format('GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA %I TO {ROLE}', current_schema());
        END $$;
        """
    )
    op.execute("ALTER TABLE users ENABLE ROW LEVEL SECURITY")
    op.execute("ALTER TABLE users FORCE ROW LEVEL SECURITY")
    op.execute(f"CREATE POLICY users_self ON users USING (id = {CURRENT_USER} OR {SYSTEM})")
    for table in USER_TABLES:
        op.execute(f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY")
        op.execute(f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY")
        op.execute(
            f"CREATE POLICY {table}_owner ON {table} "
            f"USING (user_id = {CURRENT_USER} OR {SYSTEM}) "
            f"WITH CHECK (user_id = {CURRENT_USER} OR {SYSTEM})"
        )


def downgrade() -> None:
    for table in (*USER_TABLES, "users"):
        policy = "users_self" if table == "users" else f"{table}_owner"
        op.execute(f"DROP POLICY IF EXISTS {policy} ON {table}")
        op.execute(f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY")
        op.execute(f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY")
    op.execute(
        f"""
        DO $$
        BEGIN
            EXECUTE format('REVOKE ALL ON ALL TABLES IN SCHEMA %I FROM {ROLE}', current_schema());
            EXECUTE format('REVOKE ALL ON ALL SEQUENCES IN SCHEMA %I FROM {ROLE}', current_schema());
            EXECUTE format('REVOKE USAGE ON SCHEMA %I FROM {ROLE}', current_schema());
        END $$;
        """
    )
