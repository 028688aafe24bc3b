"""Which sentences state a statement the user has not consented to (`ingest.consent_withhold`)."""

from __future__ import annotations

from datetime import UTC, datetime

from ingest.consent_withhold import Withheld, sensitive_statements, withhold_text, withhold_turns
from ingest.extraction import TurnView
from ingest.memory_candidates import MemoryCandidate
from loci.settings import MemorySettings

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def turn(seq: int, text: str, role: str = "user") -> TurnView:
    return TurnView(seq, seq, role, text, T0)


def test_a_sentence_stating_it_goes_wherever_it_is_said() -> None:
    allergy = [Withheld("Is allergic to penicillin", (1,), 7)]
    said = [
        turn(1, "My doctor called. I'm allergic to penicillin, it turns out."),
        turn(2, "Noted: your penicillin allergy. Anything else?", "assistant"),
        turn(3, "No, thanks. We booked the physio."),
    ]
    kept = [(t.seq, t.content) for t in withhold_turns(said, allergy, 7)]
    assert kept == [(1, "My doctor called."), (2, "Anything else?"), (3, "No, thanks. We booked the physio.")]


def test_the_fixed_form_of_a_slot_is_not_what_is_matched() -> None:
    city = [Withheld("Lives in Porto")]
    assert withhold_text("Also I moved to Porto last month. Work is busy.", city) == "Work is busy."
    assert withhold_text("She lives in a flat near the sea.", city) == "She lives in a flat near the sea."


def test_its_own_turn_said_in_other_words_is_left_out_whole() -> None:
    reworded = [Withheld("Has a chronic lung condition", (2,))]
    said = [turn(1, "Hi there, a question."), turn(2, "My breathing gets bad in winter, asthma.")]
    assert [t.seq for t in withhold_turns(said, reworded)] == [1]
    assert [t.seq for t in withhold_turns(said, reworded, conversation_id=9)] == [1]  # None: this conversation
    elsewhere = [Withheld("Has a chronic lung condition", (2,), 3)]
    assert [t.seq for t in withhold_turns(said, elsewhere, conversation_id=9)] == [1, 2]


def test_only_statements_of_a_sensitive_field_are_withheld_at_mining() -> None:
    found = sensitive_statements(
        [
            MemoryCandidate("profile", "Is allergic to penicillin", 0.9, 4, turn_seqs=(1,)),
            MemoryCandidate("preference", "Loves Italian food", 0.8, 2, turn_seqs=(1,)),
        ],
        MemorySettings(),
    )
    assert found == [Withheld("Is allergic to penicillin", (1,))]
    assert (
        sensitive_statements(
            [MemoryCandidate("profile", "Speaks Danish", 0.9, 3, (1,))], MemorySettings(consent_fields=())
        )
        == []
    )
