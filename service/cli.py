"""`loci` command line: serve, worker, db (and, loaded when used: `users` and `keys` from
`service.cli_accounts`, `mcp`, and `bench` from the bench package).

Errors a person can fix (bad settings, a locked data dir, unknown ids) print one line
and exit 2; they never show a traceback.

Start-up stays cheap (`loci --help` well under a second): this module imports only click and
the standard library at the top; settings (pydantic), the database (SQLAlchemy), migrations and
the app are imported inside the commands that use them, and `bench` (matplotlib, the
LongMemEval harness) is a lazy subcommand whose module is imported only when it runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import secrets
import signal
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from loci.logs import configure_logging
from loci.ownership import SERVER_FILE, clear_record, read_record, write_record
from loci.preflight import WAIT_S, check_app_role, check_database, check_queue, make_data_dir, wait_until_reachable
from loci.runtime import EmbeddedServices, freeze_startup_heap, holds_database
from loci.service_watch import GIVE_UP_EXIT_S, ServiceWatch, embedded_watches
from service.cli_errors import fail, friendly_errors
from service.cli_lazy import LazyGroup
from service.cli_startup import STARTUP_FAILURE, LifespanErrors, stop_now
from service.metrics_dir import discard as discard_metrics_dir
from service.metrics_dir import prepare as prepare_metrics_dir
from service.serving import (
    SERVE_IMPORTS,
    bind_listener,
    http_server,
    import_in_background,
    note_signals,
    preload_embedder,
)

if TYPE_CHECKING:
    from loci.settings import Settings

log = logging.getLogger("loci.cli")

LAZY_COMMANDS: Mapping[str, tuple[str, str]] = {
    "bench": ("bench.cli:bench", "Benchmarks of Loci's memory (needs the 'bench' extra)."),
    "mcp": ("service.mcp.cli:mcp", "Serve the MCP tools over stdio for the user in LOCI_API_KEY."),
    "users": ("service.cli_accounts:users", "Manage users (through the running service, or its stopped database)."),
    "keys": ("service.cli_accounts:keys", "Manage API keys (through the running service, or its stopped database)."),
    "memories": (
        "service.cli_memories:memories",
        "Memory upkeep now: `sweep` (the daily job), `consolidate` (merge near-duplicates), `insights`.",
    ),
    "trash": ("service.cli_trash:trash", "The trash now: `purge` (the daily job: what sat there over 30 days)."),
}
"""Subcommands imported only when used: name -> (module:attribute, one-line help)."""


def settings_from(data_dir: Path | None = None, **server: Any) -> Settings:
    """Every command's settings, read once; logging takes its level (LOCI_LOG_LEVEL) from them."""
    from loci.settings import load_settings

    overrides: dict[str, dict[str, Any]] = {"server": {k: v for k, v in server.items() if v is not None}}
    if data_dir is not None:
        overrides["server"]["data_dir"] = data_dir
    settings = load_settings(**overrides)
    configure_logging(settings.server.log_level)
    return settings


@contextlib.contextmanager
def services(settings: Settings, *, need_queue: bool = True, watch: ServiceWatch | None = None) -> Iterator[Settings]:
    """Start what is not configured, and yield settings with real URLs. A configured
    DATABASE_URL or REDIS_URL is checked first (`loci.preflight`): one that cannot be reached,
    or a PostgreSQL without pgvector, is one line naming it, not a traceback from migrations.
    ``watch`` is given the embedded servers started here, to start again should they die."""
    if settings.database.url:
        check_database(settings.database.url)
    if need_queue and settings.queue.url:
        check_queue(settings.queue.url)
    embedded = EmbeddedServices(
        settings.server.data_dir,
        database_url=settings.database.url,
        redis_url=settings.queue.url if need_queue else (settings.queue.url or "redis://unused"),
    )
    urls = embedded.start()
    if watch is not None:
        watch.watch(embedded_watches(embedded))
    try:
        resolved = settings.model_copy(
            update={
                "database": settings.database.model_copy(update={"url": urls.database_url}),
                "queue": settings.queue.model_copy(update={"url": urls.redis_url if need_queue else None}),
            }
        )
        yield resolved
    finally:
        embedded.stop()


