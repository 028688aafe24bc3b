"""Current state first: a question about now ranks a superseded turn below what replaced it.

"My manager is Tiago" said in January and "Tiago left, Ana is my manager" in June both match
"who is my manager?", and the older one often the closer (it repeats the question's words).
The knowledge graph already knows which holds: a single-valued relation's new value closes
the old row where the new one starts (`ingest.graph`), and each row names every turn that
stated it (``relation_sources``: the first telling and each repeat). So for a question about
how things stand now (`retrieval.query.about_now`), a candidate turn whose every fact was closed by the question's
time, by a row another candidate turn stated, is ranked right below that turn
(`current_first`): no weight, no tuned number, only the order the graph states. A superseded
turn stays recallable and in the block (the model sees what changed); one whose closer did
not match the question keeps its place; a turn that also stated a fact still open (the
June turn closes Tiago's row and opens Ana's) is not superseded.

The closer is a new value of the same predicate (any predicate: nothing here knows a name), or
the fact that ended the state with no new value (`loci.relation_ends.ENDINGS`, data shared with
mining): "I handed in my notice at Acme" (`worked at Acme`) closes "I work at Acme", "I visited
Kyoto" the plan to, so "where do I work?" ranks January's job below the notice.

A new value supersedes a repeat of the old one ("I still live in Paris", said before "I moved
to Lisbon") as it does the first telling: the repeat's turn is one more source of the same row,
not a row of its own, and the repeat of a new value is one more turn that replaced the old.

One statement: the candidates' facts through ``ix_relation_sources_drawer_id`` (migration 0030)
then ``relations`` by primary key, the closer through ``ix_relations_subject`` and its turns
through ``relation_sources``' primary key (relation, drawer); only for questions about now.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import driver_rows
from loci.relation_ends import ENDINGS
from retrieval.fusion import Fused

__all__ = ["current_first", "superseded_by"]

_AT = "COALESCE(CAST(:at AS timestamptz), now())"
_SAME_THING = (
    "(lower(coalesce(n.object_value, '')) = lower(coalesce(c.object_value, ''))"
    " OR n.object_entity_id = c.object_entity_id)"
)
_TOLD_BY = "JOIN relation_sources t ON t.relation_id = n.id AND t.drawer_id <> c.turn"
_ENDER = """
SELECT c.turn, t.drawer_id FROM closed c JOIN endings e ON e.ended = c.predicate
JOIN relations n ON n.user_id = c.user_id AND n.subject_id = c.subject_id AND n.predicate = e.ender"""
_SUPERSEDED = text(f"""
WITH said AS (
  SELECT s.drawer_id AS turn, r.* FROM relation_sources s JOIN relations r ON r.id = s.relation_id
  WHERE s.user_id = :uid AND s.drawer_id = ANY(:ids) AND r.user_id = :uid
), closed AS (
  SELECT c.* FROM said c
  WHERE c.valid_to IS NOT NULL AND c.valid_to <= {_AT}
    AND NOT EXISTS (SELECT 1 FROM said o WHERE o.turn = c.turn AND (o.valid_to IS NULL OR o.valid_to > {_AT}))
), endings AS (
  SELECT * FROM unnest(CAST(:ended AS text[]), CAST(:ender AS text[])) AS e(ended, ender)
)
SELECT c.turn, t.drawer_id FROM closed c
JOIN relations n ON n.user_id = c.user_id AND n.subject_id = c.subject_id AND n.predicate = c.predicate
 AND n.valid_from = c.valid_to AND n.id <> c.id
{_TOLD_BY}
UNION{_ENDER} AND n.valid_from = c.valid_to AND {_SAME_THING}
{_TOLD_BY}
UNION{_ENDER} AND c.valid_from = c.valid_to AND n.valid_from < c.valid_to AND {_SAME_THING}
{_TOLD_BY}
""")
"""Each candidate turn all of whose facts were closed by ``:at``, with each turn that told
what closed one of them. A turn's facts are every row it said (``said``: its
``relation_sources``, so a turn that only repeated a fact first told earlier counts as much
as the first telling), and the closer's turns every one that said it. The closer is a new
value of the same predicate starting where the row ends (first branch), or the row of the
predicate that ends it (``:ended`` / ``:ender``, `loci.relation_ends.ENDINGS`) about the
same thing, starting where it ends (second), or before it when the old row closed where it
began (third: an ending said for a day that began before the job's row,
`ingest.relation_close.close_ended`; only such rows scan back). Three branches, each an
equality on ``ix_relations_subject``: one ``OR`` of them made the planner scan the subject's
rows (8 s for 302 candidates over 50,000 relations of one subject, against 26 ms as three)."""


async def superseded_by(
    session: AsyncSession,
    user_id: int,
    drawer_ids: Collection[int],
    at: datetime | None,
    endings: Collection[tuple[str, str]] = ENDINGS,
) -> dict[int, frozenset[int]]:
    """Of ``drawer_ids``, each turn every fact of which the graph had closed by ``at`` (the
    question's ``now``; None: the database's now), with the turns that stated what closed them:
    a new value, or the fact that ended it (``endings``: (ended predicate, predicate that ends
    it) pairs). A fact closed after ``at`` still held then."""
    if not drawer_ids:
        return {}
    params = {
        "uid": user_id,
        "ids": sorted(drawer_ids),
        "at": at,
        "ended": [ended for ended, _ in endings],
        "ender": [ender for _, ender in endings],
    }
    rows = await driver_rows(session, _SUPERSEDED, params)
    found: dict[int, set[int]] = {}
    for old, new in rows:
        found.setdefault(int(old), set()).add(int(new))
    return {old: frozenset(new) for old, new in found.items()}


def current_first(fused: Sequence[Fused], replaced: Mapping[int, Collection[int]]) -> list[Fused]:
    """``fused`` with each superseded drawer scored just below the lowest of its replacements
    (the turns that closed its facts) that are ranked too (so below every one of them), chains
    followed (Lisbon below Porto below Berlin), then re-sorted; drawers without a ranked
    replacement keep their score."""
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
