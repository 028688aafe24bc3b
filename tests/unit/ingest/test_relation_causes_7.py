"""Facts the seventh held-out set's chats state and mining missed or got wrong, each read by its
general cause and checked with sentences of its own.

* A job held till now said in the perfect: "I've been a driver for Acme 9 yrs", "I've worked at Acme
  for 5 years" (stored as a former job), "I've been at Acme 9 yrs".
* A job said by "as": "2 months in as a driver trainer at Cardinal", "I work as a nurse for Acme".
* Someone else's employer said by their job: "Ana loves her job at the City Library".
* "I'm a regular at Starbucks", "a vegetarian for ethical reasons" were stored as jobs; "put me on a
  low sugar diet" as a medicine.
* A diet someone put the speaker on; a pet named in brackets.
* A clinician got and named next ("finally got a family doctor!! … Dr. Samuel Osei at the clinic").
* A home found ("we found a place in Barrie, a semi near the bay").
* A dislike said without "I" ("hate the 400 traffic every friday tho"); "I hate going to the gym" stored
  "going".
"""

from __future__ import annotations

import pytest

from tests.unit.ingest.chat_window import Fact, chat, facts
from tests.unit.ingest.linear_time import assert_linear


def _of(predicate: str, *turns: str) -> set[Fact]:
    """What a window of turns states by `predicate`, names typed as mining types them."""
    return {(r.subject.name, r.predicate, r.value) for r in chat(*turns).relations if r.predicate == predicate}


@pytest.mark.parametrize(
    ("text", "job", "employer"),
    [
        ("I've been a long haul driver for Northshore Freight Lines almost 9 yrs now", "long haul driver",
         "Northshore Freight Lines"),
        ("ive been a nurse at Leeds General for years", "nurse", "Leeds General"),
        ("I have been a data analyst at Globex since 2019", "data analyst", "Globex"),
    ],
)  # fmt: skip
def test_a_job_held_till_now_in_the_perfect(text: str, job: str, employer: str) -> None:
    found = facts(text)
    assert ("User", "works as", job) in found and ("User", "works at", employer) in found, found


@pytest.mark.parametrize(
    "text",
    [
        "I've been a teacher at Lincoln High but I quit last year",
        "I've been a speaker at PyCon",
        "I've been a nurse before, at Mercy Hospital",
        "I've been at Starbucks since 8 working on my essay",
        "I've been at Costco since noon",
        "I've been at Ikea for ages and still can't find the lamps",
        "we've been at Disneyland for a while and the kids are tired",
        "I've been at Mayo Clinic for 3 months getting treatment",
        "I've worked at Acme Corp for 5 years but I left in 2019",
        "she's 2 months in as a manager at Tesco",
        "Ana, 2 months in as a nurse at Mercy, says it's tough",
        "Ana started her job at Google in 2010 and left in 2015",
    ],
)
def test_a_job_at_some_time_a_visit_or_someone_elses_is_no_current_job_of_the_speakers(text: str) -> None:
    assert not {f for f in facts(text) if f[0] == "User" and f[1] in {"works as", "works at"}}, facts(text)
    assert not {f for f in facts(text) if f[1] == "works at" and f[2] == "Google"}, facts(text)


@pytest.mark.parametrize(
    ("text", "employer"),
    [
        ("I've worked at Acme Corp for 5 years.", "Acme Corp"),
        ("I've been at Northshore 9 yrs and he gave me my first shot", "Northshore"),
        ("we've been working at Globex for the last three years", "Globex"),
        ("I have worked for Initech since 2020", "Initech"),
    ],
)
def test_a_job_with_how_long_it_has_lasted_is_current(text: str, employer: str) -> None:
    found = facts(text)
    assert ("User", "works at", employer) in found and not {f for f in found if f[1] == "worked at"}, found


@pytest.mark.parametrize(
    "text",
    ["I worked at Acme Corp for 5 years.", "I've also worked at Acme Corp.", "I used to work at Acme Corp"],
)
def test_a_job_in_the_past_or_among_others_is_a_former_one(text: str) -> None:
    assert ("User", "worked at", "Acme Corp") in facts(text)


