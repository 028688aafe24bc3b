"""The rerank circuit breaker's states on a moved clock: one probe at a time, per model."""

from __future__ import annotations

from retrieval import RerankBreaker


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_open_skips_until_the_cooldown_then_admits_exactly_one_probe() -> None:
    clock = Clock()
    breaker = RerankBreaker(cooldown_s=30.0, clock=clock)
    assert breaker.admit("m") is None and breaker.state("m") == "closed"
    breaker.failed("m", "LLM endpoint timed out after 8s")
    clock.now = 29.0
    why = breaker.admit("m")
    assert why is not None and "timed out after 8s" in why and "asking again in 1s" in why
    clock.now = 30.0
    assert breaker.admit("m") is None and breaker.state("m") == "half-open"
    assert breaker.admit("m") is not None  # the others keep skipping while the probe runs
    breaker.answered("m")
    assert breaker.state("m") == "closed" and breaker.admit("m") is None


def test_a_failed_probe_reopens_for_a_whole_cooldown() -> None:
    clock = Clock()
    breaker = RerankBreaker(cooldown_s=30.0, clock=clock)
    breaker.failed("m", "refused")
    clock.now = 31.0
    assert breaker.admit("m") is None
    breaker.failed("m", "refused again")
    clock.now = 60.0
    assert breaker.admit("m") is not None and breaker.state("m") == "open"
    clock.now = 61.0
    assert breaker.admit("m") is None


def test_a_cancelled_probe_lets_the_next_recall_probe() -> None:
    clock = Clock()
    breaker = RerankBreaker(cooldown_s=30.0, clock=clock)
    breaker.failed("m", "timed out")
    clock.now = 40.0
    assert breaker.admit("m") is None
    breaker.release("m")  # its recall was cancelled before any answer
    assert breaker.state("m") == "open" and breaker.admit("m") is None


def test_circuits_are_per_model() -> None:
    breaker = RerankBreaker(clock=Clock())
    breaker.failed("unknown-model", "HTTP 404: model not found")
    assert breaker.admit("unknown-model") is not None
    assert breaker.admit("gpt-4o-mini") is None
