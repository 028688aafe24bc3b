"""A path id with an encoded slash (``PUT /v1/agents/a%2Fb``) is refused naming the parameter.

The ASGI server decodes ``%2F`` into ``/`` before routing (``scope["path"]``), so such an id
meets no route and Litestar answered a bare 404 "Not Found", where every other bad path id is
refused naming its parameter. An id never holds a slash (`loci.inputs.ID_PATTERN`), so when the
raw path, split on its real slashes, fits a route with the encoded slash inside one of its
parameters, the 404 becomes the 400 a bad path id gets (the shape of `service.errors`'s
parameter refusals).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from litestar import MediaType, Request, Response
from litestar.routes import HTTPRoute

from loci.inputs import ID_PATTERN, PATTERN_RULES

__all__ = ["encoded_slash_refusal"]

_RULE = PATTERN_RULES[ID_PATTERN] + "; an encoded slash (%2F) is not one of them"


def _parameter_at(route_path: str, raw: list[str]) -> str | None:
    """The parameter of ``route_path`` (``/v1/agents/{agent_id}``) whose raw segment holds ``%2F``,
    when every other segment matches; None when the route does not fit the raw path."""
    pattern = route_path.split("/")
    if len(pattern) != len(raw):
        return None
    named = None
    for expected, sent in zip(pattern, raw, strict=True):
        is_parameter = expected.startswith("{") and expected.endswith("}")
        if "%2f" in sent.lower():
            if not is_parameter:
                return None
            named = named or expected[1:-1]
        elif not is_parameter and unquote(sent) != expected:
            return None
    return named


def _takes_int(route: HTTPRoute, name: str) -> bool:
    """Whether a handler of ``route`` takes ``name`` as a number (``memory_id``), read off its signature."""
    for handler, _ in route.route_handler_map.values():
        parameter = handler.parsed_fn_signature.parameters.get(name)
        if parameter is not None and parameter.annotation is int:
            return True
    return False


def encoded_slash_refusal(request: Request[Any, Any, Any]) -> Response[dict[str, Any]] | None:
    """The 400 for a 404 whose raw path puts an encoded slash in a route's path parameter, or None."""
    raw_path = request.scope.get("raw_path") or b""
    if b"%2f" not in raw_path.lower():
        return None
    raw = raw_path.decode("latin-1").split("?", 1)[0].split("/")
    for route in request.app.routes:
        if isinstance(route, HTTPRoute) and (name := _parameter_at(route.path_format, raw)) is not None:
            rule = "must be a whole number" if _takes_int(route, name) else _RULE
            item = {"key": name, "message": rule, "source": "path"}
            body = {"status_code": 400, "detail": f"{name}: {rule}", "extra": [item]}
            return Response(body, status_code=400, media_type=MediaType.JSON)
    return None
