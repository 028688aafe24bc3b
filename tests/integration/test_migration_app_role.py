"""Migrations run by a CREATEROLE user that is not a superuser leave it able to ``SET ROLE loci_app``.

On PostgreSQL 16 and later, such a user (managed PostgreSQL's migration user) that creates a
role is made its member with ADMIN but without SET. 0002 granted the role only when
``pg_has_role(current_user, 'loci_app', 'MEMBER')`` was false: it was true, nothing was
granted, and every connection of the app was then refused its ``SET ROLE loci_app``. The
role exists once per server (the test session's own migrations made it), so the user is put
in the state its ``CREATE ROLE`` would have left it in: ADMIN on the role, SET and INHERIT
off, granted by the superuser, as PostgreSQL records it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import psycopg
import pytest
from alembic.script import ScriptDirectory

from loci import migrate
from loci.preflight import check_app_role
from loci.runtime import ServiceUrls

FIX = "0036"
BEFORE_THE_FIX = str(
    ScriptDirectory.from_config(migrate.alembic_config("postgresql://unused/x")).get_revision(FIX).down_revision
)
MIGRATOR = "loci_m_createrole"
DATABASE = "loci_m_createrole"
ROLE = "loci_app"


def _may_set(url: str) -> bool:
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute("SELECT pg_has_role(current_user, %s, 'SET')", (ROLE,)).fetchone()
    return bool(row and row[0])


@pytest.fixture
def migrator_url(migrated_url: str, service_urls: ServiceUrls, fresh_database: Callable[[str], str]) -> Iterator[str]:
    """An empty database owned by a CREATEROLE non-superuser holding ``loci_app`` as its creator would."""
    admin = migrated_url  # the session's migrations made the role
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
        conn.execute(f"DROP ROLE IF EXISTS {MIGRATOR}")
        conn.execute(f"CREATE ROLE {MIGRATOR} LOGIN CREATEROLE")
        conn.execute(f"GRANT {ROLE} TO {MIGRATOR} WITH ADMIN TRUE, INHERIT FALSE, SET FALSE")
    url = fresh_database(DATABASE)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")  # a managed server's extension, made by its admin
        conn.execute(f"ALTER DATABASE {DATABASE} OWNER TO {MIGRATOR}")
    assert not _may_set(url.replace("postgres@", f"{MIGRATOR}@", 1))
    try:
        yield url.replace("postgres@", f"{MIGRATOR}@", 1)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {DATABASE} WITH (FORCE)")
            # the ADMIN grant, and (CASCADE) the grant the migrator made with it
            conn.execute(f"REVOKE {ROLE} FROM {MIGRATOR} GRANTED BY postgres CASCADE")
            conn.execute(f"DROP ROLE IF EXISTS {MIGRATOR}")


def test_a_createrole_migrator_may_set_the_app_role_after_migrating(migrator_url: str) -> None:
    migrate.upgrade(migrator_url)
    assert _may_set(migrator_url)
    check_app_role(migrator_url, ROLE)  # what `loci serve` and `loci worker` check at start-up


def test_a_database_past_0002_is_granted_what_0002_skipped(migrator_url: str, service_urls: ServiceUrls) -> None:
    """Migrated before 0002 asked for SET: the grant 0002 made now is taken back, as it never was."""
    migrate.upgrade(migrator_url, revision=BEFORE_THE_FIX)
    with psycopg.connect(service_urls.database_url, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT grantor::regrole::text FROM pg_auth_members WHERE member = %s::regrole AND set_option",
            (MIGRATOR,),
        ).fetchall()
        for (grantor,) in rows:
            conn.execute(f"REVOKE {ROLE} FROM {MIGRATOR} GRANTED BY {grantor}")
    assert rows and not _may_set(migrator_url)
    migrate.upgrade(migrator_url)
    assert _may_set(migrator_url)
    check_app_role(migrator_url, ROLE)


def test_a_superuser_migrator_is_granted_nothing(migrated_url: str) -> None:
    """A superuser may SET ROLE to any role: neither 0002 nor 0036 grants it anything (nor fails)."""
    with psycopg.connect(migrated_url, autocommit=True) as conn:
        granted = conn.execute(
            "SELECT count(*) FROM pg_auth_members WHERE member = current_user::regrole AND roleid = %s::regrole",
            (ROLE,),
        ).fetchone()
    assert granted == (0,)
    assert _may_set(migrated_url)
