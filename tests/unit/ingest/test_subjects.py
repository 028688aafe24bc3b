"""The wing rule on small conversations, no database (`ingest.subjects`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from ingest import subjects
from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from ingest.subject_centrality import closeness
from ingest.subject_rules import SUBJECT_RULES
from ingest.subjects import Candidate, WingSubject, choose_subject, kin_names, rank_candidates, subject_key

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def convo(*texts: str) -> list[TurnView]:
    """Alternating user / assistant turns."""
    roles = ("user", "assistant")
    return [TurnView(i, i + 1, roles[i % 2], text, T0 + timedelta(minutes=i)) for i, text in enumerate(texts)]


def subject_of(turns: list[TurnView]) -> WingSubject | None:
    return choose_subject(turns, extract_window(turns).mentions)


def test_keys_ignore_case_hyphens_spaces_and_plurals_but_not_names() -> None:
    assert subject_key("E-Foils") == subject_key("efoil") == subject_key("e foil") == "efoil"
    assert subject_key("Paris", fold_plural=False) == "paris"


def test_time_words_never_name_a_wing_however_often_they_come() -> None:
    turns = convo(
        "In the past I kept a garden journal, but the past few months were busy.",
        "Looking back at the past season can help plan the garden.",
        "Yes, the past week I finally weeded the garden beds.",
        "Weeding in the past week is a good start for the garden.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions)
    assert all(c.key != "past" for c in ranked)
    assert (subject_of(turns) or WingSubject("", "")).name == "Garden"


def test_a_name_said_once_is_not_the_subject() -> None:
    turns = convo(
        "My sourdough starter smells like acetone. I took it to the Tagus picnic once.",
        "An acetone smell means the sourdough starter is hungry; feed it more often.",
        "How often should I feed my sourdough starter then?",
        "Twice a day at room temperature keeps a sourdough starter happy.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions)
    names = [c.name for c in ranked]
    assert "Tagus" not in names[:1]  # named in the opening, so weighed, but never the subject
    subject = subject_of(turns)
    assert subject is not None and subject.name in ("Sourdough", "Starter", "Sourdough starter")


def test_verbs_and_adjectives_the_chat_repeats_are_not_candidates() -> None:
    turns = convo(
        "I started knitting a scarf and started a second one.",
        "Knitting two scarves at once is ambitious; a simple rib suits a first scarf.",
        "I really started to enjoy the scarf, really.",
    )
    keys = {c.key for c in rank_candidates(turns, extract_window(turns).mentions)}
    assert "scarf" in keys and not {"started", "really", "simple"} & keys


def test_kin_named_in_the_conversation_is_one_person_with_the_kin_alias() -> None:
    turns = convo(
        "My sister Maya is turning 30 and my sister loves hiking.",
        "For Maya's 30th, a guided hike could be a lovely gift.",
        "Maya would like that. My sister also wants new boots.",
    )
    assert kin_names(turns) == {"sister": "Maya"}
    subject = subject_of(turns)
    assert subject is not None and (subject.kind, subject.name) == ("person", "Maya")
    assert "my sister" in subject.aliases


def test_unnamed_kin_is_a_person_wing_of_its_own() -> None:
    turns = convo(
        "My dad is retiring next month and wants a hobby.",
        "Many people enjoy woodworking or birdwatching after retiring.",
        "My dad might like birdwatching. What binoculars should I get my dad?",
    )
    subject = subject_of(turns)
    assert subject is not None and (subject.kind, subject.name) == ("person", "My dad")


def test_what_the_user_builds_is_a_project_and_a_place_keeps_its_kind() -> None:
    build = convo(
        "I'm building a treehouse for the kids. What wood should the treehouse platform be?",
        "Pressure-treated pine is a common choice for a treehouse platform.",
        "Great, the treehouse will get a rope ladder too.",
    )
    thing = subject_of(build)
    assert thing is not None and (thing.kind, thing.name) == ("project", "Treehouse")
    trip = convo(
        "We fly to Lisbon in May. What should we see in Lisbon?",
        "In Lisbon, Alfama and Belem are must-sees.",
        "Is three days in Lisbon enough?",
    )
    place = subject_of(trip)
    assert place is not None and (place.kind, place.name) == ("place", "Lisbon")


def test_nothing_central_enough_gives_no_subject() -> None:
    strict = replace(SUBJECT_RULES, min_score=0.99)
    turns = convo("Hi!", "Hello, how can I help?")
    assert choose_subject(turns, {}, rules=strict) is None
    assert subject_of(convo("ok", "sure")) is None


def test_a_job_chat_is_filed_under_work_not_the_job_title() -> None:
    turns = convo(
        "I start a new job on Monday as a product designer at a fintech.",
        "Congratulations! In the first weeks, meet your manager often and learn how the team ships.",
        "My manager already sent me a 30-day plan. The office is a long commute though.",
        "A long commute is a good time for reading the onboarding docs.",
        "True. I hope the designer role leads to a promotion within a year.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions)
    assert all(c.key not in {"designer", "manager", "office"} for c in ranked if c.domain is None)
    subject = subject_of(turns)
    assert subject is not None and (subject.kind, subject.name) == ("topic", "Work")


def test_a_doctor_named_by_title_is_a_detail_of_the_health_conversation() -> None:
    turns = convo(
        "Dr. Okafor says my blood pressure is high and prescribed a medication.",
        "Many blood pressure medications take a few weeks to settle; Dr. Okafor will check the dose.",
        "Should I tell the pharmacy about my other medication?",
        "Yes, the pharmacy checks interactions between medications.",
        "Dr. Okafor wants to see me at the clinic again in May.",
    )
    names = [c.name for c in rank_candidates(turns, extract_window(turns).mentions)]
    assert "Dr. Okafor" not in names
    subject = subject_of(turns)
    assert subject is not None and subject.name == "Health"


def test_a_named_country_takes_in_its_cities_and_a_trip_is_named_so() -> None:
    turns = convo(
        "We're visiting Italy in June: four days in Rome, then Florence by train.",
        "Rome and Florence pair well; the fast train takes about 90 minutes.",
        "We booked a hotel near the Pantheon in Rome. Is the flight from Lisbon long?",
        "About three hours. In Florence, book the Uffizi ahead.",
        "Great, the whole trip is planned except Florence.",
    )
    keys = {c.key for c in rank_candidates(turns, extract_window(turns).mentions)}
    assert "italy" in keys and not {"rome", "florence"} & keys
    subject = subject_of(turns)
    assert subject is not None and (subject.kind, subject.name) == ("place", "Italy trip")
    assert {"italy", "italy trip"} <= set(subject.aliases)


def test_a_name_only_in_the_users_opening_is_not_the_subject() -> None:
    turns = convo(
        "We traded in our Peugeot last week. Now my laptop won't boot.",
        "Does the laptop show anything on screen when you press the power button?",
        "Nothing. The laptop fan spins but the screen stays black.",
        "That often means a RAM or display fault; try an external monitor.",
    )
    subject = subject_of(turns)
    assert subject is not None and subject.name == "Laptop"


def _by_word(word: str) -> Callable[[Sequence[str]], np.ndarray]:
    """A stand-in embedder: texts holding ``word`` point one way, every other text another,
    so the opening turn (which holds it) is closest to that word's candidate."""

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.array([[1.0, 0.0] if word in t.lower() else [0.2, 0.98] for t in texts])

    return embed


