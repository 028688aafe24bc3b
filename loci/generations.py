"""Per-user write generations in Valkey: the shared clock that invalidates recall's cache.

Every committed transaction that changed a user's rows (`loci.write_watch`, reached through
`Database.on_write`) sets that user's generation to a fresh token, and a cross-user (system)
write sets the global one; the API process and the arq worker share them through Valkey, so
a write in one invalidates the cache entries of the other. A cache entry is tagged with the
generations read *before* its search, so a write that commits while the search runs leaves
the entry stale-tagged and it is never served.

Tokens are unique (time and randomness), never counters: a generation key lost to a Valkey
restart or an expiry cannot come back with a value an old entry was tagged with. A key
lives `GENERATION_TTL_S`, far longer than any cache entry (`CACHE_TTL_MAX_S`).
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import time
from collections.abc import Sequence

from redis.asyncio import Redis
from redis.exceptions import RedisError

__all__ = ["CACHE_TTL_MAX_S", "GENERATION_TTL_S", "Generations", "namespace_of"]

log = logging.getLogger("loci.generations")

CACHE_TTL_MAX_S = 3600
"""The longest a recall cache entry may live: ``LOCI_RETRIEVAL_CACHE_TTL_S``'s bound, written
out in `loci.settings` (which is at its size bound) and checked equal by a unit test."""
GENERATION_TTL_S = 24 * 3600
"""A generation outlives every entry tagged with it, so an expired generation never meets
an entry it should have invalidated; a day keeps only active users' keys around."""


def namespace_of(url: str, schema: str | None) -> str:
    """A short name for one database (and schema): tests and benchmark runs share a Valkey,
    and user 1 of one database is not user 1 of another."""
    return hashlib.sha256(f"{url}|{schema or ''}".encode()).hexdigest()[:12]


class Generations:
    """Read and bump the generations of one database's users (``redis`` must not decode)."""

    def __init__(self, redis: Redis, namespace: str) -> None:
        self.redis = redis
        self.prefix = f"loci:{namespace}"

    @property
    def global_key(self) -> str:
        """Set by a system (cross-user) write: every user's entries go stale."""
        return f"{self.prefix}:gen:all"

    def keys(self, user_id: int) -> tuple[str, str]:
        """The user's generation key and the global one, in the order `token` reads them."""
        return f"{self.prefix}:gen:u:{user_id}", self.global_key

    def user_patterns(self, user_id: int) -> tuple[str, str]:
        """Every key of this database's that names ``user_id``: the generation and the recall
        cache's entries (``{prefix}:recall:{user}:…``, `retrieval.cache`), as SCAN patterns,
        for deleting a user to leave nothing of theirs behind."""
        return self.keys(user_id)[0], f"{self.prefix}:recall:{user_id}:*"

    @staticmethod
    def token(values: Sequence[bytes | str | None]) -> str:
        """The generations as one comparable string (``-`` for a key never set)."""
        return "|".join(v.decode() if isinstance(v, bytes) else (v or "-") for v in values)

    async def bump(self, user_id: int | None) -> None:
        """After a write committed: a new token for ``user_id`` (None: for everyone).
        A failure is logged, not raised: the write has committed and must stand."""
        key = self.keys(user_id)[0] if user_id is not None else self.global_key
        token = f"{time.time_ns():x}.{secrets.token_hex(4)}"
        try:
            await self.redis.set(key, token, ex=GENERATION_TTL_S)
        except (RedisError, OSError) as e:
            log.warning("generations.bump_failed", extra={"user_id": user_id, "error": type(e).__name__})
