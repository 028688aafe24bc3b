"""How a `loci` command fails: one line on stderr and exit status 2, never a traceback.

Errors a person can fix (bad settings, a locked data dir, unknown ids) are `LociError`s;
`friendly_errors` turns them into that line. A refusal of one input names it as the API
does (``limit``, ``agent_id``); the line names the option or argument the person typed
instead (``--limit``, ``--agent``, ``NAME``), read off the command's own Click parameters.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from loci.errors import LociError
from service.serving import preloading

__all__ = ["fail", "friendly_errors", "in_cli_words"]

F = TypeVar("F", bound=Callable[..., Any])

_PARAM_OF_FIELD = {"agent_id": "agent"}
"""The API's field names that a command's Click parameter spells otherwise (``--agent``)."""


def _typed_as(field: str) -> str | None:
    """How the person typed the input the API calls ``field`` in the running command:
    ``--limit`` for an option, ``USER_ID`` for an argument; None when it took none such."""
    context = click.get_current_context(silent=True)
    name = _PARAM_OF_FIELD.get(field, field)
    for param in context.command.params if context is not None else ():
        if param.name != name:
            continue
        if isinstance(param, click.Option):
            return max(param.opts, key=len)  # the long form: "--limit", not "-l"
        return param.human_readable_name
    return None


def in_cli_words(error: LociError) -> str:
    """``error``'s message with the field it names (``limit must be 1-1000``, ``agent_id: must
    be …``) written as the command's option (``--limit must be 1-1000``, ``--agent: must be …``)."""
    message, field = str(error), getattr(error, "field", None)
    if not isinstance(field, str) or (typed := _typed_as(field)) is None:
        return message
    if message.startswith(field) and message[len(field) : len(field) + 1] in (" ", ":"):
        return typed + message[len(field) :]
    return f"{typed}: {message}"


def fail(message: str) -> None:
    # one line, even when it quotes a library's message of several (transformers' "cannot load")
    click.echo(f"loci: error: {' '.join(message.split())}", err=True)
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
            fail(in_cli_words(e))

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper  # type: ignore[return-value]
