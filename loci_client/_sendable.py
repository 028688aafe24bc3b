"""Values a request cannot carry, refused before it is sent, naming the field that holds one.

Two kinds of Python value have no JSON or UTF-8 form: a str holding a lone UTF-16 surrogate
(``"a\\ud800b"``, as a bad slice of an encoded text or ``surrogateescape`` decoding leaves
one) and a float NaN or infinity. httpx found them only while encoding the whole body, and
raised a bare ``UnicodeEncodeError`` or ``ValueError`` with a byte offset into the body and no
field. The server names the field of a refused value (``turns[0].content``); the client names
it the same way, as an `InvalidInput` its caller already handles for the server's 400.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from loci_client.errors import InvalidInput

__all__ = ["refuse_unsendable", "refuse_unsendable_header"]

_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_ASCII = re.compile("[^\x00-\x7f]")


def _problem(value: Any) -> str | None:
    """Why ``value`` itself (not what it holds) cannot be sent, or None."""
    if isinstance(value, str) and (found := _SURROGATE.search(value)):
        return (
            f"holds a lone UTF-16 surrogate (U+{ord(found.group()):04X} at position {found.start()}), which is "
            "not valid Unicode and has no UTF-8 form: pair it with its other half or remove it"
        )
    if isinstance(value, float) and not math.isfinite(value):
        shown = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return f"is {shown}, which JSON cannot carry: send a finite number"
    return None


def _walk(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    """Every value inside ``value`` with its field path, as the server writes it (``turns[0].content``);
    a mapping's keys stand for the mapping itself (``body`` at the top), as the server names them."""
    yield path, value
    if isinstance(value, Mapping):
        for key, item in value.items():
            yield path or "body", key
            yield from _walk(item, f"{path}.{key}".lstrip("."))
    elif isinstance(value, list | tuple):
        for i, item in enumerate(value):
            yield from _walk(item, f"{path}[{i}]")


def refuse_unsendable(value: Any, field: str = "") -> None:
    """Raise `InvalidInput` naming the first field of ``value`` (a JSON body, a query parameter
    or a path id named ``field``) that JSON or UTF-8 cannot carry; the body's top level is ``body``."""
    for path, item in _walk(value, field):
        if (problem := _problem(item)) is not None:
            where = path or "body"
            raise InvalidInput(400, f"{where}: {problem}", field=where)


def refuse_unsendable_header(name: str, value: str) -> None:
    """Raise `InvalidInput` naming header ``name`` (``Idempotency-Key``) when ``value`` is not
    ASCII, which is all httpx sends in a header (anything else was a bare ``UnicodeEncodeError``)."""
    if found := _NOT_ASCII.search(value):
        raise InvalidInput(
            400,
            f"{name}: holds U+{ord(found.group()):04X} at position {found.start()}, which an HTTP header "
            "cannot carry: use visible ASCII",
            field=name,
        )
