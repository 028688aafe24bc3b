"""The database a run works in: the configured one, or a private embedded Postgres.

A run never touches the service's rows: its tables live in the schema
``bench_<run_id>`` (migrated with `loci.migrate.upgrade(url, schema=…)`). With
no ``DATABASE_URL`` the harness starts its own embedded Postgres under
``<out>/.services`` (Valkey is not needed: `EmbeddedServices` skips whatever
gets a URL), so it never collides with a running ``loci serve``, whose data
dir is elsewhere and locked.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from loci import migrate
from loci.embedder import Embedder
from loci.runtime import EmbeddedServices
from loci.settings import EmbeddingSettings, Settings

__all__ = ["database_url", "shared_embedder"]

_UNUSED_REDIS = "redis://unused.invalid:1"  # a URL so EmbeddedServices starts no Valkey; never dialled
_embedders: dict[str, Embedder] = {}
_embedders_lock = threading.Lock()


@contextmanager
def database_url(settings: Settings, services_dir: Path, schema: str, *, migrate_schema: bool = True) -> Iterator[str]:
    """Yield a Postgres URL whose `schema` is migrated to head; stops the embedded server after."""
    configured = settings.database.url
    embedded = None
    if configured:
        url = configured
    else:
        embedded = EmbeddedServices(services_dir, redis_url=_UNUSED_REDIS)
        url = embedded.start().database_url
    try:
        if migrate_schema:
            migrate.upgrade(url, schema=schema)
        yield url
    finally:
        if embedded is not None:
            embedded.stop()


def shared_embedder(settings: EmbeddingSettings) -> Embedder:
    """One loaded embedder per model per process (several stages of `full` reuse it)."""
    key = settings.model_dump_json()
    with _embedders_lock:
        embedder = _embedders.get(key)
        if embedder is None:
            embedder = Embedder(settings)
            embedder.load()
            _embedders[key] = embedder
        return embedder
