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

A bump that fails (Valkey unreachable for a moment; the caller cancelled mid-round-trip)
cannot undo its committed write, and the entries computed before the write would stay
fresh until their TTL, hiding it. So the bump is *owed*: the process remembers the user and
sets the token at its next bump or recall lookup (`settle`), and a lookup that cannot
settle is a miss. Every long-running process (the API, `loci worker`) also settles what it
owes every `SETTLE_EVERY_S` (`keep_settled`): a worker that owed a bump used to pay it only at
its next write, so the API's cache could serve entries from before that write until their
TTL. A stale answer now lasts no longer than the outage plus a few seconds, in any process.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import time
from collections.abc import Sequence

from redis.asyncio import Redis
from redis.exceptions import RedisError

__all__ = ["CACHE_TTL_MAX_S", "GENERATION_TTL_S", "OWED_MAX", "SETTLE_EVERY_S", "Generations", "namespace_of"]

log = logging.getLogger("loci.generations")

CACHE_TTL_MAX_S = 3600
"""The longest a recall cache entry may live: ``LOCI_RETRIEVAL_CACHE_TTL_S``'s bound, written
out in `loci.settings` (which is at its size bound) and checked equal by a unit test."""
GENERATION_TTL_S = 24 * 3600
"""A generation outlives every entry tagged with it, so an expired generation never meets
an entry it should have invalidated; a day keeps only active users' keys around."""
SETTLE_EVERY_S = 5.0
"""How often a process pays the bumps it still owes without waiting for its next write: the
longest another process's cache may serve an entry from before a write once Valkey is back.
Settling nothing costs nothing (no round trip), so a short period is free."""
SETTLE_BACKOFF_MAX_S = 30.0
"""The longest wait between settles while Valkey does not answer: also how long after it
answers again another process's cache may still serve an entry from before a write."""
OWED_MAX = 1000
"""Past this many users' bumps owed (a long outage in a busy process), one global bump
settles them all: every user's entries go stale, which costs misses, never a stale answer."""


def namespace_of(url: str, schema: str | None) -> str:
    """A short name for one database (and schema): tests and benchmark runs share a Valkey,
    and user 1 of one database is not user 1 of another."""
    return hashlib.sha256(f"{url}|{schema or ''}".encode()).hexdigest()[:12]


class Generations:
    """Read and bump the generations of one database's users (``redis`` must not decode)."""

    def __init__(self, redis: Redis, namespace: str) -> None:
        self.redis = redis
        self.prefix = f"loci:{namespace}"
        self.owed: dict[int | None, int] = {}
        """Users (None: everyone) whose write committed and whose bump has not landed, each
        with the number of its latest bump: a settle that sent an older one leaves it owed."""
        self._bumps = 0
        self.failing = False
        """Whether the last round trip to Valkey failed: what `keep_settled` backs off on (a
        settle that leaves a newer bump owed has not failed)."""

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
        """After a write committed: a new token for ``user_id`` (None: for everyone), and
        for every bump still owed. A failure is logged, not raised: the write has committed
        and must stand, and the bump stays owed (see the module docstring)."""
        self._bumps += 1
        self.owed[user_id] = self._bumps  # before the round trip: a cancelled bump stays owed
        await self.settle()

    async def settle(self) -> bool:
        """Set a new token for every user whose bump is owed, in one round trip; True when
        nothing is owed any more. Free when nothing is."""
        if not self.owed:
            return True
        sending = dict(self.owed)
        keys = [self.global_key] if None in sending or len(sending) > OWED_MAX else [self._key(u) for u in sending]
        token = f"{time.time_ns():x}.{secrets.token_hex(4)}"
        try:
            if len(keys) == 1:  # the common case: this write's own bump, nothing else owed
                await self.redis.set(keys[0], token, ex=GENERATION_TTL_S)
            else:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for key in keys:
                        pipe.set(key, token, ex=GENERATION_TTL_S)
                    await pipe.execute()
        except (RedisError, OSError) as e:
            self.failing = True
            log.warning("generations.bump_failed", extra={"owed": len(self.owed), "error": type(e).__name__})
            return False
        self.failing = False
        for user, number in sending.items():  # one owed again meanwhile (a newer number) stays:
            if self.owed.get(user) == number:  # its write may have committed after this token was set
                del self.owed[user]
        return not self.owed

    async def keep_settled(self, stop: asyncio.Event, every_s: float = SETTLE_EVERY_S) -> None:
        """Until ``stop`` is set: settle what this process owes every ``every_s`` (module
        docstring), and once more when it is set (a stopping process would otherwise leave its
        last bumps to the entries' TTL). Stopped by the event, never cancelled mid round trip: a
        Valkey command cancelled halfway left the connection unusable for that last settle.
        While Valkey does not answer the wait doubles up to `SETTLE_BACKOFF_MAX_S`, so an outage
        logs a warning every half minute, not every few seconds; an unexpected error is logged and
        the loop goes on (it must not die and leave bumps owed until the next write)."""
        wait = every_s
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), wait)
            try:
                await self.settle()
                failed = self.failing
            except Exception:  # a bug here must not end the loop
                log.exception("generations.settle_failed")
                failed = True
            if stop.is_set():
                return
            wait = min(wait * 2, max(every_s, SETTLE_BACKOFF_MAX_S)) if failed else every_s

    def _key(self, user_id: int | None) -> str:
        return self.keys(user_id)[0] if user_id is not None else self.global_key
