"""One user's conversations are mined one at a time, whatever worker slot or process runs them.

Walkthrough (2026-11-29, `loci serve`, two chats completed a moment apart and mined by the
worker's two slots side by side): "I work at Acme as a designer." then, weeks later in the
story, "I quit my job today." The second job read the graph before the first wrote it, so the
quit ended nothing (`works at Acme` stayed current) and the two chats made two wings. Mined
one after the other, the job ends. Mining now holds a per-user advisory lock
(`loci.exclusive`) for the whole job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from ingest import MiningDeps, TurnIn, UserBeingMined, complete_conversation, mine_conversation, store_conversation
from loci.db import Database
from loci.embedder import Embedder
from loci.exclusive import exclusive
from loci.settings import Settings
from tests.conftest import UserHandle
from tests.graph_timeline import T0

NewUser = Callable[..., Awaitable[UserHandle]]


async def _stored(db: Database, user: UserHandle, key: str, text: str) -> int:
    ref = await store_conversation(db, user.id, external_id=key, agent_id=None, turns=[TurnIn("user", text, T0)])
    await complete_conversation(db, user.id, key)
    return ref.id


async def test_a_users_next_job_waits_for_the_one_mining_and_other_users_do_not(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    busy, other = await new_user("one-at-a-time"), await new_user("meanwhile")
    waiting = await _stored(db, busy, "quit", "I quit my job today.")
    free = await _stored(db, other, "hello", "I work at Initech as a tester.")
    async with exclusive(db, f"loci.mine.user:{busy.id}"):  # as a job mining another of busy's chats holds it
        queued = asyncio.create_task(mine_conversation(deps, waiting))
        assert (await asyncio.wait_for(mine_conversation(deps, free), 60)).turns_mined == 1  # other users go on
        await asyncio.sleep(0.5)
        assert not queued.done()
    assert (await asyncio.wait_for(queued, 60)).turns_mined == 1  # then it runs


async def test_the_lock_is_given_back_when_mining_fails(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    user = await new_user("lock-after-failure")
    try:
        async with exclusive(db, f"loci.mine.user:{user.id}"):
            raise RuntimeError("a job that failed half-way")
    except RuntimeError:
        pass
    chat = await _stored(db, user, "after", "I walked the dog along the river.")
    assert (await asyncio.wait_for(mine_conversation(deps, chat), 60)).turns_mined == 1


async def test_a_caller_that_will_not_wait_is_turned_away_at_once_having_written_nothing(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """The worker's job (`service.jobs`) mines with ``wait=False``: while the user is being
    mined and another job is next in line, it is turned away at once, having written nothing
    nor counted an attempt (``begin``), and it goes on once the locks are free."""
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    user = await new_user("turned-away")
    chat = await _stored(db, user, "later", "I moved to Porto last spring.")
    begun: list[int] = []

    async def begin() -> None:
        begun.append(chat)

    async with exclusive(db, f"loci.mine.user:{user.id}"), exclusive(db, f"loci.mine.next:{user.id}"):
        with pytest.raises(UserBeingMined):
            await asyncio.wait_for(mine_conversation(deps, chat, wait=False, begin=begin), 5)
    assert begun == []
    assert (await asyncio.wait_for(mine_conversation(deps, chat, wait=False, begin=begin), 60)).turns_mined == 1
    assert begun == [chat]


async def test_one_job_waits_in_line_embedding_while_the_user_is_mined_and_a_third_is_turned_away(
    db: Database, embedder: Embedder, settings: Settings, new_user: NewUser
) -> None:
    """A job holding the lock from before it embeds would leave the model idle while it writes,
    so a user's backlog mined a conversation at a time with no overlap: the next job in line
    embeds meanwhile and then waits, and only the jobs after it give their slot back."""
    deps = MiningDeps(db=db, embedder=embedder, settings=settings)
    user = await new_user("in-line")
    second = await _stored(db, user, "second", "My sister Ana lives in Braga.")
    third = await _stored(db, user, "third", "I started cello lessons in March.")
    lock = exclusive(db, f"loci.mine.user:{user.id}")
    await lock.__aenter__()  # the job mining this user
    try:
        waiting = asyncio.create_task(mine_conversation(deps, second, wait=False))
        for _ in range(200):  # it takes the place in line and embeds, then waits for the lock
            await asyncio.sleep(0.05)
            if await _in_line_taken(db, user.id):
                break
        assert not waiting.done()
        with pytest.raises(UserBeingMined):
            await asyncio.wait_for(mine_conversation(deps, third, wait=False), 5)
    finally:
        await lock.__aexit__(None, None, None)
    assert (await asyncio.wait_for(waiting, 60)).turns_mined == 1
    assert (await asyncio.wait_for(mine_conversation(deps, third, wait=False), 60)).turns_mined == 1


async def _in_line_taken(db: Database, user_id: int) -> bool:
    """Whether some job holds the user's place next in line (its lock cannot be taken now)."""
    try:
        async with exclusive(db, f"loci.mine.next:{user_id}", or_else=UserBeingMined("taken", retry_after_s=1)):
            return False
    except UserBeingMined:
        return True
