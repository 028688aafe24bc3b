"""Test helper: the update, forget and confirm events a write API leaves, written directly.

Beside `tests.memory_seed` (which writes a memory and its ``add`` event), so tests of
readers can make a memory change without depending on the write API: each function
changes the rows the way the models' docstring describes (append-only, end-dated) and
records the one history row, in one transaction.
"""

from __future__ import annotations

from sqlalchemy import func, select

from loci.db import Database
from loci.models import Memory, MemoryHistory


async def update_memory(db: Database, user_id: int, memory_id: int, content: str) -> int:
    """End-date ``memory_id`` and insert its successor with ``content``; returns the new id."""
    async with db.user_session(user_id) as s:
        old = (await s.execute(select(Memory).where(Memory.id == memory_id))).scalar_one()
        now = (await s.execute(select(func.now()))).scalar_one()
        new = Memory(
            user_id=user_id, lineage_id=old.lineage_id, layer=old.layer, category=old.category, content=content,
            summary=None, source=old.source, confidence=old.confidence, agent_id=old.agent_id, valid_from=now,
        )  # fmt: skip
        s.add(new)
        await s.flush()
        old.valid_until, old.end_reason, old.superseded_by = now, "update", new.id
        s.add(MemoryHistory(user_id=user_id, event="update", lineage_id=old.lineage_id, old_id=old.id,
                            new_id=new.id, actor="user"))  # fmt: skip
        return new.id


async def forget_memory(db: Database, user_id: int, memory_id: int) -> None:
    async with db.user_session(user_id) as s:
        row = (await s.execute(select(Memory).where(Memory.id == memory_id))).scalar_one()
        row.valid_until = (await s.execute(select(func.now()))).scalar_one()
        row.end_reason = "forget"
        s.add(MemoryHistory(user_id=user_id, event="forget", lineage_id=row.lineage_id, old_id=row.id, actor="user"))


async def confirm_memory(db: Database, user_id: int, memory_id: int) -> None:
    async with db.user_session(user_id) as s:
        row = (await s.execute(select(Memory).where(Memory.id == memory_id))).scalar_one()
        row.last_confirmed_at = (await s.execute(select(func.now()))).scalar_one()
        s.add(MemoryHistory(user_id=user_id, event="confirm", lineage_id=row.lineage_id, old_id=row.id,
                            new_id=row.id, actor="user"))  # fmt: skip
