"""Liveness and readiness: /healthz says the process is up, /readyz that it can work."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from litestar import Controller, Response, get
from litestar.openapi import ResponseSpec

from service.deps import StateDep


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


class HealthController(Controller):
    tags = ("health",)

    @get(
        "/healthz",
        operation_id="healthz",
        summary="Process is up",
        description="Liveness: answers 200 while the process serves HTTP; checks nothing else. No API key needed.",
    )
    async def healthz(self) -> dict[str, str]:
        return {"status": "ok"}

    @get(
        "/readyz",
        operation_id="readyz",
        summary="Database, queue and embedder are ready",
        description="Readiness: 200 when every component answers, 503 (same body) when one is down. The in-process "
        "worker is ready while its poll loop beats (`heartbeat_age_s`), down while it reconnects to the queue, "
        "stale when silent. No API key needed.",
        responses={503: ResponseSpec(data_container=dict[str, Any], description="A component is unavailable")},
    )
    async def readyz(self, app_state: StateDep) -> Response[dict[str, Any]]:
        checks = await asyncio.gather(
            _check("database", app_state.db.ping()),
            _check("queue", _queue_probe(app_state)),
            _check("embedder", _embedder_probe(app_state)),
        )
        components = dict(checks)
        if app_state.worker is not None:
            components["worker"] = _worker_status(app_state)
        ready = all(c["status"] == "ready" for c in components.values())
        body = {"status": "ready" if ready else "unavailable", "components": components}
        return Response(body, status_code=200 if ready else 503)
