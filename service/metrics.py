"""Prometheus metrics of recall and mining, and the text /metrics serves.

Labels name only small fixed sets (a recall's depth, a cache result, a job's outcome): never
a user, key, agent, conversation or text, which would leak who uses Loci for what and grow
a series per user. HTTP requests are counted by Litestar's Prometheus middleware, by route
template (`service.routes.metrics`).

One process (tests, `loci worker` alone) keeps its values in memory; under `loci serve` every
process of the tree writes them into files of one directory (`service.metrics_dir`), which
`render` reads. The arq queue's length is read from Valkey at scrape time, not kept.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from typing import ParamSpec

from arq import Retry
from arq.connections import ArqRedis
from arq.constants import default_queue_name
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from retrieval import RecallStats
from service.metrics_dir import MULTIPROC_ENV

__all__ = [
    "AUTH_REFUSALS",
    "DEPTHS",
    "MEDIA_TYPE",
    "MINING_OUTCOMES",
    "Deferred",
    "mining_outcome",
    "observe_auth_refused",
    "observe_mining",
    "observe_recall",
    "observe_unrouted",
    "render",
]

log = logging.getLogger("loci.metrics")
_P = ParamSpec("_P")

DEPTHS = ("skip", "ordinary", "memory", "long", "explicit")
"""`retrieval.depth.DepthKind`'s values: the only ``depth`` label values (anything else is ``other``)."""
MINING_OUTCOMES = ("done", "failed", "skipped", "retry", "deferred", "timeout", "cancelled")
"""How a mining job's try ended: mined; failed for good (recorded on the conversation, or a
transient error on the last try); skipped (its conversation is gone); retried later (a transient
error); deferred (another job was mining the same user's conversations: it gave its slot back
and runs again shortly, without using up a try, `Deferred`); timeout (it ran out its job
timeout: arq fails it for good); cancelled (an abort of a deleted user's job, or a worker
shutting down: arq runs it again unless it was aborted)."""
TIMEOUT_MARGIN_S = 1.0
"""A cancelled try that ran this close to the job timeout is counted as the timeout."""
MEDIA_TYPE = CONTENT_TYPE_LATEST.partition("; charset=")[0]
"""The text format's media type, without the charset Litestar adds to every ``text/`` one."""
QUEUE_READ_TIMEOUT_S = 1.0
"""A scrape waits this long for Valkey at most; past it the queue gauge is left out."""

