"""Reconciliation rules (`ingest.memory_reconcile`): slots, duplicates, corrections, the trust guard."""

from __future__ import annotations

import numpy as np

from ingest.memory_candidates import MemoryCandidate, slot_of_content
from ingest.memory_reconcile import KnownMemory, merge_candidates, reconcile


def unit(*xs: float) -> np.ndarray:
    v = np.array(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def cand(content: str, slot: str | None = None, retracts: str | None = None, seq: int = 1) -> MemoryCandidate:
    return MemoryCandidate("profile", content, 0.8, 3, (seq,), slot=slot, retracts=retracts)


def known(mid: int, content: str, source: str = "extracted", vector: np.ndarray | None = None) -> KnownMemory:
    return KnownMemory(mid, mid, "profile", content, source, slot_of_content(content), vector)


def test_a_new_value_in_a_slot_updates_an_extracted_memory() -> None:
    [op] = reconcile([(cand("Lives in Porto", "location"), unit(1, 0), None)], [known(7, "Lives in Lisbon")], 0.9)
    assert (op.kind, op.target and op.target.id) == ("update", 7)


def test_a_new_value_in_a_slot_never_overwrites_an_explicit_memory() -> None:
    mems = [known(7, "Lives in Lisbon", source="extracted"), known(8, "Lives in Berlin", source="user")]
    [op] = reconcile([(cand("Lives in Porto", "location"), unit(1, 0), None)], mems, 0.9)
    assert (op.kind, op.target and op.target.id) == ("skip", 8)
    assert op.reason and "not overwritten" in op.reason


def test_the_same_statement_confirms_an_extracted_memory_and_leaves_an_explicit_one() -> None:
    vector = unit(1, 0)
    [op] = reconcile([(cand("Loves jazz"), vector, None)], [known(3, "loves jazz.", vector=unit(0, 1))], 0.9)
    assert (op.kind, op.target and op.target.id) == ("confirm", 3)
    assert reconcile([(cand("Loves jazz"), vector, None)], [known(3, "Enjoys jazz", "agent", vector)], 0.9) == []


def test_similarity_below_the_threshold_is_a_new_memory() -> None:
    [op] = reconcile([(cand("Loves jazz"), unit(1, 0), None)], [known(3, "Plays chess", vector=unit(1, 1))], 0.9)
    assert op.kind == "add" and op.target is None


def test_a_correction_ends_the_memory_it_retracts_or_stands_alone() -> None:
    meat = unit(0, 1)
    triple = (cand("No longer eats meat", retracts="Eats meat"), unit(1, 0), meat)
    [op] = reconcile([triple], [known(4, "Eats meat most days", vector=unit(0.1, 1))], 0.9)
    assert (op.kind, op.target and op.target.id) == ("update", 4)
    [alone] = reconcile([triple], [known(4, "Plays chess", vector=unit(1, -1))], 0.9)
    assert alone.kind == "add"


def test_one_memory_is_the_target_of_one_operation() -> None:
    mems = [known(7, "Lives in Lisbon")]
    ops = reconcile(
        [(cand("Lives in Porto", "location"), unit(1, 0), None), (cand("Lives in Faro", "location"), unit(0, 1), None)],
        mems,
        0.9,
    )
    assert [(o.kind, o.candidate.content) for o in ops] == [("update", "Lives in Porto"), ("add", "Lives in Faro")]


def test_a_batch_keeps_one_value_per_slot_and_one_copy_per_text() -> None:
    merged = merge_candidates(
        [cand("Lives in Lisbon", "location", seq=1), cand("Loves jazz", seq=2),
         cand("Lives in Porto", "location", seq=3), cand("loves jazz", seq=4)],
        [unit(1, 0)] * 4,
    )  # fmt: skip
    assert [(c.content, c.turn_seqs) for c, _ in merged] == [("Lives in Porto", (3,)), ("loves jazz", (2, 4))]


def test_slot_of_content_reads_the_fixed_words() -> None:
    assert slot_of_content("lives in  Porto") == "location"
    assert slot_of_content("Lives in") is None and slot_of_content("Loves jazz") is None
