"""Start-up sizing: the embedded server's shared_buffers, and the frozen start-up heap."""

from __future__ import annotations

from loci.embedded_pg_settings import SHARED_BUFFERS_MAX_MB, SHARED_BUFFERS_MIN_MB, shared_buffers_mb

GIB = 1024**3


def test_a_quarter_of_memory() -> None:
    assert shared_buffers_mb(24 * GIB) == 6 * 1024


def test_small_machines_keep_the_postgres_default() -> None:
    assert shared_buffers_mb(256 * 1024 * 1024) == SHARED_BUFFERS_MIN_MB


def test_large_machines_are_capped() -> None:
    assert shared_buffers_mb(256 * GIB) == SHARED_BUFFERS_MAX_MB


def test_startup_heap_is_frozen_out_of_later_collections() -> None:
    import gc

    from loci.runtime import freeze_startup_heap

    before = gc.get_freeze_count()
    held = [[i] for i in range(1000)]  # tracked containers that live on, like a loaded model
    assert freeze_startup_heap() >= before + len(held)
    assert gc.get_freeze_count() >= before + len(held)
