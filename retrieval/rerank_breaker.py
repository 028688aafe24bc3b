"""A circuit breaker around recall's rerank call, one per process, shared by every recall.

The rerank is advisory (`retrieval.rerank`): when the endpoint gives no answer the RRF order
stands. But against an endpoint that hangs it stands only after
``LOCI_RETRIEVAL_RERANK_TIMEOUT_S`` (8 s), and on every recall, where recall promises
milliseconds. So after a call that got no answer (:class:`~loci.errors.UpstreamUnavailable`:
a timeout, a refused connection, an HTTP error) the model's circuit opens: recalls skip the
rerank for `COOLDOWN_S` and answer the RRF order at once, saying why in
``retrieval_logs.notes.rerank``. Then one recall asks again (half-open) while the others keep
skipping; an answer closes the circuit, no answer opens it for another cool-down.

An answer the reranker cannot use (bad JSON, no candidate named) counts as an answer: the
endpoint is up and answered within the timeout, so waiting for it costs no more than a rerank
does, and the next answer may well be fine. Mining's `loci.llm_latch.OutageLatch` makes the same
call the same way, but for one job: the latch never reopens, a job being minutes long; recalls
are many, short and share the process, so the breaker lives as long as the process and tries
again after a while.

Circuits are kept per model: a user whose ``rerank_model`` the endpoint refuses (HTTP 404)
must not turn every other user's rerank off.

Written here rather than taken from a library. The maintained ones on the package index each
miss what this needs: ``pybreaker`` 1.4 does asyncio only through tornado; ``aiobreaker`` 1.2
(last released 2021) reads ``datetime.utcnow`` and ``circuitbreaker`` 2.1 a module-level
``monotonic``, so a test can only move time by patching them; ``purgatory`` 3.0 reads the wall
clock (``time.time``) and brings a message bus and a unit of work for one flag; and all four let
every call through once the cool-down ends (not one probe), and count raised exceptions, where
`Reranker` returns an outcome and must not raise. The state machine below is three states.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["COOLDOWN_S", "RerankBreaker"]

log = logging.getLogger("loci.retrieval.rerank")

COOLDOWN_S = 30.0
"""How long recall skips the rerank after a call that got no answer. Long enough that a hanging
endpoint costs one recall a `LOCI_RETRIEVAL_RERANK_TIMEOUT_S` wait (8 s) per 30 s instead of
every recall that wait (the probe is single-flight: the recalls beside it skip). Short enough
that an endpoint back after a restart or a rate-limit window (both typically tens of seconds)
reranks again within half a minute."""


@dataclass
class _Circuit:
    opened_at: float
    reason: str
    probing: bool = False


@dataclass
class RerankBreaker:
    """Per-model circuits; ``clock`` (seconds, monotonic) and ``cooldown_s`` are injectable so a
    test moves time instead of sleeping. Used from one event loop: no state change awaits."""

    cooldown_s: float = COOLDOWN_S
    clock: Callable[[], float] = time.monotonic
    _open: dict[str, _Circuit] = field(default_factory=dict)

    def state(self, model: str) -> str:
        """``closed``, ``open`` (skipping) or ``half-open`` (one recall is asking again)."""
        circuit = self._open.get(model)
        if circuit is None:
            return "closed"
        return "half-open" if circuit.probing else "open"

    def admit(self, model: str) -> str | None:
        """None: ask the endpoint (closed, or this call is the half-open probe); else why not."""
        circuit = self._open.get(model)
        if circuit is None:
            return None
        waited = self.clock() - circuit.opened_at
        if circuit.probing:
            return f"rerank skipped, circuit open: another recall is asking {model} again ({circuit.reason})"
        if waited < self.cooldown_s:
            return (
                f"rerank skipped, circuit open: {model} gave no answer {waited:.0f}s ago ({circuit.reason}); "
                f"asking again in {self.cooldown_s - waited:.0f}s"
            )
        circuit.probing = True
        log.info("rerank.breaker", extra={"state": "half-open", "model": model})
        return None

    def answered(self, model: str) -> None:
        """The endpoint answered (usefully or not): close the model's circuit."""
        if self._open.pop(model, None) is not None:
            log.info("rerank.breaker", extra={"state": "closed", "model": model})

    def failed(self, model: str, reason: str) -> None:
        """The endpoint gave no answer: open (or reopen) the model's circuit for a cool-down."""
        self._open[model] = _Circuit(self.clock(), reason)
        log.warning("rerank.breaker", extra={"state": "open", "model": model, "cooldown_s": self.cooldown_s})

    def release(self, model: str) -> None:
        """A probe that ended with neither (its recall was cancelled): the next recall probes."""
        circuit = self._open.get(model)
        if circuit is not None and circuit.probing:
            circuit.probing = False
