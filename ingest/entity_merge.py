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

from ingest.entity_vocab import KIN_TITLES, TITLES, words
from ingest.extraction import USER_ENTITY, EntityMention
from ingest.gazetteer import name_gender
from ingest.graph_liveness import live_entity
from ingest.names import name_key
from ingest.product_lines import line_of
from loci.compiled import compiled_rows, driver_sql
from loci.models import Entity

__all__ = ["display_name", "short_names", "shortens"]


def _may_be_short(kind: str, name: str) -> bool:
    """A person's one-word name, a title and one name ("Mr. Gowda"), a capitalised product
    name, or an organisation's one capitalised word: owned things in lower case ("house") are
    never short for a name."""
    if kind == "p":
        return len(name.split()) == 1 or bool(_title(name))
    return (kind == "i" or (kind == "o" and " " not in name)) and name[:1].isupper()


_FIRM_ENDS = words(
    """inc ltd llc plc gmbh corp corporation company co partners associates holdings software solutions
    technologies systems consulting labs payments projects logistics freight enterprises industries analytics
    engineering construction builders architects accountants solicitors transport insure"""
)
"""Words that close a firm's own name, as said once in full: never a business line a brand also runs under
its name ("Tesco Bank", "Virgin Media", "British Airways", "Amazon Web Services" are no "Tesco" …)."""


def _firm_of(slug: str, longer: str) -> bool:
    """``longer`` is the name of a firm that ``slug`` opens and a firm's word closes (`_FIRM_ENDS`):
    "tidewater" of "tidewater-software", "mabena" of "mabena-partners". People say the firm so ("I
    start at Tidewater on Monday")."""
    return longer.startswith(f"{slug}-") and longer.rsplit("-", 1)[-1] in _FIRM_ENDS


def _kinds_short(kind: str, name: str) -> tuple[str, ...]:
    """The kinds of the longer names a mention of ``kind`` may abbreviate: its own, and a firm's for one
    capitalised word nothing typed (an item, the guess: `_firm_of`) and no product's line ("Civic")."""
    return ("i", "o") if kind == "i" and " " not in name and line_of(name) is None else (kind,)


_SEXED_TITLES: Mapping[str, str] = {
    "mr": "m",
    "mrs": "f",
    "ms": "f",
    "miss": "f",
    "sr": "m",
    "sra": "f",
    "mme": "f",
    "mlle": "f",
}
"""A title that says the sex of whoever bears it: "Mrs. Gowda" is no "Ramesh Gowda" (his wife).
Each is one `loci.name_keys` drops from the key, as are the earned ones below."""
_EARNED_TITLES = frozenset({"dr", "prof", "fr"})
"""A title earned, not a courtesy: "Dr. Sharma" is only a full name once said with it ("Dr. Anil
Sharma"), never a relative of the same surname ("Anil Sharma", a brother-in-law); a priest's
"Fr." likewise."""


def _title(name: str) -> str:
    """The folded title of a title and one name ("Mr. Gowda" → "mr"), else "". A kin title is
    none: "Grandma Rose" is no "Rose Tyler", and "Aunt Meera" no colleague "Meera …"."""
    words = name.split()
    title = words[0].lower().rstrip(".") if len(words) == 2 else ""
    return title if title in _SEXED_TITLES or title in _EARNED_TITLES else ""


def _bare_key(name: str, slug: str) -> str:
    """The key of the name a title is said with ("gowda" of "Mr. Gowda"), else ``slug``."""
    return name_key(name.split()[1]) if _title(name) else slug


def shortens(kind: str, name: str, slug: str, longer: str) -> bool:
    """``name`` (keyed ``slug``) is a short way to say the name keyed ``longer``: the rule
    `short_names` merges a mention by, also read back over an entity's spellings
    (`ingest.entity_names`, where "Dr. Sharma" is already one with "Anil Sharma", so the
    title-among-its-spellings test of `short_names` is not asked again)."""
    return _may_be_short(kind, name) and _short_of(kind, _bare_key(name, slug), longer, title=_title(name))


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
        select(Entity.kind, Entity.slug, Entity.aliases).where(
            Entity.user_id == user_id,
            Entity.kind == func.any(kinds),
            Entity.slug.like(func.any(shapes)),
            live_entity(Entity.id),
        )
    )


