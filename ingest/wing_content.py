"""A later chat about a subject the palace already has, found by what it says.

People name a subject once and then call it something else: "a 1974 triumph" becomes
"the bonnie", "a used electric car" becomes "the leaf" and then the wallbox it needs, "my
mum helen" becomes "mum". Names alone (`ingest.wings`: same spelling, similar name) cannot
join these, and the later chat's own best word ("Garage", "Wallbox") names a detail.

What such chats share is their content. Each wing's drawers are averaged into one vector
(the wing's centroid, the same mean `ingest.keyphrases.document_vector` takes of one
chat), and a chat whose own mean is close enough to one of them joins that wing, its own
subject kept as an alias. This is the nearest-centroid step of incremental topic
clustering (BERTopic's ``partial_fit`` assigns a new document to its closest topic), used
only where the chat's subject matches no wing by name: a chat that names an existing
subject is that subject's, however close its content is to another. And only for a
common noun (a topic or thing): a chat about a named person or place is about that name
("Japan trip" after a family visit abroad: both travel, cosine over 0.4), while a common
noun is often a detail of a subject the user named before ("carbs", "the wallbox"). A
person known only by kin ("My nana" after "my grandmother") is named by a common noun
too, so joins as one, and only a person's wing.

A person's wing is joined by content only by a chat that speaks of them: one that says the
wing's name or one of its aliases ("inês", "my mum"; a kin word people use as a name, "mum",
for an alias "my mum"); one that calls someone "he" or "she" whom it never names and the
wing's person can be ("she passed her exams" after chats about a daughter: no one the chat
names, by first name, other speaker or "my X", is a she; `ChatContent.unnamed`); or one whose
own subject is a person known only by kin (above). What a person's chats are about (their
trips, their walks, their food) is shared by many chats that are not about them: a group
hike chat with two friends and a work chat with a colleague were both filed under a partner
whose Porto trip they resembled (`tests/integration/test_wing_join_person.py`). A wing such
a chat is nearest but may not join still counts as the runner-up, so the chat then joins
nothing rather than the next wing.

The nearest wing must also be clearly nearer than the runner-up
(``SubjectRules.join_margin``, a ratio test as in nearest-neighbour matching): on
LongMemEval's haystacks, generic advice chats sit at 0.4 from many wings at once ("Kitchen
knives" from "Coupons"), while a later chat about one subject stands out from the rest.

Cost: no embedding; one grouped ``avg(embedding)`` over the compared wings' drawers, which
reads each of their vectors. A per-wing running mean kept at write time would bound it for
a user with very many drawers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
from sqlalchemy import Row, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.extraction import USER_ENTITY, EntityMention, TurnView
from ingest.gazetteer import name_gender
from ingest.names import compact_key, name_key
from ingest.subject_candidates import WingSubject
from ingest.subject_rules import SubjectRules
from loci.models import Drawer, Wing

__all__ = ["MENTIONED_SUBJECTS", "NAMED_SUBJECTS", "ChatContent", "chat_content", "content_wing", "named_by"]

NAMED_SUBJECTS = frozenset({"person", "place"})
"""Wing kinds a chat's own name settles: never joined to another wing by content."""
MIN_RIVALS = 2
"""Wings a chat's mean must be compared with before it may join one: the nearest and a
runner-up. The join rests on the ratio test (``SubjectRules.join_margin``); with one wing
there is nothing to measure the lead against, and the bar alone joins chats that only share
the user's register or a detail (see the module doc)."""
MENTIONED_SUBJECTS = frozenset({"person"})
"""Wing kinds a chat joins by content only when it speaks of the wing's subject (`speaks_of`),
or its own subject is a person known only by kin: sharing a person's topics is not being about them."""
UNFILED = frozenset({"agent"})
"""Wing kinds that hold what no subject claimed (an agent's wing; "general" too, by slug):
sharing their content says nothing about a subject."""


WingRow = Row[int, str, str, str, list[str]]
"""A compared wing: id, kind, name, slug, aliases."""
_WORD = re.compile(r"\w+")


def _words(text: str) -> str:
    """``text`` lower-cased as space-separated words, padded, so a spelling is found whole."""
    return f" {' '.join(_WORD.findall(text.lower()))} "


@dataclass(frozen=True, slots=True)
class ChatContent:
    """What the content join reads of the chat being mined."""

    document: np.ndarray | None
    """The chat's mean drawer embedding (`ingest.keyphrases.document_vector`)."""
    said: str = " "
    """Every turn's words, lower-cased and padded (`chat_content`), to find a wing's spellings in."""
    unnamed: frozenset[str] = frozenset()
    """"m" / "f": the chat's "he" / "she" that no person it names can be (by first name,
    `ingest.gazetteer.name_gender`): someone the user has named before, perhaps a wing."""


def chat_content(
    turns: Sequence[TurnView],
    mentions: Mapping[int, Sequence[EntityMention]],
    document: np.ndarray | None,
    rules: SubjectRules,
) -> ChatContent:
    """The chat as the content join reads it: its mean embedding, its words, and the sexes of
    the people it calls "he" or "she" without naming them (the people it names: the
    extractor's person mentions, the other people writing in it, and "my X" for a kin word:
    "my boss … she" is the boss)."""
    said = _words(" ".join(t.content for t in turns))
    people = {m.name for found in mentions.values() for m in found if m.kind == "p" and m != USER_ENTITY}
    people |= {t.name for t in turns if t.role == "other" and t.name}
    named = {name_gender(p) for p in people} | {_kin_sex(k, rules) for k in rules.kin if f" my {k} " in said}
    used = {g for g, words in (("m", rules.he), ("f", rules.she)) if words & set(said.split())}
    return ChatContent(document, said, frozenset(g for g in used if not named & {"", g}))


