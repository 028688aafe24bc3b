"""The one client for every LLM call Loci makes (extraction, rerank, QA reader, judge).

All of them talk to a user-configured OpenAI-compatible endpoint, so the transport,
error mapping, token accounting and JSON repair live here once instead of in each
feature. Failures are translated into the domain errors in :mod:`loci.errors`:

* the endpoint could not give an answer (timeout, refused connection, HTTP error)
  -> :class:`~loci.errors.UpstreamUnavailable`, so a queue can retry later; a 429 that
  says when to come back, soon enough, is asked again first (:mod:`loci.llm_retry`);
* it answered with something unusable (no content, JSON that does not validate even
  after a corrective retry) -> :class:`~loci.errors.UpstreamBadOutput`.

Messages name the endpoint and the cause but never the API key.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from loci.errors import ConfigurationError, UpstreamBadOutput, UpstreamUnavailable
from loci.llm_json import extract_json_block, format_validation_error
from loci.llm_reply import read_capped, served_model, usage_tokens
from loci.llm_retry import RETRY_AFTER_MAX_S, wait_after_429

__all__ = [
    "ChatResult",
    "JSONOutputError",
    "LLMClient",
    "LLMConfig",
    "estimate_tokens",
    "extract_json_block",
    "llm_config_or_none",
    "usd_cost",
]

logger = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)

# Characters per token used when the server reports no ``usage``. Four is the usual
# rule of thumb for English with BPE tokenizers; it is only good enough for cost
# dashboards, never for enforcing context limits.
_CHARS_PER_TOKEN = 4
_EXCERPT_CHARS = 300
_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
TOKENS_PER_PRICE_UNIT = 1_000_000
"""Prices are quoted in USD per million tokens, as the providers' price lists are."""


@dataclass(frozen=True)
class LLMConfig:
    """Where the endpoint is and how to pay for it; plain data so settings can build it.

    ``prices`` maps a model name to USD per 1M (input, output) tokens; a model missing
    from it gets ``cost=None`` rather than a made-up zero.
    """

    base_url: str
    api_key: str | None
    timeout_s: float = 20.0
    prices: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    retry_after_max_s: float = RETRY_AFTER_MAX_S
    """Most seconds one call waits, in all, on a 429's ``Retry-After`` (`loci.llm_retry`); 0: never."""

    def __post_init__(self) -> None:
        # Fail at start-up with the setting's name instead of on the first mining job.
        if not self.base_url.startswith(("http://", "https://")):
            raise ConfigurationError(f"LOCI_LLM_BASE_URL must start with http:// or https://, got {self.base_url!r}")
        if not self.timeout_s > 0:
            raise ConfigurationError(f"LOCI_LLM_TIMEOUT_S must be positive, got {self.timeout_s}")
        if not self.retry_after_max_s >= 0:
            raise ConfigurationError(f"LOCI_LLM_RETRY_AFTER_MAX_S must be >= 0, got {self.retry_after_max_s}")

    @property
    def chat_url(self) -> str:
        """The chat-completions URL; tolerant of a trailing slash in ``base_url``."""
        return f"{self.base_url.rstrip('/')}/chat/completions"


@dataclass(frozen=True)
class ChatResult:
    """One completed call, with what callers need to record usage and latency."""

    text: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    latency_ms: float


class JSONOutputError(UpstreamBadOutput):
    """The model never produced valid JSON; ``results`` keeps every attempt's usage.

    A subclass rather than a bare ``UpstreamBadOutput`` so callers that record token
    spend (the benchmark) still see what the failed attempts cost.
    """

    def __init__(self, message: str, results: Sequence[ChatResult]) -> None:
        super().__init__(message)
        self.results: list[ChatResult] = list(results)


def llm_config_or_none(
    base_url: str | None,
    api_key: str | None,
    *,
    timeout_s: float = 20.0,
    prices: Mapping[str, tuple[float, float]] | None = None,
    retry_after_max_s: float = RETRY_AFTER_MAX_S,
) -> LLMConfig | None:
    """Build a config, or ``None`` when no endpoint is set so callers take the offline path."""
    if base_url is None or not base_url.strip():
        return None
    return LLMConfig(
        base_url=base_url.strip(),
        api_key=api_key or None,
        timeout_s=timeout_s,
        prices=dict(prices or {}),
        retry_after_max_s=retry_after_max_s,
    )


