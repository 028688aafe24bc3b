"""Asking the model for one statement that replaces a cluster of duplicate memories.

The model sees the cluster's memories, each with its id, and answers JSON: the merged
statement and the ids it replaces. Nothing it says is trusted: the statement must be one
short line (non-empty, within ``content_max_chars``, no control characters) and every id
must be one of the cluster's, at least two of them. A reply naming any other id (another
user's memory, one from a different cluster, an invented one) is refused as a whole, and the
caller merges that cluster by rule instead; so is any failure of the endpoint.
"""

from __future__ import annotations

import logging
import unicodedata
from dataclasses import dataclass

from pydantic import BaseModel, Field

from domain.memory_clusters import Cluster, Member
from loci.errors import UpstreamBadOutput, UpstreamUnavailable
from loci.llm import ChatResult, JSONOutputError, LLMClient

__all__ = ["LLMMerger", "MergeReply", "Proposal"]

log = logging.getLogger("loci.consolidate")

SYSTEM_PROMPT = """You merge near-duplicate memories about one user into a single memory. Reply with JSON only:
{"content": str, "ids": [int]}
content: one short statement keeping every detail the memories agree on, written without a subject
("Lives in Porto", not "The user lives in Porto"). ids: the ids of the memories that statement replaces
(at least two of the ids shown; leave out one that says something different)."""


class MergeReply(BaseModel):
    content: str = Field(min_length=1)
    ids: list[int] = Field(min_length=2)


@dataclass(frozen=True, slots=True)
class Proposal:
    """What a checked reply says: the statement and the cluster it replaces (narrowed to the
    ids the reply named, keeper first in the cluster's own order)."""

    content: str
    cluster: Cluster


def _render(cluster: Cluster) -> str:
    return "\n".join(f"[{m.id}] {m.content}" for m in cluster.members)


def check_reply(reply: MergeReply, cluster: Cluster, max_chars: int) -> Proposal:
    """The reply as a `Proposal`, or ValueError saying why it is refused (see the module)."""
    foreign = sorted(set(reply.ids) - cluster.ids)
    if foreign:
        raise ValueError(f"named ids outside the cluster: {foreign}")
    named = [m for m in cluster.members if m.id in set(reply.ids)]
    if len(named) < 2:
        raise ValueError("named fewer than two of the cluster's memories")
    content = reply.content.strip()
    if not content:
        raise ValueError("blank statement")
    if len(content) > max_chars:
        raise ValueError(f"statement of {len(content)} characters, over {max_chars}")
    if any(unicodedata.category(ch) in {"Cc", "Cs"} for ch in content):
        raise ValueError("control character in the statement")
    keeper = named[0]
    return Proposal(content, Cluster(Member(keeper.id, keeper.content, 1.0), tuple(named[1:])))


class LLMMerger:
    """Proposes merged statements; after the endpoint fails to answer once, it stops asking
    for the rest of the run (every further cluster would wait out the same timeout)."""

    def __init__(self, client: LLMClient, model: str, max_chars: int) -> None:
        self.client = client
        self.model = model
        self.max_chars = max_chars
        self.calls: list[ChatResult] = []
        self.down = False

    async def propose(self, user_id: int, cluster: Cluster) -> Proposal | None:
        """A checked proposal, or None (logged) when the rule must merge this cluster."""
        if self.down:
            return None
        try:
            return check_reply(await self._ask(cluster), cluster, self.max_chars)
        except ValueError as e:
            log.warning(
                "consolidation of user %d, memories %s: %s; merging by rule", user_id, sorted(cluster.ids), str(e)[:500]
            )
            return None

    async def _ask(self, cluster: Cluster) -> MergeReply:
        """The model's validated reply, or ValueError saying why there is none; every
        attempt's usage is kept, failed ones included (they were paid for)."""
        messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": _render(cluster)}]
        try:
            reply, calls = await self.client.chat_json(self.model, messages, MergeReply, retries=1)
        except JSONOutputError as e:
            self.calls.extend(e.results)
            raise ValueError(f"malformed output after retry: {e}") from e
        except UpstreamUnavailable as e:
            self.down = True
            raise ValueError(f"endpoint unavailable, not asked again this run: {e}") from e
        except UpstreamBadOutput as e:
            raise ValueError(f"bad output: {e}") from e
        self.calls.extend(calls)
        return reply