def ensure_admin_key(settings: Settings) -> Settings:
    """Use LOCI_ADMIN_KEY, else a key kept (0600) in the data dir, made on first start."""
    if settings.server.admin_key:
        return settings
    path = make_data_dir(settings.server.data_dir) / "admin_key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(f"loci_admin_{secrets.token_urlsafe(32)}\n")
    key = path.read_text().strip()
    return settings.model_copy(update={"server": settings.server.model_copy(update={"admin_key": key})})


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    """Uvicorn re-raises SIGTERM after its graceful shutdown; with the default handler the
    process would die right there and leave embedded Postgres and Valkey running."""
    raise SystemExit(0)


def beside_server(settings: Settings, command: str) -> Settings | None:
    """Settings that use the PostgreSQL and Valkey of the `loci serve` running on the data
    dir, or None (a configured database, or no live server: own the data dir). One process owns
    a data dir, so a command beside a server (`loci mcp`, `loci memories sweep`) uses what it runs
    (`loci.ownership.live_services`) and starts nothing; ``command`` names it in a refusal."""
    from loci.ownership import live_services

    if settings.database.url:
        return None
    data_dir = settings.server.data_dir.expanduser().resolve()
    live = live_services(data_dir)
    if live is None:
        return None
    if live.database_url is None:
        fail(
            f"the loci serve running on {data_dir} (pid {live.owner}) uses an external PostgreSQL "
            f"(or was started by an older Loci): give {command} the same LOCI_DATABASE_URL, or restart it"
        )
    return settings.model_copy(
        update={
            "database": settings.database.model_copy(update={"url": live.database_url}),
            "queue": settings.queue.model_copy(update={"url": live.redis_url}),
        }
    )


