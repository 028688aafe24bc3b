"""Liveness and readiness: /healthz says the process is up, /readyz that it can work.

Both answer without an API key, so they say only what an orchestrator acts on: the verdict
and each component's status. /readyz showed anyone who could reach the port the PostgreSQL
server's version, the embedding model, the exception text of a component that was down
(host names, ports, user names) and the workers' job counts; those `detail`s now go only to
a caller that sends the admin key (`Authorization: Bearer $LOCI_ADMIN_KEY`).
"""

from __future__ import annotations

import asyncio
import hmac
import time
from typing import Any

from arq.constants import default_queue_name, health_check_key_suffix
from litestar import Controller, Request, Response, get
from litestar.openapi import ResponseSpec

from service.auth import bearer_token
from service.deps import StateDep
from service.routes._api_docs import Public
from service.worker import HEARTBEAT_S

WORKER_HEALTH_KEY = default_queue_name + health_check_key_suffix
"""Where every worker on the queue (`loci worker`, or another `loci serve`'s) writes its
health line every `HEARTBEAT_S`, with a TTL one second longer: present means a worker
polled the queue within the last few seconds."""


async def _check(name: str, probe: Any) -> tuple[str, dict[str, Any]]:
    start = time.perf_counter()
    try:
        detail = await asyncio.wait_for(probe, timeout=3.0)
        status: dict[str, Any] = {"status": "ready", "detail": detail}
    except Exception as e:  # a readiness probe reports failures, it must not raise them
        status = {"status": "unavailable", "detail": f"{type(e).__name__}: {e}"}
    status["latency_ms"] = round((time.perf_counter() - start) * 1000, 2)
    return name, status


async def _queue_probe(app_state: StateDep) -> str:
    if app_state.queue is None:
        raise RuntimeError("queue not connected")
    await app_state.queue.ping()
    return "pong"


async def _embedder_probe(app_state: StateDep) -> str:
    if not app_state.embedder.loaded:
        raise RuntimeError("model not loaded yet")
    return f"{app_state.embedder.model_name} ({app_state.settings.embedding.dim} dims)"


def _worker_status(app_state: StateDep) -> dict[str, Any]:
    """The in-process worker's heartbeat: "ready" only while its poll loop beats;
    "down" (with why) while it reconnects; "stale" when it went silent."""
    assert app_state.worker is not None
    health = app_state.worker.health()
    return {"status": health.status, "detail": health.detail, "heartbeat_age_s": health.heartbeat_age_s}


async def _external_worker(app_state: StateDep) -> dict[str, Any]:
    """Workers in other processes, seen through their arq health-check key.

    Reported, not counted towards this process's readiness: an API-only process serves
    recall and writes without a worker, and a load balancer must not take it out of
    rotation because the (separately scaled) workers are restarting."""
    if app_state.queue is None:
        return {"status": "unknown", "where": "external", "detail": "queue not connected"}
    try:
        line, ttl_ms = await asyncio.wait_for(
            asyncio.gather(app_state.queue.get(WORKER_HEALTH_KEY), app_state.queue.pttl(WORKER_HEALTH_KEY)),
            timeout=3.0,
        )
    except Exception as e:  # a readiness probe reports failures, it must not raise them
        return {"status": "unknown", "where": "external", "detail": f"{type(e).__name__}: {e}"}
    if line is None:
        detail = f"no worker has polled the queue in the last {HEARTBEAT_S + 1} s; mining waits for one"
        return {"status": "not seen", "where": "external", "detail": detail, "heartbeat_age_s": None}
    age = round(max(0.0, HEARTBEAT_S + 1 - ttl_ms / 1000), 1) if ttl_ms and ttl_ms > 0 else None
    text = line.decode() if isinstance(line, bytes) else str(line)
    return {"status": "ready", "where": "external", "detail": text, "heartbeat_age_s": age}


def _shows_details(request: Request[Any, Any, Any], app_state: StateDep) -> bool:
    """True when ``request`` carries the admin key: only then does /readyz say more than statuses."""
    token, admin_key = bearer_token(request), app_state.settings.server.admin_key
    return bool(token and admin_key and hmac.compare_digest(token.encode(), admin_key.encode()))


def _statuses_only(components: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``components`` without their ``detail``: versions, model names, error texts, job counts."""
    return {name: {k: v for k, v in c.items() if k != "detail"} for name, c in components.items()}


class HealthController(Controller):
    tags = ("health",)

    @get(
        "/healthz",
        operation_id="healthz",
        operation_class=Public,
        summary="Process is up",
        description="Liveness: answers 200 while the process serves HTTP; checks nothing else. No API key needed.",
    )
    async def healthz(self) -> dict[str, str]:
        return {"status": "ok"}

    @get(
        "/readyz",
        operation_id="readyz",
        operation_class=Public,
        summary="Database, queue and embedder are ready",
        description="Readiness: 200 when every component answers, 503 (same body) when one is down. The in-process "
        "worker is ready while its poll loop beats (`heartbeat_age_s`), down while it reconnects to the queue, "
        "stale when silent. Without one (`loci serve --no-worker`), `worker` reports what the workers of other "
        "processes last wrote to the queue (`where: external`), without counting it towards readiness. "
        "No API key needed; each component's `detail` (versions, the model, why it is down) only with the admin key.",
        responses={503: ResponseSpec(data_container=dict[str, Any], description="A component is unavailable")},
    )
    async def readyz(self, request: Request[Any, Any, Any], app_state: StateDep) -> Response[dict[str, Any]]:
        checks = await asyncio.gather(
            _check("database", app_state.db.ping()),
            _check("queue", _queue_probe(app_state)),
            _check("embedder", _embedder_probe(app_state)),
        )
        components = dict(checks)
        if app_state.worker is not None:
            components["worker"] = _worker_status(app_state)
        ready = all(c["status"] == "ready" for c in components.values())
        if app_state.worker is None:  # reported after the verdict: see `_external_worker`
            components["worker"] = await _external_worker(app_state)
        if not _shows_details(request, app_state):
            components = _statuses_only(components)
        body = {"status": "ready" if ready else "unavailable", "components": components}
        return Response(body, status_code=200 if ready else 503)
