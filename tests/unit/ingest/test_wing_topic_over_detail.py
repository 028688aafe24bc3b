"""What a chat is about over the details that name parts of it (`ingest.subject_topics`,
`ingest.subject_centrality._spoken_of`): a companion named twice is no subject where the chat keeps
to a topic, two models of one kind are the kind, and a person's event is a candidate; a person or
place the chat keeps to still names it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ingest.extract_offline import extract_window
from ingest.extraction import TurnView
from ingest.subject_topics import _different, link_possessed
from ingest.subjects import WingSubject, choose_subject, rank_candidates
from tests.unit.ingest.linear_time import assert_linear
from tests.unit.ingest.test_subjects import convo

DOCUMENT = np.array([1.0, 0.0])


def _by_word(word: str) -> Callable[[Sequence[str]], np.ndarray]:
    """A stand-in embedder: texts holding ``word`` point along the chat's mean, every other text away."""

    def embed(texts: Sequence[str]) -> np.ndarray:
        return np.array([[1.0, 0.0] if word in t.lower() else [0.2, 0.98] for t in texts])

    return embed


def _subject(turns: list[TurnView], word: str) -> WingSubject | None:
    return choose_subject(turns, extract_window(turns).mentions, _by_word(word), DOCUMENT)


POTTERY = convo(
    "my neighbour Farida talked me into a pottery course at the community centre, first class is thursday",
    "A beginners' pottery course usually starts with pinch pots and coil building before the wheel.",
    "Farida says the wheel is the hard part, is that true",
    "Centring the clay on the wheel takes most beginners a few sessions; it clicks suddenly.",
    "what should i wear, will the clay ruin my clothes",
    "Wear old clothes or an apron; clay washes out of most fabrics, and short nails help.",
    "Farida is driving us. how long before i can take a pot home from pottery",
    "Pieces are dried, bisque fired and glaze fired, so two or three weeks is normal.",
)


def test_a_companion_named_twice_does_not_outrank_the_topic_the_chat_keeps_to() -> None:
    subject = _subject(POTTERY, "pottery")
    assert subject is not None and subject.name == "Pottery"


BROTHER = convo(
    "my brother Derek is moving back from Perth next month and staying with us for a bit",
    "That sounds like a big change for him. Is he moving back for work?",
    "yeah Derek got a job in Leeds, he starts in june. he hasn't lived in the UK for ten years",
    "He may need to sort a bank account and GP registration quickly after being away so long.",
    "good point, he also has no car. i might lend him my old bike",
    "A bike is a great stopgap while he finds his feet.",
)


def test_a_brother_the_chat_keeps_to_still_names_it() -> None:
    subject = _subject(BROTHER, "perth")
    assert subject is not None and subject.name == "Derek"


KYOTO = convo(
    "going to Kyoto in april with my friend Ana, what should we not miss",
    "Kyoto in April is cherry blossom season: the Philosopher's Path and Maruyama Park are classics.",
    "is Kyoto very crowded then? Ana hates crowds",
    "Go early: Fushimi Inari before 7am is almost empty, and Kyoto's smaller temples are quieter.",
    "where should we stay in Kyoto",
    "Around Gion or near Kyoto station, for easy trains.",
)


def test_a_trip_is_filed_under_its_place_not_the_friend_along() -> None:
    subject = _subject(KYOTO, "kyoto")
    assert subject is not None and subject.name.startswith("Kyoto")


PHONES = convo(
    "the screen on my Samsung Galaxy S21 went black after a drop, the repair is 200 quid",
    "At that price many people replace the phone instead, especially if the battery is also worn.",
    "yeah the battery is tired too. is the iPhone 14 a good buy or should i wait",
    "The iPhone 14 is still a solid buy, and prices drop when a new model launches.",
    "ok got the iPhone 14. how do i move my photos over from the galaxy",
    "Use Apple's Move to iOS app on the old phone, or Google Photos backup.",
)


def test_two_models_of_one_kind_are_the_kind() -> None:
    subject = _subject(PHONES, "phone")
    assert subject is not None and subject.name == "Phone"
    assert "phone" in subject.aliases


ONE_CAR = convo(
    "my 2014 Honda Civic makes a grinding noise when i brake",
    "Grinding usually means the brake pads are worn down to the metal backing.",
    "is the civic safe to drive to the garage",
    "Short and gentle, yes, but the discs may be scored already, so go soon.",
)