RECALL_SECONDS = Histogram(
    "loci_recall_duration_seconds",
    "POST /v1/recall and the MCP recall tool: the recall and its change list, by depth.",
    ["depth"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
)
RECALL_CACHE = Counter(
    "loci_recall_cache", "Recalls that named a conversation_id, by whether the cache answered.", ["result"]
)
MINING_JOBS = Counter("loci_mining_jobs", "Tries of mining jobs, by how they ended.", ["outcome"])
MINING_SECONDS = Histogram(
    "loci_mining_job_duration_seconds",
    "How long a try of a mining job ran, by how it ended.",
    ["outcome"],
    buckets=(0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 900.0),
)
MINING_TURNS = Counter("loci_mining_turns", "Turns mined by jobs that finished.")
AUTH_REFUSALS = ("missing_key", "bad_admin_key", "bad_api_key")
"""Why the bearer middleware refused a request: the only ``reason`` label values."""
AUTH_REFUSED = Counter(
    "loci_http_auth_refused",
    "Requests the API key check refused (401) before any route ran, by reason: a sudden rise is a "
    "client with a revoked key or someone guessing keys.",
    ["reason"],
)
UNROUTED = Counter(
    "loci_http_unrouted",
    "Requests no route took (an unknown address: 404; a method the address does not take: 405), "
    "which the HTTP request metrics never see.",
    ["status_code"],
)


class Deferred(Retry):
    """A try of a mining job that found its user's conversations being mined by another job
    (`service.jobs.mine_conversation`): arq runs it again later, like any Retry, but it is a
    wait, not a failure, so it is counted as ``deferred`` and never as the last try's failure."""


def mining_outcome(
    error: BaseException | None,
    result: Mapping[str, object],
    *,
    job_try: int,
    max_tries: int,
    elapsed: float,
    timeout_s: float,
) -> str:
    """How a try ended, as arq will treat it (``error`` None: it returned ``result``).

    Why: arq gives a try raising Retry on its last try up (so it is ``failed``), and fails a try
    that ran out its timeout for good, though the job itself only sees CancelledError."""
    if error is None:
        return "failed" if "failed" in result else "skipped" if "skipped" in result else "done"
    if isinstance(error, asyncio.CancelledError):
        return "timeout" if elapsed >= timeout_s - TIMEOUT_MARGIN_S else "cancelled"
    if isinstance(error, Deferred):
        return "deferred"
    if isinstance(error, Retry):
        return "failed" if job_try >= max_tries else "retry"
    return "failed"


def _never_raises(observe: Callable[_P, None]) -> Callable[_P, None]:
    """A metrics error is logged (once per process) and swallowed: counting must never fail a
    request or replace a job's own outcome (its Retry or cancellation)."""
    warned = False

    @functools.wraps(observe)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> None:
        nonlocal warned
        try:
            observe(*args, **kwargs)
        except Exception:
            if not warned:
                warned = True
                log.exception("metrics: %s failed; such failures are not logged again", observe.__name__)

    return run


@_never_raises
def observe_recall(stats: RecallStats | None, seconds: float) -> None:
    """Count one recall; ``stats`` is None only for a response that decided nothing."""
    depth = stats.depth if stats is not None and stats.depth in DEPTHS else "other"
    RECALL_SECONDS.labels(depth=depth).observe(seconds)
    if stats is not None and stats.cache in ("hit", "miss"):
        RECALL_CACHE.labels(result=stats.cache).inc()


@_never_raises
def observe_mining(outcome: str, seconds: float, turns: int = 0) -> None:
    """Count one try of a mining job (``outcome`` one of `MINING_OUTCOMES`)."""
    MINING_JOBS.labels(outcome=outcome).inc()
    MINING_SECONDS.labels(outcome=outcome).observe(seconds)
    if turns > 0:
        MINING_TURNS.inc(turns)


@_never_raises
def observe_auth_refused(reason: str) -> None:
    """Count one request the bearer middleware refused (``reason`` one of `AUTH_REFUSALS`)."""
    AUTH_REFUSED.labels(reason=reason if reason in AUTH_REFUSALS else "other").inc()


@_never_raises
def observe_unrouted(status_code: int) -> None:
    """Count one request that matched no route (404) or none of its methods (405)."""
    UNROUTED.labels(status_code=str(status_code) if status_code in (404, 405) else "other").inc()


class _QueueCollector(Collector):
    """The arq queue's length as read for this scrape (None: Valkey did not answer)."""

    def __init__(self, queued: int | None) -> None:
        self._queued = queued

    def collect(self) -> Iterator[Metric]:
        up = GaugeMetricFamily("loci_queue_up", "1 when Valkey answered this scrape's read of the job queue, else 0.")
        up.add_metric([], 0.0 if self._queued is None else 1.0)
        yield up
        if self._queued is not None:
            yield GaugeMetricFamily(
                "loci_queue_jobs",
                "Jobs in the arq queue now: waiting, deferred (a retry's wait) or running.",
                value=float(self._queued),
            )


class _Local(Collector):
    """This process's own metrics (the default registry), when not in multiprocess mode."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


async def _queued(queue: ArqRedis | None) -> int | None:
    """The queue's length, or None when there is no queue or Valkey does not answer in time."""
    if queue is None:
        return None
    try:
        return int(await asyncio.wait_for(queue.zcard(default_queue_name), timeout=QUEUE_READ_TIMEOUT_S))
    except Exception:  # a scrape reports Valkey's outage as loci_queue_up 0, it must not fail
        return None


async def render(queue: ArqRedis | None) -> bytes:
    """The Prometheus text exposition: every process's metrics, then the queue's.

    The files are read and the text made in a thread: it takes about 0.1 s at a few hundred
    label sets (more with dead children's files), which would stall every request meanwhile."""
    return await asyncio.to_thread(_exposition, await _queued(queue))


def _exposition(queued: int | None) -> bytes:
    """`render`'s blocking part."""
    registry = CollectorRegistry(auto_describe=False)
    path = os.environ.get(MULTIPROC_ENV)
    if path:
        MultiProcessCollector(registry, path=path)  # type: ignore[no-untyped-call]
    else:
        registry.register(_Local())
    registry.register(_QueueCollector(queued))
    return generate_latest(registry)
