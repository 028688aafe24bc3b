"""What `loci serve` does when its start-up fails or is interrupted, in one line.

Why: a failure inside the app's lifespan (an unloadable model, a queue that does not
answer) made uvicorn log a traceback and leave with ``SystemExit(3)``, which asyncio then
logged again as "Task exception was never retrieved"; Ctrl-C while starting printed click's
"Aborted!". `LifespanErrors` keeps the exception the start-up raised so the command can
say it in the one line every other refusal gets (`service.cli_errors.fail`).

Imports only the standard library and click at the top, as `service.cli` does.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, NoReturn

import click

from loci.errors import LociError
from service.serving import preloading

__all__ = ["STARTUP_FAILURE", "LifespanErrors", "stop_now"]

STARTUP_FAILURE = 3
"""uvicorn's exit status when the app's start-up (its lifespan) failed."""

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def _first_leaf(error: BaseException) -> BaseException:
    """The first exception inside nested exception groups (Litestar raises its lifespan's in one)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


class LifespanErrors:
    """The ASGI app, keeping the exception its start-up raised (`reason` says it).

    A `LociError` (bad settings the lifespan met) is a person's to fix: uvicorn is handed its
    one line instead of Litestar's formatted traceback. Anything else keeps the traceback in
    the log, where a bug report needs it."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app
        self.error: BaseException | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return

        async def keep(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "lifespan.startup.failed":
                # sent from inside Litestar's `except` block, so the exception is the one handled now
                self.error = _first_leaf(sys.exc_info()[1] or RuntimeError(message.get("message", "")))
                if isinstance(self.error, LociError):
                    message = {**message, "message": f"start-up failed: {self.error}"}
            await send(message)

        await self.app(scope, receive, keep)

    def reason(self, url: str) -> str:
        """The line that says why the HTTP server on ``url`` never started."""
        if isinstance(self.error, LociError):
            return str(self.error)
        if self.error is not None:  # `service.cli_errors.fail` folds a message of several lines into one
            what = str(self.error) or "no message"
            return (
                f"could not start the HTTP server on {url}: {type(self.error).__name__}: {what} (traceback in the log)"
            )
        return f"could not start the HTTP server on {url}"


def stop_now(status: int) -> NoReturn:
    """Leave after a Ctrl-C or SIGTERM, once the `with` blocks have stopped what had started.

    While the model still loads in its thread (it may be inside ONNX Runtime or torch), the
    interpreter's shutdown would abort the process (SIGABRT) instead of exiting with
    ``status``: end at once then, as `service.cli_errors.fail` does."""
    if status:
        click.echo("Loci stopped.", err=True)
    if preloading():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    raise SystemExit(status)