@click.group(cls=LazyGroup, lazy=LAZY_COMMANDS)
@click.version_option("0.1.0", prog_name="loci")
def main() -> None:
    """Loci: long-term memory for LLM assistants."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")


data_dir_option = click.option(
    "--data-dir", type=click.Path(path_type=Path), help="where embedded services keep data (env LOCI_DATA_DIR)"
)


@main.command()
@click.option("--host", default=None, help="bind address (env LOCI_HOST, default 127.0.0.1)")
@click.option("--port", type=click.IntRange(0, 65535), default=None, help="port (env LOCI_PORT, default 8420)")
@data_dir_option
@click.option("--no-worker", is_flag=True, help="run no arq worker here (nor LOCI_QUEUE_WORKER_PROCESSES' children)")
@friendly_errors
def serve(host: str | None, port: int | None, data_dir: Path | None, no_worker: bool) -> None:
    """Start the API and its worker (LOCI_QUEUE_WORKER_PROCESSES: more worker processes) on
    embedded or configured services."""
    # First: a SIGTERM while PostgreSQL, Valkey and the model start unwinds the `with` blocks,
    # which stop what had started; with the default handler it killed the process there and
    # left the embedded PostgreSQL and Valkey running.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        try:
            interrupted = _serve(host, port, data_dir, no_worker)
        finally:  # here, not only at exit: `stop_now` may end the process at once
            discard_metrics_dir()
    except KeyboardInterrupt:  # Ctrl-C while starting: said as once ready, not click's "Aborted!"
        interrupted = True
    except SystemExit as e:
        if e.code == 0:  # SIGTERM (`_exit_on_sigterm`), while starting or serving
            stop_now(0)
        raise
    if interrupted:  # the embedded services are stopped by now
        stop_now(130)


def _serve(host: str | None, port: int | None, data_dir: Path | None, no_worker: bool) -> bool:
    """`serve`'s work; True when a Ctrl-C stopped it."""
    started = time.perf_counter()
    settings = settings_from(data_dir, host=host, port=port)
    listener = bind_listener(settings.server.host, settings.server.port)  # a taken port: fail before writing
    settings = ensure_admin_key(settings)
    if settings.server.metrics_enabled:  # before anything imports prometheus_client (`service.metrics_dir`)
        prepare_metrics_dir()
    embedder = preload_embedder(settings)
    imports = import_in_background(SERVE_IMPORTS)
    watch = ServiceWatch()  # runs while serving; a Ctrl-C or SIGTERM stops it first (`note_signals`)
    with services(settings, watch=watch) as resolved:
        imports.join()  # before importing any of them here (`import_in_background`)
        from loci import migrate
        from service.worker_processes import WorkerProcesses, process_count

        migrate.upgrade(resolved.database.url or "", embedder=embedder.model_name)
        check_app_role(resolved.database.url or "", resolved.database.app_role)  # made by the migrations
        # the model's errors (a bad name, size or device) here, as one line: raised in the
        # app's lifespan they were a uvicorn traceback. It has been loading all along.
        embedder.load()
        server = http_server(resolved, embedder, run_worker=not no_worker)
        server.config.app = startup = LifespanErrors(server.config.app)
        url = f"http://{resolved.server.host}:{listener.getsockname()[1]}"

        async def run() -> None:
            task = asyncio.create_task(_serving(server, listener))
            while not server.started and not task.done():  # noqa: ASYNC110 - uvicorn only exposes a flag
                await asyncio.sleep(0.05)
            if server.started:
                write_record(resolved.server.data_dir, SERVER_FILE, {"url": url})
                click.echo(f"Loci ready at {url}  ({time.perf_counter() - started:.1f}s)")
                click.echo(f"  memory page: {url}/memory   API docs: {url}/schema/swagger")
                click.echo(f"  data dir: {resolved.server.data_dir}   admin key: {resolved.server.data_dir}/admin_key")
            await task

        received = note_signals(server, first=watch.stop)
        interrupted = False
        count = 0 if no_worker else process_count(resolved.queue.worker_processes)
        extra = WorkerProcesses(
            count, resolved.database.url or "", resolved.queue.url or "", resolved.embedding.onnx_threads
        )
        gave_up = functools.partial(setattr, server, "should_exit", True)  # uvicorn's own stop, as a signal's
        try:  # the workers stop before the watch, the watch before the services they use
            with watch.running(gave_up, exit_after_s=GIVE_UP_EXIT_S), extra:
                asyncio.run(run())
        except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled once it has stopped
            interrupted = True
        finally:
            if (read_record(resolved.server.data_dir, SERVER_FILE) or {}).get("pid") == os.getpid():
                clear_record(resolved.server.data_dir, SERVER_FILE)
        # ... except when asyncio's runner sees the re-raised signal after its main task has
        # already finished (seen under load in CI): uvicorn stopped for a Ctrl-C all the same.
        interrupted = interrupted or signal.SIGINT in received
        watch.raise_if_lost()  # one line and exit 2: a supervisor restarts Loci
        if not server.started and not interrupted:
            fail(startup.reason(url))
    return interrupted


async def _serving(server: Any, listener: Any) -> None:
    """uvicorn's serve; its exit on a failed start-up (status 3) is `LifespanErrors`' to tell."""
    try:
        await server.serve(sockets=[listener])
    except SystemExit as e:
        if e.code != STARTUP_FAILURE:
            raise