def usd_cost(price: tuple[float, float] | None, tokens_in: int, tokens_out: int) -> float | None:
    """What a call cost at ``price`` (USD per 1M input, output tokens); None when unpriced."""
    if price is None:
        return None
    usd_in, usd_out = price
    return (tokens_in * usd_in + tokens_out * usd_out) / TOKENS_PER_PRICE_UNIT


def estimate_tokens(text: str) -> int:
    """Rough token count (``ceil(len/4)``) for servers that omit ``usage``."""
    return math.ceil(len(text) / _CHARS_PER_TOKEN)


def _excerpt(text: str, limit: int = _EXCERPT_CHARS) -> str:
    """``text`` on one line, cut at ``limit``, its control characters and lone surrogates shown as
    U+FFFD: it becomes a job's reason, stored as JSON that PostgreSQL refuses a NUL in."""
    text = _UNPRINTABLE.sub("\ufffd", " ".join(text.split()))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _server_error_message(response: httpx.Response) -> str:
    """The server's own explanation (OpenAI puts it in ``error.message``), else the body."""
    try:
        body = response.json()
    except ValueError:
        return _excerpt(response.text) or response.reason_phrase
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return _excerpt(err["message"])
        if isinstance(err, str):
            return _excerpt(err)
    return _excerpt(response.text)


