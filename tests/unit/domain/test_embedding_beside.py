"""`embedding_beside`: a save's embedding runs while its transaction does its first reads.

A stub stands in for the model (only ``passage_job`` is used: a memory is a passage): what is checked is the
scheduling, not the vectors."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import pytest

from domain.memory_rows import embedding_beside
from loci.embedder import Embedder


class _Model:
    """Records that a job started, and in which thread; fails when told to."""

    def __init__(self, fail: bool = False) -> None:
        self.started = threading.Event()
        self.thread: int | None = None
        self.fail = fail

    def passage_job(self, texts: Sequence[str]) -> Callable[[], np.ndarray]:
        def job() -> np.ndarray:
            self.thread = threading.get_ident()
            self.started.set()
            if self.fail:
                raise RuntimeError("model failed")
            return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)

        return job


def _as_embedder(model: _Model) -> Embedder:
    return cast(Embedder, model)


async def test_the_embedding_starts_before_it_is_awaited_and_runs_in_a_thread() -> None:
    model = _Model()
    async with embedding_beside(_as_embedder(model), ["abc"]) as vectors:
        assert await asyncio.to_thread(model.started.wait, 5.0), "the job did not start on its own"
        assert await vectors == [[3.0, 1.0]]
    assert model.thread is not None and model.thread != threading.get_ident()


async def test_an_error_is_raised_where_the_vectors_are_awaited() -> None:
    with pytest.raises(RuntimeError, match="model failed"):
        async with embedding_beside(_as_embedder(_Model(fail=True)), ["abc"]) as vectors:
            await vectors


async def test_a_write_that_never_needs_the_vectors_leaves_no_lost_error_behind() -> None:
    lost: list[dict[str, Any]] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: lost.append(context))
    try:
        model = _Model(fail=True)
        async with embedding_beside(_as_embedder(model), ["abc"]) as vectors:
            await asyncio.to_thread(model.started.wait, 5.0)
            await asyncio.sleep(0.05)  # the failed job's result reaches the task
        assert vectors.done()
        async with embedding_beside(_as_embedder(_Model()), ["abc"]) as pending:
            pass  # left at once: the task is cancelled, not awaited
        await asyncio.sleep(0.05)
        assert pending.cancelled()
        del vectors, pending
        gc.collect()
        assert lost == []
    finally:
        loop.set_exception_handler(None)
