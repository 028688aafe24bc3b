"""A sentence's tense cues are read once, however many facts in it ask whether it looks ahead:
read afresh for each, a 50 KB turn of "we spent 3 nights in Porto, …" took 23 s to mine (100 KB
~115 s), each stay re-reading the whole sentence's verbs (`ingest.relation_extract._Said`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

import loci.timexpr.tense as tense
from ingest.extract_offline import extract_window
from ingest.extraction import TurnView


@pytest.mark.parametrize("repeats", [10, 40])
def test_a_long_sentence_of_many_stays_reads_its_tense_cues_once(monkeypatch: pytest.MonkeyPatch, repeats: int) -> None:
    reads: list[int] = []
    real = tense._cues

    def counted(text: str, lo: int, hi: int) -> list[tuple[int, int, tense.Cue]]:
        reads.append(hi - lo)
        return real(text, lo, hi)

    monkeypatch.setattr(tense, "_cues", counted)
    text = "we spent 3 nights in Porto, my landlord is Kev, " * repeats  # one sentence: no full stop
    window = extract_window([TurnView(1, 1, "user", text, datetime(2026, 11, 20, 9, tzinfo=UTC))])
    assert any(r.predicate == "visited" for r in window.relations)  # the stays were read
    assert len(reads) == 1, reads
