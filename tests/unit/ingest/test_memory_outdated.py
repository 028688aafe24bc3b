"""A statement said before the one a memory holds never replaces it (`ingest.memory_reconcile`,
``outdated``): a history imported newest first mines its 2023 chats after its 2025 ones. The
rules' path (`reconcile`) and an LLM's update by id (`ingest.memory_mining._guarded`) alike."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from ingest.memory_candidates import MemoryCandidate, slot_of_content
from ingest.memory_mining import _guarded
from ingest.memory_reconcile import KnownMemory, MemoryOp, reconcile

SAID_2023 = datetime(2023, 2, 10, tzinfo=UTC)
SAID_2025 = datetime(2025, 5, 20, tzinfo=UTC)


def _cand(content: str, slot: str | None = None, retracts: str | None = None) -> MemoryCandidate:
    return MemoryCandidate("profile", content, 0.8, 3, (1,), slot=slot, retracts=retracts)


def _known(content: str, said_at: datetime | None) -> KnownMemory:
    return KnownMemory(7, 7, "profile", content, "extracted", slot_of_content(content), None, said_at)


def test_an_older_value_in_a_slot_is_recorded_not_written() -> None:
    [op] = reconcile(
        [(_cand("Works at Globex", "employer"), None, None)],
        [_known("Works at Zalando", SAID_2025)],
        0.9,
        {1: SAID_2023},
    )
    assert (op.kind, op.target and op.target.id) == ("outdated", 7)
    assert op.reason and "said before 2025-05-20" in op.reason


def test_a_newer_value_or_an_undated_one_still_updates() -> None:
    memory = [_known("Works at Globex", SAID_2023)]
    [newer] = reconcile([(_cand("Works at Zalando", "employer"), None, None)], memory, 0.9, {1: SAID_2025})
    [undated] = reconcile([(_cand("Works at Zalando", "employer"), None, None)], memory, 0.9)
    assert newer.kind == undated.kind == "update"


def test_an_older_correction_spares_a_newer_memory() -> None:
    said = {1: SAID_2023}
    [op] = reconcile(
        [(_cand("No longer eats meat", retracts="Eats meat"), None, None)], [_known("Eats meat", SAID_2025)], 0.9, said
    )
    assert op.kind == "outdated"


def test_an_llm_update_said_before_the_memory_is_recorded_not_written() -> None:
    memory = _known("Works at Zalando", SAID_2025)
    update = MemoryOp("update", _cand("Works at Globex", "employer"), np.zeros(2, dtype=np.float32), memory, "llm")
    guarded = _guarded(update, {7: memory}, {1: SAID_2023})
    assert isinstance(guarded, MemoryOp) and guarded.kind == "outdated", guarded
    kept = _guarded(update, {7: memory}, {1: datetime(2026, 1, 1, tzinfo=UTC)})
    assert isinstance(kept, MemoryOp) and (kept.kind, kept.reason) == ("update", "llm"), kept
