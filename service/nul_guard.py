"""No NUL character (U+0000) gets past the HTTP layer, wherever in a request it is written.

PostgreSQL's text types cannot hold U+0000, so a NUL that reaches a query fails there:
before this guard, one in a recall filter was a 500, one in a recall message lost the
batch of recall logs it was written with, and one in an API key's name, an activity
filter, an entity search or a model name came back as PostgreSQL's own message (all found
by schemathesis, one field at a time). Field rules (`loci.inputs.check_text`) still refuse
the other control characters where text is stored; this closes the class for every field,
naming the first one that holds a NUL: a query or path parameter, or a JSON body's field
(an object key counts as its own field).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request

from loci.errors import InvalidInput

__all__ = ["nul_field", "refuse_nul"]

NUL = "\x00"


def nul_field(value: Any, path: str = "") -> str | None:
    """The dotted path of the first string (or object key) in decoded JSON that holds a NUL."""
    if isinstance(value, str):
        return path or "body" if NUL in value else None
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if NUL in str(key):
                return where
            if (found := nul_field(item, where)) is not None:
                return found
    if isinstance(value, list):
        for i, item in enumerate(value):
            if (found := nul_field(item, f"{path}[{i}]")) is not None:
                return found
    return None


def _refuse(field: str) -> InvalidInput:
    return InvalidInput(f"{field} must not contain U+0000 (NUL): no text field can store it", field=field)


async def refuse_nul(request: Request[Any, Any, Any]) -> None:
    """The ``before_request`` check (see the module): parameters first, then a JSON body."""
    for name, value in [*request.query_params.items(), *request.path_params.items()]:
        if isinstance(value, str) and NUL in value:
            raise _refuse(name)
    if request.content_type[0] != "application/json" or request.method in ("GET", "HEAD"):
        return
    raw = await request.body()
    if b"\\u0000" not in raw and b"\x00" not in raw:
        return  # the common case: no escape that could decode to a NUL, nothing to walk
    try:
        parsed = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return  # the strict decoder names the malformed body
    if (field := nul_field(parsed)) is not None:
        raise _refuse(field)
