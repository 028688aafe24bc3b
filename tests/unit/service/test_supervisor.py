"""What `/readyz` says about the worker, from its supervisor's heartbeat."""

from __future__ import annotations

import time

from arq.connections import RedisSettings

from service.supervisor import STALE_AFTER_S, WorkerSupervisor


def unused_worker(*_: object) -> object:
    raise AssertionError("no worker is started here")


async def test_health_is_down_until_the_first_beat_then_ready_then_stale_when_silent() -> None:
    supervisor = WorkerSupervisor(RedisSettings(), unused_worker)  # type: ignore[arg-type]
    assert supervisor.health().status == "down"
    supervisor._beat()
    assert supervisor.health().status == "ready"
    supervisor._last_beat = time.monotonic() - STALE_AFTER_S - 1
    stale = supervisor.health()
    assert stale.status == "stale" and stale.heartbeat_age_s is not None and stale.heartbeat_age_s > STALE_AFTER_S


async def test_a_stopped_supervisor_starts_nothing() -> None:
    supervisor = WorkerSupervisor(RedisSettings(), unused_worker)  # type: ignore[arg-type]
    supervisor.stop()
    await supervisor.run()
