"""The per-conversation recall cache: the same message recalled again within a conversation
reuses the last result's ids, re-read by id (`retrieval.rehydrate`) instead of searched.

Why it cannot serve a stale answer:

* **Writes** — every committed write to a user's rows sets a new generation token for that
  user in Valkey (`loci.generations`, reached from `Database.on_write` in every process, the
  arq worker's included); a write from a system session sets the global one. An entry keeps
  the tokens it was computed under and is served only while both are unchanged.
* **A write during the search** — the tokens are read in the lookup, *before* the search;
  a write that commits while the search runs has bumped them by the time the next lookup
  reads them, so the entry that search stored is never served.
* **Another agent** — the key holds the agent and the filters its access list narrowed
  the request to; a hit re-reads memories within the agent's scope and drawers within its
  wings, and drops anything trashed since.
* **No text** — an entry holds ids, ranks, scores and the token counts of the block's lines
  by a digest of each line (`TokenMemo`), never what was said: a hit renders the block again
  from the rows it re-read, without the tokenizer (a sixth of a hit's time) unless a line
  changed, and nothing of a forgotten memory outlives its write in Valkey.
* **A bump that failed** — Valkey unreachable as a write committed: the bump is owed and
  paid before this process's next lookup, which is a miss until it lands (`loci.generations`).
* **Time** — an entry lives ``ttl_s`` (``LOCI_RETRIEVAL_CACHE_TTL_S``, default 300 s) by the
  cache's clock, with Valkey's own expiry as the backstop.

The key is the user, conversation, agent, the normalised message and every request field
that changes the answer (top_k, filters, budget, preset's config, grouping, ``now``).
A Valkey error is a miss, never a failed recall.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
from redis.asyncio import Redis
from redis.exceptions import RedisError

from loci.generations import Generations
from retrieval.config import RetrievalConfig
from retrieval.render import TokenCounter
from retrieval.request import RecallRequest, RecallResponse

__all__ = [
    "CacheSlot",
    "CachedDrawer",
    "CachedMemory",
    "CachedRecall",
    "RecallCache",
    "TokenMemo",
    "cache_key",
    "normalise",
]

log = logging.getLogger("loci.retrieval")


class CachedDrawer(msgspec.Struct, array_like=True, frozen=True):
    drawer_id: int
    score: float
    ranks: dict[str, int]
    in_block: bool
    """It passed the block's relevance floor (`retrieval.floor`): the block shows it."""


class CachedMemory(msgspec.Struct, array_like=True, frozen=True):
    memory_id: int
    score: float
    ranks: dict[str, int]


class CachedRecall(msgspec.Struct, array_like=True, frozen=True):
    """One recall's answer as ids, ranks and scores, and the generations it was computed under."""

    generation: str
    stored_at: float
    preset: str
    depth: str
    top_k: int
    drawers: list[CachedDrawer]
    memories: list[CachedMemory]
    tokens: dict[str, int]
    """Token counts of the block's lines by `TokenMemo.key` (what rendering it again needs)."""
    zone: str | None = None
    """The user's time zone the block was dated on (`Controls.time_zone`): a hit dates it the
    same (a change of zone is a write, so it comes with a new generation)."""


_ENCODE = msgspec.json.Encoder()
_DECODE = msgspec.json.Decoder(CachedRecall)


def normalise(message: str) -> str:
    """Case, runs of white space and closing punctuation do not make another question."""
    return " ".join(message.casefold().split()).rstrip(" ?!.…")


class TokenMemo:
    """A `TokenCounter` that remembers each line's count by a digest of the line: filled by a
    miss's render, it lets a hit render the same lines without the tokenizer."""

    def __init__(self, count: TokenCounter, known: Mapping[str, int] | None = None) -> None:
        self.count = count
        self.known: dict[str, int] = dict(known or {})

    @staticmethod
    def key(line: str) -> str:
        return hashlib.blake2b(line.encode(), digest_size=8).hexdigest()

    def __call__(self, lines: Sequence[str]) -> list[int]:
        keys = [self.key(line) for line in lines]
        todo = {k: line for k, line in zip(keys, lines, strict=True) if k not in self.known}
        if todo:
            self.known.update(zip(todo, self.count(list(todo.values())), strict=True))
        return [self.known[k] for k in keys]


