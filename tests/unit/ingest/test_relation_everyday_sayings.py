"""Everyday ways a person states a lasting fact about their life, each read by its general shape and
checked with sentences of its own (none from a labelled set):

* a home by being based or having been living somewhere ("I'm based in Nairobi", "I've been living in
  Melbourne for 3 years"), or by where the home is ("my apartment is in Rosemont", "we moved into a condo
  in Limoilou");
* an employer by the job there ("my job at Telstra is killing me", "started my new role at Deloitte"),
  a former one by the old job ("my old job at Acme"); not a job the sentence leaves or ends;
* a thing held, not bought ("I drive a Honda Civic", "I have a 2015 Mazda 3"), or chosen and bought ("we
  went with a 2019 Toyota Aqua", "ended up buying a Galaxy S24");
* a lasting condition the speaker has ("I have asthma", "I've got type 2 diabetes", "I have Crohn's
  disease": a condition named after a person is no other patient, though "Addison's tests" are
  Addison's), not a passing one, one wondered about, a history, a cause or someone else's;
* in-laws as people in one's life ("my sister in law Ana");
* a doctor who is no other clinician's title and name ("my vet Dr Amy said" is no doctor of the user's);
* a job said short ("a software dev at Shopify"), or by its trade ("a social worker", where "worker"
  alone is none);
* someone's job by name and "is a", with the employer after it or the title's head word alone ("my
  sister Jen is a nurse at Mencap", "Sipho is a chef so …"; not "a nervous driver", "a designer tool",
  "a retired nurse", "a lawyer for the Smiths"), never "he" where the name tells the other sex.
"""

from __future__ import annotations

import pytest

from tests.unit.ingest.chat_window import Fact, chat


def facts(text: str) -> set[Fact]:
    ex = chat(text)
    return {(r.subject.name, r.predicate, r.value) for r in ex.relations}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I'm based in Nairobi these days", ("User", "lives in", "Nairobi")),
        ("we're based in Nairobi now", ("User", "lives in", "Nairobi")),
        ("I've been living in Melbourne for 3 years", ("User", "lives in", "Melbourne")),
        ("my apartment is in Rosemont, tiny but cute", ("User", "lives in", "Rosemont")),
        ("our new apartment is in Saint-Roch", ("User", "lives in", "Saint-Roch")),
        ("we moved into a condo in Limoilou", ("User", "lives in", "Limoilou")),
        ("my job at Telstra is stressing me out", ("User", "works at", "Telstra")),
        ("started my new role at Deloitte on monday", ("User", "works at", "Deloitte")),
        ("my old job at Acme paid better", ("User", "worked at", "Acme")),
        ("I drive a Honda Civic", ("User", "owns", "Honda Civic")),
        ("I drive a Honda Civic", ("car", "is", "Honda Civic")),
        ("we have a 2015 Mazda 3", ("car", "is", "2015 Mazda 3")),
        ("I ride a Trek Marlin 7", ("bike", "is", "Trek Marlin 7")),
        ("I have asthma", ("User", "diagnosed with", "asthma")),
        ("I've got type 2 diabetes", ("User", "diagnosed with", "type 2 diabetes")),
        ("I live with endometriosis", ("User", "diagnosed with", "endometriosis")),
        ("I have Crohn's disease and it flares up", ("User", "diagnosed with", "Crohn's disease")),
        ("I have Crohn’s", ("User", "diagnosed with", "Crohn’s")),
        ("turns out it's Hashimoto's", ("User", "diagnosed with", "Hashimoto's")),
        ("I have Addison's disease", ("User", "diagnosed with", "Addison's disease")),
        ("my sister in law Ana is visiting", ("User", "sister-in-law", "Ana")),
        ("my mother-in-law Rosa is staying with us", ("User", "mother-in-law", "Rosa")),
        ("i'm a software dev at Shopify", ("User", "works at", "Shopify")),
    ],
)
def test_an_everyday_saying_records_its_fact(text: str, fact: Fact) -> None:
    assert fact in facts(text), facts(text)


