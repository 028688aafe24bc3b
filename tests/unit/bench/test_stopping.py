"""`bench.stopping`: a stop signal cancels the running loop's work and ends in `Interrupted`."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time

import pytest

from bench import stopping


def _signal_soon(signum: int, delay: float = 0.2) -> None:
    threading.Timer(delay, os.kill, (os.getpid(), signum)).start()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_cancels_the_loop_and_runs_its_cleanup(signum: int, code: int) -> None:
    cleaned: list[str] = []

    async def work() -> None:
        try:
            await asyncio.sleep(30)
        finally:
            cleaned.append("finally")

    started = time.monotonic()
    with pytest.raises(stopping.Interrupted) as caught, stopping.stop_on_signals():
        _signal_soon(signum)
        stopping.run(work())
    assert caught.value.exit_code == code
    assert cleaned == ["finally"]
    assert time.monotonic() - started < 5
    assert not stopping.STOP.is_set()  # cleared for the next command in this process
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_queued_thread_work_is_dropped_not_waited_for() -> None:
    ran: list[int] = []

    def job(n: int) -> None:
        time.sleep(1.0)
        ran.append(n)

    async def work() -> None:
        async with asyncio.TaskGroup() as group:
            for n in range(40):  # ~7 s on the default executor's threads if every job ran
                group.create_task(asyncio.to_thread(job, n))

    started = time.monotonic()
    with pytest.raises(stopping.Interrupted), stopping.stop_on_signals():
        _signal_soon(signal.SIGINT, 0.5)
        stopping.run(work())
    assert time.monotonic() - started < 3
    assert len(ran) <= 12  # the jobs already running when the signal came, no more


def test_a_signal_outside_a_loop_raises_at_once() -> None:
    with pytest.raises(stopping.Interrupted) as caught, stopping.stop_on_signals():
        _signal_soon(signal.SIGTERM, 0.1)
        time.sleep(10)
    assert caught.value.exit_code == 143
