"""JSON bodies are decoded strictly: ``"auto_mine": 0`` is a 400, not ``False``.

Litestar converts a parsed body into its msgspec Struct with ``strict=False`` (the same
path serves query strings, where ``"5"`` must become 5), so a JSON ``0`` passes as a
boolean and ``"5"`` as an integer: a client bug goes unnoticed and the stored value is
not what was sent. This hook decodes the raw body once more, strictly, against the
handler's own ``data`` annotation before the handler runs, and refuses what only the
lenient path would accept, naming the field. A body that passes here decodes to the
same value on Litestar's path, so the handler's behaviour is otherwise unchanged.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

import msgspec
from litestar import Request

from loci.errors import InvalidInput

__all__ = ["convert_strictly", "decode_strictly"]

T = TypeVar("T")

_AT = re.compile(r"\s*-\s*at `\$(?P<path>[^`]*)`$")
_UNKNOWN = re.compile(r"unknown field `(?P<name>[^`]+)`")


def _whole_floats_as_ints(value: Any) -> Any:
    """JSON Schema's ``integer`` is any number without a fractional part (``36.0`` is one),
    and a client's JSON library may write it so; msgspec's strict mode would refuse it."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {k: _whole_floats_as_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_whole_floats_as_ints(v) for v in value]
    return value


def _field_and_message(error: msgspec.ValidationError) -> tuple[str | None, str]:
    text = str(error)
    match = _AT.search(text)
    path = match.group("path").lstrip(".") if match else ""
    message = _AT.sub("", text).replace("`", "")
    if not path and (unknown := _UNKNOWN.search(text)):
        path = unknown.group("name")
    field = path.lstrip(".") or None
    return field, f"{field}: {message[0].lower()}{message[1:]}" if field else message


async def decode_strictly(request: Request[Any, Any, Any]) -> None:
    """The ``before_request`` hook: strict re-decoding of JSON bodies (see the module)."""
    parameter = request.route_handler.parsed_fn_signature.parameters.get("data")
    if parameter is None or request.content_type[0] != "application/json":
        return
    raw = await request.body()
    if not raw.strip():
        return  # Litestar answers a missing required body itself
    try:
        parsed = msgspec.json.decode(raw)
    except msgspec.DecodeError as e:
        raise InvalidInput(f"the request body is not valid JSON: {e}", field="body") from e
    convert_strictly(parsed, parameter.raw)


def convert_strictly(value: Any, type_: type[T]) -> T:
    """Decoded JSON into ``type_`` with the rules of a request body; a refusal is an
    `InvalidInput` naming the field. The MCP tools take their arguments through this too,
    so a model sees the same message a client of the HTTP route would."""
    try:
        return msgspec.convert(_whole_floats_as_ints(value), type=type_, strict=True)
    except msgspec.ValidationError as e:
        field, message = _field_and_message(e)
        raise InvalidInput(message, field=field) from e
