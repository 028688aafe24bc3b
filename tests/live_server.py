"""Test helper: the real app served by uvicorn on 127.0.0.1 in a background thread.

For clients that need a real socket (a browser, schemathesis over HTTP). It shares the
session's embedded Postgres and Valkey and the already-loaded embedder, but has its
own database engine (an engine belongs to the event loop that uses it).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from socketserver import BaseServer
from typing import TypeVar

import uvicorn

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from service.app import create_app
from service.state import AppState


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_server(settings: Settings, embedder: Embedder, *, port: int | None = None) -> Iterator[str]:
    """The app listening on ``port`` (a free one when None) until the block ends."""
    database = Database(settings.database.url or "", app_role=settings.database.app_role)
    app = create_app(settings, state=AppState(settings=settings, db=database, embedder=embedder), run_worker=False)
    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, name="live-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the live test server did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


S = TypeVar("S", bound=BaseServer)


@contextmanager
def serving(server: S) -> Iterator[S]:
    """``server`` (a stub or proxy the test defines) answering from a background thread until
    the block ends, then shut down and its socket closed."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
