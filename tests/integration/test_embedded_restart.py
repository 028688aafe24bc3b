"""The embedded PostgreSQL and Valkey, killed with SIGKILL under a running watch, come back on
the same address: a query and a PING through the URLs handed out at start succeed again.

Its own servers in a temp dir (started by the real `EmbeddedServices`), so killing them
touches no other test.
"""

from __future__ import annotations

import os
import signal
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest
import redis

from loci.ownership import SERVICES_FILE, read_record
from loci.runtime import EmbeddedServices, ServiceUrls
from loci.service_watch import ServiceWatch, embedded_watches

BACK_WITHIN_S = 90.0
"""A bound that fails a hung restart, far above what one takes (crash recovery of an empty cluster)."""


@pytest.fixture
def own_services() -> Iterator[tuple[EmbeddedServices, ServiceUrls]]:
    with tempfile.TemporaryDirectory(prefix="loci-watch-") as tmp:
        os.chmod(tmp, 0o755)  # embedded Postgres runs as its own OS user when we are root
        embedded = EmbeddedServices(Path(tmp), ephemeral=True)
        urls = embedded.start()
        try:
            yield embedded, urls
        finally:
            embedded.stop()


def eventually(check: Callable[[], object]) -> object:
    deadline = time.monotonic() + BACK_WITHIN_S
    while True:
        try:
            return check()
        except Exception:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def restarted(watch: ServiceWatch, times: int) -> bool:
    assert watch.restarts == times, f"{watch.restarts} restarts so far"
    return True


def query(url: str) -> int:
    with psycopg.connect(url, connect_timeout=5) as conn:
        row = conn.execute("SELECT 1").fetchone()
    assert row is not None
    return int(row[0])


def ping(url: str) -> bool:
    with redis.Redis.from_url(url, socket_timeout=5) as client:
        return bool(client.ping())


def test_postgres_and_valkey_killed_with_sigkill_are_started_again(
    own_services: tuple[EmbeddedServices, ServiceUrls],
) -> None:
    embedded, urls = own_services
    watch = ServiceWatch(poll_s=0.2)
    watch.watch(embedded_watches(embedded))
    gave_up: list[bool] = []
    with watch.running(lambda: gave_up.append(True)):
        postmaster = embedded._pg.get_pid()
        os.kill(postmaster, signal.SIGKILL)
        eventually(lambda: restarted(watch, 1) and query(urls.database_url))  # not the dying one answering
        assert embedded._pg.get_pid() != postmaster
        valkey = embedded._valkey._process.pid
        os.kill(valkey, signal.SIGKILL)
        eventually(lambda: restarted(watch, 2) and ping(urls.redis_url))
        record = read_record(embedded.data_dir, SERVICES_FILE) or {}
    assert not gave_up and watch.lost is None and watch.restarts == 2
    # the record names the new servers, for `loci mcp` beside serve and for the next start's leftovers
    assert record["postgres"]["pid"] == embedded._pg.get_pid() != postmaster
    assert record["valkey"]["pid"] == embedded._valkey._process.pid != valkey
    assert query(urls.database_url) == 1
