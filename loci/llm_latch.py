"""One job's view of the shared LLM client that stops asking once the endpoint has failed.

Mining asks the endpoint up to three times per window (extraction, memories) plus once for
the archive summary, and each stage falls back to its offline path on its own. Against an
endpoint that hangs, that meant every call waited out ``LOCI_LLM_TIMEOUT_S``: a 40-turn
conversation (5 windows) took 11 timeouts, over 3 minutes at the default 20 s, and every
queued conversation after it the same. An endpoint that is down, rate-limiting or rejecting
the model name does not recover between one window and the next, so after the first call
that got no answer (:class:`~loci.errors.UpstreamUnavailable`: timeout, refused connection,
HTTP error, a 429 once the call has waited out the short ``Retry-After`` it may, see
`loci.llm_retry`) the job's later calls fail at once with that reason, and every
stage records the same cause in its fallback. Bad output (the endpoint answered, just not
usefully) does not latch: the next window's answer may well be fine.

The latch lives for one job only; the next job asks the endpoint afresh.
"""

from __future__ import annotations

from typing import Any

import httpx

from loci.errors import UpstreamUnavailable
from loci.llm import LLMClient

__all__ = ["OutageLatch"]


class OutageLatch(LLMClient):
    """``shared``'s connections and config; after its first failed call, no more calls."""

    def __init__(self, shared: LLMClient) -> None:
        super().__init__(shared.config)
        self._shared = shared
        self.outage: UpstreamUnavailable | None = None
        """The first failure to get an answer, or None while the endpoint has answered."""

    def _client(self) -> httpx.AsyncClient:
        # The process's pool: a job opens no connections of its own.
        return self._shared._client()

    async def aclose(self) -> None:
        """Nothing to close: the shared client belongs to whoever made it."""

    async def _post(self, payload: dict[str, Any], deadline_s: float) -> tuple[httpx.Response, float]:
        if self.outage is not None:
            raise UpstreamUnavailable(f"{self.outage} (not asked again in this job)")
        try:
            return await super()._post(payload, deadline_s)
        except UpstreamUnavailable as e:
            self.outage = e
            raise
