"""How a `loci` command fails: one line on stderr and exit status 2, never a traceback.

Errors a person can fix (bad settings, a locked data dir, unknown ids) are `LociError`s;
`friendly_errors` turns them into that line.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from loci.errors import LociError
from service.serving import preloading

__all__ = ["fail", "friendly_errors"]

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str) -> None:
    click.echo(f"loci: error: {message}", err=True)
    if preloading():
        # `serve` failed (a locked data dir, a database that would not start) while its
        # model was still loading; the `with` blocks the error left have stopped what was
        # started, so end here rather than in an interpreter shutdown that would abort.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(2)
    raise SystemExit(2)


def friendly_errors(fn: F) -> F:
    """Turn LociError into a one-line message and exit code 2."""

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except LociError as e:
            fail(str(e))

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper  # type: ignore[return-value]
