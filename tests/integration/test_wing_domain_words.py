"""A life domain's word stays the domain's when the user capitalises it.

People write "my Manager" or "the Office" with a capital; the extractor then reads a name, and
the wing rule took that name for the chat's subject: a job change was filed under a wing called
"Manager", a project. A domain's words are details of the domain, never subjects of their own
(`ingest.subject_rules`), however they are spelled.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta

from litestar.testing import AsyncTestClient

from ingest import MiningDeps, TurnIn, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]
Client = AsyncTestClient  # type: ignore[type-arg]
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

CHAT = [
    ("user", "I resigned from Calder Logistics today. My Manager was surprisingly kind about it."),
    ("assistant", "Congratulations on the decision! Where are you heading next?"),
    ("user", "I accepted a senior analyst offer at Ferrow Bank, starting in June. My new Manager will be Priti Shah."),
    ("assistant", "That's a great step. Do you want help planning your first weeks?"),
    ("user", "Yes please, I want to make a good impression on my new Manager."),
]


async def test_a_capitalised_domain_word_does_not_name_the_wing(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser, client: Client
) -> None:
    user = await new_user()
    turns = [TurnIn(role, text, T0 + timedelta(minutes=i)) for i, (role, text) in enumerate(CHAT)]
    ref = await store_conversation(db, user.id, external_id="new-job", agent_id=None, turns=turns)
    await complete_conversation(db, user.id, "new-job")
    await mine_conversation(MiningDeps(db=db, embedder=embedder, settings=settings), ref.id)

    answer = await client.get("/v1/palace", headers=user.headers)
    assert answer.status_code == 200, answer.text
    wings = [(w["label"], w["kind"]) for w in answer.json()["items"]]
    assert wings == [("Work", "topic")], wings