def test_a_noun_the_opening_states_once_is_a_candidate_graded_by_the_opening() -> None:
    """Nothing is repeated by the user: the opening's nouns are candidates all the same,
    and the one closest to the opening turn names the chat, not the detail the
    assistant's answer dwells on."""
    turns = convo(
        "Thinking of getting a kayak, mostly for the canal and maybe some lakes. No idea where to start.",
        "For sheltered lakes a sit-on-top is the easiest first boat; on lakes, stay near the shore.",
        "Which brand is good value?",
        "Decathlon and Wavesport make decent entry boats; try one on a demo day first.",
    )
    subject = choose_subject(turns, extract_window(turns).mentions, _by_word("kayak"), None)
    assert subject is not None and subject.name == "Kayak"
    other = choose_subject(turns, extract_window(turns).mentions, _by_word("lakes"), None)
    assert other is not None and other.name == "Lakes"  # the grading, not the word, decides


def test_a_person_said_once_in_the_opening_needs_repeating_a_thing_is_weighed() -> None:
    turns = convo(
        "My wife Clara and I sold the Golf. Now my laptop won't boot.",
        "Does the laptop show anything on screen when you press the power button?",
        "Nothing. The laptop fan spins but the screen stays black.",
        "That often means a RAM or display fault; try an external monitor.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions, _by_word("clara"), None)
    assert "Clara" not in {c.name for c in ranked}
    assert ranked[0].name == "Laptop"  # the Golf is a candidate, but the chat is about the laptop


def test_a_thing_named_once_in_the_opening_is_the_subject_of_a_chat_about_its_parts() -> None:
    turns = convo(
        "Just fitted a 9 bar spring to my Gaggia Classic Pro, anything else I should change?",
        "A lower brew pressure usually wants a slightly finer grind; adjust a step at a time.",
        "The shots run a bit fast now. Is that normal after the mod?",
        "Fast shots at 9 bar are normally the grind; go finer until a shot takes 25-30 seconds.",
        "Ok, and I'll weigh 18g into the basket from now on.",
        "That dose suits the stock basket and makes shots repeatable.",
    )
    subject = choose_subject(turns, extract_window(turns).mentions, _by_word("gaggia"), None)
    assert subject is not None and subject.name == "Gaggia Classic Pro"


def test_an_activity_after_started_or_love_is_a_noun_without_a_determiner() -> None:
    turns = convo(
        "I started bouldering last month and my forearms are wrecked.",
        "Forearm pump is normal when you start; rest days matter as much as climbing days.",
        "I love bouldering so much I go five times a week though.",
        "Three sessions a week is plenty while your tendons adapt to bouldering.",
    )
    assert (subject_of(turns) or WingSubject("", "")).name == "Bouldering"


def test_a_word_after_a_subject_pronoun_is_a_verb_not_a_head_noun() -> None:
    """ "my left knee hurts" reads as determiner + modifiers + head; "it hurts" says it is a verb."""
    turns = convo(
        "Since the half marathon my left knee hurts after long runs.",
        "If it hurts on stairs too, rest it for a week and then build back slowly.",
        "my knee hurts less now. can I run on it this weekend?",
        "An easy 5k on flat ground is a fair test for the knee.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions)
    assert "hurt" not in {c.key for c in ranked}
    assert ranked[0].name == "Knee"


def test_a_compound_is_measured_by_its_whole_name() -> None:
    """ "Tax return" is closer to a tax chat than "return" alone; the compound's name counts."""
    c = Candidate("return", label="Tax return")
    c.forms["return"] += 2

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.array([[1.0, 0.0] if t == "Tax return" else [0.0, 1.0] for t in texts])

    assert closeness([c], embed, np.array([1.0, 0.0])) == [1.0]


def test_a_lower_case_first_name_after_a_kin_word_is_the_person_and_a_verb_is_not() -> None:
    turns = convo(
        "my mum helen is 74 and she's been forgetting things. my sister kate thinks it's nothing.",
        "Repeated questions are worth mentioning to a GP.",
        "she agreed to see the gp next week as long as i come.",
    )
    assert kin_names(turns) == {"mum": "Helen", "sister": "Kate"}
    assert kin_names(convo("my mum said the hob was on again, my dad will check it")) == {}
    subject = subject_of(turns)
    assert subject is not None and (subject.kind, subject.name) == ("person", "Helen")
    assert "my mum" in subject.aliases


def test_a_kin_word_used_as_a_name_is_the_users_own() -> None:
    turns = convo(
        "update on nana: the op went fine but she's muddled.",
        "Confusion after surgery is common in older patients.",
        "they moved nana to a rehab bed, she hates the frame.",
    )
    subject = subject_of(turns)
    assert subject is not None and (subject.kind, subject.name) == ("person", "My nana")


def test_a_possessive_counts_for_its_owner_and_never_names_a_wing() -> None:
    """On LongMemEval dev 22 of 487 wings were named "Constable's", "Museum's", "My sister's"."""
    turns = convo(
        "How did Constable's use of light and shadow shape his landscapes?",
        "His broken touches of white make the skies feel alive and wet.",
        "Which of Constable's paintings shows that best? I want to see Constable's skies in person.",
        "The Hay Wain at the National Gallery is the classic example.",
    )
    subject = subject_of(turns)
    assert subject is not None and subject.name == "Constable"
    assert "constable's" not in subject.aliases


def test_gathering_builds_one_candidate_per_key_not_one_per_word(monkeypatch: pytest.MonkeyPatch) -> None:
    """`_Gatherer.at` built a `Candidate` (four Counters and three sets) for every word of the
    chat and kept the first one per key (``setdefault(key, Candidate(key))``): 1.2 % of mining's
    samples went to building ones it threw away."""
    built: list[str] = []

    class Counted(Candidate):
        def __init__(self, key: str) -> None:
            built.append(key)
            super().__init__(key)

    monkeypatch.setattr(subjects, "Candidate", Counted)
    turns = convo(
        "My e-foil build is stalled: the e-foil battery and the e-foil motor both arrived late.",
        "An e-foil battery needs a waterproof box; check the e-foil motor's seals too.",
        "The battery box fits, and the motor seals look fine now.",
    )
    ranked = rank_candidates(turns, extract_window(turns).mentions)
    assert ranked and len(built) == len(set(built))  # each key built once
