"""Typed entities and relations on sentences the mining fixture does not contain.

The rules were tuned on `tests/fixtures/mining_quality/`; these examples were written
apart from it, to show the rules generalise (vocabularies and patterns, not strings).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ingest.entity_scan import clean_name
from ingest.extract_llm import WindowSchema, to_extraction
from ingest.extract_offline import USER_ENTITY, extract_window
from ingest.extraction import EntityMention, Extraction, TurnView
from ingest.names import name_key
from ingest.predicates import canonical_predicate, is_multi_valued

AT = datetime(2025, 1, 15, 10, 0, tzinfo=UTC)


def one(text: str, role: str = "user") -> Extraction:
    return extract_window([TurnView(1, 1, role, text, AT)])


def named(ex: Extraction) -> set[EntityMention]:
    return {m for ms in ex.mentions.values() for m in ms if m.kind != "t"}


def facts(ex: Extraction) -> set[tuple[str, str, str]]:
    return {(f.subject.name, f.predicate, f.value) for f in ex.relations}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My sister Priya just moved to Edinburgh.", {("p", "Priya"), ("l", "Edinburgh")}),
        ("I work for Deloitte as a tax consultant.", {("o", "Deloitte")}),
        ("Prof. Lindqvist is my thesis supervisor at Uppsala University.",
         {("p", "Prof. Lindqvist"), ("o", "Uppsala University")}),
        ("Went to the Glastonbury Festival with my mate Callum.", {("e", "Glastonbury Festival"), ("p", "Callum")}),
        ("I upgraded my laptop to a MacBook Air M3.", {("i", "laptop"), ("i", "MacBook Air M3")}),
        ("I live in Utrecht now but I grew up in Cork.", {("l", "Utrecht"), ("l", "Cork")}),
        # "that" before a first name and its verb opens a clause; before a name alone it points at a thing
        ("You could mention that Maya is new to the school.", {("p", "Maya")}),
        ("I sold that Mercedes you liked.", {("i", "Mercedes")}),
        # a known place heading its outing is the place, whatever "the" before it suggests
        ("Okay team, the Sintra climbing trip is on.", {("l", "Sintra")}),
        ("We loved the Porto marathon.", {("l", "Porto")}),
    ],
)  # fmt: skip
def test_entities_are_typed_by_cue_word_and_gazetteer(text: str, expected: set[tuple[str, str]]) -> None:
    assert {(m.kind, m.name) for m in named(one(text))} == expected


@pytest.mark.parametrize(
    "text",
    [
        "Thanks! Great, that helps. Follow the steps above and let me know.",
        "User: can you summarise that? Assistant: sure.",
        "Dr. said it was fine. Senhora, obrigado.",
    ],
)
def test_chat_words_speaker_labels_and_bare_titles_are_no_entities(text: str) -> None:
    assert named(one(text)) == set()


def test_a_title_joins_its_name_and_the_bare_surname_is_the_same_person() -> None:
    ex = one("Dr. Haddad put me on metformin. Haddad says it takes a few weeks.")
    assert named(ex) == {EntityMention("p", "Dr. Haddad"), EntityMention("i", "metformin")}
    assert name_key("Dr. Haddad") == name_key("haddad")
    assert ("User", "doctor", "Dr. Haddad") in facts(ex)
    assert ("User", "takes", "metformin") in facts(ex)


def test_a_known_city_is_a_place_everywhere_in_the_window_never_a_person() -> None:
    ex = extract_window(
        [
            TurnView(1, 1, "user", "Lisbon was lovely, we stayed near Alfama.", AT),
            TurnView(2, 2, "assistant", "Lisbon said goodbye with a sunset, I hope!", AT),
        ]
    )
    assert {m.kind for m in named(ex) if m.name == "Lisbon"} == {"l"}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("My husband Olu and I just got back from Lagos.", ("User", "partner", "Olu")),
        ("My sister Priya just moved to Edinburgh.", ("Priya", "lives in", "Edinburgh")),
        ("I work for Deloitte as a tax consultant.", ("User", "works as", "tax consultant")),
        ("Ever since I joined Spotify I've barely had time to cook.", ("User", "works at", "Spotify")),
        ("We're heading to Marrakech in March with my cousin Youssef.", ("User", "plans to visit", "Marrakech")),
        ("I'm allergic to peanuts.", ("User", "allergic to", "peanuts")),
        ("My son Tomás is lactose intolerant.", ("Tomás", "diet", "lactose intolerant")),
        ("I was diagnosed with type 2 diabetes in 2022.", ("User", "diagnosed with", "type 2 diabetes")),
        ("I sprained my ankle playing football.", ("User", "injury", "sprained ankle")),
        ("I really enjoy bouldering and I can't stand crowded gyms.", ("User", "dislikes", "crowded gyms")),
        ("We replaced the boiler with a heat pump in November.", ("boiler", "is", "heat pump")),
        ("I traded my old Canon camera for a Fujifilm X-T5 last month.", ("camera", "is", "Fujifilm X-T5")),
        ("Our dishwasher died on Sunday, so we ordered a Bosch one.", ("dishwasher", "status", "dead")),
        ("I no longer drive the Corolla.", ("Corolla", "status", "no longer driven")),
    ],
)
def test_relations_people_places_work_health_preferences_and_things(text: str, fact: tuple[str, str, str]) -> None:
    assert fact in facts(one(text))


def test_the_thing_a_fact_is_about_becomes_an_item_entity_of_its_turn() -> None:
    ex = one("We swapped the kettle for a Smeg one last week.")
    assert ("kettle", "is", "Smeg one") in facts(ex) or ("kettle", "is", "Smeg") in facts(ex)
    assert EntityMention("i", "kettle") in ex.mentions[1]


def test_assistant_turns_state_no_facts_and_a_deadline_is_no_start_date() -> None:
    assert one("My sister Ana lives in Cascais.", role="assistant").relations == ()
    (fact,) = one("My manager Tiago wants the report by September.").relations
    assert (fact.subject, fact.predicate, fact.value, fact.valid_from) == (USER_ENTITY, "manager", "Tiago", AT)


def test_predicates_fold_synonyms_and_know_which_hold_several_values() -> None:
    assert canonical_predicate("Moved  to") == "lives in" and canonical_predicate("mum") == "mother"
    assert is_multi_valued("sister") and is_multi_valued("visited") and is_multi_valued("allergic to")
    assert not is_multi_valued("lives in") and not is_multi_valued("is") and not is_multi_valued("favorite color")


def test_the_llm_answer_is_held_to_the_same_kinds_and_predicates() -> None:
    turns = [TurnView(1, 1, "user", "We swapped the battery for a 44V 30Ah pack. I moved to Porto.", AT)]
    parsed = WindowSchema.model_validate(
        {
            "entities": [
                {"name": "User", "kind": "p", "turns": [1]},
                {"name": "battery", "kind": "i", "turns": [1]},
                {"name": "Porto", "kind": "l", "turns": [1]},
            ],
            "relations": [
                {"subject": "battery", "predicate": "is", "object": "44V 30Ah pack", "turn": 1},
                {"subject": "user", "predicate": "Moved to", "object": "Porto", "object_kind": "l", "turn": 1},
            ],
        }
    )
    llm = to_extraction(parsed, turns)
    assert set(llm.mentions[1]) == {EntityMention("i", "battery"), EntityMention("l", "Porto")}
    assert (
        facts(llm)
        == facts(one(turns[0].content))
        == {
            ("battery", "is", "44V 30Ah pack"),
            ("User", "lives in", "Porto"),
        }
    )


def test_a_place_of_several_words_keeps_the_chat_word_that_ends_it() -> None:
    """ "An" and "The" are trimmed from a capitalised run as chat words, unless the whole
    run is a place the gazetteer knows: "Hoi" alone names nothing and no country holds it."""
    assert clean_name("Hoi An") == "Hoi An"
    assert clean_name("Thanks Derek") == "Derek"


def test_a_possessive_ending_is_not_part_of_the_name() -> None:
    """ "Brahms' symphonies" and "the Trail Blazers' season" name Brahms and the Trail Blazers;
    a dropped g ("Blowin'") is the name's own spelling."""
    assert clean_name("Brahms'") == "Brahms"
    assert clean_name("Trail Blazers’") == "Trail Blazers"
    assert clean_name("Tidio's") == "Tidio"
    assert clean_name("Blowin'") == "Blowin'"
    assert {m.name for m in named(one("I've been listening to Brahms' symphonies a lot lately."))} == {"Brahms"}


def test_a_possessive_owner_of_several_words_is_cut_from_what_it_owns() -> None:
    """ "George Orwell's Animal Farm" was one person named so (a dev wing); the cut took only
    the owner's last word ("Orwell"), which no gazetteer knows."""
    ex = one("I just finished George Orwell's Animal Farm and loved it.")
    assert named(ex) == {EntityMention("p", "George Orwell"), EntityMention("i", "Animal Farm")}
    assert {m.name for m in named(one("We hiked the Philosopher's Path in Kyoto."))} == {"Philosopher's Path", "Kyoto"}
    # a sentence's opener is in the run before the owner: the owner is the run's known end
    assert {m.name for m in named(one("In Sintra's Pena Palace we had lunch."))} == {"Sintra", "Pena Palace"}
    assert {m.name for m in named(one("After George Orwell's Animal Farm I read 1984."))} >= {
        "George Orwell",
        "Animal Farm",
    }
