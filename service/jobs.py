"""arq job functions. Each takes ids only and calls plain functions from core/ingest.

`ctx["state"]` is the `AppState` built in the worker's start-up (or shared with the
in-process API when `loci serve` runs both).
"""

from __future__ import annotations

import logging
from typing import Any

from service import trash
from service.state import AppState

__all__ = ["TRASH_DAYS", "purge_trash"]

log = logging.getLogger("loci.jobs")
TRASH_DAYS = trash.TRASH_DAYS


async def purge_trash(ctx: dict[str, Any]) -> dict[str, int]:
    """Delete for good what has sat in the trash for longer than TRASH_DAYS.

    Drawers first, then emptied closets, rooms and wings (whose remaining children,
    all trashed with them, cascade).
    """
    state: AppState = ctx["state"]
    counts = await trash.purge(state.db, days=TRASH_DAYS)
    log.info("purged from the trash: %s", counts)
    return counts
