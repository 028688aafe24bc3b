"""One entity per real thing across a user's windows: a short name resolves to the one
longer name it abbreviates, read when a window's entities are written (`ingest.graph`).

Why at write time and against the stored graph: the full name ("Mike Doyle") and the short
one ("Mike rang again") are often in different chats, so no single window sees both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache

from sqlalchemy import ARRAY, BigInteger, Text, bindparam, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.extraction import USER_ENTITY, EntityMention
from ingest.graph_liveness import live_entity
from ingest.names import name_key
from loci.compiled import compiled_rows, driver_sql
from loci.models import Entity

__all__ = ["display_name", "short_names", "shortens"]


def _may_be_short(kind: str, name: str) -> bool:
    """A person's one-word name, a title and one name ("Mr. Gowda"), or a capitalised product
    name: owned things in lower case ("house") are never short for a name."""
    return (kind == "p" and (len(name.split()) == 1 or _titled(name))) or (kind == "i" and name[:1].isupper())


def _titled(name: str) -> bool:
    """A title and one name, which `name_key` keys as the name alone ("Mr. Gowda" → "gowda")."""
    words = name.split()
    return len(words) == 2 and name_key(name) == name_key(words[1])


def shortens(kind: str, name: str, slug: str, longer: str) -> bool:
    """``name`` (keyed ``slug``) is a short way to say the name keyed ``longer``: the rule
    `short_names` merges a mention by, also read back over an entity's spellings
    (`ingest.entity_names`)."""
    return _may_be_short(kind, name) and _short_of(kind, slug, longer, titled=_titled(name))


def display_name(spellings: Sequence[tuple[str, bool]]) -> str:
    """The name an entity shows, from the spellings that named it in the order they came, each
    with whether it was a short name merged into a longer one: the first that is not ("Callum
    Hendry", never the "Callum" merged into it), else the first (when only "Callum" is known).
    Mining names a new entity by it (`ingest.graph.upsert_entities`), and deleting a chat names
    it again by the spellings left (`ingest.entity_names`)."""
    return next((name for name, short in spellings if not short), spellings[0][0])


@cache
def _longer_sql() -> str:
    """`short_names`' read of the stored names a short one may abbreviate, compiled once
    (`loci.compiled`): every mining window asks it, and as an ``OR`` of one ``LIKE`` per
    short name its text changed with their count, so Postgres planned it afresh each time
    (~1 ms, more than the read). Building `live_entity` (three aliases, each adapting every
    column of its model) had cost more than the query too (py-spy, `bench.mining_speed`)."""
    user_id, kinds = bindparam("user_id", type_=BigInteger), bindparam("kinds", type_=ARRAY(Text))
    shapes = bindparam("shapes", type_=ARRAY(Text))
    return driver_sql(
        select(Entity.kind, Entity.slug).where(
            Entity.user_id == user_id,
            Entity.kind == func.any(kinds),
            Entity.slug.like(func.any(shapes)),
            live_entity(Entity.id),
        )
    )


def _short_of(kind: str, slug: str, longer: str, *, titled: bool = False) -> bool:
    """``slug`` is a short way to say ``longer``: a person's first name alone ("mike" of
    "mike-doyle"), a titled surname ("gowda" of "ramesh-gowda", said "Mr. Gowda") or first
    name ("meera" of "meera-iyer", said "Aunt Meera"), or the tail of a product's name
    ("niro-ev" of "kia-niro-ev")."""
    if kind != "p":
        return longer.endswith(f"-{slug}")
    return longer.startswith(f"{slug}-") or (titled and longer.endswith(f"-{slug}"))


def _shapes(kind: str, slug: str, titled: bool) -> tuple[str, ...]:
    """The ``LIKE`` patterns of the longer names ``slug`` may be short for (`_short_of`)."""
    if kind != "p":
        return (f"%-{slug}",)
    return (f"{slug}-%", f"%-{slug}") if titled else (f"{slug}-%",)


async def short_names(
    s: AsyncSession, user_id: int, keys: Mapping[EntityMention, tuple[str, str]]
) -> dict[EntityMention, tuple[str, str]]:
    """The mentions that are a short name of exactly one longer name of the user's (in this
    batch, or a live stored entity of the same kind), mapped onto that name's key.

    A first name alone is a person's one full name with it ("Mike" → "Mike Doyle"); with
    two such full names ("Mike Doyle", "Mike Chen") it stays apart, as nobody can tell which.
    A title and one name is the one full name that name opens or ends ("Mr. Gowda" → "Ramesh
    Gowda", "Aunt Meera" → "Meera Iyer").
    A capitalised product name is the one longer product name it ends ("Niro EV" → "Kia
    Niro EV"). Owned things in lower case ("house") are never short for a name.
    """
    short = {m: key for m, key in keys.items() if m != USER_ENTITY and _may_be_short(key[0], m.name)}
    if not short:
        return {}
    shapes = sorted({shape for m, (kind, slug) in short.items() for shape in _shapes(kind, slug, _titled(m.name))})
    stored = await compiled_rows(s, _longer_sql(), {"user_id": user_id, "kinds": ["p", "i"], "shapes": shapes})
    pool = {(str(kind), str(slug)) for kind, slug in stored} | set(keys.values())
    out: dict[EntityMention, tuple[str, str]] = {}
    for m, (kind, slug) in short.items():
        longer = {key for key in pool if key[0] == kind and _short_of(kind, slug, key[1], titled=_titled(m.name))}
        if len(longer) == 1:
            out[m] = longer.pop()
    return out