@pytest.mark.parametrize(
    ("text", "job", "employer"),
    [
        ("2 months in as a driver trainer at Cardinal Transport. honestly love it.", "driver trainer",
         "Cardinal Transport"),
        ("I work as a data analyst for Acme Corp.", "data analyst", "Acme Corp"),
        ("three weeks in as a sous chef at Dishoom and my feet hurt", "sous chef", "Dishoom"),
        ("the ~$71k I make now as a long haul driver for Northshore", "long haul driver", "Northshore"),
    ],
)  # fmt: skip
def test_a_job_said_by_as(text: str, job: str, employer: str) -> None:
    found = facts(text)
    assert ("User", "works as", job) in found and ("User", "works at", employer) in found, found


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Renée loves her job at Barrie Public Library too btw", ("Renée", "works at", "Barrie Public Library")),
        ("Tom started his new job at Acme Corp last week", ("Tom", "works at", "Acme Corp")),
    ],
)
def test_someone_elses_job_at_an_employer(text: str, fact: Fact) -> None:
    assert fact in facts(text)


@pytest.mark.parametrize(
    "text",
    [
        "I'm a regular at Starbucks.",
        "I'm a member at Planet Fitness.",
        "I'm a vegetarian for ethical reasons.",
        "I'm a sucker for Italian food",
        "I've been a customer at Tesco for years",
        "I'm a loyal customer at Tesco",
    ],
)
def test_a_place_one_goes_to_a_habit_or_a_taste_is_no_job_nor_employer(text: str) -> None:
    assert not {f for f in facts(text) if f[1] in {"works as", "works at"}}, facts(text)


@pytest.mark.parametrize(
    ("text", "job"),
    [
        ("I'm a staff member at Tesco", "staff member"),
        ("I'm a producer for the BBC", "producer"),
        ("I'm a hairdresser at a salon downtown", "hairdresser"),
        ("I'm a resident at Mass General", "resident"),
    ],
)
def test_a_title_of_more_words_or_before_an_article_is_a_job(text: str, job: str) -> None:
    assert ("User", "works as", job) in facts(text)


def test_leaving_a_firms_office_ends_no_job() -> None:
    assert not facts("after leaving Acme Corp's office I grabbed lunch")


def test_a_diet_is_no_medicine() -> None:
    found = facts("my GP put me on a low sugar diet")
    assert ("User", "diet", "low sugar") in found and not {f for f in found if f[1] == "takes"}, found


@pytest.mark.parametrize(
    "text", ["ok that helps. Dr. Mehta wants me on a low carb diet too.", "the dietitian started me on a low fat diet"]
)
def test_a_diet_a_clinician_put_the_speaker_on(text: str) -> None:
    assert {f for f in facts(text) if f[1] == "diet"}, facts(text)


def test_a_pet_named_in_brackets_is_a_pet_whatever_its_name_says() -> None:
    assert _of("pet", "im fine, Diesel (my dog) was in the back and hes fine too") == {("User", "pet", "Diesel")}


@pytest.mark.parametrize("text", ["Chewy (my dog food supplier) is late again", "Rover (my dog walking app) is down"])
def test_a_thing_for_a_pet_in_brackets_is_no_pet(text: str) -> None:
    assert not _of("pet", text)


def test_a_diet_wanted_once_and_refused_is_none() -> None:
    assert not facts("my doctor wanted me on a low carb diet but I said no")


@pytest.mark.parametrize(
    "paste",
    ["I've been a ", "2 months in as a ", "Ana loves her job at ", "I've been at Acme ", "I've worked at Acme "],
)
def test_the_new_sayings_read_a_paste_in_linear_time(paste: str) -> None:
    assert_linear(facts, (paste * (24_000 // len(paste) + 1))[:24_000], paste)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (
            "finally got a family doctor in Barrie!! took 5 weeks on Health Care Connect. Dr. Samuel Osei at the "
            "Allandale Family Health Team. first appt was today",
            ("User", "doctor", "Dr. Samuel Osei"),
        ),
        ("I found a new GP. Dr. Patel seems nice", ("User", "doctor", "Dr. Patel")),
        ("we've registered with a new dentist, Dr Anna Kowalska on Main St", ("User", "dentist", "Dr Anna Kowalska")),
    ],
)
def test_a_clinician_got_and_named_next(text: str, fact: Fact) -> None:
    assert fact in _of(fact[1], text)


