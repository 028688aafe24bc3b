"""The Litestar application factory.

`create_app(settings)` takes fully resolved settings (database and queue URLs already
pointing at embedded or external services) and builds nothing at import time. The
lifespan connects the database, loads the embedder, makes the LLM client (when an
endpoint is configured), connects the queue and, when asked, runs one arq worker in
the same event loop; at shutdown it closes what it opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from arq import create_pool
from litestar import Litestar, Router
from litestar.config.cors import CORSConfig
from litestar.middleware import DefineMiddleware
from redis.asyncio import Redis

from loci.db import Database
from loci.embedder import Embedder
from loci.errors import ConfigurationError
from loci.runtime import freeze_startup_heap
from loci.settings import Settings
from retrieval import PRESETS, settle_recall_logs
from service.auth import PUBLIC_PREFIXES, BearerAuthMiddleware, agent_key_guard
from service.byte_order_mark import ByteOrderMarkMiddleware
from service.deps import DEPENDENCIES
from service.errors import EXCEPTION_HANDLERS
from service.mcp import McpMount, mcp_route
from service.parameters import check_api_request
from service.request_id import RequestIdMiddleware, add_request_id_header
from service.routes._api_docs import docs_assets_router, openapi_config
from service.routes._openapi import StrictStructSchemaPlugin, allow_header
from service.routes.access import AccessController
from service.routes.admin import AdminController
from service.routes.context import ContextController
from service.routes.conversations import ConversationController
from service.routes.entities import EntityController
from service.routes.health import HealthController
from service.routes.jobs import JobController
from service.routes.me import MeController
from service.routes.memories import MemoryController
from service.routes.memory_query import MemoryQueryController
from service.routes.metrics import MetricsController, http_metrics
from service.routes.palace import TRASH_CONTROLLERS, PalaceController
from service.routes.portability import PortabilityController
from service.routes.preferences import PreferencesController
from service.routes.profile import ProfileController
from service.routes.proposals import ProposalController
from service.routes.recall import RecallController
from service.routes.search import SearchController
from service.routes.tools import ToolsController
from service.state import AppState, build_llm, connect_cache, start_settling, stop_settling
from service.strict_body import decode_strictly
from service.web import add_page_headers, route_misses, template_config, web_router
from service.worker import redis_settings, supervise

__all__ = ["API_HANDLERS", "ROUTE_HANDLERS", "api_router", "build_state", "create_app"]

log = logging.getLogger("loci.service")

API_HANDLERS: list[Any] = [
    AdminController,
    MeController,
    ConversationController,
    JobController,
    EntityController,
    RecallController,
    SearchController,
    ContextController,
    PalaceController,
    *TRASH_CONTROLLERS,
    PreferencesController,
    AccessController,
    PortabilityController,
    MemoryController,
    MemoryQueryController,
    ProfileController,
    ProposalController,
    ToolsController,
]
"""The /v1 API: its routes refuse query parameters they do not declare (`service.parameters`)."""
ROUTE_HANDLERS: list[Any] = [HealthController, *API_HANDLERS]


def api_router() -> Router:
    """The /v1 controllers under one router whose hook refuses undeclared query parameters and
    decodes bodies strictly; a fresh one per app, as a router is bound to the app it is registered in."""
    return Router(path="/", route_handlers=API_HANDLERS, before_request=check_api_request)


def build_state(settings: Settings) -> AppState:
    if not settings.database.url:
        raise ValueError("database URL must be resolved before building the app")
    if (preset := settings.retrieval.preset) not in PRESETS:  # else every recall naming none is a 400 on "preset"
        known = ", ".join(sorted(PRESETS))
        raise ConfigurationError(f"invalid setting LOCI_RETRIEVAL_PRESET: unknown preset {preset!r}; known: {known}")
    db = Database(
        settings.database.url,
        app_role=settings.database.app_role,
        pool_size=settings.database.pool_size,
        statement_timeout_ms=settings.database.statement_timeout_ms,
    )
    return AppState(settings=settings, db=db, embedder=Embedder(settings.embedding))


WORKER_START_WAIT_S = 5.0
"""Start-up waits this long at most for the worker's first poll, so `/readyz` says
"ready" as soon as the server does; a queue that is down does not hold start-up longer."""


async def _start_worker(app_state: AppState) -> asyncio.Task[None]:
    """Run a supervised worker in this event loop (`service.supervisor`)."""
    supervisor = supervise(app_state)
    app_state.worker = supervisor
    task = asyncio.create_task(supervisor.run())
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(supervisor.first_beat.wait(), timeout=WORKER_START_WAIT_S)
    return task


async def _stop_worker(app_state: AppState, worker_task: asyncio.Task[None] | None) -> None:
    if worker_task is None or app_state.worker is None:
        return
    app_state.worker.stop()
    with contextlib.suppress(Exception):
        await worker_task
    app_state.worker = None


async def _disconnect_cache(app_state: AppState, redis: Redis | None) -> None:
    app_state.db.on_write = None
    app_state.recall_cache = None
    app_state.generations = None
    if redis is not None:
        with contextlib.suppress(Exception):
            await redis.aclose()


def _lifespan(
    settings: Settings, app_state: AppState, with_worker: bool
) -> Callable[[Litestar], contextlib.AbstractAsyncContextManager[None]]:
    """Start-up and shutdown, in reverse order: embedder, LLM client, queue, worker."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        app.state.loci = app_state
        await asyncio.to_thread(app_state.embedder.load)
        freeze_startup_heap()
        owns_llm = app_state.llm is None  # a caller that passed its own client closes it
        if owns_llm:
            app_state.llm = build_llm(settings)
        if settings.queue.url and app_state.queue is None:
            app_state.queue = await create_pool(redis_settings(settings.queue.url))
        cache_redis = connect_cache(app_state)
        settler = start_settling(app_state)
        worker_task = await _start_worker(app_state) if with_worker else None
        try:
            yield
        finally:
            # Ctrl-C reaches the embedded Valkey too (same process group), so the queue
            # may already be gone here: shutting down must not fail because of it.
            await _stop_worker(app_state, worker_task)
            if app_state.queue is not None:
                with contextlib.suppress(Exception):
                    await app_state.queue.aclose()
                app_state.queue = None
            await stop_settling(settler)
            await _disconnect_cache(app_state, cache_redis)
            if owns_llm and app_state.llm is not None:
                await app_state.llm.aclose()
                app_state.llm = None
            await settle_recall_logs()  # queued recall log rows (`retrieval.log_queue`)
            await app_state.db.dispose()

    return lifespan


