"""Trashed drawers never reach recall."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

import retrieval
from service.state import AppState
from tests.conftest import UserHandle
from tests.palace_seed import seed_palace


async def test_trashed_drawer_is_not_recalled(
    app_state: AppState, new_user: Callable[..., Awaitable[UserHandle]]
) -> None:
    user = await new_user("recall-trash")
    seeded = await seed_palace(app_state.db, user.id, f"r{secrets.token_hex(3)}")
    deps = retrieval.RecallDeps(app_state.db, app_state.embedder, app_state.settings)
    ask = retrieval.RecallRequest(user_id=user.id, message=f"{seeded.marker} garden", top_k=50, log=False)
    before = {item.drawer_id for item in (await retrieval.recall(deps, ask)).items}
    assert seeded.drawers[0] in before
    from domain import trash

    await trash.trash(app_state.db, user.id, "wing", seeded.wings[0])
    after = {item.drawer_id for item in (await retrieval.recall(deps, ask)).items}
    assert after and not after & set(seeded.drawers[:8])