def _short_of(kind: str, slug: str, longer: str, *, title: str = "") -> bool:
    """``slug`` is a short way to say ``longer``: a person's first name alone ("mike" of
    "mike-doyle"), a titled surname ("gowda" of "ramesh-gowda", said "Mr. Gowda"; never a
    first name: "Mr. Thomas" is no "Thomas Weber") whose first name's sex does not gainsay the
    title ("Mrs. Gowda" is not "Ramesh Gowda") and that is no relative's ("Mr. Smith" is not
    "Grandpa Joe Smith": `KIN_TITLES`), or the tail of a product's name ("niro-ev" of
    "kia-niro-ev")."""
    if kind == "o":
        return _firm_of(slug, longer)
    if kind != "p":
        return longer.endswith(f"-{slug}")
    if not title:
        return longer.startswith(f"{slug}-")
    first = longer.split("-")[0]
    sex = _SEXED_TITLES.get(title, "")
    return longer.endswith(f"-{slug}") and first not in KIN_TITLES and not (sex and name_gender(first) not in ("", sex))


def _said_with(title: str, aliases: Sequence[str]) -> bool:
    """Whether a full name was said with an earned ``title`` ("dr. anil sharma" among its
    spellings); a courtesy title needs no such proof (`_EARNED_TITLES`)."""
    return title not in _EARNED_TITLES or any(_folded_title(a.split()[0]) == title for a in aliases if " " in a)


def _folded_title(word: str) -> str:
    """A title word folded as `_title` reads it, its long forms too ("doctor", "father" → "dr", "fr")."""
    bare = word.lower().rstrip(".")
    return TITLES.get(bare, bare).lower().rstrip(".")


def _shapes(kind: str, slug: str, title: str) -> tuple[str, ...]:
    """The ``LIKE`` patterns of the longer names ``slug`` may be short for (`_short_of`)."""
    return (f"%-{slug}",) if kind == "i" or title else (f"{slug}-%",)


async def short_names(
    s: AsyncSession, user_id: int, keys: Mapping[EntityMention, tuple[str, str]]
) -> dict[EntityMention, tuple[str, str]]:
    """The mentions that are a short name of exactly one longer name of the user's (in this
    batch, or a live stored entity of the same kind), mapped onto that name's key.

    A first name alone is a person's one full name with it ("Mike" → "Mike Doyle"); with
    two such full names ("Mike Doyle", "Mike Chen") it stays apart, as nobody can tell which.
    A courtesy title and one name is the one full name that name ends, unless its first name's
    sex gainsays the title ("Mr. Gowda" → "Ramesh Gowda"; "Mrs. Gowda" stays apart); "Dr." or
    "Prof." and one name only the one such full name once said with that title ("Dr. Anil
    Sharma"); a kin-titled name never ("Aunt Meera" is keyed aunt-meera, a person of her own).
    A capitalised product name is the one longer product name it ends ("Niro EV" → "Kia
    Niro EV"). One capitalised word of an organisation, or that nothing typed, is the one
    firm whose name it opens and a trade or legal word closes ("Tidewater" → "Tidewater
    Software": `_firm_of`); a place's never ("Auckland" is no "Auckland Zoo"). Owned things in
    lower case ("house") are never short for a name.
    """
    short = {m: key for m, key in keys.items() if m != USER_ENTITY and _may_be_short(key[0], m.name)}
    if not short:
        return {}
    bare = {m: _bare_key(m.name, slug) for m, (_, slug) in short.items()}
    shapes = sorted(
        {
            shape
            for m, (kind, _) in short.items()
            for longer_kind in _kinds_short(kind, m.name)
            for shape in _shapes(longer_kind, bare[m], _title(m.name))
        }
    )
    stored = await compiled_rows(s, _longer_sql(), {"user_id": user_id, "kinds": ["p", "i", "o"], "shapes": shapes})
    pool: dict[tuple[str, str], list[str]] = {(str(k), str(slug)): list(aliases or ()) for k, slug, aliases in stored}
    for m, key in keys.items():
        pool.setdefault(key, []).append(m.name.lower())
    out: dict[EntityMention, tuple[str, str]] = {}
    for m, (kind, _) in short.items():
        title = _title(m.name)
        longer = {
            key
            for key, aliases in pool.items()
            if key[0] in _kinds_short(kind, m.name)
            and _short_of(key[0], bare[m], key[1], title=title)
            and _said_with(title, aliases)
        }
        if len(longer) == 1:
            out[m] = longer.pop()
    return out
