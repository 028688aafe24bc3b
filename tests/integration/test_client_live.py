"""The Python client against a live server (uvicorn on a real socket): every route group,
sync and async, with the server's errors mapped to the client's kinds."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime

import pytest

from domain.accounts import create_key
from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings
from loci_client import AsyncLociClient, InvalidInput, LociClient, NotFound, QueryFilters, Turn
from tests.conftest import UserHandle
from tests.integration.palace_fixture import ConversationSpec, place_conversation
from tests.live_server import live_server
from tests.palace_seed import seed_palace

NewUser = Callable[..., Awaitable[UserHandle]]


@pytest.fixture(scope="module")
def base_url(settings: Settings, embedder: Embedder) -> Iterator[str]:
    with live_server(settings, embedder) as url:
        yield url


async def test_conversations_jobs_and_errors_sync(base_url: str, new_user: NewUser) -> None:
    user = await new_user("client")
    with LociClient(base_url, user.key) as loci:
        me = loci.get_me()
        assert me.id == user.id
        made = loci.create_conversation(
            [Turn(role="user", content="I moved to Lisbon last week.", created_at="2024-05-20T09:00:00Z")],
            id="chat-1", agent_id="travel",
        )  # fmt: skip
        assert (made.id, made.turn_count) == ("chat-1", 1)
        appended = loci.append_turns("chat-1", [{"role": "assistant", "content": "How is Lisbon?"}])
        assert appended.turn_count == 2
        got = loci.get_conversation("chat-1")
        assert got.turns is not None and got.turns[0].content == "I moved to Lisbon last week."
        queued = loci.complete_conversation("chat-1")
        assert queued.job_id and loci.get_job(queued.job_id).conversation_id == "chat-1"
        assert loci.mine_conversation("chat-1").conversation.id == "chat-1"
        assert loci.delete_conversation("chat-1").id == "chat-1"
        assert loci.restore_conversation("chat-1").id == "chat-1"

        with pytest.raises(NotFound) as missing:
            loci.get_conversation("no-such-chat")
        assert missing.value.status == 404 and "not found" in missing.value.message
        assert missing.value.request_id
        with pytest.raises(InvalidInput) as bad:
            loci.create_conversation([Turn(role="user", content="hi", created_at="not a time")])
        assert bad.value.status == 400 and bad.value.field == "turns[0].created_at"
        assert bad.value.message in str(bad.value)


async def test_memories_and_profile_sync(base_url: str, new_user: NewUser) -> None:
    user = await new_user("client")
    with LociClient(base_url, user.key) as loci:
        saved = loci.save_memory("Prefers window seats", "preference", tags=["travel"])
        assert saved.memory is not None and saved.event == "add"
        other = loci.save_memory("Flies from Lisbon", "fact")
        assert other.memory is not None
        updated = loci.update_memory(saved.memory.id, content="Prefers aisle seats")
        assert updated.memory is not None and updated.memory.content == "Prefers aisle seats"
        current = updated.memory.id
        assert current in [m.id for m in loci.list_memories(category="preference").items]
        assert loci.get_memory(current).memory.id == current
        assert len(loci.get_memory_history(current)) >= 2
        linked = loci.link_memories(current, other.memory.id, "relates_to")
        assert linked.link is not None
        assert loci.unlink_memories(linked.link.id).event
        assert loci.confirm_memory(current).memory is not None
        forgot = loci.forget_memory(current, reason="changed my mind")
        assert forgot.event_id is not None
        undone = loci.undo(forgot.event_id)
        assert undone.memory is not None
        loci.forget_memory(undone.memory.id)
        assert loci.restore_memory(undone.memory.id).memory is not None
        purged = loci.purge_memory(saved.memory.id)  # an old version's id: the whole memory, for good
        assert (purged.event, purged.undo, purged.memory) == ("purge", None, None)
        with pytest.raises(NotFound):
            loci.purge_memory("aisle seats")
        wrote = loci.put_profile(entries=[{"category": "profile", "content": "Name is Ann"}])
        assert "Name is Ann" in wrote.profile.markdown
        assert loci.get_profile().revision == wrote.profile.revision
        with pytest.raises(NotFound):
            loci.get_memory(2**40)
        with pytest.raises(InvalidInput) as bad:
            loci.save_memory("x", "Not A Category")
        assert bad.value.field == "category"


async def test_memory_query_sync_and_async(base_url: str, new_user: NewUser, db: Database) -> None:
    user = await new_user("client-query")
    with LociClient(base_url, user.key) as loci:
        saved = loci.save_memory("Prefers window seats on long flights", "preference", importance=4)
        loci.save_memory("Flies from Lisbon", "fact", importance=1)
        assert saved.memory is not None
        found = loci.memory_query("assistant", "seats on flights", filters=QueryFilters(importance_min=4))
        assert found.mode == "bullets" and [(b.kind, b.id) for b in found.bullets] == [("memory", saved.memory.id)]
        with pytest.raises(InvalidInput) as bad:
            loci.memory_query("assistant", "seats", categories=["colour"])
        assert bad.value.field == "categories"
    async with AsyncLociClient(base_url, user.key) as aloci:
        full = await aloci.memory_query("assistant", "seats on flights", categories=["preference"], mode="full")
        assert full.mode == "full" and full.bullets == []
        assert [i.memory.content for i in full.items if i.memory] == ["Prefers window seats on long flights"]
        # the query first, the agent by keyword; with an agent key, no agent at all (the key's own)
        keyword = await aloci.memory_query("seats on flights", agent="assistant", filters={"importance_min": 4})
        assert [b.id for b in keyword.bullets] == [saved.memory.id]
        with pytest.raises(TypeError):
            await aloci.memory_query("assistant", "seats", agent="assistant")
    agent_key = await create_key(db, user.id, "client-agent", agent="assistant")
    with LociClient(base_url, agent_key.key) as agent:
        assert [b.id for b in agent.memory_query("seats on flights", filters={"importance_min": 4}).bullets] == [
            saved.memory.id
        ]


async def test_recall_palace_entities_async(base_url: str, new_user: NewUser, db: Database, embedder: Embedder) -> None:
    user = await new_user("client")
    marker = "zq" + secrets.token_hex(3)
    seeded = await seed_palace(db, user.id, marker)  # random vectors: the palace's shape, not its meaning
    said = f"My locker at the climbing gym is number {marker}, next to the chalk station."
    await place_conversation(
        db, embedder, user.id, ConversationSpec([("user", said, datetime(2026, 3, 2, tzinfo=UTC))])
    )
    async with AsyncLociClient(base_url, user.key) as loci:
        recalled = await loci.recall("Which locker do I use at the climbing gym?", top_k=5)
        assert recalled.items and recalled.context and said in recalled.context
        assert (await loci.search(marker, top_k=3)).items
        context = await loci.get_context()
        assert context is not None and context.revision >= 0
        wings = await loci.get_palace()
        assert set(seeded.wings) < {n.id for n in wings.items}  # and the spoken conversation's
        rooms = await loci.get_palace(wing=seeded.wings[0])
        assert set(seeded.rooms) >= {n.id for n in rooms.items}
        drawer = await loci.get_drawer(seeded.drawers[0])
        assert marker in drawer.content
        assert (await loci.delete_drawer(seeded.drawers[0])).id == seeded.drawers[0]
        assert (await loci.list_trash()).total == 1
        assert (await loci.restore_drawer(seeded.drawers[0])).drawers == 1
        await loci.delete_room(seeded.rooms[-1])
        await loci.restore_room(seeded.rooms[-1])
        await loci.delete_closet(seeded.closets[-1])
        await loci.restore_closet(seeded.closets[-1])
        await loci.delete_wing(seeded.wings[-1], purge=True)
        assert (await loci.purge_trash()).wings in (None, 0)
        entities = await loci.search_entities()
        assert {e.id for e in entities} >= set(seeded.entities)
        second = await loci.search_entities(limit=1, offset=1)  # pages on, as GET /v1/entities does
        assert [e.id for e in second] == [e.id for e in entities][1:2]
        assert (await loci.get_entity(seeded.entities[0])).id == seeded.entities[0]
        assert (await loci.entity_timeline(seeded.entities[0])).entity.id == seeded.entities[0]
        with pytest.raises(NotFound) as missing:
            await loci.get_drawer(2**40)
        assert "not found" in missing.value.message
        with pytest.raises(InvalidInput) as bad:
            await loci.search(marker, role="robot")
        assert bad.value.status == 400 and bad.value.message


async def test_settings_agents_export_import_async(base_url: str, new_user: NewUser, db: Database) -> None:
    user, target = await new_user("client"), await new_user("client")
    seeded = await seed_palace(db, user.id, "exp" + secrets.token_hex(3), wings=1)
    drawers = len(seeded.drawers)
    async with AsyncLociClient(base_url, user.key) as loci:
        assert (await loci.put_settings(top_k=7)).top_k == 7
        assert (await loci.get_settings()).top_k == 7
        assert (await loci.put_agent("travel", name="Travel bot")).name == "Travel bot"
        assert (await loci.get_agent("travel")).external_id == "travel"
        assert "travel" in [a.external_id for a in (await loci.list_agents()).items]
        assert (await loci.list_activity(limit=5)).items is not None
        document = await loci.export(embeddings=False)
        assert document.drawers is not None and len(document.drawers) == drawers
        assert "#" in await loci.export_text("markdown")
        ndjson = await loci.export_text("ndjson")
        with pytest.raises(NotFound):
            await loci.get_agent("nobody")
    async with AsyncLociClient(base_url, target.key) as other:
        assert (await other.import_memory(document)).drawers == drawers
    fresh = await new_user("client")
    async with AsyncLociClient(base_url, fresh.key) as third:
        assert (await third.import_ndjson(ndjson.encode())).drawers == drawers
