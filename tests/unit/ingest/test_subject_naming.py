"""A health problem named by the reply or a quoted diagnosis, and medicines as its details (`ingest.subject_naming`)."""

from __future__ import annotations

from ingest.extract_offline import extract_window
from ingest.subject_rules import SUBJECT_RULES
from ingest.subjects import choose_subject, rank_candidates
from tests.unit.ingest.test_subjects import convo

DESCRIBED = convo(
    "every time i roll onto my right side in bed the whole room spins for 20 seconds. should i see a doctor?",
    "Short bursts of spinning set off by head movements are the typical pattern of benign positional vertigo, "
    "a common inner-ear problem. Symptoms of a stroke, such as slurred speech, need urgent care.",
    "ok. it came back this morning too, is that normal?",
    "Get up slowly and sleep propped on two pillows until the doctor can check it.",
)


def test_the_reply_to_the_opening_names_the_problem_the_user_described() -> None:
    ranked = rank_candidates(DESCRIBED, extract_window(DESCRIBED).mentions)
    vertigo = next(c for c in ranked if c.key == "vertigo")
    assert vertigo.named_problem and vertigo.names_opening and vertigo.opening
    assert 1 in vertigo.user_turns  # the opening described it
    assert all(c.key != "stroke" for c in ranked)  # only the reply's first name counts, not its warnings
    subject = choose_subject(DESCRIBED, extract_window(DESCRIBED).mentions)
    assert subject is not None and "vertigo" in subject.name.lower()


def test_outside_a_domain_whose_problems_others_name_a_reply_names_nothing() -> None:
    turns = convo(
        "my bike makes a clicking noise when i pedal hard uphill",
        "That sounds like a worn bottom bracket, which is common on older bikes.",
        "the bike is ten years old so that fits",
        "Then replacing the bottom bracket is a cheap first step for the bike.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions)
    assert not any(c.named_problem for c in ranked)


def test_a_quoted_diagnosis_is_the_users_own_and_its_dosed_medicine_counts_for_it() -> None:
    turns = convo(
        "update: the doctor said it's BPPV, right ear. she gave me betahistine 16mg three times a day.",
        "Glad you have a diagnosis; BPPV is common and very treatable.",
        "is betahistine safe to take for months? and the betahistine makes me sleepy",
        "Betahistine is generally well tolerated; ask your doctor about the drowsiness.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions)
    assert all(c.key != "betahistine" for c in ranked)  # a detail of the condition it treats
    bppv = next(c for c in ranked if c.key == "bppv")
    assert bppv.named_problem and {1, 3} <= bppv.user_turns
    assert ranked[0] is bppv


def test_a_medicine_with_no_condition_named_stays_the_chats_best_name() -> None:
    turns = convo(
        "the doctor started me on allopurinol 100mg after my second flare. what should my levels be?",
        "Targets are usually below 0.36 mmol/L; the dose of allopurinol goes up every few weeks.",
        "do i take the allopurinol with food?",
        "Allopurinol is best taken after a meal with plenty of water.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions)
    assert any(c.key == "allopurinol" for c in ranked)


def test_the_named_phrase_is_read_past_numbers_and_up_to_its_break() -> None:
    turns = convo(
        "my blood pressure reading at the pharmacy was 158 over 98, my doctor wants to see me",
        "A reading of 158/98 is in the range doctors call stage 2 hypertension. One reading is not a diagnosis.",
        "so it is hypertension then? my dad had it too",
        "Possibly; repeated readings will tell your doctor whether it is hypertension.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions, rules=SUBJECT_RULES)
    assert any(c.key == "hypertension" and c.named_problem for c in ranked)
