"""When an LLM call that got HTTP 429 may ask again: the server's own ``Retry-After``, if short.

A rate limiter that says "come back in 2 s" has an answer for us in 2 s; falling back to the
offline path at once threw that answer away for the whole mining job (`loci.llm_latch`). As
the openai SDK does (``_base_client._parse_retry_after_header``), the wait is read from
``retry-after-ms`` first, then ``Retry-After`` as seconds or as an HTTP date. Unlike the SDK,
a 429 without either header is not retried on a guessed backoff: OpenAI sends its quota-spent
429 (``insufficient_quota``) without one, and asking again cannot help that. The waits of one
call are bounded by ``LOCI_LLM_RETRY_AFTER_MAX_S`` and by the call's own deadline, and their
number by `RATE_LIMIT_RETRIES`, so a 429 never holds a job longer than its timeout allowed.
"""

from __future__ import annotations

import email.utils
import math
import time
from dataclasses import dataclass
from datetime import UTC

import httpx

__all__ = ["RATE_LIMIT_RETRIES", "RETRY_AFTER_MAX_S", "Wait", "retry_after_s", "wait_after_429"]

RATE_LIMIT_RETRIES = 2
"""Retries after a 429 within one call: the openai SDK's default ``max_retries``."""
RETRY_AFTER_MAX_S = 10.0
"""Default most seconds one call waits on ``Retry-After`` in all (``LOCI_LLM_RETRY_AFTER_MAX_S``):
half the default call timeout, so the retried call still has time to be answered."""


@dataclass(frozen=True)
class Wait:
    """Seconds to sleep before asking again, or None and why not (said in the fallback reason)."""

    seconds: float | None
    why: str = ""


def _finite(value: str) -> float | None:
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def retry_after_s(headers: httpx.Headers, now: float | None = None) -> float | None:
    """How long the server asked us to wait (never negative), or None when it did not say."""
    ms = _finite(headers.get("retry-after-ms", ""))
    if ms is not None:
        return max(0.0, ms / 1000.0)
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    seconds = _finite(value)
    if seconds is not None:
        return max(0.0, seconds)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # "-0000" parses naive; HTTP dates are GMT (RFC 9110 5.6.7)
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def wait_after_429(headers: httpx.Headers, *, retries: int, waited_s: float, max_wait_s: float, left_s: float) -> Wait:
    """Whether retry number ``retries + 1`` may happen, having waited ``waited_s`` so far and
    with ``left_s`` of the call's deadline left (the retry must start before it ends)."""
    if retries >= RATE_LIMIT_RETRIES:
        return Wait(None, f"still rate-limited after {retries} retries")
    told = retry_after_s(headers)
    if told is None:
        return Wait(None, "no Retry-After, not retried")
    if waited_s + told > max_wait_s:
        return Wait(None, f"Retry-After {told:g}s is over LOCI_LLM_RETRY_AFTER_MAX_S={max_wait_s:g}s")
    if told >= left_s:
        return Wait(None, f"Retry-After {told:g}s is past the call's timeout")
    return Wait(told)
