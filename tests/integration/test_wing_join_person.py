"""A chat that never mentions a person is never filed under that person's wing.

Walking through `loci serve`: a user's chats were a Porto trip with their partner Inês (wing
"Inês", a person), a recipes chat, a group chat planning a hike with friends Sam and Priya
(their turns sent as role ``other`` with a ``name``) and a work chat with a colleague, Marco,
about a project deadline. Both the hike chat and the work chat were filed under "Inês", whom
neither mentions. The content join (`ingest.wing_content`) took them there: their subjects
were common nouns that named no wing, and their mean drawer embedding was nearest the Inês
wing's, whose drawers hold the user's plans, walks and weekends. Closeness to what a person's
chats are about is no evidence that a chat is about that person: a chat joins a person's wing
by content only when it mentions them (the wing's name or one of its aliases), when it calls
someone "he" or "she" whom no one it names can be (held-out sets 15-19: "she passed her
exams" about a daughter), or when its own subject is a person known only by kin ("my nana"
after "my grandmother", `tests/integration/test_wings_held_out.py`, set 4).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import select

from domain.accounts import create_user
from ingest import MiningDeps, TurnIn, mine_conversation, store_conversation
from ingest.extraction import EntityMention, TurnView
from ingest.subject_rules import SUBJECT_RULES
from ingest.wing_content import chat_content, speaks_of
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Room, Wing
from loci.settings import Settings

Said = Sequence[tuple[str, str] | tuple[str, str, str]]

PORTO = (
    ("user", "Inês and I are going to Porto for a long weekend in May for her birthday, can you help me plan it?"),
    ("assistant", "Happily! What does Inês enjoy? Food, wine, walking, music?"),
    (
        "user",
        "Inês loves walking, we want to do a day walk along the Douro on the Saturday and see the river at sunset.",
    ),
    ("assistant", "Take an early train to Pinhão and walk the vineyard trail; it is about 12km with a steep climb."),
    ("user", "Sounds great. Inês will want to start early, what should we pack for the walk?"),
    ("assistant", "Water, sun cream, layers and good shoes; the trail is exposed and it gets hot by midday."),
    ("user", "On the Sunday Inês wants to see the bookshop and eat somewhere nice, she's vegetarian."),
    (
        "assistant",
        "Book Lello early, and a table near Ribeira for her birthday dinner; several places do vegetarian menus.",
    ),
    ("user", "Should I tell Inês about the plans or keep them a surprise?"),
    ("assistant", "Tell her the dates so she can take the Friday off, and keep the dinner a surprise."),
    ("user", "Good point, Inês has to ask her boss for the Friday. I'll tell her tonight."),
    ("assistant", "Sounds like a lovely weekend. She'll have something to look forward to."),
)
RECIPES = (
    ("user", "I want to cook more at home. Can you give me a few easy weeknight recipes?"),
    ("assistant", "Sure: a chickpea curry, a one-pan lemon chicken with potatoes, and a pasta with roasted peppers."),
    ("user", "The chickpea curry recipe sounds good. What spices do I need?"),
    ("assistant", "Cumin, coriander, turmeric and garam masala, plus garlic, ginger and a tin of tomatoes."),
    ("user", "Can I make the curry recipe ahead and freeze it?"),
    ("assistant", "Yes, it freezes well for up to three months; add fresh coriander when you reheat it."),
    ("user", "And for the lemon chicken recipe, thighs or breasts?"),
    ("assistant", "Thighs: they stay juicy in the oven. Roast at 200C for about 40 minutes."),
    ("user", "Great, I'll try both recipes this week."),
    ("assistant", "Enjoy! Let me know how they turn out."),
)
HIKE = (
    ("user", "Ok so the hike on Saturday, are we still doing the ridge trail?", "Me"),
    ("other", "I'm in! The ridge trail is about 14km, so we should start early.", "Sam"),
    ("other", "Can we do 8am at the car park? I need to be back by five.", "Priya"),
    ("user", "8am works. Who's driving to the trailhead?", "Me"),
    ("other", "I can drive, my car fits four. I'll pick you both up at 7:15.", "Sam"),
    ("assistant", "For a 14km ridge hike, pack at least two litres of water each, layers, sun cream and snacks."),
    ("other", "Forecast says it gets hot after midday, and windy on the ridge. Bring a jacket.", "Priya"),
    ("user", "Should we take the longer loop back or the same trail down?", "Me"),
    ("assistant", "With the heat after midday, the same trail down is quicker and more sheltered."),
    ("other", "Same trail then. I'll bring sandwiches for the summit.", "Sam"),
    ("user", "Perfect, see you both Saturday at the car park for the hike.", "Me"),
)
WORK = (
    ("user", "My colleague Marco and I have a project deadline on Friday and we're behind."),
    ("assistant", "What is left on the project, and what is blocking you?"),
    ("user", "The report and the client demo. The data import for the demo still fails."),
    ("assistant", "Fix the import first: the demo depends on it. Could you show the demo on last week's data?"),
    (
        "user",
        "Maybe. I really don't want to work the weekend, I have plans on Saturday. Should I ask to move the deadline?",
    ),
    (
        "assistant",
        "Ask your manager today, not Thursday: say what is done, what is left and what Monday would buy you.",
    ),
    ("user", "Ok. We think we can finish the report by Wednesday if the import works."),
    ("assistant", "Then split it: one of you takes the import, the other the report, and check in each afternoon."),
    ("user", "Good plan. I'll email my manager about the deadline this afternoon."),
    ("assistant", "Good luck with the project, you've got a clear plan now."),
)

PHOTO_BOOK = (
    ("user", "I want to make a photo book of our Porto weekend as a surprise for Inês. Where do I start?"),
    ("assistant", "Pick a service first: most let you upload photos and drag them into a layout."),
    ("user", "I have about 300 photos from the Douro walk, the bridge at sunset and the birthday dinner."),
    ("assistant", "Choose 40 to 60: one or two per page, with the sunset on the bridge for the cover."),
    ("user", "Should the photo book go in order, from the train to the dinner?"),
    ("assistant", "In order works well for a trip: the walk, the river, then the birthday dinner at the end."),
    ("user", "Can I add captions with the places, like Pinhão and Ribeira?"),
    ("assistant", "Yes, short captions with the place and the day read best."),
    ("user", "Great, I'll order the photo book this week so it arrives in time."),
    ("assistant", "Lovely idea, it will be a nice keepsake of the weekend."),
)


async def _wings_of(db: Database, embedder: Embedder, settings: Settings, chats: Sequence[Said]) -> list[str]:
    """A fresh user's chats mined in order, one a week; the name of each chat's wing."""
    user = await create_user(db, f"join-person-{secrets.token_hex(3)}")
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    ids: list[int] = []
    for i, said in enumerate(chats):
        start = datetime(2026, 4, 1, 9, 0, tzinfo=UTC) + timedelta(weeks=i)
        turns = [
            TurnIn(turn[0], turn[1], start + timedelta(minutes=k), turn[2] if len(turn) > 2 else None)
            for k, turn in enumerate(said)
        ]
        ref = await store_conversation(db, user.id, external_id=f"chat-{i}", agent_id=None, turns=turns)
        await mine_conversation(deps, ref.id)
        ids.append(ref.id)
    async with db.user_session(user.id) as s:
        names = {wing_id: name for wing_id, name in (await s.execute(select(Wing.id, Wing.name))).all()}
        rooms = {conv: wing for conv, wing in (await s.execute(select(Room.conversation_id, Room.wing_id))).all()}
    return [str(names[rooms[conv]]) for conv in ids]


async def test_chats_that_never_mention_a_person_stay_out_of_their_wing(
    db: Database, embedder: Embedder, settings: Settings
) -> None:
    porto, recipes, hike, work = await _wings_of(db, embedder, settings, (PORTO, RECIPES, HIKE, WORK))
    assert porto == "Inês", (porto, recipes, hike, work)
    assert "Inês" not in (recipes, hike, work), (porto, recipes, hike, work)


async def test_a_chat_that_names_the_person_still_joins_their_wing_by_content(
    db: Database, embedder: Embedder, settings: Settings
) -> None:
    """The photo book names Inês once (so she is not its subject) and shares the trip's content."""
    porto, recipes, photos = await _wings_of(db, embedder, settings, (PORTO, RECIPES, PHOTO_BOOK))
    assert (porto, photos) == ("Inês", "Inês"), (porto, recipes, photos)


