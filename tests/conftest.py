"""Shared fixtures: one embedded PostgreSQL (+pgvector) and Valkey per test session.

Integration tests talk to the real thing: the schema comes from `alembic upgrade head`
(never create_all), the app runs through Litestar's test client with its real lifespan,
and each test makes its own users, so tests stay independent without re-creating the
database.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from litestar.testing import AsyncTestClient
from redis.asyncio import Redis

from domain.accounts import create_key, create_user
from loci import migrate
from loci.db import Database
from loci.embedder import Embedder
from loci.generations import Generations, namespace_of
from loci.runtime import EmbeddedServices, ServiceUrls
from loci.settings import Settings, load_settings
from service.app import create_app
from service.state import AppState

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

pytest_plugins = ["tests.fakes.openai_server"]

ADMIN_KEY = "test-admin-key-" + secrets.token_hex(8)


@pytest.fixture(scope="session")
def service_urls() -> Iterator[ServiceUrls]:
    with tempfile.TemporaryDirectory(prefix="loci-test-") as tmp:
        os.chmod(tmp, 0o755)  # embedded Postgres runs as its own OS user when we are root
        embedded = EmbeddedServices(Path(tmp), ephemeral=True)
        urls = embedded.start()
        try:
            yield urls
        finally:
            embedded.stop()


def database_url(base_url: str, name: str) -> str:
    """URL of a database with the same server, credentials and socket as ``base_url``."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(base_url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


@pytest.fixture(scope="session")
def fresh_database(service_urls: ServiceUrls) -> Callable[[str], str]:
    """Create an empty database (with pgvector available) and return its URL."""

    def make(name: str) -> str:
        with psycopg.connect(service_urls.database_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        return database_url(service_urls.database_url, name)

    return make


@pytest.fixture(scope="session")
def migrated_url(service_urls: ServiceUrls) -> str:
    migrate.upgrade(service_urls.database_url)
    return service_urls.database_url


@pytest.fixture(scope="session")
def settings(migrated_url: str, service_urls: ServiceUrls) -> Settings:
    return load_settings(
        database={"url": migrated_url},
        queue={"url": service_urls.redis_url},
        server={"admin_key": ADMIN_KEY, "run_worker": False},
    )


@pytest.fixture(scope="session")
def embedder(settings: Settings) -> Embedder:
    model = Embedder(settings.embedding)
    model.load()
    return model


@pytest.fixture(scope="session")
async def db(settings: Settings) -> AsyncIterator[Database]:
    database = Database(settings.database.url or "", app_role=settings.database.app_role)
    yield database
    await database.dispose()


def make_state(settings: Settings, embedder: Embedder) -> AppState:
    database = Database(settings.database.url or "", app_role=settings.database.app_role)
    return AppState(settings=settings, db=database, embedder=embedder)


@contextlib.asynccontextmanager
async def bumps_on_either_loop(client: AsyncTestClient, settings: Settings) -> AsyncIterator[None]:  # type: ignore[type-arg]
    """Let the app's write hook bump generations from the test's event loop too.

    The test client runs the app in an event loop of its own, on its portal's thread, while
    a test also writes through ``app_state.db`` from pytest's loop. A Valkey client is bound
    to the loop its connections were opened in, so the process's one client (`connect_cache`)
    failed the hook at every switch of loop (``db.write_hook_failed``: "got Future attached
    to a different loop"). A write from the test's loop now bumps through a client of its
    own, as a second process would; a write the app makes uses the app's."""
    state: AppState = client.app.state.loci
    app_hook = state.db.on_write
    app_loop = client.blocking_portal.call(asyncio.get_running_loop)
    if app_hook is None or not settings.queue.url:
        yield
        return
    redis = Redis.from_url(settings.queue.url)
    own_hook = Generations(redis, namespace_of(state.db.url, state.db.schema)).bump

    async def bump(user_id: int | None) -> None:
        await (app_hook if asyncio.get_running_loop() is app_loop else own_hook)(user_id)

    state.db.on_write = bump
    try:
        yield
    finally:
        await redis.aclose()


@pytest.fixture(scope="session")
async def client(settings: Settings, embedder: Embedder) -> AsyncIterator[AsyncTestClient]:  # type: ignore[type-arg]
    app = create_app(settings, state=make_state(settings, embedder), run_worker=False)
    async with AsyncTestClient(app=app) as test_client, bumps_on_either_loop(test_client, settings):
        yield test_client


@pytest.fixture(scope="session")
def app_state(client: AsyncTestClient) -> AppState:  # type: ignore[type-arg]
    state: AppState = client.app.state.loci
    return state


@dataclass(frozen=True)
class UserHandle:
    id: int
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


@pytest.fixture
def admin_headers() -> dict[str, str]:
    return {"Authorization": f"Bearer {ADMIN_KEY}"}


@pytest.fixture
def new_user(db: Database) -> Callable[..., Awaitable[UserHandle]]:
    """Factory: a fresh user with one API key, so tests never share palace rows."""

    async def make(name: str = "tester") -> UserHandle:
        user = await create_user(db, f"{name}-{secrets.token_hex(3)}")
        issued = await create_key(db, user.id)
        return UserHandle(user.id, issued.key)

    return make


def without_consent(settings: Settings) -> Settings:
    """``settings`` with consent for sensitive profile fields off: mining writes a name or a
    city at once, as before consent existed. For tests of what extraction writes (their
    examples are moves and names); consent itself is tested in test_memory_consent."""
    return settings.model_copy(update={"memory": settings.memory.model_copy(update={"consent_fields": ()})})


@pytest.fixture
def no_consent(app_state: AppState, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shared app (and the jobs it runs) with consent off for one test (`without_consent`)."""
    monkeypatch.setattr(app_state, "settings", without_consent(app_state.settings))
