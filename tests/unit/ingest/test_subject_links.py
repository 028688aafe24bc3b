"""Mentions of one subject under other words (`ingest.subject_links`), no database.

Each chat is written for the test, not taken from a wing fixture: it names its subject
once and then says "he", the pet's name, a stop on the trip, a category or a compound.
"""

from __future__ import annotations

from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from ingest.subjects import WingSubject, choose_subject, rank_candidates
from tests.unit.ingest.test_subjects import convo


def subject_of(turns: list[TurnView]) -> WingSubject:
    subject = choose_subject(turns, extract_window(turns).mentions)
    assert subject is not None
    return subject


def test_he_after_my_uncle_counts_for_the_uncle() -> None:
    subject = subject_of(
        convo(
            "My uncle is retiring next month and wants a new hobby.",
            "Retirement is a good time to learn something social, such as a club or a class.",
            "He likes boats but he gets seasick on ferries.",
            "Seasickness is usually milder on small dinghies close to shore.",
            "Maybe a dinghy course then, I'll ask him at lunch on Sunday.",
            "A taster day is a cheap way to find out before committing.",
        )
    )
    assert (subject.kind, subject.name) == ("person", "My uncle")


def test_a_chat_that_opens_on_she_is_about_the_person_named_after() -> None:
    subject = subject_of(
        convo(
            "ok need advice. shes turning 12 next month and everyone in her year has a phone",
            "Happy to help. Is this your daughter? Many parents give in around that age.",
            "yes my daughter. she wants whatsapp like her friends but my partner wants a basic phone",
            "A smartphone with parental controls is a common middle ground.",
            "ok. and rules? she already stays up too late on the ipad",
            "Agree the rules before she gets the phone: charging downstairs overnight works well.",
        )
    )
    assert (subject.kind, subject.name) == ("person", "My daughter")


def test_a_pet_is_filed_under_its_name_and_found_by_its_species() -> None:
    subject = subject_of(
        convo(
            "We got a kitten last week and named her Pepper.",
            "Congratulations! Young cats need a quiet room to settle in first.",
            "Pepper keeps biting my toes at night. Is that play?",
            "Yes, it's hunting play; give her a wand toy before bed to tire her out.",
            "Pepper also ignores the scratching post completely.",
            "Try a taller post and put it where she already likes to scratch.",
        )
    )
    assert subject.name == "Pepper" and "kitten" in subject.aliases


def test_a_trip_is_filed_under_its_destination_not_its_busiest_stop() -> None:
    subject = subject_of(
        convo(
            "We're planning a week in Portugal in May, staying in Porto and then Lisbon.",
            "Porto first works well: two or three days, then the train to Lisbon.",
            "Is Lisbon hilly? My mum has bad knees.",
            "Lisbon is very hilly; the trams and the Santa Justa lift help a lot.",
            "Good to know. Any restaurant tips for Lisbon?",
            "Try the Time Out Market for variety, or a tasca in Alfama for a quiet dinner.",
        )
    )
    assert subject.kind == "place" and subject.name.startswith("Portugal")


def test_a_model_name_and_the_category_it_is_said_to_be_are_one_thing() -> None:
    subject = subject_of(
        convo(
            "I bought a used Fujifilm X100 and the battery dies after a hundred shots.",
            "The X100 is a compact camera with a small battery; carry a spare and turn off the preview.",
            "The camera also fogs up when I come indoors in winter.",
            "Condensation is normal; keep the camera in its bag for a few minutes to warm up slowly.",
        )
    )
    assert subject.name == "Fujifilm X100" and "camera" in subject.aliases


def test_a_head_noun_mostly_written_after_one_noun_is_named_by_the_compound() -> None:
    subject = subject_of(
        convo(
            "My water bill doubled this quarter and nothing changed at home.",
            "A sudden jump on a water bill often means a leak; read the meter twice, an hour apart.",
            "The meter moved overnight with every tap off. Who pays to fix the bill?",
            "The supply pipe on your side is yours, but most companies give a leak allowance on the water bill.",
        )
    )
    assert subject.name == "Water bill"


def test_he_goes_to_the_man_named_not_to_his_wife_named_after_him() -> None:
    """ "Sarah" is named later than "Tomas", but "he" and "his" cannot stand for her, and
    a contraction written without its apostrophe ("hes") is still "he"."""
    turns = convo(
        "My friend Tomas is turning 50 and his wife Sarah asked me to help plan a dinner.",
        "A dinner suits a milestone; Sarah will know the right restaurant.",
        "hes vegetarian and he hates surprises, so maybe we tell him.",
        "Then a planned dinner with his closest friends is a safe choice.",
        "ok and his brother flies in that week, he'd love to come too.",
        "Seat the brother next to him; a short toast is enough.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions)
    tomas = next(c for c in ranked if c.name == "Tomas")
    sarah = next((c for c in ranked if c.name == "Sarah"), None)
    assert {3, 5} <= tomas.user_turns
    assert sarah is None or not {3, 5} & sarah.user_turns
    assert subject_of(turns).name == "Tomas"
