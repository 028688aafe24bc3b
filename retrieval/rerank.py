"""Optional second stage: an LLM reorders the fused top N and promotes the best top_k.

The reranker is advisory. On timeout, transport error or an answer we cannot use, the
RRF order stands and the outcome says why, so recall never fails because of it. With a
`RerankBreaker` (the service passes the process's), an endpoint that gave no answer is not
asked again for a cool-down: recall answers the RRF order at once instead of waiting out the
timeout on every request.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from pydantic import BaseModel, Field

from loci.errors import UpstreamBadOutput, UpstreamUnavailable
from loci.llm import ChatResult, JSONOutputError, LLMClient
from retrieval.rerank_breaker import RerankBreaker

__all__ = ["LLMReranker", "RerankCandidate", "RerankOutcome", "Reranker", "apply_order"]

log = logging.getLogger("loci.retrieval.rerank")

_SNIPPET_CHARS = 600


@dataclass(frozen=True, slots=True)
class RerankCandidate:
    drawer_id: int
    role: str
    date: str
    content: str


@dataclass(frozen=True, slots=True)
class RerankOutcome:
    """``order`` holds drawer ids best first (empty = keep RRF); ``note`` says what happened."""

    order: tuple[int, ...]
    note: str
    calls: tuple[ChatResult, ...] = field(default_factory=tuple)


class Reranker(Protocol):
    """Reorders recall's fused candidates; ``model`` is the user's choice, None for the
    reranker's own default. Must not raise: a failure is an outcome with an empty order."""

    async def rerank(
        self, query: str, candidates: Sequence[RerankCandidate], top_k: int, model: str | None = None
    ) -> RerankOutcome: ...


class _Ranking(BaseModel):
    ranking: list[int] = Field(description="candidate numbers, most relevant first")


_SYSTEM = (
    "You rank memories from a user's past conversations by how useful each is for answering "
    'the user\'s new message. Reply with JSON only: {"ranking": [numbers of the most useful '
    "memories, best first]}. Use the numbers shown in brackets; omit memories that do not help."
)


def _prompt(query: str, candidates: Sequence[RerankCandidate], top_k: int) -> str:
    lines = [f"New message: {query}", "", "Memories:"]
    for i, c in enumerate(candidates, start=1):
        snippet = " ".join(c.content.split())[:_SNIPPET_CHARS]
        lines.append(f"[{i}] ({c.date}, {c.role}) {snippet}")
    lines += ["", f"Return the {top_k} most useful memory numbers as JSON."]
    return "\n".join(lines)


def apply_order(fused_ids: Sequence[int], promoted: Sequence[int]) -> list[int]:
    """Promoted ids first (in the reranker's order, unknown/duplicate ids dropped), then
    the remaining ids in their fused order: the reranker can promote, never lose, a drawer."""
    known = set(fused_ids)
    head: list[int] = []
    for drawer_id in promoted:
        if drawer_id in known and drawer_id not in head:
            head.append(drawer_id)
    taken = set(head)
    return head + [d for d in fused_ids if d not in taken]


class LLMReranker:
    """Reranks over any OpenAI-compatible endpoint through the shared `LLMClient`;
    ``model`` is used when a call names none. ``breaker`` (shared by the process's recalls)
    skips the call while the model's endpoint is known to give no answer; None always asks."""

    def __init__(self, client: LLMClient, model: str, timeout_s: float, breaker: RerankBreaker | None = None) -> None:
        self.client = client
        self.model = model
        self.timeout_s = timeout_s
        self.breaker = breaker

    async def rerank(
        self, query: str, candidates: Sequence[RerankCandidate], top_k: int, model: str | None = None
    ) -> RerankOutcome:
        if not candidates:
            return RerankOutcome((), "no candidates")
        messages = [
            {"role": "system", "content": _SYSTEM},
            {"role": "user", "content": _prompt(query, candidates, top_k)},
        ]
        model = model or self.model
        breaker = self.breaker
        skipped = breaker.admit(model) if breaker is not None else None
        if skipped is not None:
            return RerankOutcome((), f"fallback to RRF: {skipped}")
        try:
            parsed, calls = await self.client.chat_json(model, messages, _Ranking, retries=0, timeout_s=self.timeout_s)
        except UpstreamUnavailable as e:
            if breaker is not None:
                breaker.failed(model, str(e))
            log.warning("rerank.fallback", extra={"reason": "upstream", "error": str(e)})
            return RerankOutcome((), f"fallback to RRF: {e}")
        except UpstreamBadOutput as e:  # an answer, just not a usable one: the endpoint is up
            if breaker is not None:
                breaker.answered(model)
            if isinstance(e, JSONOutputError):
                log.warning("rerank.fallback", extra={"reason": "unparseable", "error": str(e)})
                return RerankOutcome((), f"fallback to RRF: unparseable answer ({e})", tuple(e.results))
            log.warning("rerank.fallback", extra={"reason": "upstream", "error": str(e)})
            return RerankOutcome((), f"fallback to RRF: {e}")
        finally:
            if breaker is not None:
                breaker.release(model)  # a no-op unless the recall was cancelled mid-probe
        if breaker is not None:
            breaker.answered(model)
        order = [candidates[n - 1].drawer_id for n in parsed.ranking if 1 <= n <= len(candidates)]
        if not order:
            return RerankOutcome((), "fallback to RRF: ranking named no candidate", tuple(calls))
        return RerankOutcome(tuple(order[:top_k]), f"reranked by {model}", tuple(calls))
