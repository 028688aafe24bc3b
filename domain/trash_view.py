"""The trash as a person reads it: each entry, and for a drawer its opening words.

`domain.trash.list_trash` names a drawer by its AAAK pointer (what the API returns), and
"§ W-001/R-02/D-003" tells nobody which drawer they are about to restore. This adds the
first words of each listed drawer, read in the same user-scoped session rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select

from domain.palace import LABEL_PREVIEW_CHARS
from domain.trash import TrashPage, list_trash
from loci.db import Database
from loci.models import Drawer

__all__ = ["TrashView", "trash_view"]


@dataclass(frozen=True, slots=True)
class TrashView:
    listing: TrashPage
    previews: dict[int, str]
    """Drawer id -> its first ``LABEL_PREVIEW_CHARS`` characters, for the drawers listed."""


async def trash_view(db: Database, user_id: int, *, limit: int = 50, offset: int = 0) -> TrashView:
    listing = await list_trash(db, user_id, limit=limit, offset=offset)
    ids = [e.id for e in listing.items if e.kind == "drawer"]
    previews: dict[int, str] = {}
    if ids:
        async with db.user_session(user_id) as s:
            rows = await s.execute(
                select(Drawer.id, Drawer.content).where(
                    Drawer.user_id == user_id, Drawer.id.in_(ids), Drawer.deleted_at.is_not(None)
                )
            )
            previews = {int(i): _opening(text) for i, text in rows.all()}
    return TrashView(listing, previews)


def _opening(text: str) -> str:
    words = " ".join(text.split())
    return words if len(words) <= LABEL_PREVIEW_CHARS else words[: LABEL_PREVIEW_CHARS - 1].rstrip() + "…"
