"""How `loci serve` gets to ready in seconds: the port first, slow work overlapped.

Why: start-up took 25-47 s on this 2-core machine, and a port in use was noticed only at
the end. Now the port is bound before anything slow (and that very socket is served), the
model loads in a thread while PostgreSQL and Valkey start, and the app's modules are
imported while the main thread waits on `pg_ctl`. Each piece is idempotent: whoever needs
a result first waits for it (the embedder's load lock, Python's import lock).

Kept apart from `service.cli` so the command module stays the list of commands, and
this module imports only the standard library at the top (`loci --help` stays fast).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import socket
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from loci.errors import ConfigurationError

if TYPE_CHECKING:
    from loci.embedder import Embedder
    from loci.settings import Settings

__all__ = ["SERVE_IMPORTS", "bind_listener", "http_server", "import_in_background", "note_signals", "preload_embedder"]


def _bind_advice(error: OSError) -> str:
    """What to change after a failed bind: the address when it names no interface of this
    machine (a name that does not resolve, an address not assigned here), else the port. A
    mistyped --host used to be told to choose another port."""
    if isinstance(error, socket.gaierror) or error.errno == errno.EADDRNOTAVAIL:
        return "choose another address with --host or LOCI_HOST"
    return "choose another port with --port or LOCI_PORT"


def bind_listener(host: str, port: int) -> socket.socket:
    """The HTTP socket, bound before anything slow starts: a port in use was found only
    after the database, the queue and the model had started (~28 s). uvicorn then serves
    on this very socket, so nothing can take the port in between."""
    if not host.strip():  # bind() takes "" as every interface, and the printed URL was "http://:8420"
        raise ConfigurationError(
            "cannot listen on an empty address: set --host or LOCI_HOST (127.0.0.1, or 0.0.0.0 for every interface)"
        )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not the default 0: asyncio turns Nagle off (TCP_NODELAY) only on sockets
    # whose ``proto`` says TCP, and accepted sockets inherit the listener's. With 0, a
    # keep-alive client waited ~40 ms (Nagle against delayed ACK) on every response.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does: restart over TIME_WAIT
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise ConfigurationError(f"cannot listen on {host}:{port} ({e.strerror}); {_bind_advice(e)}") from None
    sock.set_inheritable(True)
    return sock


PRELOAD_THREADS = ("embedder-preload", "serve-imports")
"""The threads `serve` starts to overlap loading with the database's start-up."""


def preloading() -> bool:
    """Whether a preload thread is still running: it may be inside native code (ONNX
    Runtime, torch), and the interpreter's shutdown would then abort the process (SIGABRT)
    instead of exiting with the status the caller chose."""
    return any(t.name in PRELOAD_THREADS and t.is_alive() for t in threading.enumerate())


def preload_embedder(settings: Settings) -> Embedder:
    """Start loading the model in a thread while the database and queue start: the app's
    lifespan then waits for it (the load is idempotent and locked) instead of starting it."""
    from loci.embedder import Embedder

    embedder = Embedder(settings.embedding)

    def load() -> None:
        with contextlib.suppress(Exception):  # raised again, with its message, by the lifespan's load
            embedder.load()

    threading.Thread(target=load, name=PRELOAD_THREADS[0], daemon=True).start()
    return embedder


SERVE_IMPORTS = ("loci.migrate", "service.app", "uvicorn")
"""Imported in a thread while PostgreSQL starts (the main thread then waits on pg_ctl):
~2 s of imports that otherwise ran after the database was up."""


def import_in_background(modules: Sequence[str]) -> threading.Thread:
    """Import ``modules`` in a daemon thread; join it before importing any of them here.

    Two threads importing one package's modules at once can deadlock on the import locks
    (importing ``uvicorn.main`` holds its lock while it imports the package ``uvicorn``, whose
    ``__init__`` imports ``uvicorn.main``); CPython then breaks the cycle by handing one thread
    a half-initialised module, and `serve` died once in CI with "cannot import name 'Server'
    from partially initialized module 'uvicorn.main'". Joining first costs nothing: the
    imports overlap the database's start-up, which takes longer.
    """

    def run() -> None:
        for name in modules:
            with contextlib.suppress(Exception):  # the main thread's own import reports it
                importlib.import_module(name)

    thread = threading.Thread(target=run, name=PRELOAD_THREADS[1], daemon=True)
    thread.start()
    return thread


def http_server(settings: Settings, embedder: Embedder, *, run_worker: bool) -> Any:
    """uvicorn's server for the app, with the embedder that is already loading."""
    import uvicorn

    from service.app import build_state, create_app

    state = build_state(settings)
    state.embedder = embedder
    app = create_app(settings, state=state, run_worker=run_worker)
    # log_config=None: uvicorn's records go through Loci's one handler and format;
    # server_header=False: no "server: uvicorn" on every answer, public probes included
    config = uvicorn.Config(app, log_level="warning", log_config=None, lifespan="on", server_header=False)
    return uvicorn.Server(config)


def note_signals(server: Any, first: Callable[[], None] = lambda: None) -> list[int]:
    """The signals uvicorn's server stops for, as they arrive (its handler is wrapped on the
    instance, which is what uvicorn installs while it serves); ``first`` runs before uvicorn
    stops (`loci.service_watch.ServiceWatch.stop`: no server dying in the stop is restarted)."""
    received: list[int] = []
    handle_exit = server.handle_exit

    def note(sig: int, frame: Any) -> None:
        received.append(sig)
        first()
        handle_exit(sig, frame)

    server.handle_exit = note
    return received
