"""The database a run works in: the configured one, or a private embedded Postgres.

A run never touches the service's rows: its tables live in the schema
``bench_<run_id>`` (migrated with `loci.migrate.upgrade(url, schema=…)`). With
no ``DATABASE_URL`` the harness starts its own embedded Postgres under
``<out>/.services`` (Valkey is not needed: `EmbeddedServices` skips whatever
gets a URL), so it never collides with a running ``loci serve``, whose data
dir is elsewhere and locked.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.stopping import StoppableEmbedder
from loci import migrate
from loci.embedder import Embedder
from loci.embedders import embedder_spec
from loci.errors import ConfigurationError
from loci.preflight import check_database
from loci.runtime import DataDirLock, EmbeddedServices
from loci.settings import EmbeddingSettings, Settings

__all__ = ["database_url", "running_services", "shared_embedder"]

_UNUSED_REDIS = "redis://unused.invalid:1"  # a URL so EmbeddedServices starts no Valkey; never dialled
_embedders: dict[str, Embedder] = {}
_embedders_lock = threading.Lock()


_active: dict[Path, str] = {}  # services dir -> URL of the embedded server this process runs
_migrated: set[tuple[str, str]] = set()


@contextmanager
def running_services(settings: Settings, services_dir: Path) -> Iterator[str]:
    """Start the embedded Postgres once for a whole command (several stages), stop it after.

    Nested uses (and a configured DATABASE_URL) start nothing: stopping and restarting the
    embedded server between the stages of one process is slow and not reliable.
    """
    key = services_dir.resolve()
    if settings.database.url:
        check_database(settings.database.url)  # one line naming DATABASE_URL, not alembic's traceback
        yield settings.database.url
        return
    if key in _active:
        yield _active[key]
        return
    embedded = EmbeddedServices(services_dir, redis_url=_UNUSED_REDIS)
    _active[key] = _start(embedded, services_dir)
    try:
        yield _active[key]
    finally:
        url = _active.pop(key)
        _migrated.difference_update({m for m in _migrated if m[0] == url})
        embedded.stop()


def _start(embedded: EmbeddedServices, services_dir: Path) -> str:
    """Start the embedded Postgres in ``<out>/.services``; what stops it is said in the harness's
    words. The core's messages (`loci.runtime`) end "pass --data-dir", `loci serve`'s remedy: the
    harness has no such flag, its data dir is chosen by ``--out``."""
    out = services_dir.parent
    if services_dir.exists() and not services_dir.is_dir():
        raise ConfigurationError(
            f"--out {out}: {services_dir}, where the embedded PostgreSQL keeps its data, is a file; "
            "move it away or pass another --out"
        )
    try:
        services_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigurationError(
            f"--out {out}: cannot create {services_dir} ({e.strerror}); pass another --out"
        ) from None
    if not os.access(services_dir, os.W_OK | os.X_OK):
        raise ConfigurationError(f"--out {out}: {services_dir} is not writable by this user; pass another --out")
    try:
        return embedded.start().database_url
    except ConfigurationError:
        holder = _holder(DataDirLock(services_dir.resolve()).path)
        if holder is None:
            raise
        raise ConfigurationError(
            f"another command (pid {holder}) is using the embedded PostgreSQL in {services_dir}: every run under "
            f"--out {out} shares it; wait for that command to end or pass another --out"
        ) from None


def _holder(lock: Path) -> str | None:
    """The pid written in ``lock`` while another process holds it (`DataDirLock`), else None."""
    try:
        handle = lock.open("r")
    except OSError:
        return None
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return handle.read().strip() or "unknown"
        fcntl.flock(handle, fcntl.LOCK_UN)
    return None


@contextmanager
def database_url(settings: Settings, services_dir: Path, schema: str) -> Iterator[str]:
    """Yield a Postgres URL whose `schema` is migrated to head (once per process)."""
    with running_services(settings, services_dir) as url:
        if (url, schema) not in _migrated:
            maker = embedder_spec(settings.embedding.model, settings.embedding.dim).name
            migrate.upgrade(url, schema=schema, embedder=maker)
            _migrated.add((url, schema))
        yield url


def shared_embedder(settings: EmbeddingSettings) -> Embedder:
    """One loaded embedder per model per process (several stages of `full` reuse it); it
    gives up between batches on a stop signal, so Ctrl-C never waits for a whole session."""
    key = settings.model_dump_json()
    with _embedders_lock:
        embedder = _embedders.get(key)
        if embedder is None:
            embedder = StoppableEmbedder(settings)
            embedder.load()
            _embedders[key] = embedder
        return embedder