def _said(text: str) -> str:
    return chat_content([TurnView(1, 1, "user", text, datetime(2026, 4, 1, tzinfo=UTC))], {}, None, SUBJECT_RULES).said


def test_a_chat_speaks_of_a_person_by_name_alias_or_the_kin_word_people_use_as_a_name() -> None:
    assert speaks_of("Inês", ["inês"], _said("Booked dinner for Inês's birthday."), SUBJECT_RULES)
    assert not speaks_of("Inês", ["inês"], _said("Inêsa and Sam came on the hike."), SUBJECT_RULES)
    helen = ("Helen", ["helen", "my mum"])
    assert speaks_of(*helen, _said("Picked up the prescription for mum today."), SUBJECT_RULES)
    assert speaks_of(*helen, _said("My mum called."), SUBJECT_RULES)
    assert not speaks_of(*helen, _said("Planning a hike with friends."), SUBJECT_RULES)
    # "friend" is a kin word nobody uses as a name: "a friend" is not the wing's "my friend"
    assert not speaks_of("Theo", ["theo", "my friend"], _said("A friend lent me a tent."), SUBJECT_RULES)


def _unnamed(mentions: dict[int, list[EntityMention]], *said: tuple[str, str, str | None]) -> frozenset[str]:
    turns = [
        TurnView(i, i, role, text, datetime(2026, 4, 1, tzinfo=UTC), name) for i, (role, text, name) in enumerate(said)
    ]
    return chat_content(turns, mentions, None, SUBJECT_RULES).unnamed


def test_a_he_or_she_the_chat_never_names_may_be_a_person_named_before() -> None:
    """Set 16's "she passed her exams … a scottish guy called Euan": the "she" is no one the
    chat names, so it may be the daughter's wing; a "he" that Marco, a colleague "my boss" or
    a man writing in the chat can be, is."""
    euan = {0: [EntityMention("p", "Euan")]}
    assert _unnamed(euan, ("user", "she passed her exams and she has a boyfriend called Euan", None)) == {"f"}
    marco = {0: [EntityMention("p", "Marco")]}
    assert _unnamed(marco, ("user", "Marco says he can finish the demo", None)) == frozenset()
    assert _unnamed({}, ("user", "my boss says she needs it by Friday", None)) == frozenset()
    assert _unnamed({}, ("user", "is he driving?", None), ("other", "yes I am", "Sam")) == frozenset()
    assert _unnamed({}, ("user", "Need present ideas for my other half, his birthday is next month", None)) == {"m"}