class LLMClient:
    """An async OpenAI-compatible chat client around one pooled ``httpx.AsyncClient``.

    The HTTP client is created on first use (or in ``async with``) so constructing an
    ``LLMClient`` in settings or worker start-up does no I/O; call :meth:`aclose` (or use
    ``async with``) to release connections.
    """

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self._http: httpx.AsyncClient | None = None

    async def __aenter__(self) -> LLMClient:
        self._client()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close pooled connections; the client may be used again afterwards (it reopens)."""
        if self._http is not None:
            http, self._http = self._http, None
            await http.aclose()

    def _client(self) -> httpx.AsyncClient:
        if self._http is None:
            headers = {"Accept": "application/json"}
            if self.config.api_key:
                headers["Authorization"] = f"Bearer {self.config.api_key}"
            self._http = httpx.AsyncClient(headers=headers, timeout=self.config.timeout_s)
        return self._http

    async def chat(
        self,
        model: str,
        messages: Sequence[Mapping[str, str]],
        *,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        json_mode: bool = False,
        timeout_s: float | None = None,
    ) -> ChatResult:
        """One chat completion. ``timeout_s`` bounds the whole call, not each socket phase.

        With ``json_mode`` the request carries ``response_format={"type": "json_object"}``;
        OpenAI itself rejects that unless a message mentions "JSON", so prompts must.
        """
        payload: dict[str, Any] = {
            "model": model,
            "messages": [dict(m) for m in messages],
            "temperature": temperature,
        }
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens
        if json_mode:
            payload["response_format"] = {"type": "json_object"}
        deadline_s = timeout_s if timeout_s is not None else self.config.timeout_s
        response, latency_ms = await self._post(payload, deadline_s)
        return self._parse(response, model, messages, latency_ms)

    async def _post(self, payload: dict[str, Any], deadline_s: float) -> tuple[httpx.Response, float]:
        """POST once, and again after a 429 whose ``Retry-After`` is short (`loci.llm_retry`);
        waits included, the call never outlasts ``deadline_s``."""
        url = self.config.chat_url
        started = time.perf_counter()
        waited_s, retries = 0.0, 0
        while True:
            left_s = deadline_s - (time.perf_counter() - started)
            response = await self._post_once(url, payload, deadline_s, left_s)
            if not response.is_error:
                return response, (time.perf_counter() - started) * 1000.0
            # 429 and 5xx are transient; other 4xx (bad key, unknown model, bad request)
            # are configuration problems, but either way the endpoint gave no answer.
            problem = f"LLM endpoint {url} returned HTTP {response.status_code}: {_server_error_message(response)}"
            if response.status_code != httpx.codes.TOO_MANY_REQUESTS:
                raise UpstreamUnavailable(problem)
            left_s = deadline_s - (time.perf_counter() - started)
            wait = wait_after_429(
                response.headers,
                retries=retries,
                waited_s=waited_s,
                max_wait_s=self.config.retry_after_max_s,
                left_s=left_s,
            )
            if wait.seconds is None:
                raise UpstreamUnavailable(f"{problem} ({wait.why})")
            logger.info("llm.rate_limited", extra={"retry_after_s": wait.seconds, "retry": retries + 1})
            await asyncio.sleep(wait.seconds)
            waited_s, retries = waited_s + wait.seconds, retries + 1

    async def _post_once(self, url: str, payload: dict[str, Any], deadline_s: float, left_s: float) -> httpx.Response:
        try:
            # httpx timeouts apply per phase (a server trickling bytes never trips the read
            # timeout), so an overall deadline is enforced on top.
            async with (
                asyncio.timeout(left_s),
                self._client().stream("POST", url, json=payload, timeout=left_s) as response,
            ):
                return await read_capped(response, url)  # a flood is cut short (`loci.llm_reply`)
        except (TimeoutError, httpx.TimeoutException) as e:
            raise UpstreamUnavailable(f"LLM endpoint {url} timed out after {deadline_s:g}s") from e
        except httpx.HTTPError as e:
            cause = str(e) or type(e).__name__
            raise UpstreamUnavailable(f"LLM endpoint {url} unreachable: {cause}") from e

    def _parse(
        self,
        response: httpx.Response,
        model: str,
        messages: Sequence[Mapping[str, str]],
        latency_ms: float,
    ) -> ChatResult:
        url = self.config.chat_url
        try:
            body = response.json()
            text = body["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError) as e:
            raise UpstreamBadOutput(
                f"LLM endpoint {url} sent no choices[0].message.content: {_excerpt(response.text)!r}"
            ) from e
        if not isinstance(text, str):
            raise UpstreamBadOutput(f"LLM endpoint {url} sent no text content (got {type(text).__name__})")
        usage = body.get("usage")
        prompt_tokens = usage_tokens(usage, "prompt_tokens")
        if prompt_tokens is None:
            prompt_tokens = estimate_tokens("".join(m.get("content", "") for m in messages))
        completion_tokens = usage_tokens(usage, "completion_tokens")
        if completion_tokens is None:
            completion_tokens = estimate_tokens(text)
        served = served_model(body, model)  # a name the usage_costs row can hold (`loci.llm_reply`)
        result = ChatResult(
            text=text,
            model=served,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            cost=self._cost(model, served, prompt_tokens, completion_tokens),
            latency_ms=latency_ms,
        )
        logger.debug(
            "llm.chat",
            extra={
                "model": result.model,
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "latency_ms": round(latency_ms, 1),
            },
        )
        return result

    def _cost(self, requested: str, served: object, prompt_tokens: int, completion_tokens: int) -> float | None:
        # Prices are keyed by the name the user configured; servers often answer with a
        # dated variant ("gpt-4o-2024-08-06"), so the requested name is tried first.
        price = self.config.prices.get(requested)
        if price is None and isinstance(served, str):
            price = self.config.prices.get(served)
        return usd_cost(price, prompt_tokens, completion_tokens)

    async def chat_json(
        self,
        model: str,
        messages: Sequence[Mapping[str, str]],
        schema: type[T],
        *,
        retries: int = 1,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        timeout_s: float | None = None,
    ) -> tuple[T, list[ChatResult]]:
        """Ask for JSON, validate it against ``schema``, and re-ask on bad output.

        Each retry shows the model its own reply and the validation error, which fixes
        most slips (a missing field, a trailing comma) for the price of one more call.
        Transport errors are not retried here (only a short 429 is, in ``_post``). Returns
        every attempt's :class:`ChatResult` so callers can account for all tokens spent.
        """
        convo: list[Mapping[str, str]] = list(messages)
        results: list[ChatResult] = []
        problem = ""
        for _attempt in range(max(retries, 0) + 1):
            result = await self.chat(
                model,
                convo,
                temperature=temperature,
                max_tokens=max_tokens,
                json_mode=True,
                timeout_s=timeout_s,
            )
            results.append(result)
            try:
                return schema.model_validate_json(extract_json_block(result.text)), results
            except ValueError as e:  # ValidationError is a ValueError too
                problem = format_validation_error(e) if isinstance(e, ValidationError) else str(e)
            convo = [
                *convo,
                {"role": "assistant", "content": result.text},
                {
                    "role": "user",
                    "content": (
                        f"That reply was not valid JSON for the requested schema ({problem}). "
                        "Reply with only the corrected JSON, no prose and no code fences."
                    ),
                },
            ]
        raise JSONOutputError(
            f"LLM endpoint {self.config.chat_url} gave invalid JSON for {schema.__name__} "
            f"after {len(results)} attempt(s): {problem}; last reply: {_excerpt(results[-1].text)!r}",
            results,
        )
