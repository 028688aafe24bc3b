"""Database access: one async engine, sessions scoped to exactly one user.

Every unit of work runs inside `Database.user_session(user_id)` (or, for cross-user
maintenance such as sweeps and admin, `system_session()`). Those set transaction-local
GUCs that the row-level-security policies read, so a query that forgets its
``WHERE user_id = …`` still sees only the caller's rows. The app connects through the
``loci_app`` role (created by the first migration), which cannot bypass RLS.

``schema`` puts every table in a separate Postgres schema (the benchmark runs each
in ``bench_<run_id>``) by setting ``search_path`` at connect time; ``public`` stays on
the path for the ``vector`` type.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
from sqlalchemy import Dialect, Row, TextClause, event, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine

from loci.errors import ConfigurationError
from loci.write_watch import changed_rows, forget_writes, watch

__all__ = [
    "HELD_LOCK",
    "Database",
    "Read",
    "WriteHook",
    "driver_rows",
    "prepared_rows",
    "session_driver",
    "sqlalchemy_url",
    "valid_schema_name",
]

log = logging.getLogger("loci.db")

WriteHook = Callable[[int | None], Awaitable[None]]
"""Called after a transaction that changed rows has committed, with its user's id (None for a
system session): how the recall cache learns of every write (`loci.generations`)."""

Read = tuple[TextClause, Mapping[str, Any]]
"""A read-only statement and its parameters, for `Database.user_reads`."""

_SCHEMA_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def valid_schema_name(name: str) -> str:
    """Schema names go into SQL identifiers, so only a safe lowercase form is accepted."""
    if not _SCHEMA_RE.match(name):
        raise ConfigurationError(f"invalid schema name {name!r}: use lowercase letters, digits and _")
    return name


def sqlalchemy_url(url: str) -> str:
    """Accept the URL forms people paste (postgres://, postgresql://) and pin psycopg 3."""
    parts = urlsplit(url)
    if parts.scheme not in {"postgres", "postgresql", "postgresql+psycopg"}:
        raise ConfigurationError(f"invalid setting DATABASE_URL: unsupported scheme {parts.scheme!r}")
    return urlunsplit(("postgresql+psycopg", *parts[1:]))


HELD_LOCK = "loci.held_lock"
"""``Session.info`` key: ``(key, transaction timestamp)`` of the advisory lock a session was
opened with (`Database.user_session`'s ``lock``), so the code that needs the lock can tell
it is already held instead of taking it again."""

_LOCK_KEY = re.compile(r"^[a-z_]+:[0-9]+$")


def _opening(setting: str, value: str, lock: str | None = None) -> str:
    """The first message of every session: its RLS setting (and, given ``lock``, the
    advisory lock and the transaction's timestamp) and the BEGIN, in one round trip. The
    connections run in autocommit so psycopg sends no BEGIN of its own. Statements sent
    before a BEGIN in one message run in an implicit transaction that the BEGIN turns into
    the explicit one (Postgres' multi-statement Query), so the setting and the lock hold
    until the session's commit or rollback (psycopg sends COMMIT or ROLLBACK whenever a
    transaction is open), and the first result, the one read, is the SELECT's. Several
    statements fit in one message only without bound parameters, so ``value`` and ``lock``
    are literals: an ``int``, a constant or a checked key, never text from a request."""
    columns = f"set_config('{setting}', '{value}', true)"
    if lock is not None:
        if not _LOCK_KEY.match(lock):
            raise ValueError(f"invalid lock key {lock!r}")
        columns += f", pg_advisory_xact_lock(hashtextextended('{lock}', 0)), now()"
    return f"SELECT {columns}; BEGIN"


async def _opened(sessions: async_sessionmaker[AsyncSession], opening: str) -> tuple[AsyncSession, tuple[Any, ...]]:
    """A session whose transaction is open and scoped, with the opening's row. This is
    also the liveness check: the pool does not ping at checkout (a round trip on every
    session), so a connection a database restart killed fails here, before the caller ran
    anything; SQLAlchemy then invalidates the whole pool and the one retry gets a fresh
    connection."""
    for attempt in (1, 2):
        session = sessions()
        try:
            connection = await session.connection()
            row = tuple((await connection.exec_driver_sql(opening)).one())
        except DBAPIError as e:
            await session.close()
            if attempt == 2 or not e.connection_invalidated:
                raise
            continue
        return session, row
    raise AssertionError("unreachable")


async def _notify(on_write: WriteHook, user_id: int | None) -> None:
    """The write committed whatever the hook does: its failure is logged, never raised."""
    try:
        await on_write(user_id)
    except Exception as e:
        log.warning("db.write_hook_failed", extra={"error": type(e).__name__, "user_id": user_id})


@asynccontextmanager
async def _scoped(
    sessions: async_sessionmaker[AsyncSession],
    opening: str,
    lock: str | None = None,
    *,
    on_write: WriteHook | None = None,
    user_id: int | None = None,
) -> AsyncIterator[AsyncSession]:
    """A transaction opened with ``opening``; commits on success, rolls back on error. With
    ``on_write``, a transaction that changed rows (`loci.write_watch`) calls it once committed,
    before the caller goes on: a write acknowledged to a client has invalidated the caches.

    The hook runs once the COMMIT was sent, whatever happens next: a task cancelled while the
    commit's reply or the connection's return was awaited (an arq job's timeout, a shutdown)
    may well have committed, and a write whose hook never ran stays hidden by the recall
    cache until its entries expire. A hook after a commit that failed costs a cache miss."""
    session, row = await _opened(sessions, opening)
    if lock is not None:
        session.info[HELD_LOCK] = (lock, row[2])
    forget_writes(await session.connection())
    wrote = False
    try:
        async with session:
            try:
                yield session
                wrote = on_write is not None and await changed_rows(session)
            except BaseException:
                await session.rollback()
                raise
            await session.commit()
    finally:
        if wrote and on_write is not None:
            await _notify(on_write, user_id)


_SYSTEM = _opening("loci.system", "on")

_READS_OPENING = (
    "SELECT set_config('loci.user_id', %s, true), set_config('plan_cache_mode', 'force_generic_plan', true)"
)
"""`Database.user_reads`' scope, and its plans made once per connection: by default Postgres
plans a prepared statement afresh for its first five runs on each connection before it
weighs a generic plan, and a pool of 8 connections replanned a cache hit's reads 40 times.
Its reads look rows up by user and id, where one plan fits every user."""

_PREPARE_ONLY_WHEN_ASKED = 2**31
"""The pool's connections prepare nothing by themselves (``prepare_threshold=None``), but
psycopg's ``None`` also ignores ``prepare=True``: `Database.user_reads` and `prepared_rows`
set this threshold, which no statement reaches, so only the reads that ask are prepared. Measured on the 2-core
dev VM, the cache hit's drawer read took 2.1 ms pipelined without it and 0.9 ms with it (its
plan took 1.3 ms of the 2.1)."""


@functools.lru_cache(maxsize=256)
def _driver_sql(sql: str, dialect: Dialect) -> str:
    """``sql`` (a `text` statement) with psycopg's ``%(name)s`` placeholders, compiled once
    per distinct statement."""
    return str(text(sql).compile(dialect=dialect))


async def _driver_of(connection: AsyncConnection) -> psycopg.AsyncConnection[Any]:
    """``connection``'s psycopg connection, set to prepare the statements that ask (see
    `_PREPARE_ONLY_WHEN_ASKED`)."""
    raw = await connection.get_raw_connection()
    driver: psycopg.AsyncConnection[Any] = raw.driver_connection  # type: ignore[assignment]
    if driver.prepare_threshold is None:  # None turns ``prepare=True`` off as well
        driver.prepare_threshold = _PREPARE_ONLY_WHEN_ASKED
    return driver


async def session_driver(session: AsyncSession) -> psycopg.AsyncConnection[Any]:
    """The psycopg connection of ``session``'s open transaction, for statements sent past
    SQLAlchemy (`loci.column_insert`), set to prepare those that ask."""
    return await _driver_of(await session.connection())


async def _execute(
    driver: psycopg.AsyncConnection[Any],
    dialect: Dialect,
    statement: TextClause,
    params: Mapping[str, Any],
    *,
    prepare: bool = True,
) -> psycopg.AsyncCursor[Any]:
    cursor = driver.cursor()
    await cursor.execute(_driver_sql(statement.text, dialect), dict(params), prepare=prepare)
    return cursor


async def prepared_rows(
    session: AsyncSession, statement: TextClause, params: Mapping[str, Any]
) -> list[tuple[Any, ...]]:
    """The rows of a read run in ``session``'s open transaction as a prepared statement:
    planned once per connection (and generic after Postgres' five custom plans) instead of
    on every call. For the fixed, planner-heavy reads every recall makes (its controls and
    hydration: a plan of 0.5-2.5 ms for a run of ~1 ms on the 2-core dev VM); a plain `text`
    read whose parameters psycopg adapts itself (no SQLAlchemy bind types)."""
    connection = await session.connection()
    cursor = await _execute(await _driver_of(connection), connection.dialect, statement, params)
    return await cursor.fetchall()


async def driver_rows(session: AsyncSession, statement: TextClause, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
    """The rows of a read run in ``session``'s open transaction straight through psycopg,
    planned afresh like any statement (unlike `prepared_rows`: for reads whose best plan
    depends on the user, such as recall's signals). SQLAlchemy's result machinery cost
    ~110 µs of CPU per statement on the 2-core dev VM, against ~90 µs for the whole round
    trip through the driver; recall runs three or four of these per message. Parameters
    go to psycopg as they are (no SQLAlchemy bind types)."""
    connection = await session.connection()
    cursor = await _execute(await _driver_of(connection), connection.dialect, statement, params, prepare=False)
    return await cursor.fetchall()


class Database:
    """Owns the engine; hands out user-scoped or system sessions."""

    def __init__(
        self,
        url: str,
        *,
        schema: str | None = None,
        app_role: str | None = "loci_app",
        pool_size: int = 10,
        statement_timeout_ms: int = 30_000,
    ) -> None:
        self.url = url
        self.schema = valid_schema_name(schema) if schema else None
        self.app_role = app_role
        # JIT compilation pays off for long analytic queries; recall's statements are short,
        # and once a large palace pushes a plan's estimated cost over ``jit_above_cost`` the
        # compile adds tens of milliseconds to a statement that runs in a few.
        options = [f"-c statement_timeout={statement_timeout_ms}", "-c jit=off"]
        if self.schema:
            options.append(f"-c search_path={self.schema},public")
        connect_args: dict[str, Any] = {"options": " ".join(options), "prepare_threshold": None}
        self.engine: AsyncEngine = self._engine(url, connect_args, pool_size)
        # A second, smaller pool for work one request runs beside its main transaction
        # (recall's memory search). Taking it from the main pool could deadlock: every
        # request holding one connection while waiting for a second. Here the holders
        # never wait for anything, so a full aside pool only queues.
        self.aside_engine: AsyncEngine = self._engine(url, connect_args, max(2, pool_size // 2))
        self.on_write: WriteHook | None = None
        """Set by a process that keeps caches of users' data (the service, the worker)."""
        self._sessions = async_sessionmaker(self.engine, expire_on_commit=False)
        self._aside_sessions = async_sessionmaker(self.aside_engine, expire_on_commit=False)

    def _engine(self, url: str, connect_args: dict[str, Any], pool_size: int) -> AsyncEngine:
        engine = create_async_engine(
            sqlalchemy_url(url),
            pool_size=pool_size,
            max_overflow=pool_size,
            isolation_level="AUTOCOMMIT",  # transactions are opened by ``_opening``
            connect_args=connect_args,
        )
        watch(engine)
        # Times come back in the session's zone: the server's setting, or a client's PGTZ, which
        # wins over a startup ``-c TimeZone``. A Tokyo one made the transaction's "today" Tokyo's
        # and the Markdown export print Tokyo hours labelled "UTC"; set on every connection.
        first = [f'SET ROLE "{self.app_role}"'] if self.app_role else []

        @event.listens_for(engine.sync_engine, "connect")
        def _set_up(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            for statement in (*first, "SET TimeZone = 'UTC'"):
                cursor.execute(statement)
            cursor.close()
            dbapi_connection.commit()

        return engine

    @asynccontextmanager
    async def user_session(self, user_id: int, *, lock: str | None = None) -> AsyncIterator[AsyncSession]:
        """A transaction that can see and write only ``user_id``'s rows; commits on success.
        ``lock`` (``name:number``) is an advisory lock taken in the same round trip as the
        opening, held to the end (see `HELD_LOCK`)."""
        opening = _opening("loci.user_id", str(int(user_id)), lock)
        async with _scoped(self._sessions, opening, lock, on_write=self.on_write, user_id=user_id) as session:
            yield session

    @asynccontextmanager
    async def aside_session(self, user_id: int) -> AsyncIterator[AsyncSession]:
        """A `user_session` from the aside pool, for reads a request runs concurrently with
        its own transaction (see ``aside_engine``)."""
        opening = _opening("loci.user_id", str(int(user_id)))
        async with _scoped(self._aside_sessions, opening, on_write=self.on_write, user_id=user_id) as session:
            yield session

    @asynccontextmanager
    async def system_session(self) -> AsyncIterator[AsyncSession]:
        """A transaction across users, for admin, auth lookup, sweeps and purges only (a write
        here reaches `on_write` with None: any user's data may have changed)."""
        async with _scoped(self._sessions, _SYSTEM, on_write=self.on_write) as session:
            yield session

    async def first_row_alone(self, statement: TextClause, params: Mapping[str, Any]) -> Row[Any] | None:
        """The first row of one statement run on its own, outside any transaction: one round
        trip, with no BEGIN and no COMMIT. Neither RLS setting is on, so the tables answer
        nothing unless the statement scopes itself (as ``loci_key_owner`` does, for the key
        lookup every request makes). Retried once when the pooled connection was dead, as
        sessions are (see `_opened`)."""
        for attempt in (1, 2):
            try:
                async with self.engine.connect() as conn:
                    return (await conn.execute(statement, dict(params))).first()
            except DBAPIError as e:
                if attempt == 2 or not e.connection_invalidated:
                    raise
        raise AssertionError("unreachable")

    async def user_reads(
        self, user_id: int, reads: Sequence[Read], *, aside: bool = False
    ) -> list[list[tuple[Any, ...]]]:
        """The rows of each read, run for ``user_id`` in one read-only transaction sent as one
        round trip: BEGIN, the RLS setting, the reads and COMMIT go out together in psycopg's
        pipeline mode, each read as a prepared statement (planned once per connection).

        For the hot path of a few statements whose results do not decide what to read next
        (a recall cache hit): a `user_session` pays a round trip for its opening, one per
        statement and one for COMMIT, and plans every statement again. A connection found
        dead (the server restarted) is dropped and the reads run once more in a
        `user_session`, whose opening recovers the pool (see `_opened`).

        The reads are plain `text` statements whose parameters psycopg adapts itself: a bound
        parameter's SQLAlchemy type (pgvector's ``Vector``, say) is not applied here. ``aside``
        takes the connection from the aside pool, for reads a request runs beside its own
        transaction (see ``aside_engine``)."""
        async with (self.aside_engine if aside else self.engine).connect() as conn:
            driver = await _driver_of(conn)
            try:
                return await self._pipelined(driver, user_id, reads)
            except psycopg.OperationalError:
                await conn.invalidate()
                if not (driver.broken or driver.closed):
                    raise
            except BaseException:
                await conn.invalidate()  # mid-pipeline (cancelled, failed): its state is unknown
                raise
        async with (self.aside_session if aside else self.user_session)(user_id) as session:
            return [[tuple(row) for row in await session.execute(statement, dict(p))] for statement, p in reads]

    async def _pipelined(
        self, driver: psycopg.AsyncConnection[Any], user_id: int, reads: Sequence[Read]
    ) -> list[list[tuple[Any, ...]]]:
        cursors = []
        async with driver.pipeline():
            await driver.execute("BEGIN READ ONLY")
            await driver.execute(_READS_OPENING, (str(int(user_id)),))
            for statement, params in reads:
                cursors.append(await _execute(driver, self.engine.dialect, statement, params))
            await driver.execute("COMMIT")
        return [await cursor.fetchall() for cursor in cursors]

    async def ping(self) -> str:
        """Round-trip to the server; returns its version string (for /readyz). Retried once
        when the connection was dead, as sessions are (see `_opened`)."""
        try:
            return await self._server_version()
        except DBAPIError as e:
            if not e.connection_invalidated:
                raise
        return await self._server_version()

    async def _server_version(self) -> str:
        async with self.engine.connect() as conn:
            version = (await conn.execute(text("SHOW server_version"))).scalar_one()
        return str(version)

    async def dispose(self) -> None:
        await self.engine.dispose()
        await self.aside_engine.dispose()
