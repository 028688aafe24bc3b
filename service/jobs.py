"""arq job functions. Each takes ids only and calls plain functions from core/ingest.

`ctx["state"]` is the `AppState` built in the worker's start-up (or shared with the
in-process API when `loci serve` runs both).
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import text

from service.state import AppState

__all__ = ["TRASH_DAYS", "purge_trash"]

log = logging.getLogger("loci.jobs")
TRASH_DAYS = 30


async def purge_trash(ctx: dict[str, Any]) -> dict[str, int]:
    """Delete for good what has sat in the trash for longer than TRASH_DAYS."""
    state: AppState = ctx["state"]
    async with state.db.system_session() as s:
        result = await s.execute(
            text("DELETE FROM drawers WHERE deleted_at < now() - make_interval(days => :days)"),
            {"days": TRASH_DAYS},
        )
        purged = int(result.rowcount)  # type: ignore[attr-defined]
    log.info("purged %d trashed drawers", purged)
    return {"drawers": purged}
