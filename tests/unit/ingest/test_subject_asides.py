"""Asides that must not name a chat's wing (`ingest.subjects._in_passing`,
`ingest.subject_naming.link_medicines`): a person the user names once, late, and a
medicine dosed once on the way to asking about something else."""

from __future__ import annotations

from ingest.extract_offline import extract_window
from ingest.subjects import choose_subject, rank_candidates
from tests.unit.ingest.test_subjects import convo

KAYAK = convo(
    "got the kayak back from the repair shop, they patched the crack in the hull. ok to paddle a river now?",
    "If the patch has cured for a couple of days it should be fine; check the seam after the first trip.",
    "the kayak sits a bit low at the stern too, is that the patch?",
    "A little extra weight at the stern is normal after a repair; trim it with your own position.",
    "my pal omar is tagging along this weekend, never been in a kayak before. what should he wear?",
    "He should wear a buoyancy aid, quick-drying layers and shoes that can get wet.",
    "and should he bring anything else? he thinks its like a pedalo lol",
    "A spare layer in a dry bag and a bottle of water; give him a quick capsize briefing first.",
)


def test_a_friend_named_once_late_is_no_candidate_however_often_he_is_he() -> None:
    mentions = extract_window(KAYAK).mentions
    assert any(m.kind == "p" and m.name.lower() == "omar" for ms in mentions.values() for m in ms)
    ranked = rank_candidates(KAYAK, mentions)
    assert all(c.key != "omar" for c in ranked)
    subject = choose_subject(KAYAK, mentions)
    assert subject is not None and subject.name == "Kayak"


def test_a_friend_the_opening_names_stays_a_candidate() -> None:
    turns = convo(
        "my pal omar wants to learn to paddle, where should he start?",
        "A flat-water taster session is the usual first step for him.",
        "he can swim but is nervous of capsizing",
        "Most clubs practise a capsize in the pool first, which helps nerves.",
    )
    assert any(c.key == "omar" for c in rank_candidates(turns, extract_window(turns).mentions))


SCAN = convo(
    "the clinic put me on lansoprazole 30 mg each morning and booked me in for an ultrasound. do I need to fast?",
    "Usually yes: nothing to eat for about six hours before an abdominal ultrasound, water is often fine.",
    "the ultrasound is at 8am so that is easy. how long does the ultrasound take?",
    "Around twenty minutes; the sonographer spreads gel on your belly and moves a probe over it.",
    "will they tell me the results on the day?",
    "Often the report goes to your doctor first, who will discuss it with you.",
)


def test_a_medicine_dosed_once_on_the_way_to_a_procedure_is_a_detail() -> None:
    ranked = rank_candidates(SCAN, extract_window(SCAN).mentions)
    assert all(c.key != "lansoprazole" for c in ranked)
    assert ranked[0].key == "ultrasound"
