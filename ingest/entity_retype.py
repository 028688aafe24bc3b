"""A stored item that a later chat decides is a person, place, organisation or event becomes one.

Why: an item is two things to the extractor, the kind a cue gives a product ("bought a Kindle")
and the guess for a name nothing typed (`ingest.entity_scan`), and the graph keeps the kind an
entity was first stored with (`ingest.graph.upsert_entities`). So the first guess stuck: one
chat's "So Harjit's in good company" stored Harjit an item, and a later "I told Harjit to relax"
could not make him a person. The user's graph treats an item as undecided already
(`ingest.known_kinds.KNOWN_KINDS`), and one chat's windows settle the same way
(`ingest.known_kinds.settled_across`); this does it across chats, at write time.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import ARRAY, Text, bindparam, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from ingest.known_kinds import KNOWN_KINDS
from loci.models import Entity

__all__ = ["retype_guesses"]


async def retype_guesses(
    s: AsyncSession,
    user_id: int,
    keys: Iterable[tuple[str, str]],
    settled: dict[str, str],
    stale: set[tuple[str, str]],
) -> set[tuple[str, str]]:
    """A stored item this window decides is a person, place, organisation or event becomes one
    (``settled`` follows), as one chat's windows settle it (`ingest.known_kinds.settled_across`):
    an item is also the guess for a name nothing typed, so an earlier chat's "So Harjit's in good
    company" gives way to a later "I told Harjit to relax". Only where the slug is one entity (two
    of one slug keep the oldest's kind, as `ingest.graph` reads them). ``stale`` with the new kinds."""
    decided: dict[str, str] = {}
    for kind, slug in keys:
        if kind in KNOWN_KINDS and settled.get(slug) == "i":
            decided.setdefault(slug, kind)
    if not decided:
        return stale
    slugs, kinds = bindparam("slugs", type_=ARRAY(Text)), bindparam("kinds", type_=ARRAY(Text))
    wanted = func.unnest(slugs, kinds).table_valued("slug", "kind").render_derived(name="wanted")
    other = aliased(Entity)
    alone = ~select(other.id).where(other.user_id == user_id, other.slug == wanted.c.slug, other.kind != "i").exists()
    stmt = (
        update(Entity)
        .where(Entity.user_id == user_id, Entity.kind == "i", Entity.slug == wanted.c.slug, alone)
        .values(kind=wanted.c.kind)
        .returning(Entity.slug, Entity.kind)
        .execution_options(synchronize_session=False)
    )
    params = {"slugs": list(decided), "kinds": list(decided.values())}
    for slug, kind in (await s.execute(stmt, params)).all():
        settled[slug] = kind
        stale = {(kind, slug) if key == ("i", slug) else key for key in stale}
    return stale
