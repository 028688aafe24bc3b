"""How many ONNX Runtime threads a mining process's model calls get (``LOCI_EMBEDDING_ONNX_THREADS``).

Two mining processes on 2 cores (`loci serve`'s worker child, ``bench.mining_speed --processes
2``) with two threads each kept four model threads busy on two cores; ``auto`` (the default)
gives each process its share of the cores instead, and a process mining alone keeps the two
threads it always had.
"""

from __future__ import annotations

import pytest

from loci.errors import ConfigurationError
from loci.settings import AUTO_ONNX_THREADS_MAX, EmbeddingSettings, load_settings, onnx_threads_for
from service import machine_capacity
from service.worker_processes import ONNX_THREADS_ENV, WorkerProcesses, child_onnx_threads


@pytest.mark.parametrize(
    ("cores", "processes", "threads"),
    [(2, 1, 2), (2, 2, 1), (1, 1, 1), (1, 2, 1), (3, 2, 1), (4, 2, 2), (16, 2, AUTO_ONNX_THREADS_MAX), (16, 1, 2)],
)
def test_auto_shares_the_cores_between_the_mining_processes(cores: int, processes: int, threads: int) -> None:
    assert onnx_threads_for("auto", cores, processes) == threads


def test_a_number_is_taken_as_set_however_many_processes_share_the_cores() -> None:
    assert onnx_threads_for(2, 2, 2) == 2 and onnx_threads_for(4, 1, 1) == 4
    assert child_onnx_threads(3, 2, cores=2) == 3


def test_the_default_is_auto_and_a_lone_process_keeps_two_threads_on_two_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ONNX_THREADS_ENV, raising=False)
    embedding = load_settings().embedding
    assert embedding.onnx_threads == "auto"
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1})
    assert embedding.intra_op_threads() == 2
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0})
    assert embedding.intra_op_threads() == 1
    assert EmbeddingSettings(onnx_threads=3).intra_op_threads() == 3


@pytest.mark.parametrize(("value", "read"), [("AUTO", "auto"), (" auto ", "auto"), ("1", 1), (" 4", 4)])
def test_auto_and_numbers_are_read(monkeypatch: pytest.MonkeyPatch, value: str, read: object) -> None:
    monkeypatch.setenv(ONNX_THREADS_ENV, value)
    assert load_settings().embedding.onnx_threads == read


@pytest.mark.parametrize(("value", "says"), [("many", "(1-64) or auto"), ("0", "1"), ("65", "64")])
def test_another_word_names_both_choices(monkeypatch: pytest.MonkeyPatch, value: str, says: str) -> None:
    monkeypatch.setenv(ONNX_THREADS_ENV, value)
    with pytest.raises(ConfigurationError) as refused:
        load_settings()
    message = str(refused.value)
    assert message.startswith(f"invalid setting {ONNX_THREADS_ENV}: ") and says in message, message


@pytest.mark.parametrize(("setting", "cores", "passed"), [("auto", 2, "1"), ("auto", 8, "2"), (2, 2, "2")])
def test_serve_gives_its_worker_children_their_share(
    monkeypatch: pytest.MonkeyPatch, setting: int | str, cores: int, passed: str
) -> None:
    """Two processes on 2 cores: the child is told one thread; a number set is passed on as it is."""
    monkeypatch.setattr(machine_capacity, "cores", lambda: cores)
    workers = WorkerProcesses(2, "postgresql://unused", "redis://unused", setting)  # type: ignore[arg-type]
    assert workers._env[ONNX_THREADS_ENV] == passed
