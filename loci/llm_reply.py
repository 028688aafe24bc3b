"""What of an endpoint's reply Loci reads and keeps, apart from the transport in `loci.llm`.

A reply's bookkeeping (the model the server says served, the tokens it says it used) is
written to ``usage_costs`` after every mining job, insight run, consolidation and reranked
recall, so a value the columns cannot hold failed the whole operation: a served model name
with a NUL byte or 10,000 characters failed the mining job ("DataError") and answered a
reranked recall with a 400, and ``prompt_tokens: 10**12`` overflowed the integer column the
same way. Such values are the endpoint's bug, never the user's, so they are replaced here by
what Loci knows itself: the model it asked for, the tokens it estimates. And a reply is read
only up to `MAX_REPLY_BYTES`: every answer Loci asks for is a short JSON value, and an
endpoint streaming megabytes within the timeout would otherwise hold them all in memory and
in the parser.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from loci.errors import UpstreamBadOutput

__all__ = ["MAX_CALL_TOKENS", "MAX_MODEL_CHARS", "MAX_REPLY_BYTES", "read_capped", "served_model", "usage_tokens"]

MAX_REPLY_BYTES = 1_000_000
"""Most bytes of one reply read: the longest answer asked for (an archive summary: 2,000 + 8,000
characters, `ingest.archive_llm`) is some 40 KB even with every character escaped, twice over
with the corrective retry's echo; a million is room for a chatty model, not for a flood."""
_DECODED = frozenset({"content-encoding", "content-length", "transfer-encoding"})
"""Headers that describe the bytes on the wire, not the decoded body `read_capped` hands on."""

MAX_MODEL_CHARS = 200
"""Longest served model name kept: the width of ``usage_costs.model``."""
MAX_CALL_TOKENS = 2_000_000
"""Most tokens one call may report for its prompt or its answer: the largest context window
offered (2M) with no room to spare. More is a miscount, and summed over a job's calls it would
overflow ``usage_costs``' integer columns, so the estimate stands instead."""
_MODEL_NAME = re.compile(rf"[^\x00-\x1f\x7f-\x9f\ud800-\udfff]{{1,{MAX_MODEL_CHARS}}}")


def served_model(body: dict[str, Any], requested: str) -> str:
    """The ``model`` the server says answered (often a dated variant of ``requested``), when it
    is a printable name that fits; else ``requested``."""
    served = body.get("model")
    if isinstance(served, str) and served.strip() and _MODEL_NAME.fullmatch(served):
        return served
    return requested


def usage_tokens(usage: Any, key: str) -> int | None:
    """``usage[key]`` when it is a whole number from 0 to `MAX_CALL_TOKENS`; None (estimate it) otherwise."""
    if isinstance(usage, dict):
        value = usage.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_CALL_TOKENS:
            return value
    return None


async def read_capped(response: httpx.Response, url: str) -> httpx.Response:
    """``response`` (opened with ``stream``) read whole into a plain response, or
    UpstreamBadOutput once it passes `MAX_REPLY_BYTES`, without reading the rest."""
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > MAX_REPLY_BYTES:
            raise UpstreamBadOutput(f"LLM endpoint {url} sent a reply over {MAX_REPLY_BYTES:,} bytes; read no further")
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _DECODED]
    return httpx.Response(response.status_code, headers=headers, content=bytes(body), request=response.request)
