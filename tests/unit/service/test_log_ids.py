"""A request id on every HTTP response and log record of a request; a job id inside a job."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterator

import pytest
from litestar import Litestar, get
from litestar.testing import TestClient

from loci.logs import ContextFilter, LogfmtFormatter
from loci.settings import QueueSettings
from service import worker
from service.request_id import RequestIdMiddleware, add_request_id_header

log = logging.getLogger("loci.test_log_ids")


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(LogfmtFormatter())
    handler.addFilter(ContextFilter())
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    yield out
    log.removeHandler(handler)


@get("/hello", sync_to_thread=False)
def hello() -> str:
    log.info("handling")
    return "hi"


def _app() -> Litestar:
    return Litestar(
        [hello], middleware=[RequestIdMiddleware()], before_send=[add_request_id_header], logging_config=None
    )


def test_a_request_id_is_made_returned_and_logged(lines: io.StringIO) -> None:
    with TestClient(app=_app()) as client:
        response = client.get("/hello")
    rid = response.headers["x-request-id"]
    assert len(rid) == 32
    assert lines.getvalue().rstrip().endswith(f"msg=handling request_id={rid}")


def test_a_sane_incoming_id_is_kept_and_anything_else_replaced(lines: io.StringIO) -> None:
    with TestClient(app=_app()) as client:
        kept = client.get("/hello", headers={"X-Request-ID": "edge-7f3a:1.2"})
        bad_ids = ("a b", "x" * 129, "-lead", "id;drop")
        replaced = [client.get("/hello", headers={"X-Request-ID": bad}) for bad in bad_ids]
        missing = client.get("/nowhere", headers={"X-Request-ID": "lost-1"})
    assert kept.headers["x-request-id"] == "edge-7f3a:1.2"
    assert "request_id=edge-7f3a:1.2" in lines.getvalue()
    for response in replaced:
        assert len(response.headers["x-request-id"]) == 32
    assert missing.status_code == 404 and missing.headers["x-request-id"] == "lost-1"  # no route ran


class LeaseRecorder:
    """Stands in for the queue: records the lease renewals a job makes."""

    def __init__(self) -> None:
        self.renewals: list[tuple[str, int]] = []

    async def pexpire(self, key: str, ms: int) -> bool:
        self.renewals.append((key, ms))
        return True


async def test_records_inside_an_arq_job_carry_its_id_and_it_holds_a_lease(lines: io.StringIO) -> None:
    queue = LeaseRecorder()
    leases: dict[str, asyncio.Task[None]] = {}
    ctx: dict[str, object] = {"job_id": "mine:12:40", "redis": queue, "leases": leases}
    await worker._on_job_start(ctx)
    log.info("mining")
    await asyncio.sleep(0)  # the lease task's first renewal
    lease = leases["mine:12:40"]
    await worker._on_job_end(ctx)
    log.info("after")
    inside, after = lines.getvalue().splitlines()
    assert inside.endswith("msg=mining job_id=mine:12:40")
    assert after.endswith("msg=after")
    assert queue.renewals == [("arq:in-progress:mine:12:40", worker.LEASE_S * 1000)]
    assert not leases
    await asyncio.sleep(0)
    assert lease.cancelled()


def test_the_sweep_runs_every_configured_minutes() -> None:
    def minutes(every: int) -> tuple[set[int], set[int]]:
        crons = {c.coroutine.__name__: c for c in worker.cron_jobs(QueueSettings(sweep_every_minutes=every))}
        return set(crons["sweep_unmined"].minute), set(crons["backfill_embeddings"].minute)

    assert minutes(5) == (set(range(0, 60, 5)), set(range(2, 60, 5)))  # the schedule before the setting was read
    assert minutes(15) == ({0, 15, 30, 45}, {2, 17, 32, 47})
    assert minutes(60) == ({0}, {2})