def _filters(request: RecallRequest) -> list[Any]:
    out: list[Any] = []
    for f in dataclasses.fields(request.filters):
        value = getattr(request.filters, f.name)
        if isinstance(value, frozenset | set):
            value = sorted(value)
        elif hasattr(value, "isoformat"):
            value = value.isoformat()
        out.append(value)
    return out


def cache_key(request: RecallRequest, config: RetrievalConfig) -> str:
    """The digest of everything that changes the answer to ``request`` (see the module)."""
    parts = [
        request.conversation_id, request.agent_id, normalise(request.message), request.top_k,
        _filters(request), request.now.isoformat() if request.now else None, request.budget_tokens,
        request.candidate_limit, sorted(request.category_caps.items()), request.group_by, repr(config),
    ]  # fmt: skip
    return hashlib.sha256(_ENCODE.encode(parts)).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class CacheSlot:
    """A lookup's outcome: where the answer goes, the generations read before the search,
    and the entry when it is fresh (a hit)."""

    key: str
    generation: str
    entry: CachedRecall | None = None


@dataclass(frozen=True, slots=True)
class RecallCache:
    """Valkey-backed; ``clock`` is replaceable so tests move time instead of waiting."""

    redis: Redis
    generations: Generations
    ttl_s: float
    clock: Callable[[], float] = field(default=time.time)

    def usable(self, request: RecallRequest) -> bool:
        """Only a conversation's recalls are cached, and never a read of the past (``as_of``)."""
        return self.ttl_s > 0 and request.conversation_id is not None and request.as_of is None

    async def lookup(self, request: RecallRequest, config: RetrievalConfig) -> CacheSlot | None:
        """The entry and the current generations, in one round trip; None when Valkey fails
        or a bump this process owes (`Generations.settle`) still cannot land: an entry
        computed before that write would hide it."""
        if not await self.generations.settle():
            return None
        key = f"{self.generations.prefix}:recall:{request.user_id}:{cache_key(request, config)}"
        try:
            raw, *gens = await self.redis.mget([key, *self.generations.keys(request.user_id)])
        except (RedisError, OSError) as e:
            log.warning("retrieval.cache_unavailable", extra={"error": type(e).__name__})
            return None
        slot = CacheSlot(key, Generations.token(gens))
        if raw is None:
            return slot
        try:
            entry = _DECODE.decode(raw)
        except msgspec.DecodeError:
            return slot  # written by another version: recomputed and overwritten
        if entry.generation != slot.generation or self.clock() - entry.stored_at > self.ttl_s:
            return slot
        return dataclasses.replace(slot, entry=entry)

    async def store(
        self,
        slot: CacheSlot,
        response: RecallResponse,
        in_block: set[int],
        tokens: Mapping[str, int],
        zone: str | None = None,
    ) -> None:
        """Keep ``response`` under the generations read before its search (``slot``), with
        the token counts its block's lines took (`TokenMemo`) and the zone it was dated on."""
        stats = response.stats
        top_k, depth = (stats.top_k, stats.depth) if stats is not None else (len(response.items), "")
        entry = CachedRecall(
            slot.generation, self.clock(), response.preset, depth, top_k,
            [CachedDrawer(d.drawer_id, d.score, dict(d.ranks), d.drawer_id in in_block) for d in response.items],
            [CachedMemory(m.memory_id, m.score, dict(m.ranks)) for m in response.memories],
            dict(tokens), zone,
        )  # fmt: skip
        try:
            await self.redis.set(slot.key, _ENCODE.encode(entry), px=max(1, int(self.ttl_s * 1000)))
        except (RedisError, OSError) as e:
            log.warning("retrieval.cache_unavailable", extra={"error": type(e).__name__})