@pytest.mark.parametrize(
    ("text", "predicate"),
    [
        ("I quit my job at Acme", "works at"),
        ("my job at Acme ended in may", "works at"),
        ("should I quit my job at Acme?", "works at"),
        ("my sister's job at Acme is great", "works at"),
        ("I don't have a car anymore", "owns"),
        ("I used to have a Honda Civic", "owns"),
        ("my brother has a Honda Civic", "owns"),
        ("should I get a Mazda 3 or a Corolla?", "owns"),
        ("I have flu", "diagnosed with"),
        ("I think I have ADHD", "diagnosed with"),
        ("I have a family history of diabetes", "diagnosed with"),
        ("I have a diabetes appointment on friday", "diagnosed with"),
        ("my mom has diabetes", "diagnosed with"),
        ("my son has asthma and I have eczema", "diagnosed with"),
        ("do I have diabetes?", "diagnosed with"),
        ("my vet Dr Amy said he's fine", "doctor"),
        ("my vet dr amy said he's fine", "doctor"),
        ("my dentist, Dr Nguyen, said I need a filling", "doctor"),
        ("I'm a lead guitarist in a covers band", "works as"),
        ("I'm a hard worker", "works as"),
        ("I'm a first-time buyer", "works as"),
        ("I'm a free agent this weekend", "works as"),
        ("My favourite place in Paris is the Louvre", "lives in"),
        ("Our place in Spain is lovely in summer", "lives in"),
        ("My holiday home is in Spain", "lives in"),
        ("our old house in Leeds had a garden", "lives in"),
        ("I have a Tesla appointment tomorrow", "owns"),
        ("I drive a Corolla for work, it's a pool car", "owns"),
        ("I have a ThinkPad from work", "owns"),
        ("I got laid off from my job at Telstra", "works at"),
        ("My job at Google, which I lost in May", "works at"),
        ("I have a friend with ADHD", "diagnosed with"),
        ("I have had cancer", "diagnosed with"),
        ("I have a book about anxiety", "diagnosed with"),
        ("My cancer patients are lovely", "diagnosed with"),
        ("My thesis on diabetes is due", "diagnosed with"),
        ("My dads cancer came back", "diagnosed with"),
        ("Dr Google says it's cancer lol", "diagnosed with"),
        ("my mum has Parkinson's", "diagnosed with"),
        ("Addison's tests came back, turns out it's diabetes", "diagnosed with"),  # a person called Addison
        ("whose phone is this? oh so it's Addison's", "diagnosed with"),
        ("my Alzheimer's walk raised 500 quid", "diagnosed with"),
        ("I think I have Crohn's", "diagnosed with"),
        ("I have Derek's diabetes leaflet", "diagnosed with"),
    ],
)
def test_what_it_does_not_say_records_nothing(text: str, predicate: str) -> None:
    assert not {f for f in facts(text) if f[1] == predicate and f[0] == "User"}, facts(text)


def test_a_doctor_who_says_so_is_still_the_users() -> None:
    assert ("User", "doctor", "Dr. Amy") in facts("Dr Amy said I'm fine")


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Dr Farah Benali says its gout, my uric acid was 520", ("User", "diagnosed with", "gout")),
        ("the GP said it is asthma", ("User", "diagnosed with", "asthma")),
        ("i need a new family doctor here for my gout meds", ("User", "diagnosed with", "gout")),
        ("my asthma is acting up again", ("User", "diagnosed with", "asthma")),
        (
            "I'd report to Étienne Bouchard-Roy, he's the director of operations",
            ("User", "manager", "Étienne Bouchard-Roy"),
        ),
        ("I report directly to Sarah Kim", ("User", "manager", "Sarah Kim")),
    ],
)
def test_a_condition_named_or_a_manager_reported_to_is_recorded(text: str, fact: Fact) -> None:
    assert fact in facts(text), facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "my friend says it's diabetes",
        "Dr Lee said it's probably flu",
        "Dr Lee says my son has asthma",
        "my dad's gout is bad",
        "my mom has diabetes",
        'she said "my asthma is worse"',
        "I report to HR about this",
        "I'll report to Karen's manager",
        "I will report to Mike about the results",
        "she reports to Mark",
        "GOT THE JOB 🎉🎉",
        "also CAMILLE GOT A JOB TOO",
    ],
)
def test_someone_elses_condition_a_guess_or_a_job_got_records_none_of_the_users(text: str) -> None:
    mine = {f for f in facts(text) if f[0] == "User" and f[1] in {"diagnosed with", "manager"}}
    assert not mine and not {f for f in facts(text) if f[1] == "status"}, facts(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm a social worker in Leeds", {("User", "works as", "social worker")}),
        ("my sister Jen is a nurse at Mencap", {("Jen", "works as", "nurse"), ("Jen", "works at", "Mencap")}),
        (
            "Danny's a firefighter with Portland Fire Department",
            {("Danny", "works as", "firefighter"), ("Danny", "works at", "Portland Fire Department")},
        ),
        ("Sipho is a chef so he cooks", {("Sipho", "works as", "chef")}),
        (
            "I've been a natural resources manager at Defra for 5 years",
            {("User", "works as", "natural resources manager"), ("User", "works at", "Defra")},
        ),
    ],
)
def test_a_job_said_with_is_a_by_name_or_by_trade_is_recorded(text: str, expected: set[Fact]) -> None:
    assert expected <= facts(text), facts(text)


