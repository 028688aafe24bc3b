"""The parameters a route declares, read from Litestar's own model of its handler.

Litestar drops a query parameter that no handler argument (nor a dependency's) names, so
``GET /v1/memories?layr=core`` answered every memory, the misspelt filter gone without a
word, while a misspelt body field is a 400. `refuse_undeclared_query` makes the two agree
for the API: a query parameter the route does not declare is a 400 naming it and listing
the ones it takes. What a route declares is the `KwargsModel` Litestar builds to parse its
requests (the handler's and its dependencies' parameters, by the names they are sent
under), so the check cannot drift from the parsing. It is the API router's hook
(`service.app`): the /memory pages, health and the docs stay lenient.

The same model gives the name a parameter is sent under, for refusals: Litestar's own name
it by the handler's argument (``idempotency_key``), not the header a client sets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast
from urllib.parse import unquote_to_bytes

from litestar import Request
from litestar.enums import ParamType
from litestar.exceptions import ValidationException
from litestar.handlers import HTTPRouteHandler

from service.strict_body import decode_strictly

__all__ = ["Declared", "check_api_request", "declared", "refuse_undeclared_query", "refuse_undecodable_query"]


@dataclass(frozen=True, slots=True)
class Declared:
    """A route's parameters as a client sends them."""

    query: tuple[str, ...]
    """The query parameters it takes, sorted (Litestar's model holds them as a set)."""
    any_query: bool
    """It takes the whole query mapping (Litestar's reserved ``query`` argument): nothing is undeclared."""
    sent_as: dict[str, str]
    """Argument name -> the name a client sends (``idempotency_key`` -> ``Idempotency-Key``)."""


_DECLARED: dict[HTTPRouteHandler, Declared] = {}
"""One per handler, built on its first request: the model is fixed once the app is built. A plain
dict: the ``OPTIONS`` handlers Litestar makes for each route take no weak reference (a 500 once)."""


def declared(request: Request[Any, Any, Any]) -> Declared:
    """What the request's route handler declares (`Declared`)."""
    handler = request.route_handler
    found = _DECLARED.get(handler)
    if found is None:
        model = handler.create_kwargs_model(path_parameters=cast("Any", dict.fromkeys(request.path_params)))
        params = [*model.expected_query_params, *model.expected_header_params, *model.expected_cookie_params]
        found = Declared(
            query=tuple(sorted(p.field_alias for p in model.expected_query_params)),
            any_query="query" in model.expected_reserved_kwargs,
            sent_as={p.field_name: p.field_alias for p in params if p.param_type is not ParamType.PATH},
        )
        _DECLARED[handler] = found
    return found


def refuse_undeclared_query(request: Request[Any, Any, Any]) -> None:
    """A 400 naming each query parameter the route does not take, and the ones it does, in the
    shape of Litestar's parameter refusals (``extra``: ``key``, ``message``, ``source``)."""
    route = declared(request)
    if route.any_query:
        return
    unknown = [name for name in dict.fromkeys(request.query_params) if name not in route.query]
    if not unknown:
        return
    takes = f"it takes {', '.join(route.query)}" if route.query else "it takes none"
    message = f"is not a query parameter of this route (unknown ones are refused); {takes}"
    raise ValidationException(
        detail="; ".join(f"{name}: {message}" for name in unknown),
        extra=[{"key": name, "message": message, "source": ParamType.QUERY.value} for name in unknown],
    )


def refuse_undecodable_query(request: Request[Any, Any, Any]) -> None:
    """A 400 naming each query parameter whose percent-decoded bytes are not UTF-8 (``q=%FF``, or
    an encoded surrogate such as ``%ED%A0%80``), in the shape of `refuse_undeclared_query`'s.
    Litestar decodes them with replacement characters, so ``GET /v1/search?q=%FF`` searched for
    "\ufffd" and answered 200 and nothing, where the same bytes in a JSON body are a 400."""
    raw: bytes = request.scope.get("query_string", b"")
    if b"%" not in raw and raw.isascii():
        return  # nothing percent-encoded and no raw byte past ASCII: UTF-8 as it stands
    refused: dict[str, str] = {}
    for pair in raw.split(b"&"):
        key, _, value = pair.partition(b"=")
        name = unquote_to_bytes(key.replace(b"+", b" ")).decode("utf-8", "replace")
        for part, what in ((key, "its name"), (value, "its value")):
            try:
                unquote_to_bytes(part.replace(b"+", b" ")).decode("utf-8")
            except UnicodeDecodeError as e:
                refused.setdefault(
                    name,
                    f"{what} is not UTF-8 once percent-decoded (byte {e.start}): percent-encode the text's UTF-8 bytes",
                )
    if refused:
        raise ValidationException(
            detail="; ".join(f"{name}: {message}" for name, message in refused.items()),
            extra=[{"key": key, "message": why, "source": ParamType.QUERY.value} for key, why in refused.items()],
        )


async def check_api_request(request: Request[Any, Any, Any]) -> None:
    """The /v1 routes' ``before_request`` hook: query parameters that are not UTF-8 or that the
    route does not declare, then the strict body (`service.strict_body.decode_strictly`, which
    the app's own hook runs for every other route)."""
    refuse_undecodable_query(request)
    refuse_undeclared_query(request)
    await decode_strictly(request)
