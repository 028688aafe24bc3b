"""The spellings an import's entity links carry, so a later deletion renames its entities too.

Mining records how each drawer spelled each entity it links (``drawer_entities.surfaces``);
trash, restore and purge name the entity again from its live drawers alone
(`ingest.entity_names`), and leave alone an entity with a link whose spelling is not known.
An export does not carry the spellings, so an import read them off each drawer's text by the
rule migration 0028's backfill used for the links mined before the column existed
(`loci.entity_spellings`): without them, trashing the imported chat that said "Callum Hendry"
kept that name though only another chat's "Callum" was left.
"""

from __future__ import annotations

from sqlalchemy import select, tuple_, update
from sqlalchemy.ext.asyncio import AsyncSession

from loci.entity_spellings import spellings_in
from loci.models import Drawer, DrawerEntity, Entity

__all__ = ["BATCH", "fill_surfaces"]

BATCH = 5000
"""Links read and written per round trip: an import may hold millions (the streaming one)."""


async def fill_surfaces(s: AsyncSession, user_id: int) -> int:
    """Write the spellings of the user's links that have none (all of an import's); how many.

    Runs in the import's own transaction, after its entities, drawers and links are flushed."""
    done, last = 0, (0, 0)
    while True:
        rows = (
            await s.execute(
                select(DrawerEntity.drawer_id, DrawerEntity.entity_id, Entity.name, Entity.aliases, Drawer.content)
                .join(Entity, Entity.id == DrawerEntity.entity_id)
                .join(Drawer, Drawer.id == DrawerEntity.drawer_id)
                .where(
                    DrawerEntity.user_id == user_id,
                    DrawerEntity.surfaces.is_(None),
                    tuple_(DrawerEntity.drawer_id, DrawerEntity.entity_id) > tuple_(*last),
                )
                .order_by(DrawerEntity.drawer_id, DrawerEntity.entity_id)
                .limit(BATCH)
            )
        ).all()
        if not rows:
            return done
        await s.execute(
            update(DrawerEntity),
            [
                {
                    "drawer_id": r.drawer_id,
                    "entity_id": r.entity_id,
                    "surfaces": spellings_in(r.name, r.aliases or (), r.content or ""),
                }
                for r in rows
            ],
        )
        done += len(rows)
        last = (rows[-1].drawer_id, rows[-1].entity_id)
