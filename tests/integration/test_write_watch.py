"""`Database.on_write` fires after exactly the transactions that changed rows (`loci.write_watch`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from sqlalchemy import text

from loci.db import Database
from loci.settings import Settings
from loci.write_watch import bookkeeping
from tests.conftest import UserHandle

NewUser = Callable[..., Awaitable[UserHandle]]


async def test_only_committed_writes_call_the_hook(settings: Settings, new_user: NewUser) -> None:
    user = await new_user("watch")
    db = Database(settings.database.url or "", app_role=settings.database.app_role)
    calls: list[int | None] = []

    async def hook(user_id: int | None) -> None:
        calls.append(user_id)

    db.on_write = hook
    rename = text("UPDATE memory_settings SET top_k = :k WHERE user_id = :u")
    try:
        async with db.user_session(user.id) as s:  # a read
            await s.execute(text("SELECT count(*) FROM drawers WHERE user_id = :u"), {"u": user.id})
        async with db.user_session(user.id) as s:  # a write statement that changes nothing
            await s.execute(text("UPDATE memory_settings SET top_k = 7 WHERE user_id = -1"))
        async with db.user_session(user.id) as s:  # bookkeeping
            bookkeeping(s)
            await s.execute(rename, {"k": 6, "u": user.id})
        assert calls == []
        async with db.user_session(user.id) as s:
            await s.execute(rename, {"k": 5, "u": user.id})
        assert calls == [user.id]
        async with db.system_session() as s:
            await s.execute(rename, {"k": 5, "u": user.id})
        assert calls == [user.id, None]
        try:
            async with db.user_session(user.id) as s:  # rolled back: nothing changed
                await s.execute(rename, {"k": 9, "u": user.id})
                raise RuntimeError("abort")
        except RuntimeError:
            pass
        assert calls == [user.id, None]
    finally:
        await db.dispose()
