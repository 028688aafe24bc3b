"""The kinds the user's graph already gives the names a chat mentions, for the extractor.

The offline extractor types a name by the words around it (`ingest.entity_cues`), and
the facts that need a kind ("I quit Acme" ends a job only when Acme is an organisation:
`ingest.relation_rules.Rule.needs_kind`) fire only when the window types it. A chat weeks
after "I work at Acme as a designer" rarely repeats the cue, so "I quit Acme." recorded
nothing; "Biscuit is sick", about the dog adopted in an earlier chat, was no mention at
all. Mining therefore reads, once per job, the kinds of the user's live entities that the
chat may name (`known_kinds`), and hands them to the extractor by value
(`ingest.extraction.Extractor.extract`), where a stored kind stands as the gazetteer's would,
ahead of it: a clear cue in the chat still wins (`ingest.entity_scan.classify`).

Only decided kinds type a name (`KNOWN_KINDS`): an item is also the kind of a name nothing
typed (the default guess), and a time is no name. The same read lists every spelling the graph
holds, items included, for the names of the assistant's replies the graph keeps (`ingest.said_names`);
and the windows of one job settle a guessed item on the kind another window decided
(`settled_across`). A spelling two entities share takes the
oldest one's kind, as storage settles a name two kinds share on the oldest entity
(`ingest.graph.upsert_entities`). An entity only a trashed chat taught
(`ingest.graph_liveness.live_entity`) types nothing, as it shows nothing. Within one job, a
name a window typed keeps that kind in the windows after it (`with_window_kinds`): the same
gap inside one long chat (mining extracts every window before it writes the first), and
so does what the window's sentences named that a later one points back at (`WindowKinds`).

Cost: one statement per job, read with the turns (`ingest.pipeline`), asking only about the
capitalised runs the chat holds (`ingest.entity_scan.name_spellings`), so it returns a
handful of rows however large the graph; measured on two held-out sets (21 jobs) at 1 of
~1,065 statements, under 1 ms in Postgres (plan and run) and about 5 ms wall per job. Most of
those 5 ms were Python building the statement again each job (`live_entity`'s three aliases,
SQLAlchemy's cache key): it is now compiled once per process and run prepared
(`loci.compiled`, `_known_sql`), as the other reads every window makes are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from functools import cache

from sqlalchemy import BigInteger, Text, any_, bindparam, func, or_, select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.extraction import USER_ENTITY, EntityMention, Extraction, ExtractionOutcome, RelationFact
from ingest.graph_liveness import live_entity
from loci.compiled import compiled_rows, driver_sql
from loci.models import Entity

__all__ = ["KNOWN_KINDS", "WindowKinds", "known_kinds", "settled_across", "with_window_kinds"]

KNOWN_KINDS = frozenset({"p", "l", "o", "e"})
"""Kinds a cue, a name's own words or the gazetteer decided: person, place, organisation, event."""


async def known_kinds(s: AsyncSession, user_id: int, spellings: Collection[str]) -> tuple[dict[str, str], list[str]]:
    """Lower-case spelling → kind, for the ``spellings`` (lower case: `ingest.entity_scan.name_spellings`)
    that a live entity of the user of a decided kind (`KNOWN_KINDS`) is named or was mentioned as (its
    aliases); and those spellings of an entity of any kind but time, items included: what a reply may
    name and the graph keep (`ingest.said_names`). One statement."""
    if not spellings:
        return {}, []
    params = {"user_id": user_id, "kinds": sorted({*KNOWN_KINDS, "i"}), "spellings": sorted(spellings)}
    rows = await compiled_rows(s, _known_sql(), params)
    known: dict[str, str] = {}
    held: list[str] = []
    for kind, name, aliases in rows:
        for spelling in (name.lower(), *aliases):
            if spelling in spellings and spelling != USER_ENTITY.name.lower():
                held.append(spelling)
                if kind in KNOWN_KINDS:
                    known.setdefault(spelling, kind)
    return known, held


@cache
def _known_sql() -> str:
    """`known_kinds`' read, with `live_entity`, compiled once (`loci.compiled`): one text
    whatever the spellings (one array), so each connection also plans it once."""
    user_id, kinds = bindparam("user_id", type_=BigInteger), bindparam("kinds", type_=ARRAY(Text))
    wanted = bindparam("spellings", type_=ARRAY(Text))  # one array, however many names
    return driver_sql(
        select(Entity.kind, Entity.name, Entity.aliases)
        .where(
            Entity.user_id == user_id,
            Entity.kind == any_(kinds),
            or_(func.lower(Entity.name) == any_(wanted), Entity.aliases.overlap(wanted)),
            live_entity(Entity.id),
        )
        .order_by(Entity.id)
    )


class WindowKinds(dict[str, str]):
    """Kinds known before a window, and what the window before it named (``earlier``:
    `ingest.extraction.Extraction.earlier`), which the next window's sentences may point back at."""

    earlier: object | None = None


def with_window_kinds(known: Mapping[str, str], extraction: Extraction) -> WindowKinds:
    """``known`` plus the decided kinds a window gave names ``known`` lacks, for the windows
    after it; a stored kind stays (storage keeps it too). It carries what the window named
    (`WindowKinds.earlier`): a chat longer than a window says "sold the jazz" or "I got it!"
    windows after the car or the job it means."""
    found = {
        m.name.lower(): m.kind
        for ms in extraction.mentions.values()
        for m in ms
        if m.kind in KNOWN_KINDS and m != USER_ENTITY
    }
    kinds = WindowKinds(found | dict(known))
    kinds.earlier = extraction.earlier
    return kinds


def settled_across(outcomes: Sequence[ExtractionOutcome]) -> list[ExtractionOutcome]:
    """The job's windows, a name one of them leaves an item (the kind of a name nothing typed: the
    guess `KNOWN_KINDS` leaves out) taking the kind another decided for it (the most often decided),
    in its mentions and its facts. The windows after a decided one read it so already
    (`with_window_kinds`); those before it did not, and the first window written stores its guess,
    which the entity keeps (`ingest.graph.upsert_entities`): "Rawiri" stayed an item though a later
    window of the same chat met him as a person."""
    votes: dict[str, Counter[str]] = {}
    for outcome in outcomes:
        for found in outcome.extraction.mentions.values():
            for m in found:
                if m.kind in KNOWN_KINDS and m != USER_ENTITY:
                    votes.setdefault(m.name.lower(), Counter())[m.kind] += 1
    decided = {name: kinds.most_common(1)[0][0] for name, kinds in votes.items()}
    if not decided:
        return list(outcomes)

    def kind(name: str, kind: str | None) -> str | None:
        return decided.get(name.lower(), kind) if kind == "i" else kind

    def mention(m: EntityMention) -> EntityMention:
        return replace(m, kind=kind(m.name, m.kind) or m.kind)

    def fact(f: RelationFact) -> RelationFact:
        return replace(f, subject=mention(f.subject), value_kind=kind(f.value, f.value_kind))

    def settled(ex: Extraction) -> Extraction:
        named = {seq: tuple(dict.fromkeys(map(mention, found))) for seq, found in ex.mentions.items()}
        return replace(ex, mentions=named, relations=tuple(map(fact, ex.relations)))

    return [replace(o, extraction=settled(o.extraction)) for o in outcomes]
