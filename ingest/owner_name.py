"""The user's own name, said by others, is the user: no person entity of its own.

A turn of the user may carry their name (``{"role": "user", "name": "Sam"}``), and the other
people of the chat say it ("Thanks Sam!", "Sam always helps"). Read as prose, that is a
capitalised name like any other, so mining made a person "Sam" in the user's own people and
things, linked to the turns that greet them: the user listed as someone they know. The user's
own entity is ``User`` (`ingest.extraction.USER_ENTITY`), whose facts come from the user's
turns alone (README, "Conversations between people"), so a name the window's user turns
carry names no one else, and the facts another person states with it as subject or object
("Sam moved to Leeds", "my friend Sam") are not recorded either.

Only in the turns of others, and unless another person of the window writes under that name:
a channel where the user Sam meets Sam from design has a second Sam, whose own turns make the
person (`ingest.window._said_by`), and the text's "Sam" may be either of them, so it is left
as it was found.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ingest.extraction import USER_ENTITY, EntityMention, Extraction, TurnView
from ingest.names import name_key
from ingest.relation_extract import speaker_of
from loci.speakers import person_named

__all__ = ["without_owner_name"]


def _owner_keys(turns: Sequence[TurnView]) -> frozenset[str]:
    """The name keys the user's turns go by, less those another person of ``turns`` writes under."""
    own = {name_key(person_named(t.name)) for t in turns if t.role == "user" and t.name}
    others = {name_key(p.name) for t in turns if (p := speaker_of(t)) is not None and p != USER_ENTITY}
    return frozenset(own - others - {""})


def _is_owner(m: EntityMention, keys: frozenset[str]) -> bool:
    return m.kind == "p" and m != USER_ENTITY and name_key(m.name) in keys


def without_owner_name(ex: Extraction, turns: Sequence[TurnView]) -> Extraction:
    """``ex`` without the person mentions, and the facts about or naming a person, that are the
    user's own name in the turns of others (see the module doc); ``ex`` itself when the user's
    turns give no name. The user's own turns keep theirs: the user who writes their own name
    ("my friend Sam", "Tom and Sam came over") names someone else by it."""
    keys = _owner_keys(turns)
    if not keys:
        return ex
    theirs = {t.seq for t in turns if t.role != "user"}
    mentions = {
        seq: tuple(m for m in found if seq not in theirs or not _is_owner(m, keys))
        for seq, found in ex.mentions.items()
    }
    relations = tuple(
        f
        for f in ex.relations
        if f.turn_seq not in theirs
        or not (_is_owner(f.subject, keys) or (f.value_kind == "p" and name_key(f.value) in keys))
    )
    return replace(ex, mentions=mentions, relations=relations)