def speaks_of(name: str, aliases: Sequence[str], said: str, rules: SubjectRules) -> bool:
    """Whether a chat whose words are ``said`` names this wing: its name, an alias, or the
    kin word of a "my X" alias that people use as a name (``rules.named_kin``: "mum")."""
    spellings = {name.lower(), *(a.lower() for a in aliases)}
    kin = {a.removeprefix("my ") for a in spellings if a.startswith("my ")} & rules.named_kin
    return any(f" {words.strip()} " in said for words in map(_words, spellings | kin) if words.strip())


def _joinable(kind: str, slug: str, kin_only: bool) -> bool:
    """A subject's wing; a person known only by kin joins only a person."""
    return kind not in UNFILED and slug != "general" and (kind == "person" or not kin_only)


def _may_join(wing: WingRow, kin_only: bool, chat: ChatContent, rules: SubjectRules) -> bool:
    """Whether the chat may join this wing by content (`_joinable`; `MENTIONED_SUBJECTS`)."""
    _, kind, name, slug, aliases = wing
    if not _joinable(kind, slug, kin_only):
        return False
    if kind not in MENTIONED_SUBJECTS or kin_only or speaks_of(name, aliases, chat.said, rules):
        return True
    sex = _sex(name, aliases, rules)
    return bool(chat.unnamed) and (not sex or sex in chat.unnamed)


def _kin_sex(kin: str, rules: SubjectRules) -> str:
    return "m" if kin in rules.male_kin else "f" if kin in rules.female_kin else ""


def _sex(name: str, aliases: Sequence[str], rules: SubjectRules) -> str:
    """ "m" / "f" for a person's wing, "" for either: a kin word among its spellings settles it
    ("My dad", "Wife dina"), else its first name (`name_gender`), unless the name is "my X"."""
    kin = {_kin_sex(w, rules) for w in _words(" ".join([name, *aliases])).split() if w in rules.kin} - {""}
    if kin:
        return kin.pop() if len(kin) == 1 else ""
    return "" if name.lower().split()[:1] == ["my"] else name_gender(name)


def _cosine(centroid: object, document: np.ndarray) -> float:
    vector = np.asarray(centroid, dtype=np.float32)
    norm = float(np.linalg.norm(vector))
    return float(vector @ document) / norm if norm > 0 else 0.0


def named_by(subject: WingSubject, slug: str, aliases: Sequence[str]) -> bool:
    """Whether `ingest.place.resolve_wing` would file ``subject`` in this wing by name."""
    key, compact = name_key(subject.name), compact_key(subject.name)
    spellings = {subject.name.lower(), key, compact, *(a.lower() for a in subject.aliases)} - {""}
    return slug == key or slug.replace("-", "") == compact or bool(spellings & set(aliases))


async def content_wing(
    s: AsyncSession,
    user_id: int,
    subject: WingSubject,
    chat: ChatContent,
    rules: SubjectRules,
    limit: int,
) -> WingSubject:
    """``subject`` renamed to the existing wing whose drawers' mean is closest to this
    chat's (``chat.document``), at ``rules.join_similarity`` or above; unchanged when its name
    already files it, or no wing is close enough, or the closest is a person it never names."""
    document = chat.document
    if document is None or (subject.kind in NAMED_SUBJECTS and not subject.name.lower().startswith("my ")):
        return subject
    wings = (
        await s.execute(
            select(Wing.id, Wing.kind, Wing.name, Wing.slug, Wing.aliases)
            .where(Wing.user_id == user_id, Wing.deleted_at.is_(None))
            .order_by(Wing.id.desc())
            .limit(limit)
        )
    ).all()
    if not wings or any(named_by(subject, slug, aliases) for _, _, _, slug, aliases in wings):
        return subject
    rivals = [w for w in wings if _joinable(str(w[1]), str(w[3]), kin_only=False)]
    kin_only = subject.kind == "person"
    joinable = {w[0]: w for w in rivals if _may_join(w, kin_only, chat, rules)}
    if not joinable:
        return subject
    sims = await _closeness(s, user_id, [w[0] for w in rivals], document)
    best = next(((sim, wing_id) for sim, wing_id in sims if wing_id in joinable), None)
    if best is None or len(sims) < MIN_RIVALS or best[0] < rules.join_similarity:
        return subject
    runner_up = max((sim for sim, wing_id in sims if wing_id != best[1]), default=0.0)
    if best[0] - runner_up < rules.join_margin:
        return subject
    _, kind, name, _, _ = joinable[best[1]]
    return replace(subject, kind=str(kind), name=str(name), aliases=(*subject.aliases, subject.name.lower()))


async def _closeness(
    s: AsyncSession, user_id: int, wing_ids: Sequence[int], document: np.ndarray
) -> list[tuple[float, int]]:
    """(cosine to ``document``, wing id) for each of these wings that holds embedded drawers, closest first."""
    centroids = (
        await s.execute(
            select(Drawer.wing_id, func.avg(Drawer.embedding, type_=Drawer.embedding.type))
            .where(
                Drawer.user_id == user_id,
                Drawer.wing_id.in_(wing_ids),
                Drawer.embedding.is_not(None),
                Drawer.deleted_at.is_(None),
            )
            .group_by(Drawer.wing_id)
        )
    ).all()
    return sorted(((_cosine(centroid, document), wing_id) for wing_id, centroid in centroids), reverse=True)