@main.command()
@click.option("--burst", is_flag=True, help="exit when the queue is empty")
@click.option(
    "--wait",
    "wait_s",
    type=click.FloatRange(min=0),
    default=WAIT_S,
    show_default=True,
    help="seconds to keep trying a PostgreSQL or Valkey that does not answer yet before giving up",
)
@friendly_errors
def worker(burst: bool, wait_s: float) -> None:
    """Run an arq worker alone against DATABASE_URL and REDIS_URL (for scaling out)."""
    from service.app import build_state
    from service.worker import run_standalone
    from service.worker_processes import follow_parent, yield_to_serve

    settings = settings_from()
    database_url, queue_url = settings.database.url or "", settings.queue.url or ""
    if not database_url or not queue_url:
        fail("`loci worker` needs DATABASE_URL and REDIS_URL (embedded services belong to `loci serve`)")
    # as `loci serve` does (`services`): a bad URL, a missing database, no pgvector or an
    # unknown LOCI_DB_APP_ROLE is one line and exit 2 here, not a traceback or a retry forever;
    # a service that does not answer yet (restarting, started after the worker) is waited for
    checks = (
        functools.partial(check_database, database_url),
        functools.partial(check_queue, queue_url),
        functools.partial(check_app_role, database_url, settings.database.app_role),
    )
    wait_until_reachable(checks, lambda line: click.echo(f"loci: waiting: {line}", err=True), wait_s=wait_s)
    follow_parent()  # a child of `serve` (LOCI_QUEUE_WORKER_PROCESSES) ends with it,
    yield_to_serve()  # and leaves the cores to its recall first
    state = build_state(settings)
    state.embedder.load()
    freeze_startup_heap()
    # supervised: a lost Valkey is logged and reconnected with backoff, never an exit
    asyncio.run(run_standalone(state, burst=burst))


@main.group()
def db() -> None:
    """Schema migrations (alembic)."""


@contextlib.contextmanager
def _migration_url(settings: Settings) -> Iterator[str]:
    """The database's URL, with alembic's own refusals (a revision it cannot find or reach,
    `loci db downgrade nosuch`) as one line and exit 2 instead of a traceback."""
    from alembic.util.exc import CommandError

    with services(settings, need_queue=False) as resolved:
        try:
            yield resolved.database.url or ""
        except CommandError as e:
            fail(f"alembic: {e}")


def _existing_database(settings: Settings) -> Settings:
    """``settings``, when they name a database that is there to read: a DATABASE_URL, or a data
    dir whose embedded PostgreSQL exists. Else one line and exit 2, and the data dir is left as
    it was: inspecting (or stepping back) a database must not initdb one (`loci db upgrade` may)."""
    if not settings.database.url and not holds_database(settings.server.data_dir):
        data_dir = settings.server.data_dir.expanduser().resolve()
        fail(
            f"no Loci database in {data_dir} (`loci db upgrade` or `loci serve` makes one); pass the "
            "server's data dir with --data-dir (or LOCI_DATA_DIR), or DATABASE_URL"
        )
    return settings


@db.command("upgrade")
@click.argument("revision", default="head")
@data_dir_option
@friendly_errors
def db_upgrade(revision: str, data_dir: Path | None) -> None:
    """Apply migrations up to REVISION (default head)."""
    from loci import migrate

    with _migration_url(settings_from(data_dir)) as url:
        migrate.upgrade(url, revision=revision)
        click.echo(f"at revision {migrate.current(url)}")


@db.command("downgrade")
@click.argument("revision", default="-1")
@data_dir_option
@friendly_errors
def db_downgrade(revision: str, data_dir: Path | None) -> None:
    """Revert migrations down to REVISION (default one step; 'base' for empty)."""
    from loci import migrate

    with _migration_url(_existing_database(settings_from(data_dir))) as url:
        migrate.downgrade(url, revision=revision)
        click.echo(f"at revision {migrate.current(url)}")


@db.command("current")
@data_dir_option
@friendly_errors
def db_current(data_dir: Path | None) -> None:
    """Print the applied revision (of an existing database: none is created to read)."""
    from loci import migrate

    settings = settings_from(data_dir)
    # Beside a running `loci serve`, read its PostgreSQL: the data dir is its, and reading
    # changes nothing (this was refused, "another Loci process is using data dir", as a change is).
    if (live := beside_server(settings, "loci db current")) is not None:
        click.echo(migrate.current(live.database.url or ""))
        return
    with _migration_url(_existing_database(settings)) as url:
        click.echo(migrate.current(url))


if __name__ == "__main__":
    sys.exit(main())
