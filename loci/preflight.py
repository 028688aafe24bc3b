"""Checks of the data dir, a configured ``DATABASE_URL`` and ``REDIS_URL`` before anything uses them.

Why: `loci serve` against a PostgreSQL without pgvector, a database that does not exist, a
wrong host or password, or an unreachable Redis ended in a SQLAlchemy or uvicorn traceback
(the pgvector one after alembic's ``CREATE EXTENSION`` failed). Each check here connects
once, with a short timeout, and turns what went wrong into one line naming the variable,
the address (password hidden) and what to do. Embedded services are not checked: Loci has
just started them itself.
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from loci.errors import ConfigurationError

__all__ = [
    "APP_ROLE",
    "MIN_POSTGRES_MAJOR",
    "WAIT_S",
    "Unreachable",
    "check_app_role",
    "check_database",
    "check_queue",
    "database_problem",
    "make_data_dir",
    "shown_url",
    "wait_until_reachable",
]

MIN_POSTGRES_MAJOR = 14
"""The oldest PostgreSQL the README promises (generated columns, pgvector's HNSW)."""
CONNECT_TIMEOUT_S = 10
"""Long enough for a database across a network; short enough that a wrong host is told at once."""


APP_ROLE = "loci_app"
"""The role the first migration creates and ``LOCI_DB_APP_ROLE`` names by default."""

SECRET_PARAMETERS = ("password", "sslpassword")
"""Query parameters libpq reads a secret from (``?password=…``), hidden as the userinfo's is."""
_USERINFO_SECRET = re.compile(r"^([a-z][a-z0-9+.-]*://[^:@/?#]*):([^@/?#]*)@", re.I)
_QUERY_SECRET = re.compile(rf"([?&](?:{'|'.join(SECRET_PARAMETERS)})=)[^&#]*", re.I)


def shown_url(url: str) -> str:
    """``url`` with its password replaced by ``***``, in the userinfo and in the query
    (libpq takes ``?password=``): the line is printed and logged. Only the secrets are
    replaced, in the text as written: a parse and re-join turned ``postgresql:///loci`` into
    ``postgresql:/loci``, dropped an IPv6 host's brackets and re-encoded other parameters."""
    return _QUERY_SECRET.sub(r"\1***", _USERINFO_SECRET.sub(r"\1:***@", url, count=1))


WAIT_S = 60.0
"""How long `wait_until_reachable` keeps trying a service that does not answer yet (a
restart, ``docker compose up`` starting the database after the worker)."""
RETRY_FIRST_S = 1.0
RETRY_CAP_S = 8.0
"""The waits between tries: 1 s, doubling up to 8 s (a database restart takes seconds)."""
FINAL_ANSWERS = (
    "does not exist",  # the database, or the user
    "authentication failed",
    "pg_hba.conf",
    "not permitted to log in",
    "no password supplied",
    "password is required",
)
"""What a PostgreSQL server answers at connection that no wait mends (libpq gives these as
text: psycopg has no SQLSTATE for an error at connection)."""


class Unreachable(ConfigurationError):
    """The check could not reach its service (refused, timed out, a host name not resolvable
    yet, a server starting or stopping): waiting may mend it. Every other `ConfigurationError`
    of this module (a wrong password, a missing database, no pgvector, a role) it cannot."""


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def _unreachable_or_not(message: str, error: Exception) -> ConfigurationError:
    """``message`` as `Unreachable` when ``error`` is psycopg's failure to reach the server,
    else as a plain `ConfigurationError` (the server answered, and said no)."""
    import psycopg

    said = str(error).lower()
    if isinstance(error, psycopg.OperationalError) and not any(answer in said for answer in FINAL_ANSWERS):
        return Unreachable(message)
    return ConfigurationError(message)


def database_problem(shown: str, version_num: int, version: str, vector_available: bool) -> str | None:
    """What makes the server at ``shown`` unfit for Loci, in words, or None."""
    major = version_num // 10_000
    if major < MIN_POSTGRES_MAJOR:
        return (
            f"DATABASE_URL ({shown}) is PostgreSQL {version}; Loci needs {MIN_POSTGRES_MAJOR} or later "
            "with the pgvector extension (or unset DATABASE_URL to use the embedded PostgreSQL 18)"
        )
    if not vector_available:
        return (
            f"DATABASE_URL ({shown}) is PostgreSQL {version} without the pgvector extension (`vector`): "
            f"install it on the database server (e.g. `apt install postgresql-{major}-pgvector`, or run the "
            "pgvector/pgvector image), or unset DATABASE_URL to use the embedded PostgreSQL 18 with pgvector"
        )
    return None


def _libpq_url(url: str) -> str:
    """libpq's scheme; the rest as written (``postgresql:///db?host=…``)."""
    return "postgresql" + url[url.index(":") :]


def check_database(url: str) -> None:
    """Connect to ``url`` once; raise `ConfigurationError` saying what is wrong with it."""
    import psycopg

    from loci.db import sqlalchemy_url

    shown = shown_url(url)
    sqlalchemy_url(url)  # refuses a scheme that is not PostgreSQL's, naming DATABASE_URL
    try:
        with psycopg.connect(_libpq_url(url), connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as conn:
            row = conn.execute(
                "SELECT current_setting('server_version_num')::int, current_setting('server_version'), "
                "EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector')"
            ).fetchone()
    except psycopg.Error as e:
        raise _unreachable_or_not(f"cannot connect to DATABASE_URL ({shown}): {_one_line(e)}", e) from None
    version = str(row[1]).split()[0] if row else "?"  # "15.20 (Debian 15.20-0+deb12u1)": the number is enough
    if row is not None and (problem := database_problem(shown, int(row[0]), version, bool(row[2]))):
        raise ConfigurationError(problem)


def check_app_role(url: str, role: str) -> None:
    """``SET ROLE`` to ``role`` once, as every connection of the app does (`loci.db.Database`);
    raise `ConfigurationError` naming LOCI_DB_APP_ROLE when the server refuses it.

    Why: a role that does not exist (a typo in LOCI_DB_APP_ROLE, or a database no migration
    has reached yet), or one the connecting role may not switch to, failed every request
    instead (a 400 "role does not exist" or a 5xx) while start-up said nothing. Run it after
    migrations: the first one creates ``loci_app``. ``loci_app`` missing is `Unreachable`
    (`wait_until_reachable` waits for a migration running beside it); another role missing is
    a setting no wait mends."""
    import psycopg
    from psycopg import errors, sql

    shown = shown_url(url)
    try:
        with psycopg.connect(_libpq_url(url), connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as conn:
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
    except errors.InvalidParameterValue:  # 22023: role "…" does not exist
        # the migrations' own role may be on its way: under compose a worker can start while
        # `serve` or `loci db upgrade` still runs the first migration, which creates it
        missing = Unreachable if role == APP_ROLE else ConfigurationError
        raise missing(_no_role(role, shown)) from None
    except errors.InsufficientPrivilege:  # 42501: permission denied to set role "…"
        raise ConfigurationError(_may_not_set(role, shown)) from None
    except psycopg.Error as e:
        raise _unreachable_or_not(f"cannot connect to DATABASE_URL ({shown}): {_one_line(e)}", e) from None


def _no_role(role: str, shown: str) -> str:
    """What to do when ``role`` does not exist: for the migrations' own role, migrate (a new
    database); for another, fix or drop the setting. "Unset it to use loci_app" told a
    person whose setting already was loci_app to do nothing."""
    if role == APP_ROLE:
        return (
            f"no role {role!r} on DATABASE_URL ({shown}): the first migration creates it, and this database "
            "has not been migrated; run `loci db upgrade` with this DATABASE_URL (or start `loci serve` once)"
        )
    return (
        f"invalid setting LOCI_DB_APP_ROLE: no role {role!r} on DATABASE_URL ({shown}); unset it to use "
        f"{APP_ROLE}, which the first migration creates (`loci db upgrade`), or create that role"
    )


def _may_not_set(role: str, shown: str) -> str:
    """What to do when the URL's user may not switch to ``role``: grant it; for another role
    than the migrations', going back to theirs is the other way out."""
    grant = f'grant it (GRANT "{role}" TO <that user>)'
    if role == APP_ROLE:
        return (
            f"the user of DATABASE_URL ({shown}) may not SET ROLE {role!r}; {grant}, or run `loci db upgrade` "
            "as that user, which grants it when the user may"
        )
    return (
        f"invalid setting LOCI_DB_APP_ROLE: the user of DATABASE_URL ({shown}) may not SET ROLE {role!r}; "
        f"{grant} or unset LOCI_DB_APP_ROLE to use {APP_ROLE}"
    )


def check_queue(url: str, timeout_s: float = 5.0) -> None:
    """PING ``url`` once; raise `ConfigurationError` naming REDIS_URL when it does not answer."""
    import redis

    shown = shown_url(url)
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=timeout_s, socket_timeout=timeout_s)
    except ValueError as e:  # not a redis://, rediss:// or unix:// URL
        raise ConfigurationError(f"invalid setting REDIS_URL: {_one_line(e)}") from None
    try:
        with contextlib.closing(client):
            client.ping()
    except (redis.AuthenticationError, redis.exceptions.AuthorizationError, redis.ResponseError) as e:
        raise ConfigurationError(f"cannot use REDIS_URL ({shown}): {_one_line(e)}") from None
    except (redis.ConnectionError, redis.TimeoutError) as e:  # refused, timed out, no such host (yet), loading
        raise Unreachable(f"cannot reach REDIS_URL ({shown}): {_one_line(e)}") from None
    except redis.RedisError as e:
        raise ConfigurationError(f"cannot reach REDIS_URL ({shown}): {_one_line(e)}") from None


def wait_until_reachable(
    checks: Sequence[Callable[[], None]],
    say: Callable[[str], None],
    *,
    wait_s: float = WAIT_S,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> None:
    """Run ``checks`` in order, trying one that raises `Unreachable` again after a growing
    wait (``say`` tells each in one line) until ``wait_s`` have passed since the first, then
    raising its last error; any other error is raised at once.

    Why: `loci worker` refused to start while its database or Valkey was down, so a worker
    started beside a restarting database, or before it (``docker compose up``), stayed down
    where it used to wait the outage out. What waiting cannot mend still ends it at once."""
    deadline = clock() + wait_s
    for check in checks:
        tries = 0
        while True:
            try:
                check()
                break
            except Unreachable as e:
                tries += 1
                left = deadline - clock()
                if left <= 0:
                    raise
                delay = min(RETRY_FIRST_S * 2 ** (tries - 1), RETRY_CAP_S, left)
                say(f"{e}; trying again in {delay:.2g}s (try {tries}; gives up {wait_s:g}s after the first)")
                sleep(delay)


def make_data_dir(data_dir: Path) -> Path:
    """Create ``data_dir`` (and its parents), or say in one line why it cannot be one: a
    file at that path, or a parent that cannot be written, ended `loci serve` in a
    FileExistsError or PermissionError traceback."""
    if data_dir.exists() and not data_dir.is_dir():
        raise ConfigurationError(
            f"data dir {data_dir} is a file, not a directory; pass another with --data-dir or LOCI_DATA_DIR"
        )
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigurationError(
            f"cannot create data dir {data_dir} ({e.strerror}); pass another with --data-dir or LOCI_DATA_DIR"
        ) from None
    if not os.access(data_dir, os.W_OK | os.X_OK):
        raise ConfigurationError(
            f"data dir {data_dir} is not writable by this user; pass another with --data-dir or LOCI_DATA_DIR"
        )
    return data_dir
