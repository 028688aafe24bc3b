"""How a mining try is counted (`service.metrics.mining_outcome`), and that a metrics error
never changes a job's outcome or a recall's answer (`service.metrics`' observe functions)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from arq import Retry

from service import jobs, metrics
from service.metrics import mining_outcome, observe_mining, observe_recall


class _Broken:
    """A metric whose every use raises, as one does once its multiprocess file is gone."""

    def labels(self, **_: str) -> _Broken:
        raise FileNotFoundError("metrics directory removed")

    def inc(self, _: float = 1) -> None:
        raise FileNotFoundError("metrics directory removed")


def _outcome(error: BaseException | None, *, job_try: int = 1, elapsed: float = 1.0) -> str:
    return mining_outcome(error, {}, job_try=job_try, max_tries=5, elapsed=elapsed, timeout_s=900)


def test_a_retry_on_the_last_try_is_a_failure_and_earlier_ones_are_retries() -> None:
    assert _outcome(Retry(defer=5), job_try=1) == "retry"
    assert _outcome(Retry(defer=5), job_try=4) == "retry"
    assert _outcome(Retry(defer=5), job_try=5) == "failed"  # arq runs it no more


def test_a_deferral_is_counted_as_one_even_on_the_last_try() -> None:
    assert _outcome(metrics.Deferred(defer=1), job_try=1) == "deferred"
    assert _outcome(metrics.Deferred(defer=1), job_try=5) == "deferred"  # it hands its try back: arq runs it again
    assert "deferred" in metrics.MINING_OUTCOMES


def test_a_cancellation_at_the_job_timeout_is_a_timeout_and_before_it_a_cancellation() -> None:
    assert _outcome(asyncio.CancelledError(), elapsed=899.5) == "timeout"  # arq fails it for good
    assert _outcome(asyncio.CancelledError(), elapsed=30.0) == "cancelled"  # an abort or a shutdown


def test_a_returned_result_is_counted_by_what_it_says() -> None:
    kw: dict[str, Any] = {"job_try": 1, "max_tries": 5, "elapsed": 1.0, "timeout_s": 900}
    assert mining_outcome(None, {"turns_mined": 2}, **kw) == "done"
    assert mining_outcome(None, {"failed": "bad"}, **kw) == "failed"
    assert mining_outcome(None, {"skipped": "gone"}, **kw) == "skipped"
    assert mining_outcome(ValueError("x"), {}, **kw) == "failed"


def test_observe_functions_swallow_a_metrics_error(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RECALL_SECONDS", "RECALL_CACHE", "MINING_JOBS", "MINING_SECONDS", "MINING_TURNS"):
        monkeypatch.setattr(metrics, name, _Broken())
    observe_recall(None, 0.1)  # a recall answers all the same
    observe_mining("done", 1.0, turns=3)
    observe_mining("done", 1.0, turns=3)  # logged once, swallowed every time


def test_a_broken_metric_leaves_a_jobs_retry_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(metrics, "MINING_JOBS", _Broken())

    @jobs._measured
    async def job(ctx: dict[str, Any], conversation_id: int) -> dict[str, Any]:
        raise Retry(defer=7)

    with pytest.raises(Retry) as raised:
        asyncio.run(job({"job_try": 2}, 1))
    assert raised.value.defer_score == 7000


def test_the_measured_job_counts_a_retry_on_its_last_try_as_failed(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    monkeypatch.setattr(jobs, "observe_mining", lambda outcome, seconds, turns=0: seen.append(outcome))

    @jobs._measured
    async def job(ctx: dict[str, Any], conversation_id: int) -> dict[str, Any]:
        raise Retry(defer=1)

    for tries in (1, jobs.MINING_MAX_TRIES):
        with pytest.raises(Retry):
            asyncio.run(job({"job_try": tries}, 1))
    assert seen == ["retry", "failed"]