def test_a_condition_after_with_is_no_employer() -> None:
    assert {f for f in facts("Amy is a nurse with Type 1 diabetes") if f[1] == "works at"} == set()
    assert {f for f in facts("Amy is a nurse with PTSD") if f[1] == "works at"} == set()
    assert ("Jen", "works at", "Mencap") in facts("my sister Jen is a nurse at Mencap")
    assert ("Ana", "works at", "Cancer Research UK") in facts("My friend Ana is a scientist at Cancer Research UK.")


def test_a_job_after_another_clauses_if_is_still_said() -> None:
    found = facts("If you ever need a plumber, my brother Tom is a plumber at Pimlico Plumbers.")
    assert {("Tom", "works as", "plumber"), ("Tom", "works at", "Pimlico Plumbers")} <= found, found


@pytest.mark.parametrize(
    "text",
    [
        "Jen is a great cook",
        "Jen is a retired nurse",
        "Jen is a former nurse",
        "Jen is a nurse at heart",
        "Jen is a nervous driver",
        "Figma is a designer tool",
        "Duolingo is a teacher in your pocket",
        "Jen is a lawyer for the Smiths",
        "I don't think Ben is a doctor.",
        "I heard Ben is a doctor at the Royal Free",
        "Everyone says Ben is a chef, but he's not",
        "Ben is a doctor, right?",
        "Jen is a recently retired nurse at Kings College Hospital",
        "Ben is a semi-retired nurse at the Royal Free",
        "Jen was a nurse",
        "Is Jen a nurse?",
        "Jen is a regular at Costa",
        "I'm a hard worker",
        "my cousin Nina is in Leeds, he works as a paramedic there",  # "he" is someone else
    ],
)
def test_praise_a_past_a_thing_a_question_or_another_sex_records_no_job(text: str) -> None:
    assert not {f for f in facts(text) if f[1] in {"works as", "works at"}}, facts(text)


@pytest.mark.parametrize(
    ("text", "thing", "model"),
    [
        ("we went with a 2019 Toyota Aqua in the end", "car", "2019 Toyota Aqua"),
        ("ended up buying a Samsung Galaxy S24 at the mall", "phone", "Samsung Galaxy S24"),
        ("I opted for the iPhone 15 in the end", "phone", "iPhone 15"),
        ("settled on a Kindle Paperwhite", "e-reader", "Kindle Paperwhite"),
        ("I ended up getting a Honda Civic", "car", "Honda Civic"),
        ("I went with a RAV4 because it was cheaper", "car", "RAV4"),
    ],
)
def test_a_product_chosen_is_bought(text: str, thing: str, model: str) -> None:
    assert (thing, "is", model) in facts(text), facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "should we have gone with the Civic?",
        "my sister went with a Honda Civic",
        "we almost went with the Civic but it was too pricey",
        "I went with a Civic rental for the trip",
        "we went with a Toyota guy to see the car",
        "I went with the iPhone 15 and a tripod to the concert",
        "I went with the iPhone 15 to the concert",
    ],
)
def test_a_choice_not_made_or_not_ones_own_buys_nothing(text: str) -> None:
    assert not {f for f in facts(text) if f[1] in {"is", "owns"} or f[2] == "bought"}, facts(text)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("I have Crohn's disease so I'm home a lot", set()),
        ("turns out it's Hashimoto's", set()),
        ("my friend Addison is coming over", {"Addison"}),  # a person by that name stays
        ("Dr Parkinson said my knee is fine", {"Dr. Parkinson"}),
    ],
)
def test_the_person_a_condition_is_named_after_is_no_entity(text: str, names: set[str]) -> None:
    said = {m.name for ms in chat(text).mentions.values() for m in ms if m.kind != "t"}
    assert said == names, said
