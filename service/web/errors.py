"""The /memory pages answer a refused request with their own message page, never the API's JSON.

Litestar refuses a bad query or path parameter (``/memory?wing=abc``, an id past the
largest one) before the handler runs, and its router refuses an address no page has
(``/memory/nope``) or a method a page does not take. Its answer is the JSON error body the
API speaks, which a browser shows as raw text. Here those refusals become the pages' message
page (their layout, a title, a sentence naming the field), with the same status.

`PAGE_REFUSALS` is scoped to the pages' router (`service.web.web_router`), so ``/v1``
keeps answering JSON. An address that matches no route is refused before any router is
chosen, by the app's handlers: `route_misses` answers those under ``/memory`` with the page
and hands every other one to the API's handler.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from litestar import Request, Response
from litestar.exceptions import HTTPException, MethodNotAllowedException, NotFoundException
from litestar.exceptions.http_exceptions import RequestEntityTooLarge
from litestar.response import Template
from litestar.types import ExceptionHandlersMap

from service.metrics import observe_unrouted
from service.strict_body import in_words

__all__ = ["PAGE_REFUSALS", "is_page", "page_refusal", "route_misses"]

Handler = Callable[[Request[Any, Any, Any], Any], Response[Any]]

_WHOLE_NUMBER = re.compile(r"^Expected `int(?: \| null)?`, got `\w+`$")
"""Litestar's refusal of text where a page takes an id (``?wing=abc``)."""
_WHERE = {"query": "in the address", "path": "in the address", "cookie": "in the cookie", "header": "in a header"}


def is_page(path: str) -> bool:
    """The address is one of the pages' (``/memory`` and below), not ``/memoryx`` nor the API."""
    return path == "/memory" or path.startswith("/memory/")


def _field_sentence(item: Mapping[str, Any]) -> str:
    """One refused parameter as a sentence: "“wing” in the address must be a whole number."."""
    message = str(item.get("message") or "is not valid")
    words = "must be a whole number" if _WHOLE_NUMBER.match(message) else in_words(message).replace("`", "")
    source = getattr(item.get("source"), "value", item.get("source"))
    where = _WHERE.get(str(source), "in the form")
    return f"“{item.get('key')}” {where} {words[0].lower()}{words[1:]}."


def _message(request: Request[Any, Any, Any], exc: HTTPException) -> str:
    if isinstance(exc, NotFoundException) and not exc.extra:
        return f"There is no page at {request.url.path}."
    if isinstance(exc, MethodNotAllowedException):
        return f"{request.url.path} cannot be opened with a {request.method} request."
    if isinstance(exc, RequestEntityTooLarge):
        limit = request.route_handler.resolve_request_max_body_size()
        return f"What you sent is over the limit of {limit} bytes (LOCI_MAX_BODY_BYTES)."
    fields = [item for item in exc.extra if isinstance(item, Mapping) and item.get("key")] if isinstance(
        exc.extra, list
    ) else []  # fmt: skip
    return " ".join(_field_sentence(item) for item in fields) or str(exc.detail)


def page_refusal(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    """The message page for a refusal Litestar made itself, with its status (and headers: a 405's ``Allow``)."""
    status = exc.status_code
    title = "Not found" if status == 404 else "Something went wrong" if status >= 500 else "Cannot do that"
    return Template(
        "message.html",
        context={"title": title, "message": _message(request, exc)},
        status_code=status,
        headers=exc.headers or None,
    )


PAGE_REFUSALS: ExceptionHandlersMap = {HTTPException: page_refusal, RequestEntityTooLarge: page_refusal}
"""The pages' router's handlers; ``RequestEntityTooLarge`` is named because the app maps it itself."""


def route_misses(api: Handler) -> ExceptionHandlersMap:
    """App-level handlers for an address no route matches: the page under ``/memory``, ``api``'s answer elsewhere."""

    def answer(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
        if "route_handler" not in request.scope:  # a route's own 404 is in the HTTP metrics already
            observe_unrouted(exc.status_code)
        return page_refusal(request, exc) if is_page(request.url.path) else api(request, exc)

    return {NotFoundException: answer, MethodNotAllowedException: answer}
