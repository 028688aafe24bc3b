"""The embedded server's shared_buffers: a quarter of memory, within sane bounds."""

from __future__ import annotations

from loci.runtime import SHARED_BUFFERS_MAX_MB, SHARED_BUFFERS_MIN_MB, shared_buffers_mb

GIB = 1024**3


def test_a_quarter_of_memory() -> None:
    assert shared_buffers_mb(24 * GIB) == 6 * 1024


def test_small_machines_keep_the_postgres_default() -> None:
    assert shared_buffers_mb(256 * 1024 * 1024) == SHARED_BUFFERS_MIN_MB


def test_large_machines_are_capped() -> None:
    assert shared_buffers_mb(256 * GIB) == SHARED_BUFFERS_MAX_MB
