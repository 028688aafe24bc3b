"""The one request/response layer under both clients.

An operation is data: its OpenAPI operation id, a function that turns the caller's arguments
into a `Request`, and a decoder for the answer (`Op`). The sync and async clients differ only
in how they send a request and wait before a retry; building requests, deciding retries and
turning error answers into `LociError`s happen here, once. `Op` is a descriptor: on a
`SyncTransport` it is a plain method returning the decoded answer, on an `AsyncTransport` a
coroutine method, so each operation is written once and typed for both.
"""

from __future__ import annotations

import asyncio
import email.utils
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, ParamSpec, TypeVar, overload

import httpx
from pydantic import BaseModel, TypeAdapter

from loci_client._sendable import refuse_unsendable, refuse_unsendable_header
from loci_client.errors import Unreachable, error_for
from loci_client.requests import IDEMPOTENCY_HEADER

__all__ = ["AsyncTransport", "Decoder", "Op", "Request", "Retry", "SyncTransport", "Target", "operation"]

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class Request:
    """One HTTP request, before it is sent: what an operation's arguments become."""

    method: str
    path: str
    params: Mapping[str, Any] | None = None
    json: Any = None
    content: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Decoder(Generic[T]):
    """Turns a successful answer into ``T``; `schema_type` is what the schema test compares."""

    decode: Callable[[httpx.Response], T]
    schema_type: Any = None


def model(tp: type[T]) -> Decoder[T]:
    """The answer's JSON validated as ``tp`` (a pydantic model, or a list of them)."""
    adapter: TypeAdapter[T] = TypeAdapter(tp)
    return Decoder(lambda r: adapter.validate_json(r.content), tp)


def no_content() -> Decoder[None]:
    return Decoder(lambda r: None)


_NOT_SENT = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
"""Failures before any byte of the request left: no connection (refused, reset while connecting,
a server not listening yet), or none free in the pool. Safe to send again, whatever the request."""
_LOST = (httpx.NetworkError, httpx.TimeoutException, httpx.RemoteProtocolError)
"""Failures after the request may have reached the server (a connection reset or dropped before
the answer, a read timeout): sent again only when a second copy changes nothing. The other
transport errors (a URL without http://, a header httpx refuses) would fail the same way again."""


@dataclass(frozen=True)
class Retry:
    """When to send a request again: on 429 and 503, which say "later", never on an answer that
    would be the same; and when no answer came (`Unreachable`) if sending again is safe: a
    connection that could not be made, for every request, and one lost after sending for the
    requests a second copy cannot change: the `idempotent_methods`, and writes that carry an
    ``Idempotency-Key`` (the server answers their retry what the first try did). The wait is the
    server's ``Retry-After`` when it sends one (capped at `max_delay_s`), else `base_delay_s`
    doubling each attempt. `attempts` counts the retries of a call, whatever their reason."""

    attempts: int = 3
    """retries after the first try (0: never retry); the defaults wait 0.5, 1 and 2 s, so a server
    still starting has 3.5 s to listen"""
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0
    statuses: frozenset[int] = frozenset({429, 503})
    idempotent_methods: frozenset[str] = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})

    def delay(self, attempt: int, response: httpx.Response) -> float | None:
        """Seconds to wait before retry number ``attempt + 1``, or None to give up and answer."""
        if response.status_code not in self.statuses or attempt >= self.attempts:
            return None
        told = _retry_after(response.headers.get("retry-after"))
        wait = told if told is not None else self.base_delay_s * 2**attempt
        return max(0.0, min(wait, self.max_delay_s))

    def delay_after(self, attempt: int, error: httpx.TransportError, request: httpx.Request) -> float | None:
        """Seconds to wait before sending ``request`` again after ``error`` (no answer came), or
        None to give up (`Unreachable`): retries spent, or a second copy might write twice."""
        if attempt >= self.attempts:
            return None
        safe = request.method in self.idempotent_methods or IDEMPOTENCY_HEADER in request.headers
        if not (isinstance(error, _NOT_SENT) or (isinstance(error, _LOST) and safe)):
            return None
        return max(0.0, min(self.base_delay_s * 2.0**attempt, self.max_delay_s))


def _retry_after(value: str | None) -> float | None:
    """``Retry-After`` as seconds: a number of seconds or an HTTP date."""
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()


@dataclass(frozen=True)
class Target:
    """Where and as whom a client sends: its base URL and headers (the API key). Kept here and
    added to each request, never set on the `httpx` client, which the caller may have passed in
    and share between clients of several users: setting the key on it made every one of them
    send the key of the client made last."""

    base_url: httpx.URL
    headers: Mapping[str, str]

    def url(self, path: str) -> httpx.URL:
        """``path`` (already quoted, `requests.path`) under the base URL's own path, as httpx's
        ``base_url`` joins them (``http://host/loci`` + ``/v1/me`` is ``http://host/loci/v1/me``)."""
        return self.base_url.copy_with(raw_path=self.base_url.raw_path.rstrip(b"/") + path.encode("ascii"))


