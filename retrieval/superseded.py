"""Current state first: a question about now ranks a superseded turn below what replaced it.

"My manager is Tiago" said in January and "Tiago left, Ana is my manager" in June both match
"who is my manager?", and the older one often the closer (it repeats the question's words).
The knowledge graph already knows which holds: a single-valued relation's new value closes
the old row where the new one starts (`ingest.graph`), and each row names the turn that stated
it (``source_drawer_id``). So for a question about how things stand now
(`retrieval.query.about_now`), a candidate turn whose every fact was closed by the question's
time, by a new value another candidate turn stated, is ranked right below that turn
(`current_first`): no weight, no tuned number, only the order the graph states. A superseded
turn stays recallable and in the block (the model sees what changed); one whose replacement
did not match the question keeps its place; a turn that also stated a fact still open (the
June turn closes Tiago's row and opens Ana's) is not superseded. Nothing here knows a
predicate's name: any value the graph replaced counts. A state that ended with no new value
(notice handed in, a plan carried out) has no replacing turn to rank above and is left alone.

One statement by primary key over the candidates' ids, through ``ix_relations_source_drawer``
(migration 0027) and the successor through ``ix_relations_subject``; only for questions about now.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import driver_rows
from retrieval.fusion import Fused

__all__ = ["current_first", "superseded_by"]

_AT = "COALESCE(CAST(:at AS timestamptz), now())"
_SUPERSEDED = text(f"""
SELECT DISTINCT c.source_drawer_id, n.source_drawer_id FROM relations c
JOIN relations n ON n.user_id = c.user_id AND n.subject_id = c.subject_id AND n.predicate = c.predicate
 AND n.valid_from = c.valid_to AND n.id <> c.id AND n.source_drawer_id <> c.source_drawer_id
WHERE c.user_id = :uid AND c.source_drawer_id = ANY(:ids) AND c.valid_to IS NOT NULL AND c.valid_to <= {_AT}
  AND NOT EXISTS (
    SELECT 1 FROM relations o
    WHERE o.user_id = :uid AND o.source_drawer_id = c.source_drawer_id AND (o.valid_to IS NULL OR o.valid_to > {_AT})
  )
""")


async def superseded_by(
    session: AsyncSession, user_id: int, drawer_ids: Collection[int], at: datetime | None
) -> dict[int, frozenset[int]]:
    """Of ``drawer_ids``, each turn every fact of which the graph had replaced by ``at`` (the
    question's ``now``; None: the database's now), with the turns that stated the new values.
    A fact replaced after ``at`` still held then."""
    if not drawer_ids:
        return {}
    rows = await driver_rows(session, _SUPERSEDED, {"uid": user_id, "ids": sorted(drawer_ids), "at": at})
    found: dict[int, set[int]] = {}
    for old, new in rows:
        found.setdefault(int(old), set()).add(int(new))
    return {old: frozenset(new) for old, new in found.items()}


def current_first(fused: Sequence[Fused], replaced: Mapping[int, Collection[int]]) -> list[Fused]:
    """``fused`` with each superseded drawer scored just below the lowest of its replacements
    that are ranked too (so below every one of them), chains followed (Lisbon below Porto below
    Berlin), then re-sorted; drawers without a ranked replacement keep their score."""
    score = {f.drawer_id: f.score for f in fused}
    settled: dict[int, float] = {}

    def capped(drawer: int, seen: frozenset[int]) -> float:
        if drawer in settled:
            return settled[drawer]
        above = [capped(r, seen | {drawer}) for r in replaced.get(drawer, ()) if r in score and r not in seen]
        settled[drawer] = min([score[drawer], *(math.nextafter(s, -math.inf) for s in above)])
        return settled[drawer]

    out = [f if f.drawer_id not in replaced else replace(f, score=capped(f.drawer_id, frozenset())) for f in fused]
    order = {f.drawer_id: i for i, f in enumerate(fused)}
    return sorted(out, key=lambda f: (-f.score, order[f.drawer_id]))
