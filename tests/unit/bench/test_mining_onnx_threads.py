"""The benchmarks give each mining process the ONNX threads `loci serve` would: ``auto`` shares the
cores between ``--processes`` (`loci.settings.onnx_threads_for`), a number set is kept (the mining
benchmark) or split (the LongMemEval ingest, as before ``auto``)."""

from __future__ import annotations

import argparse

import pytest

from bench.longmemeval.ingest_processes import _child_settings
from bench.mining_speed import bench_settings
from loci.settings import load_settings


def _args(processes: int) -> argparse.Namespace:
    return argparse.Namespace(runtime="onnxruntime", batch_size=None, processes=processes)


@pytest.fixture
def two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1})
    monkeypatch.delenv("LOCI_EMBEDDING_ONNX_THREADS", raising=False)


@pytest.mark.usefixtures("two_cores")
@pytest.mark.parametrize(("processes", "threads"), [(1, 2), (2, 1), (3, 1)])
def test_mining_speed_shares_the_cores_between_its_processes(processes: int, threads: int) -> None:
    assert bench_settings(_args(processes), "postgresql://unused").embedding.onnx_threads == threads


@pytest.mark.usefixtures("two_cores")
def test_mining_speed_keeps_a_number_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOCI_EMBEDDING_ONNX_THREADS", "2")
    assert bench_settings(_args(2), "postgresql://unused").embedding.onnx_threads == 2


@pytest.mark.usefixtures("two_cores")
def test_the_ingest_processes_share_auto_and_split_a_number(monkeypatch: pytest.MonkeyPatch) -> None:
    assert _child_settings(load_settings(), 2).embedding.onnx_threads == 1
    monkeypatch.setenv("LOCI_EMBEDDING_ONNX_THREADS", "4")
    assert _child_settings(load_settings(), 2).embedding.onnx_threads == 2
