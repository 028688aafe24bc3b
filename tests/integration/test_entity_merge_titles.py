"""A title and one name is the one full name it ends, across chats
(`ingest.entity_merge.short_names`), and no other: "Mr. Kulkarni" is "Prakash Kulkarni", with two
such full names the titled name stays apart, as nobody can tell which. A kin-titled name never
merges ("Aunt Meera" is no colleague "Meera Iyer") nor takes one ("Mr. Smith" is no "Grandpa Joe
Smith"), a courtesy title never into a first name ("Mr. Thomas" is no "Thomas Weber") nor across
sexes ("Mrs. Weber" is his wife, "Mrs. Gowda" Ramesh Gowda's), and "Dr." only into
a full name once said with it ("Dr. Sharma" is no brother-in-law "Anil Sharma")."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy import select

from ingest import MiningDeps
from loci.db import Database
from loci.embedder import Embedder
from loci.models import Entity
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.graph_timeline import mine_chat

NewUser = Callable[..., Awaitable[UserHandle]]


async def _people(db: Database, user: UserHandle) -> dict[str, set[str]]:
    async with db.user_session(user.id) as s:
        rows = (await s.execute(select(Entity.name, Entity.aliases).where(Entity.kind == "p"))).all()
    return {name: set(aliases) for name, aliases in rows}


async def test_a_titled_name_is_the_one_full_name_it_ends(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(
        deps, user, "lease", ["Prakash Kulkarni renewed our lease, and Leela Nair signed as witness."], day=0
    )
    await mine_chat(deps, user, "notice", ["Mr. Kulkarni wants two months of notice.", "Aunt Leela said fine."], day=2)
    await mine_chat(deps, user, "twins", ["Sunil Rao and Anil Rao both came.", "Dr. Rao was late."], day=4)

    people = await _people(db, user)
    assert "mr. kulkarni" in people.get("Prakash Kulkarni", set()), people
    assert "Aunt Leela" in people, people  # a kin title tells her from "Leela Nair"
    assert "Dr. Rao" in people, people  # two full names end in it: it stays apart


async def test_a_titled_name_merges_into_no_one_else(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """Each pair its own user: a first chat with a full name, a second with a titled name that
    is someone else (the reviewers' cases: a wife, a landlord, a grandmother, a doctor)."""
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    pairs = {
        "Aunt Meera": "My colleague Meera Iyer sent the quarterly report to the client.",
        "Mrs. Weber": "Thomas Weber renewed our lease yesterday.",
        "Mr. Thomas": "Thomas Weber is my new manager at work.",
        "Grandma Rose": "I had lunch with Rose Tyler, my old roommate.",
        "Dr. Sharma": "Anil Sharma is my brother-in-law.",
        "Mrs. Gowda": "Ramesh Gowda renewed our lease yesterday.",  # an Indic man's name: his wife
        "Mr. Smith": "Grandpa Joe Smith turned ninety on Sunday.",  # a relative is kin-titled
        "Mrs. Doyle": "Uncle Doyle fixed the fence last week.",
    }
    for titled, first in pairs.items():
        user = await new_user()
        await mine_chat(deps, user, "full", [first], day=0)
        await mine_chat(deps, user, "titled", [f"{titled} called about the weekend plans."], day=2)
        people = await _people(db, user)
        assert titled in people, (titled, people)


async def test_a_doctor_merges_into_a_full_name_said_with_the_title(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    user = await new_user()
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    await mine_chat(deps, user, "clinic", ["Dr. Anil Sharma looked at my knee."], day=0)
    await mine_chat(deps, user, "follow", ["Dr. Sharma said my knee needs rest."], day=2)
    await mine_chat(deps, user, "mike", ["Mike Doyle fixed the gate."], day=4)
    await mine_chat(deps, user, "mike2", ["Mike rang again about it."], day=6)
    people = await _people(db, user)
    assert "dr. sharma" in people.get("Anil Sharma", set()) | people.get("Dr. Anil Sharma", set()), people
    assert "mike" in people.get("Mike Doyle", set()), people  # a first name alone, as before
