"""The offline memory extractor: each rule family, what must yield nothing, content shape."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.extraction import TurnView
from ingest.memory_candidates import SLOTS, MemoryCandidate, slot_of_content
from ingest.memory_patterns import RULES
from ingest.memory_rules import extract_memory_candidates
from ingest.memory_text import clean_phrase, gerund_to_base, third_person

AT = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
CATEGORIES = {"profile", "preference", "response_style", "fact", "goal", "relationship", "procedure"}


def said(text: str, role: str = "user", seq: int = 7) -> list[MemoryCandidate]:
    return extract_memory_candidates([TurnView(seq, seq, role, text, AT)])


def pairs(text: str) -> list[tuple[str, str]]:
    return [(c.category, c.content) for c in said(text)]


@pytest.mark.parametrize(
    ("text", "slot", "content"),
    [
        ("My name is Ana Souza and I need help.", "name", "Name is Ana Souza"),
        ("Hi, I'm Sam!", "name", "Name is Sam"),
        ("Hello there, I am Joana.", "name", "Name is Joana"),
        ("Please call me Liz.", "preferred_name", "Prefers to be called Liz"),
        ("I go by Rob at work.", "preferred_name", "Prefers to be called Rob"),
        ("I'm 34.", "age", "Is 34 years old"),
        ("I am 52 years old, so go easy.", "age", "Is 52 years old"),
        ("I live in Lisbon with my two cats.", "location", "Lives in Lisbon"),
        ("I moved to New York City last spring.", "location", "Lives in New York City"),
        ("I'm based in Rio de Janeiro.", "location", "Lives in Rio de Janeiro"),
        ("I relocated to Austin for the job.", "location", "Lives in Austin"),
        ("I'm from Nairobi.", "hometown", "Is from Nairobi"),
        ("I grew up in Cork and never left.", "hometown", "Is from Cork"),
        ("I work as a pharmacist in a small town.", "job", "Works as a pharmacist"),
        ("I'm a software engineer.", "job", "Works as a software engineer"),
        ("I'm an electrician, mostly residential.", "job", "Works as an electrician"),
        ("I work at Spotify.", "employer", "Works at Spotify"),
        ("I work for a tiny design agency.", "employer", "Works at a tiny design agency"),
        ("I'm vegan.", "diet", "Diet: vegan"),
        ("I'm a strict vegetarian.", "diet", "Diet: vegetarian"),
        ("I don't eat pork.", "diet", "Diet: no pork"),
        ("My wife Helen is a nurse.", "partner", "Partner is Helen"),
        ("My husband, Tom, cooks.", "partner", "Partner is Tom"),
    ],
)
def test_slot_statements_fill_the_slot_template(text: str, slot: str, content: str) -> None:
    [cand] = said(text)
    assert (cand.slot, cand.content, cand.category) == (slot, content, SLOTS[slot].category)
    assert cand.turn_seqs == (7,)
    assert 0.6 <= cand.confidence <= 0.9


@pytest.mark.parametrize(
    ("text", "category", "content"),
    [
        ("I love Thai curries.", "preference", "Loves Thai curries"),
        ("I really enjoy long hikes, especially in autumn.", "preference", "Enjoys long hikes"),
        ("I hate flying.", "preference", "Dislikes flying"),
        ("I can't stand cilantro either.", "preference", "Dislikes cilantro"),
        ("I'm not a fan of horror films.", "preference", "Dislikes horror films"),
        ("I prefer tea over coffee.", "preference", "Prefers tea over coffee"),
        ("I'm a big fan of Studio Ghibli.", "preference", "Likes Studio Ghibli"),
        ("My favourite band is Radiohead.", "preference", "Favorite band is Radiohead"),
        ("Pizza is my favorite food.", "preference", "Favorite food is Pizza"),
        ("I'm allergic to shellfish.", "profile", "Is allergic to shellfish"),
        ("I have type 2 diabetes.", "profile", "Has type 2 diabetes"),
        ("I'm lactose intolerant.", "profile", "Is lactose intolerant"),
        ("I'm training for a half marathon in May.", "goal", "Training for a half marathon"),
        ("My goal is to run a sub-4 marathon.", "goal", "Goal is to run a sub-4 marathon"),
        ("I want to learn Japanese.", "goal", "Wants to learn Japanese"),
        ("I'm saving up for a house.", "goal", "Saving for a house"),
        ("Please keep your answers short.", "response_style", "Prefers short answers"),
        ("Don't use emojis.", "response_style", "No emojis"),
        ("I prefer bullet points.", "response_style", "Prefers bullet points"),
        ("From now on, answer in Spanish.", "response_style", "Prefers answers in Spanish"),
        ("Could you make your replies more concise?", "response_style", "Prefers concise answers"),
        ("I play the piano in a jazz trio.", "fact", "Plays the piano in a jazz trio"),
    ],
)
def test_preferences_goals_health_and_style(text: str, category: str, content: str) -> None:
    assert pairs(text) == [(category, content)]


def test_health_matters_more_than_taste() -> None:
    [allergy] = said("I'm allergic to penicillin.")
    [taste] = said("I love olives.")
    assert allergy.importance == 4 and taste.importance < allergy.importance


@pytest.mark.parametrize(
    ("text", "content", "retracts"),
    [
        ("I no longer eat meat.", "No longer eats meat", "Eats meat"),
        ("I don't drink coffee anymore.", "No longer drinks coffee", "Drinks coffee"),
        ("I stopped smoking two years ago.", "No longer smokes", "Smokes"),
        ("I quit running after the injury.", "No longer runs", "Runs"),
        ("I gave up driving.", "No longer drives", "Drives"),
        ("I'm no longer vegetarian.", "No longer vegetarian", "Diet: vegetarian"),
        ("I no longer work at Google.", "No longer works at Google", "Works at Google"),
    ],
)
def test_retractions_say_what_they_end(text: str, content: str, retracts: str) -> None:
    [cand] = said(text)
    assert (cand.content, cand.retracts) == (content, retracts)


def test_a_retraction_of_where_one_works_is_profile_not_taste() -> None:
    assert said("I no longer work at Google.")[0].category == "profile"
    assert said("I don't eat sugar anymore.")[0].category == "preference"


@pytest.mark.parametrize(
    ("text", "slot", "content"),
    [
        ("Actually, I moved to Porto.", "location", "Lives in Porto"),
        ("Correction: I'm 35, not 34.", "age", "Is 35 years old"),
        ("Sorry, I meant I live in Braga.", "location", "Lives in Braga"),
        ("Update: I work as a data analyst now.", "job", "Works as a data analyst"),
    ],
)
def test_a_correction_restates_the_slot(text: str, slot: str, content: str) -> None:
    [cand] = said(text)
    assert (cand.slot, cand.content, cand.retracts) == (slot, content, None)


@pytest.mark.parametrize(
    "text",
    [
        # questions
        "Do I like jazz?",
        "what should I eat tonight",
        "Should I move to Berlin?",
        # hypotheticals and conditionals
        "If I lived in Paris I would walk everywhere.",
        "I might move to Madrid next year.",
        "I'd love to visit Japan.",
        "I would like a recipe for paella.",
        "I wish I lived by the sea.",
        "I'm thinking about moving to Berlin.",
        # other people
        "My friend loves sushi.",
        "She lives in Rome.",
        "My son is allergic to eggs.",
        "My ex-wife Jane lives in Leeds.",
        # reported or quoted
        'He told me "I love jazz" and laughed.',
        "My boss said I'm the best presenter on the team.",
        # negated trivia
        "I don't know.",
        "I'm not sure that works.",
        "I'm not vegetarian.",
        # greetings and chit-chat
        "Hey there!",
        "Thanks, that looks great!",
        "I'm a bit tired today.",
        "I'm a terrible baker haha.",
        "I love you guys.",
        "I love that idea!",
        "I hate how slow this is.",
        # past states framed as past
        "I used to live in London.",
        "I used to love running.",
        # commands to the assistant
        "Write me a poem about loving Paris.",
        "Write a story where I live on Mars.",
        "Tell me why I love summer so much.",
        "Call me when you're done.",
    ],
)
def test_must_yield_nothing(text: str) -> None:
    assert said(text) == []


def test_assistant_turns_yield_nothing() -> None:
    assert said("I love Lisbon. My name is Loci and I live in the cloud.", role="assistant") == []


def test_one_turn_may_state_several_things_once_each() -> None:
    got = pairs("Hi, I'm Priya. I'm vegetarian and I live in Lisbon. Oh, I live in Lisbon!")
    assert got == [("profile", "Name is Priya"), ("preference", "Diet: vegetarian"), ("profile", "Lives in Lisbon")]


def test_turns_keep_their_own_seq() -> None:
    turns = [
        TurnView(1, 3, "user", "I live in Porto.", AT),
        TurnView(2, 4, "assistant", "Porto is lovely.", AT),
        TurnView(3, 5, "user", "I love hiking.", AT),
    ]
    assert [c.turn_seqs for c in extract_memory_candidates(turns)] == [(3,), (5,)]


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("I live in Porto with my two cats.", "Lives in Porto"),
        ("I love hiking and biking.", "Loves hiking"),
        ("I love hiking but hate running.", "Loves hiking"),
        ("I enjoy baking these days.", "Enjoys baking"),
        ("I love Thai food", "Loves Thai food"),
        ("I LOVE cooking for my family.", "Loves cooking for their family"),
        ("i love   sailing .", "Loves sailing"),
    ],
)
def test_content_is_trimmed_and_keeps_the_values_case(text: str, content: str) -> None:
    assert [c.content for c in said(text)] == [content]


def test_a_value_cut_before_a_relative_clause_is_dropped() -> None:
    assert said("I can't stand people who chew loudly.") == []


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("  hiking, ", "hiking"),
        ("hiking with friends", "hiking"),
        ("the Berlin marathon in September", "the Berlin marathon"),
        ("swimming three years ago", "swimming"),
        ("it", None),
        ("how slow this is", None),
        ("one two three four five six seven eight nine", None),
    ],
)
def test_clean_phrase(raw: str, cleaned: str | None) -> None:
    assert clean_phrase(raw) == cleaned


def test_the_first_word_is_never_a_cut_point() -> None:
    assert clean_phrase("with examples rather than theory", judge=False) == "with examples rather than theory"
    assert clean_phrase("with examples rather than theory") is None  # judged: starts with a preposition


@pytest.mark.parametrize(
    ("gerund", "base"),
    [
        ("smoking", "smoke"),
        ("running", "run"),
        ("drinking", "drink"),
        ("eating", "eat"),
        ("using", "use"),
        ("dancing", "dance"),
        ("visiting", "visit"),
        ("bring", "bring"),
    ],
)
def test_gerund_to_base(gerund: str, base: str) -> None:
    assert gerund_to_base(gerund) == base


@pytest.mark.parametrize(
    ("phrase", "third"),
    [("eat meat", "eats meat"), ("watch TV", "watches TV"), ("study law", "studies law"), ("have a car", "has a car")],
)
def test_third_person(phrase: str, third: str) -> None:
    assert third_person(phrase) == third


def test_the_rule_table_is_consistent() -> None:
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))
    for rule in RULES:
        assert "v" in rule.pattern.groupindex, rule.name
        assert rule.category in CATEGORIES, rule.name
        assert 0.6 <= rule.confidence <= 0.9 and 1 <= rule.importance <= 5, rule.name
        if rule.slot is not None:  # its content reads as the slot to reconciliation too
            assert slot_of_content(rule.template.format(v="Xyz", k="")) == rule.slot, rule.name