def create_app(settings: Settings, *, state: AppState | None = None, run_worker: bool | None = None) -> Litestar:
    app_state = state or build_state(settings)
    with_worker = settings.server.run_worker if run_worker is None else run_worker
    lifespan = _lifespan(settings, app_state, with_worker)
    mcp = McpMount(app_state)

    auth = DefineMiddleware(BearerAuthMiddleware, exclude=[f"^{p}" for p in PUBLIC_PREFIXES])
    metrics = settings.server.metrics_enabled  # GET /metrics and the HTTP metrics (`service.routes.metrics`)
    handlers: list[Any] = [HealthController, api_router(), web_router(), docs_assets_router(), mcp_route(mcp)]
    return Litestar(
        route_handlers=[*handlers, *([MetricsController] if metrics else [])],
        dependencies=DEPENDENCIES,
        guards=[agent_key_guard],  # agent keys only where a route applies the agent's access list
        # the request id outermost, so auth's own log lines carry it too; the HTTP metrics inside
        # auth: its refusals are raised through them, which would count a 401 as a 200
        middleware=[RequestIdMiddleware(), ByteOrderMarkMiddleware(), auth, *([http_metrics()] if metrics else [])],
        before_request=decode_strictly,
        before_send=[add_request_id_header, allow_header, add_page_headers],
        plugins=[StrictStructSchemaPlugin()],
        # an address no route matches: under /memory the pages' message page, elsewhere JSON
        exception_handlers={**EXCEPTION_HANDLERS, **route_misses(EXCEPTION_HANDLERS[Exception])},
        # the MCP session manager starts after the database and embedder, and stops before them
        lifespan=[lifespan, lambda _: mcp.run()],
        request_max_body_size=settings.server.max_body_bytes,
        template_config=template_config(),
        cors_config=CORSConfig(allow_origins=[]),
        openapi_config=openapi_config(
            title="Loci",
            version="0.1.0",
            description="Long-term memory for LLM assistants: recall, mining, the memory palace.",
        ),
        debug=False,
        # Litestar's default logging config would replace the root handler with its own
        # format; Loci's (loci/logs.py) stays, and service/errors.py logs unhandled errors.
        logging_config=None,
    )
