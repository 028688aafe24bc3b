"""A new user's second chat, about other things, gets its own wing.

Walking through `loci serve` as a new user: a first chat says where the user works, names
their turtle and their sister; a second chat, weeks later, is about quitting the job, the
sister moving and a friend's new job, and never mentions the turtle. Both were filed under
one wing, "Turtle". Two causes:

* the content join (`ingest.wing_content`) lets a chat whose subject names no wing join the
  wing whose drawers its content is closest to, when that wing leads the runner-up by
  ``join_margin``. With one wing in the palace there was no runner-up, the lead was taken
  over 0.0, and the bar alone joined the second chat (cosine 0.55: the same register, the
  same sister) to whatever the first chat's wing was. It now needs a second wing to measure
  the lead against;
* the wing rule's pet words (`SubjectRules.species`) were a shorter list than the graph's
  (`ingest.entity_vocab.PETS`): the graph recorded Sushi as the user's pet, species turtle,
  while the wing rule, knowing no turtles, named the wing by the species word.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime, timedelta

import pytest
from litestar.testing import AsyncTestClient

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
Said = Sequence[tuple[str, str]]

SISTER = (
    ("user", "My sister Zaria lives in Bristol."),
    ("assistant", "I'd be happy to help! Bristol is a great city."),
)
FIRST = (
    ("user", "I work at Acme as a designer. My turtle is called Sushi."),
    ("assistant", "Great question! That sounds lovely. Sushi is a nice name for a turtle."),
    *SISTER,
)
JOB_CHANGES = (
    ("user", "I quit my job today. Zaria moved to Leeds."),
    ("assistant", "That's a big change! Let me know if you need anything else."),
    ("user", "Hannah got a new job at Globex."),
    ("assistant", "Great news for Hannah!"),
)
FIRST_ABOUT = {
    "a balcony garden": (
        ("user", "I work at Acme as a designer. My balcony garden is finally full of tomatoes."),
        ("assistant", "That sounds lovely. Tomatoes do well in a balcony garden."),
        *SISTER,
    ),
    "a piano": (
        ("user", "I work at Acme as a designer. I play the piano in the evenings."),
        ("assistant", "That sounds lovely. The piano is a great way to unwind."),
        *SISTER,
    ),
}
"""First chats whose wing is a common noun the second chat never mentions (as "Turtle" was)."""
PET = (
    ("user", "My turtle is called Sushi and he has stopped eating this week."),
    ("assistant", "A turtle that stops eating is often too cold. How warm is Sushi's tank?"),
    ("user", "Sushi's basking lamp says 24 degrees. Should I take Sushi to a vet?"),
    ("assistant", "Raise the basking spot to about 30 degrees first, then see a reptile vet if he still refuses food."),
)


async def _palace(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, chats: Sequence[Said]
) -> list[tuple[str, str]]:
    """A new user's chats mined in order, one a month from March 2026; the palace's wings
    as `GET /v1/palace` lists them: (label, kind)."""
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    for i, said in enumerate(chats):
        start = datetime(2026, 3 + i, 2, 9, 0, tzinfo=UTC)
        turns = [TurnIn(role, text, start + timedelta(minutes=k)) for k, (role, text) in enumerate(said)]
        ref = await store_conversation(db, user.id, external_id=f"chat-{i}", agent_id=None, turns=turns)
        await complete_conversation(db, user.id, f"chat-{i}")
        await mine_conversation(deps, ref.id)
    answer = await client.get("/v1/palace", headers=user.headers)
    assert answer.status_code == 200, answer.text
    return [(w["label"], w["kind"]) for w in answer.json()["items"]]


async def test_the_job_change_chat_does_not_join_the_turtle_chat(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    wings = await _palace(db, embedder, settings, new_user, client, (FIRST, JOB_CHANGES))
    assert len(wings) == 2 and ("Work", "topic") in wings, wings  # was [("Turtle", "topic")], both chats in it
    assert "Turtle" not in [label for label, _ in wings], wings


@pytest.mark.parametrize("about", sorted(FIRST_ABOUT))
async def test_a_second_chat_never_joins_the_only_wing_by_content(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client, about: str
) -> None:
    wings = await _palace(db, embedder, settings, new_user, client, (FIRST_ABOUT[about], JOB_CHANGES))
    assert len(wings) == 2 and ("Work", "topic") in wings, wings


async def test_a_turtle_is_a_pet_named_by_its_name(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    wings = await _palace(db, embedder, settings, new_user, client, (PET,))
    assert wings == [("Sushi", "topic")], wings
