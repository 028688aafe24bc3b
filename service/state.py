"""What a running service holds: the database, the embedder, the queue, the LLM client, settings.

Built once in the app's lifespan (or a worker's start-up) from explicit settings and
handed to handlers through dependency injection, never imported as globals.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, TypeVar

import msgspec
from redis.asyncio import Redis

from domain.agent_access import check_agent_source, effective_agent
from domain.memory_rows import MemoryStore
from loci.db import Database
from loci.embedder import Embedder
from loci.generations import Generations, namespace_of
from loci.llm import LLMClient, llm_config_or_none
from loci.settings import Settings
from retrieval import RecallCache, RerankBreaker
from service.supervisor import WorkerSupervisor

__all__ = ["AppState", "Caller", "Settler", "build_llm", "connect_cache", "start_settling", "stop_settling"]

CACHE_SOCKET_TIMEOUT_S = 1.0
"""A Valkey that stops answering costs a recall at most this (then it is a miss), not a hang."""

Body = TypeVar("Body", bound=msgspec.Struct)


@dataclass(frozen=True, slots=True)
class Caller:
    """The one user a request acts as and, for an agent key, the agent it acts as."""

    user_id: int
    agent_id: str | None = None
    """The key's agent (`domain.accounts.KeyOwner`); None: a user key, which may declare any agent."""

    def agent(self, asked: str | None, field: str = "agent_id") -> str | None:
        """The agent this request acts as, given the one it names in ``field`` (403 when an agent
        key names another): `domain.agent_access.effective_agent`."""
        return effective_agent(self.agent_id, asked, field)

    def acting(self, body: Body) -> Body:
        """A write's ``body`` with its ``agent_id`` the agent this request acts as: an agent key
        writes as its agent whether or not the body names it (another is a 403), and never as
        the user's own word (`domain.agent_access.check_agent_source`)."""
        check_agent_source(self.agent_id, getattr(body, "source", None))
        return msgspec.structs.replace(body, agent_id=self.agent(getattr(body, "agent_id", None)))


@dataclass
class AppState:
    settings: Settings
    db: Database
    embedder: Embedder
    queue: Any = None  # arq.ArqRedis once connected
    worker: WorkerSupervisor | None = None  # the in-process worker's, when `serve` runs one
    llm: LLMClient | None = None
    """Made at start-up when an endpoint is configured (rerank, and mining with the LLM
    extractor), closed at shutdown by whoever made it; None means the offline paths."""
    recall_cache: RecallCache | None = None
    generations: Generations | None = None
    """This process's write generations (`loci.generations`), once `connect_cache` ran."""
    """The per-conversation recall cache (`retrieval.cache`), once `connect_cache` ran."""
    rerank_breaker: RerankBreaker = field(default_factory=RerankBreaker)
    """The process's circuits around the rerank call (`retrieval.rerank_breaker`): every
    recall's reranker shares them, so one that found the endpoint hanging spares the next."""

    def memory_store(self) -> MemoryStore:
        """What the explicit-memory writes need, for the API routes and the pages alike."""
        return MemoryStore(self.db, self.embedder, self.settings.memory)


def build_llm(settings: Settings) -> LLMClient | None:
    """The process's one LLM client, or None without an endpoint. Does no I/O: the client
    opens its connection pool on first use."""
    s = settings.llm
    config = llm_config_or_none(
        s.base_url, s.api_key, timeout_s=s.timeout_s, prices=s.prices, retry_after_max_s=s.retry_after_max_s
    )
    return LLMClient(config) if config is not None else None


def connect_cache(state: AppState) -> Redis | None:
    """Share write generations through the queue's Valkey (`loci.generations`): every write
    this process commits invalidates every process's recall cache; with a TTL, also make this
    process's cache. Returns the client for the caller to close; None without a queue.
    Does no I/O: the client connects on first use."""
    url = state.settings.queue.url
    if not url:
        return None
    redis: Redis = Redis.from_url(
        url, socket_timeout=CACHE_SOCKET_TIMEOUT_S, socket_connect_timeout=CACHE_SOCKET_TIMEOUT_S
    )
    generations = Generations(redis, namespace_of(state.db.url, state.db.schema))
    state.db.on_write = generations.bump
    state.generations = generations
    ttl = state.settings.retrieval.cache_ttl_s
    state.recall_cache = RecallCache(redis, generations, ttl) if ttl > 0 else None
    return redis


@dataclass(frozen=True, slots=True)
class Settler:
    """`start_settling`'s loop and the event that stops it."""

    task: asyncio.Task[None]
    stop: asyncio.Event


SETTLER_STOP_S = 3.0
"""How long a stopping process waits for its last settle (Valkey's socket timeout is 1 s)."""


def start_settling(state: AppState) -> Settler | None:
    """The loop that pays the generation bumps this process owes every few seconds
    (`loci.generations.Generations.keep_settled`), for a long-running process once
    `connect_cache` ran; None without a queue."""
    if state.generations is None:
        return None
    stop = asyncio.Event()
    task = asyncio.create_task(state.generations.keep_settled(stop), name="loci.generations.settle")
    return Settler(task, stop)


async def stop_settling(settler: Settler | None) -> None:
    """Stop `start_settling`'s loop after its last settle, waiting `SETTLER_STOP_S` at most."""
    if settler is not None:
        settler.stop.set()
        with contextlib.suppress(Exception):  # TimeoutError: cancelled after the wait
            await asyncio.wait_for(settler.task, SETTLER_STOP_S)
