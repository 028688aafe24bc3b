"""Pets named in lower case (`ingest.entity_lower_pets`): written with a capital, typed as a pet's
person kind, and named the speaker's pet by the pet sayings (`ingest.relation_rules`); never a pet's
things, an aside in brackets, "my pet peeve", nor a word no list holds after "my dog" ("my dog kibble")."""

from __future__ import annotations

import pytest

from ingest.entity_lower_pets import lower_case_pets
from tests.unit.ingest.chat_window import chat
from tests.unit.ingest.linear_time import assert_linear


@pytest.mark.parametrize(
    ("text", "pet", "species"),
    [
        ("biscotte (our beagle) fit in the trunk lol", "Biscotte", "dog"),
        ("pickle's my cat btw, 4 yr old tabby", "Pickle", "cat"),
        ("Biltong (our jack russell) is staying with my friend", "Biltong", "dog"),
        ("so mochi is my cat, she's 3", "Mochi", "cat"),
        ("our beagle bella has fleas", "Bella", "dog"),  # a first name, though an English word
        ("luna (our cat) knocked over my plant", "Luna", "cat"),
        ("max (my dog) is at the vet", "Max", "dog"),
    ],
)
def test_a_pet_named_in_lower_case_is_the_speakers(text: str, pet: str, species: str) -> None:
    facts = {(r.subject.name, r.predicate, r.value) for r in chat(text).relations}
    assert {("User", "pet", pet), (pet, "species", species)} <= facts, facts


@pytest.mark.parametrize(
    "text",
    [
        "my dog sitter is away this week",
        "my dog bowl is broken",
        "that's my cat lol",
        "my cat btw is fine",
        "tom (my dog walker) is late",
        "our cat flap is stuck",
        "milo (my friends dog) is sick",
        "my pet peeve is people who chew loudly",
        "my cat rose and stretched",
        "my dog daycare is closed tomorrow",
        "our dog kibble is running out",
        "my cat tiktok has 10k followers",
        "guess who ate my sandwich (our dog)",
        "the culprit (my cat) is hiding",
        "my dog pepper is sick",  # no first name after "my dog" stays unread in lower case
    ],
)
def test_a_pets_things_a_pronoun_or_a_filler_are_no_pet(text: str) -> None:
    assert lower_case_pets(text) == [], lower_case_pets(text)
    assert not {r for r in chat(text).relations if r.predicate == "pet"}


def test_the_russell_group_is_no_pet_nor_another_patient() -> None:
    facts = {
        (r.subject.name, r.predicate, r.value)
        for r in chat("I work for the Russell Group and I have diabetes").relations
    }
    assert ("User", "diagnosed with", "diabetes") in facts, facts


def test_reading_pets_takes_time_in_step_with_the_text() -> None:
    assert_linear(lower_case_pets, "our beagle bella has fleas. " * 800)
    assert_linear(lower_case_pets, "a" * 24_000 + " (our dog)")
    assert_linear(lower_case_pets, "the biscotte (our dog) " * 1_000)