def _build(http_request: Request, client: httpx.Client | httpx.AsyncClient, target: Target) -> httpx.Request:
    params = {k: v for k, v in (http_request.params or {}).items() if v is not None}
    params = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in params.items()}
    body = (
        http_request.json.model_dump(mode="json", exclude_unset=True)
        if isinstance(http_request.json, BaseModel)
        else http_request.json
    )
    # Checked here, where every operation's request passes, before httpx encodes any of it.
    headers = {**target.headers, **http_request.headers}
    for name, value in params.items():
        refuse_unsendable(value, name)
    if http_request.content is None:
        refuse_unsendable(body)
    for name, text in headers.items():
        refuse_unsendable_header(name, text)
    return client.build_request(
        http_request.method,
        target.url(http_request.path),
        params=params,
        json=body if http_request.content is None else None,
        content=http_request.content,
        headers=headers,
    )


def _answer(decoder: Decoder[T], response: httpx.Response) -> T:
    if response.is_success or response.status_code == 304:
        return decoder.decode(response)
    raise error_for(response)


# Retries are this loop's, not httpx's: ``httpx.HTTPTransport(retries=n)`` retries connect errors
# only, with httpcore's fixed backoff (0, 0.5, 1, 2 s: not configurable, so neither fast in a
# test nor longer for a slow start), and only on a transport the client makes: an ``http=``
# client the caller passes in keeps its own. One loop and one `Retry` cover refused connects,
# answers lost on a safe request, and 429/503, with one budget of attempts per call.
class SyncTransport:
    """Sends with an `httpx.Client`, sleeping between retries."""

    def __init__(self, http: httpx.Client, retry: Retry, target: Target) -> None:
        self._http = http
        self._retry = retry
        self._target = target

    def _send(self, decoder: Decoder[T], request: Request) -> T:
        attempt = 0
        while True:
            sent = _build(request, self._http, self._target)
            try:
                response = self._http.send(sent)
                response.read()
            except httpx.TransportError as e:
                wait = self._retry.delay_after(attempt, e, sent)
                if wait is None:
                    raise Unreachable(str(sent.url), e, tries=attempt + 1) from e
            else:
                wait = self._retry.delay(attempt, response)
                if wait is None:
                    return _answer(decoder, response)
            time.sleep(wait)
            attempt += 1


class AsyncTransport:
    """Sends with an `httpx.AsyncClient`, awaiting between retries."""

    def __init__(self, http: httpx.AsyncClient, retry: Retry, target: Target) -> None:
        self._http = http
        self._retry = retry
        self._target = target

    async def _send(self, decoder: Decoder[T], request: Request) -> T:
        attempt = 0
        while True:
            sent = _build(request, self._http, self._target)
            try:
                response = await self._http.send(sent)
                await response.aread()
            except httpx.TransportError as e:
                wait = self._retry.delay_after(attempt, e, sent)
                if wait is None:
                    raise Unreachable(str(sent.url), e, tries=attempt + 1) from e
            else:
                wait = self._retry.delay(attempt, response)
                if wait is None:
                    return _answer(decoder, response)
            await asyncio.sleep(wait)
            attempt += 1


class Op(Generic[P, T]):
    """One API operation, written once: a method of both clients (see the module docstring)."""

    def __init__(self, operation_id: str, decoder: Decoder[T], build: Callable[P, Request]) -> None:
        self.operation_id = operation_id
        self.decoder = decoder
        self.build = build
        self.__doc__ = build.__doc__

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> Op[P, T]: ...
    @overload
    def __get__(self, obj: SyncTransport, owner: type[Any]) -> Callable[P, T]: ...
    @overload
    def __get__(self, obj: AsyncTransport, owner: type[Any]) -> Callable[P, Awaitable[T]]: ...
    def __get__(self, obj: Any, owner: type[Any]) -> Any:
        if obj is None:
            return self
        send = obj._send
        decoder, build = self.decoder, self.build

        def call(*args: P.args, **kwargs: P.kwargs) -> Any:
            return send(decoder, build(*args, **kwargs))

        call.__name__ = build.__name__
        call.__doc__ = build.__doc__
        return call


def operation(operation_id: str, decoder: Decoder[T]) -> Callable[[Callable[P, Request]], Op[P, T]]:
    """Declare a request builder as the operation ``operation_id`` answering with ``decoder``."""

    def wrap(build: Callable[P, Request]) -> Op[P, T]:
        return Op(operation_id, decoder, build)

    return wrap