def test_one_model_under_several_spellings_stays_the_model() -> None:
    ranked = rank_candidates(ONE_CAR, extract_window(ONE_CAR).mentions)
    assert any("civic" in c.key for c in ranked)  # not folded into "car"


CHRISTENING = convo(
    "Mia's christening is on the 12th and i'm her godmother, what's a good gift",
    "Traditional gifts include an engraved keepsake, a children's bible or a savings bond.",
    "something engraved sounds lovely. do godparents say anything at Mia's christening",
    "Godparents usually make their promises in the service; the vicar will guide you through them.",
)


def test_the_noun_after_a_name_s_possessive_is_a_candidate() -> None:
    ranked = rank_candidates(CHRISTENING, extract_window(CHRISTENING).mentions)
    assert any(c.key == "christening" for c in ranked)
    subject = _subject(CHRISTENING, "christening")
    assert subject is not None and subject.name == "Mia's christening"  # no one else's christening joins it
    assert "christening" in subject.aliases


# Review of 2026-11-30: each case below went wrong under the first cut of these rules.

MUSIC = convo(
    "Jazz or Soul, which should i learn first on piano",
    "Jazz teaches improvisation; Soul is more about groove and feel.",
    "Soul sounds easier. is Jazz theory hard",
    "Jazz theory takes a while, but Soul voicings carry over.",
)
YOGA = convo(
    "Yoga or Pilates at the Pavilion, which is better for my back",
    "Yoga at the Pavilion is gentler; Pilates builds core strength.",
    "the Pavilion Yoga class is at 7, is that too early",
    "Early Yoga is fine; warm up well at the Pavilion.",
)
CANYONS = convo(
    "Grand Canyon or Bryce Canyon for a first trip",
    "Grand Canyon is bigger; Bryce Canyon has the hoodoos.",
    "is Bryce Canyon busy in May",
    "Bryce Canyon is quieter than the Grand Canyon in May.",
)
GALAXIES = convo(
    "Andromeda Galaxy or Whirlpool Galaxy, which is easier to photograph",
    "The Andromeda Galaxy is far brighter than the Whirlpool Galaxy.",
    "what lens for the Whirlpool Galaxy",
    "A 200mm lens frames the Whirlpool Galaxy well.",
)


def test_everyday_words_and_places_that_are_also_product_names_are_no_products() -> None:
    for turns, kind in [(MUSIC, "Car"), (YOGA, "Laptop"), (CANYONS, "Bike"), (GALAXIES, "Phone")]:
        names = [c.name for c in rank_candidates(turns, extract_window(turns).mentions)]
        assert kind not in names, names


MARCUS = convo(
    "i've got a second date with Marcus on saturday and i'm kind of nervous, any advice",
    "Second dates are often easier: you already know you get on. What are you planning?",
    "we're going for dinner, somewhere italian i think",
    "Italian is a relaxed choice. Pick somewhere you can hear each other talk.",
    "what should i wear, it's not a fancy place",
    "Smart casual: something you feel comfortable and confident in.",
    "should i pay or split the bill",
    "Offering to split is a safe default; see how the evening goes.",
    "what do i talk about if it goes quiet",
    "Ask about plans, hobbies and travel.",
    "Marcus mentioned hiking i think",
    "Then ask about favourite walks, or suggest one for a third date.",
    "ok that helps, thanks",
    "Good luck, and enjoy it.",
)
ROBIN = convo(
    "my partner Robin and i keep arguing about housework, how do couples split chores fairly",
    "Many couples list every chore, estimate the time each takes, and split by time rather than count.",
    "Robin works longer hours than me though, so is 50/50 even fair",
    "Fair needn't mean equal: weigh paid hours too, so the total load is balanced.",
    "they hate cleaning the bathroom and i hate cooking, could we just swap those",
    "Swapping by preference works well; write the split down and review it after a month.",
    "what about the chores neither of us wants, like the bins",
    "Rotate those weekly, or pay for help with the worst of them if the budget allows.",
)


def _nowhere(texts: Sequence[str]) -> np.ndarray:
    """A stand-in embedder that places every phrase away from the chat: nothing is measured close."""
    return np.array([[0.0, 1.0] for _ in texts])