@pytest.mark.parametrize(
    "text",
    [
        "do you think i should have a new dentist? Dr Kim is good",
        "I have a therapist but Dr. Jones is better",
        "I have a GP. Dr. Jones, my mum's GP, is lovely",
        "I found a new GP last month. my husband sees Dr. Ahmed though",
        "I got a new dentist! unlike my brother who still goes to Dr. Kim",
        "I got a new dentist and my daughter's dentist is Dr. Kim",
        "I got a new doctor and she referred me to Dr. Li, a cardiologist",
        "I got a new therapist. Dr. Kim, who my friend sees, recommended her",
        "I found a therapist for Emma, Dr. Kim",
        "we have a family doctor shortage in Barrie, Dr. Osei told the paper",
        "I found a dentist near me. grabbed a Dr Pepper after",
    ],
)
def test_a_clinician_asked_about_or_anothers_is_not_the_speakers(text: str) -> None:
    assert not {r for r in chat(text).relations if r.predicate in {"doctor", "dentist", "therapist"}}


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("we used to go every feb. hate the 400 traffic every friday tho", "400 traffic"),
        ("can't stand coriander tbh", "coriander"),
    ],
)
def test_a_dislike_said_without_i(text: str, value: str) -> None:
    assert ("User", "dislikes", value) in facts(text)


@pytest.mark.parametrize(
    "text",
    ["hate that for you", "hate when it rains", "Hate to say it but you are right", "Do you hate the rain?",
     "hate the fact that im late", "I hate going to the gym", "I love going to concerts", "hate going to the gym",
     "can't stand up straight since the surgery", "can't stand for long because of my knee",
     "Hate speech is everywhere on that site", "hate myself for eating all that cake", "hate u lol",
     "hate on me all you want", "Hate the game, not the player", '"hate the rain" is what my brother always says',
     "hate seeing you stressed"],
)  # fmt: skip
def test_a_dislike_of_a_pronoun_a_clause_or_a_light_verb_is_none(text: str) -> None:
    assert not {f for f in facts(text) if f[1] in {"dislikes", "likes"}}, facts(text)


@pytest.mark.parametrize("paste", ["finally got a family doctor ", "got a new GP. ", "hate the "])
def test_the_clinician_and_dislike_sayings_read_a_paste_in_linear_time(paste: str) -> None:
    assert_linear(chat, (paste * (24_000 // len(paste) + 1))[:24_000], paste)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("I love making sourdough", ("User", "likes", "making sourdough")),
        ("I hate getting up early", ("User", "dislikes", "getting up early")),
        ("hate pudding", ("User", "dislikes", "pudding")),
    ],
)
def test_a_taste_of_an_activity_or_a_thing_is_kept(text: str, fact: Fact) -> None:
    assert fact in facts(text)


def test_a_role_of_someone_elses_names_no_relation_of_the_speakers() -> None:
    assert not {f for f in facts("Dr. Patel is my son's orthodontist") if f[0] == "User"}


@pytest.mark.parametrize(
    ("text", "city"),
    [
        ("we found a place in Barrie, a semi near Kempenfelt Bay.", "Barrie"),
        ("we found a flat in Leith", "Leith"),
        ("I got a place in Leeds to rent", "Leeds"),
    ],
)
def test_a_home_found(text: str, city: str) -> None:
    assert _of("lives in", text) == {("User", "lives in", city)}


@pytest.mark.parametrize(
    "text",
    [
        "we found a place in Rome that does great pizza",
        "did you find a flat in Leith?",
        "I found a house in Leeds for my mum",
        "we've rented a cottage in Cornwall for the summer",
        "We found a house in Leeds but the offer fell through",
        "I found a flat in Leith on Rightmove for my brother",
        "I found a house in Leeds that's perfect for my parents",
        "we got a cottage in Cornwall, it was lovely for the week",
        "We found a rental in Whistler to stay in over Christmas",
        "we got a house in Spain as a holiday home",
        "Years ago we found a house in Leeds, now we're in York",
    ],
)
def test_a_place_found_to_eat_asked_about_or_for_another_is_no_home(text: str) -> None:
    assert not _of("lives in", text)
