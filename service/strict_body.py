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

import json
import re
from typing import Any, TypeVar

import msgspec
from litestar import Request
from litestar.enums import RequestEncodingType

from loci.errors import InvalidInput
from loci.refusal_words import in_words, refused_at
from service.body_keys import with_keys

__all__ = ["convert_strictly", "decode_strictly", "in_words", "refusal"]

T = TypeVar("T")

_DECODED_AS_JSON = (None, RequestEncodingType.JSON)
"""A ``data`` parameter Litestar decodes as JSON whatever the request's Content-Type says
(``curl -d`` sends ``application/x-www-form-urlencoded``): keyed on the header, this check
was skipped for such requests and their bodies met only the lenient path."""


_SURROGATE = re.compile("[\ud800-\udfff]")
"""A UTF-16 surrogate on its own: Python's JSON decoder keeps ``\\ud800`` as one, msgspec refuses it."""


MAX_DEPTH = 32
"""Deepest nesting of arrays and objects a body may have. The deepest the API takes is an
import's memory inside its list inside the document, a handful of levels; a body of thousands
of ``[`` ended in a RecursionError, a 500, in the decoder or in the walk below."""


def _check_depth(value: Any, *, whole: str | None) -> None:
    """Refuse ``value`` nested deeper than `MAX_DEPTH`, walking it without recursion."""
    level = [value]
    for _ in range(MAX_DEPTH + 1):
        level = [v for c in level if isinstance(c, (dict, list)) for v in (c.values() if isinstance(c, dict) else c)]
        if not level:
            return
    where = whole or "value"
    raise InvalidInput(f"{where}: nests arrays and objects more than {MAX_DEPTH} deep", field=whole)


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


def _field_and_message(error: msgspec.ValidationError, type_: Any = None, value: Any = None) -> tuple[str | None, str]:
    text = str(error)
    # a map's value is "[...]" to msgspec: "agents[...].wings[0]" -> "agents.coder.wings[0]"
    named = None if value is None else (lambda path: with_keys(path, value, type_, text))
    path, message = refused_at(text, type_, named)
    field = path or None
    return field, f"{field}: {message[0].lower()}{message[1:]}" if field else message


async def decode_strictly(request: Request[Any, Any, Any]) -> None:
    """The ``before_request`` hook: strict re-decoding of JSON bodies (see the module)."""
    parameter = request.route_handler.parsed_fn_signature.parameters.get("data")
    if parameter is None or getattr(parameter.kwarg_definition, "media_type", None) not in _DECODED_AS_JSON:
        return  # a form, or no body: not JSON for Litestar either
    raw = await request.body()
    if not raw.strip():
        if parameter.is_optional or parameter.has_default:
            return
        # Litestar's own answer named its parameter ("Validation failed …", extra "'data'"), not the body
        raise InvalidInput("body: is required: send a JSON object with this route's fields", field="body")
    try:
        parsed = msgspec.json.decode(raw)
    except RecursionError as e:  # msgspec's own guard, far past MAX_DEPTH
        raise InvalidInput(f"body: nests arrays and objects more than {MAX_DEPTH} deep", field="body") from e
    except msgspec.DecodeError as e:
        if (field := _lone_surrogate_at(raw)) is not None:
            raise InvalidInput(
                f"{field}: holds a lone UTF-16 surrogate escape (such as \\ud800 without its pair), which is "
                "not valid Unicode: escape a character outside the BMP as both halves of its pair",
                field=field,
            ) from e
        raise InvalidInput(f"the request body is not valid JSON: {e}", field="body") from e
    except UnicodeDecodeError as e:  # JSON is UTF-8 (RFC 8259); a Latin-1 "café" ended as a 500
        raise InvalidInput(
            f"the request body is not UTF-8 (byte {e.start}): send JSON encoded as UTF-8", field="body"
        ) from e
    convert_strictly(parsed, parameter.raw, whole="body")


def _lone_surrogate_at(raw: bytes) -> str | None:
    """Where a body msgspec refused holds a lone surrogate (``"a\\ud800b"``), or None when it does not.

    msgspec says "Input data was truncated" for a high surrogate without its low half, which
    sent callers hunting for a cut-off body. Python's own decoder keeps such a surrogate in the
    string, so the body is decoded once more with it, on this refusal's path only, to find the
    string (or key: ``body``) that holds one."""
    try:
        parsed = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    pending: list[tuple[str, Any]] = [("", parsed)]
    while pending:
        path, value = pending.pop()
        if isinstance(value, str) and _SURROGATE.search(value):
            return path or "body"
        if isinstance(value, dict):
            if any(_SURROGATE.search(key) for key in value):
                return path or "body"
            pending.extend((f"{path}.{key}".lstrip("."), item) for key, item in value.items())
        elif isinstance(value, list):
            pending.extend((f"{path}[{i}]", item) for i, item in enumerate(value))
    return None


def convert_strictly(value: Any, type_: type[T], *, whole: str | None = None) -> T:
    """Decoded JSON into ``type_`` with the rules of a request body; a refusal is an
    `InvalidInput` naming the field, or ``whole`` when the value itself is refused (an array
    sent where an object goes: the request's ``body``). The MCP tools take their arguments
    through this too, so a model sees the same message a client of the HTTP route would."""
    _check_depth(value, whole=whole)
    value = _whole_floats_as_ints(value)
    try:
        return msgspec.convert(value, type=type_, strict=True)
    except msgspec.ValidationError as e:
        found = refusal(e, type_=type_, value=value)
        if found.field is None and whole is not None:
            message = str(found)
            raise InvalidInput(f"{whole}: {message[0].lower()}{message[1:]}", field=whole) from e
        raise found from e


def refusal(
    error: msgspec.ValidationError,
    *,
    context: str = "",
    default: str | None = None,
    type_: Any = None,
    value: Any = None,
) -> InvalidInput:
    """msgspec's refusal as an `InvalidInput` naming the field at its path (``drawers[0].content``),
    or ``default`` when it names none; ``context`` starts the message. With the ``type_`` that
    was converted to, a refused ``Literal`` lists the values it takes; with the ``value`` too,
    a map's entry is named by its key (``agents.coder``), not msgspec's ``[...]``."""
    field, message = _field_and_message(error, type_, value)
    return InvalidInput(context + message, field=field or default)