def test_a_person_named_twice_in_a_long_chat_with_no_other_subject_still_names_it() -> None:
    subject = choose_subject(MARCUS, extract_window(MARCUS).mentions, _nowhere, DOCUMENT)
    assert subject is not None and subject.name == "Marcus"


def test_the_user_s_partner_is_never_a_companion_in_passing() -> None:
    subject = _subject(ROBIN, "chores")
    assert subject is not None and subject.name == "Robin"


def test_a_name_s_contraction_is_no_possessive() -> None:
    for name, verb, rest in [
        ("Josh", "leaving", "for uni in september"),
        ("Leo", "starting", "secondary school next week"),
        ("Ella", "turning", "5 on sunday"),
    ]:
        turns = convo(
            f"{name}'s {verb} {rest} and i'm dreading it",
            "That's a big moment for the family.",
            f"{name}'s {verb} so soon, how do i help {name}",
            f"Talk it through with {name}.",
        )
        assert verb not in [c.key for c in rank_candidates(turns, extract_window(turns).mentions)]
        subject = _subject(turns, verb)
        assert subject is not None and subject.name == name, subject


TESLA = convo(
    "my Tesla keeps losing range in the cold, is that normal",
    "Yes, EVs lose range in winter as the battery and cabin need heating.",
    "it's a Model 3 from 2019, should i precondition it",
    "Preconditioning while plugged in saves range on a Model 3.",
    "will the Tesla battery wear faster in winter",
    "Cold does not wear it much; fast charging a cold pack does more.",
)
HONDA = convo(
    "my Honda won't start this morning, just clicks",
    "A single click often means a flat battery or a bad starter connection.",
    "the Jazz is 9 years old, could it be the original battery",
    "Very likely: car batteries last about five to seven years.",
    "can i jump start the Honda myself",
    "Yes, with leads and a donor car: red to positive, black to an unpainted metal point.",
)


def test_one_product_named_by_maker_and_by_model_is_that_product() -> None:
    assert not _different(["civic", "hondacivic", "2012civic"])
    assert not _different(["tesla", "model3"])
    assert _different(["civic", "outback"])
    for turns, word in [(TESLA, "tesla"), (HONDA, "honda")]:
        subject = _subject(turns, word)
        assert subject is not None and subject.name != "Car", subject


GOLF = convo(
    "my Golf is making a rattling noise from the back over bumps",
    "Rattles over bumps are often a loose exhaust heat shield or worn drop links.",
    "my mate had the same on his Corolla and it was the heat shield",
    "That is common to many cars; a jubilee clip often fixes a loose heat shield.",
    "can i check the Golf heat shield myself",
    "Yes, with the car safely on ramps, tap along the exhaust and listen.",
)


def test_someone_else_s_product_is_not_folded_into_the_user_s() -> None:
    subject = _subject(GOLF, "golf")
    assert subject is not None and subject.name == "Golf"


def test_the_kind_keeps_every_model_s_spelling() -> None:
    subject = _subject(PHONES, "phone")
    assert subject is not None and subject.name == "Phone"
    assert "iphone 14" in subject.aliases


def test_a_possessive_after_a_long_hyphenated_token_is_read_in_linear_time() -> None:
    found = rank_candidates(CHRISTENING, extract_window(CHRISTENING).mentions)
    pool = {c.key: c for c in found}

    def read(text: str) -> object:
        link_possessed(dict(pool), convo(text + " Mia's christening"))
        return None

    assert_linear(read, "well-" * 10000, "well- chain")
    assert_linear(read, "x-" * 25000, "x- chain")


READERS = convo(
    "my Kindle Paperwhite died, thinking of getting a Kobo Clara instead",
    "The Kobo Clara reads EPUB directly and borrows library books through OverDrive.",
    "can i move my Kindle books to the Kobo",
    "Only DRM-free ones; Kindle purchases stay in Amazon's format.",
)


def test_a_kind_is_named_as_written() -> None:
    subject = _subject(READERS, "reader")
    assert subject is not None and subject.name == "E-reader", subject


def test_a_person_s_kin_is_no_event_of_theirs() -> None:
    turns = convo(
        "back to work on monday after leave, and Rachel's friend is my new manager",
        "A new manager can be a fresh start; ask for a catch-up in the first week.",
        "Rachel's friend seems nice but i'm nervous about work",
        "That's normal after leave; plan your first day.",
    )
    assert not any("'s friend" in c.name for c in rank_candidates(turns, extract_window(turns).mentions))
