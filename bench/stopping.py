"""Stopping a long benchmark on Ctrl-C or SIGTERM: within a moment, cleanly, nothing left running.

Why: `loci bench longmemeval full` kept the CPU busy for 30-40 s after Ctrl-C (asyncio
waits for its worker threads when it closes, and a thread embedding a long session ran
every batch of it), and SIGTERM killed it outright, leaving its embedded PostgreSQL
running. Here both signals take one path:

1. the handler sets `STOP` and cancels the running event loop's main task, so its tasks
   unwind through their ``finally`` blocks (database connections closed) and queued
   embedding calls are dropped before they start;
2. a thread already embedding sees `STOP` between two batches (`StoppableEmbedder`)
   and gives up, so closing the loop waits for one batch, not for a whole session;
3. `Interrupted` (a `KeyboardInterrupt`) then unwinds the synchronous code, whose
   context managers stop the embedded PostgreSQL, and the command exits 128 + signal
   number (130 for SIGINT, 143 for SIGTERM), as a shell reports a signal.

A signal outside an event loop, or a second one, raises `Interrupted` at once.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TypeVar

import numpy as np

from loci.embedder import Embedder

__all__ = ["STOP", "STOP_SIGNALS", "Interrupted", "StoppableEmbedder", "run", "stop_on_signals"]

T = TypeVar("T")
STOP = threading.Event()
"""Set by the first stop signal; CPU-bound loops in worker threads check it."""
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
SIGNAL_EXIT_BASE = 128
"""A process ended by signal N exits 128 + N, the convention shells and supervisors read."""
STOP_POLL_S = 0.05
"""How often a thread waiting for the model looks at `STOP`; one batch takes ~0.1-0.5 s here."""

_received: list[int] = []
_main_tasks: list[tuple[asyncio.AbstractEventLoop, asyncio.Task[Any]]] = []


class Interrupted(KeyboardInterrupt):
    """A stop signal arrived; a `KeyboardInterrupt` so nothing's ``except Exception`` swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return SIGNAL_EXIT_BASE + self.signum


def _interrupted() -> Interrupted:
    return Interrupted(_received[0] if _received else signal.SIGINT)


def _on_signal(signum: int, _frame: FrameType | None) -> None:
    first = not STOP.is_set()
    if first:
        _received.append(signum)
    if first and _main_tasks:
        loop, task = _main_tasks[-1]
        loop.call_soon_threadsafe(task.cancel)  # before STOP, so the cancel is queued first
        STOP.set()
        return
    STOP.set()
    raise _interrupted()


@contextmanager
def stop_on_signals() -> Iterator[None]:
    """SIGINT and SIGTERM stop the work inside the block (see the module's docstring).

    Outside the main thread (signal handlers cannot be set there) the block runs as is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {sig: signal.signal(sig, _on_signal) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        STOP.clear()
        _received.clear()


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run`, where a stop signal cancels ``main`` and ends in `Interrupted`."""

    async def tracked() -> T:
        task = asyncio.current_task()
        assert task is not None  # always inside asyncio.run
        entry = (asyncio.get_running_loop(), task)
        _main_tasks.append(entry)
        try:
            return await main
        finally:
            _main_tasks.remove(entry)

    try:
        return asyncio.run(tracked())
    except asyncio.CancelledError:
        if not STOP.is_set():
            raise
        raise _interrupted() from None


class StoppableEmbedder(Embedder):
    """An `Embedder` that gives up between two batches once `STOP` is set.

    A thread in the middle of an ONNX call cannot be interrupted, and `Embedder.embed`
    runs every batch of its texts in one call: a long session's window took tens of
    seconds after Ctrl-C. This checks `STOP` before each of the very batches
    `Embedder.embed` runs (so the vectors are identical), and a thread waiting for its
    turn at the model (mining runs two questions at once) looks at `STOP` while it
    waits, instead of running one more batch.
    """

    def _encode_batch(self, batch: list[str], query: bool = False) -> np.ndarray:
        while not self._infer_lock.acquire(timeout=STOP_POLL_S):
            _check_stop()
        try:
            _check_stop()
            return self._model_call(batch, query)
        finally:
            self._infer_lock.release()


def _check_stop() -> None:
    if STOP.is_set():
        raise _interrupted()
