"""Speaker signal: the turns of the people a message names, best match first.

"What did Priya say about the venue?" asks for Priya's words, and her name is in none
of them. This signal ranks the named person's own drawers by similarity to the message,
so her turn about the venue leads its list even when it never says "venue". (Writing the
name into the keyword index instead was tried first: the name then counted twice with
this list, and Priya's unrelated turns outranked her answer.) Names are matched case-blind as whole 1- to n-word runs of
the message, or by a speaker's first name alone ("Priya" finds "Priya Sharma"), a chat handle's
mark left off (`loci.speakers.HANDLE_MARKS`: "Priya" finds "@priya", as mining links both to her).

A run counts only where the message writes it as a name, its first word not in lower case
("Priya", "PRIYA", "李"), unless the message writes no capital but the pronoun "I" ("what did
priya say?", "what did priya tell me when I called?": a keyboard capitalises "I" for people
who type everything else in lower case): friends called Will, May or Bill are words too, and "What will I eat tonight?"
used to fill the top 3 with Will's turns about band practice. A name opening a sentence
still counts ("Will said…"), unless a subject pronoun follows it as in a question's
inverted verb ("Will I need a visa?", "May we…").

A person the message names by the user's tie to them counts too: "my partner" is the
object of the user's current ``partner`` relation in the graph ("Inês"), so "What food
restriction does my partner have?" finds Inês's own "I am vegetarian" in a group chat.
Without it her turn was not named, and the first-person rule (`retrieval.stages`:
"my…" scales other people's turns) put her words below the user's turns that only
mentioned a vegetarian tasca. Kin words are looked up only when the message says "my X".

Served by the partial index ``ix_drawers_user_speaker`` (``user_id, speaker`` where a
speaker is set, migration 0017): a palace without named turns (every LongMemEval one)
answers from an empty index range, and recall's controls query already found that out
(`SignalContext.named_speakers`), so such a palace costs no statement here.
"""

from __future__ import annotations

import re
import unicodedata

import regex
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.db import driver_rows
from loci.people_roles import PEOPLE_ROLES
from loci.speakers import HANDLE_MARKS
from retrieval.candidates import BASE, SignalContext, rows, vector_param
from retrieval.filters import filter_sql
from retrieval.fusion import Scored
from retrieval.params import SpeakerParams
from retrieval.query import CJK, IN_WORD, LETTER

__all__ = ["speaker_candidates", "speaker_phrases"]

_WORDS_RE = regex.compile(rf"{LETTER}{IN_WORD}*(?:['’.-]{LETTER}{IN_WORD}*)*")
"""A name's word, as `retrieval.query` reads words (its vowel signs and accents in it: "प्रिया")."""
_CJK_NAME = f"^[{CJK}]{{2,}}$"
"""A speaker named in a script written without spaces ("王伟"): found inside the message's words
("王伟说了什么？" has no break after the name); one character alone would match too much."""
_PRONOUN_I = frozenset({"i", "i'm", "i've", "i'd", "i'll"})
"""The pronoun "I" and its contractions: capitalised by keyboards and habit even where nothing
else is, so they do not show that a message is written with capitals."""
_SUBJECT_PRONOUNS = frozenset({"i", "you", "we", "he", "she", "it", "they"})
_MY_RE = re.compile(r"\bmy\s+([^\W\d_]+)(?:['’]s\b)?(?:\s+([^\W\d_]+))?", re.IGNORECASE | re.UNICODE)
USER_SLUG = "user"
"""The slug of the user's own entity in the graph (`ingest.extraction.USER_ENTITY`, kind ``p``):
the subject of the relations "my partner", "my sister" name."""


def speaker_phrases(message: str, params: SpeakerParams) -> list[str]:
    """The message's runs of 1 to ``max_name_words`` words written as a name (first word
    not lower case; any run when the message has no capital but "I"), each once whatever its
    case, none opening with a question's inverted verb ("Will I need a visa?"). A run of ASCII
    letters comes lower-cased; any other as written (NFC), for SQL to lower-case as it
    lower-cases the speakers (Python's ``lower`` turns "İlker" into "i̇lker", PostgreSQL's into
    "ilker")."""
    message = unicodedata.normalize("NFC", message)
    found = list(_WORDS_RE.finditer(message))
    said = [m.group().replace("’", "'") for m in found]
    words = [w.lower() for w in said]
    caseless = all(s == w or w in _PRONOUN_I for s, w in zip(said, words, strict=True))
    inverted = {i for i in range(len(words) - 1) if _inverted_verb(message, found, words, i)}
    runs: dict[str, str] = {}
    for n in range(1, params.max_name_words + 1):
        for i in range(len(words) - n + 1):
            if (caseless or not said[i][0].islower()) and i not in inverted:
                run = " ".join(said[i : i + n])
                runs.setdefault(run.lower(), run.lower() if run.isascii() else run)
    return list(runs.values())[: params.max_phrases]


_QUESTION_LEADS = frozenset(
    {"what", "when", "where", "why", "how", "who", "whom", "which", "whose", "so", "and", "but", "or", "then"}
)
"""Words after which a verb may come before its subject: "what will I eat", "so will I need…"."""
_OPENING_MARKS = " \t\"'“‘("
_SENTENCE_ENDS = ".!?:\n"
_LOOK_BACK = 16
"""How far back past quotes and spaces a sentence's end is looked for: a bounded look, so a
long message costs the same per word (copying its whole prefix made a 20k-character message
take 11 ms)."""


def _inverted_verb(message: str, found: list[regex.Match[str]], words: list[str], i: int) -> bool:
    """Whether word ``i`` is a question's inverted verb ("Will I…", "May we…", "what will I…"),
    which a friend called Will, May or Bill would not be: a subject pronoun follows it with no
    comma (a name said to someone takes one: "Will, I…"), and it opens a sentence or follows a
    question word or a conjunction."""
    if words[i + 1] not in _SUBJECT_PRONOUNS or not message[found[i].end() : found[i + 1].start()].isspace():
        return False
    if i > 0 and words[i - 1] in _QUESTION_LEADS:
        return True
    j, stop = found[i].start(), max(0, found[i].start() - _LOOK_BACK)
    while j > stop and message[j - 1] in _OPENING_MARKS:
        j -= 1
    return j == 0 or message[j - 1] in _SENTENCE_ENDS


def kin_words(message: str) -> list[str]:
    """The ties the message names as the user's, as the graph's predicates: "my wife", "my
    older sister" give ``partner``, ``older``, ``older sister`` (a word for a role is the
    predicate mining records for it, `loci.people_roles`: "wife" is ``partner``, "mom"
    ``mother``; the predicate is one of them, if any)."""
    found: dict[str, None] = {}
    for first, second in _MY_RE.findall(message):
        for said in (first, f"{first} {second}" if second else ""):
            if said:
                found.setdefault(PEOPLE_ROLES.get(said.lower(), said.lower()), None)
    return list(found)


_ASKED = "asked AS (SELECT lower(unnest(CAST(:names AS text[]))) AS n)"
_ASKED_KIN = (
    "asked AS (SELECT lower(unnest(CAST(:names AS text[]))) AS n UNION SELECT lower(coalesce(e.name, r.object_value)) "
    "FROM entities u JOIN relations r ON r.subject_id = u.id AND r.user_id = :uid "
    "LEFT JOIN entities e ON e.id = r.object_entity_id "
    "WHERE u.user_id = :uid AND u.kind = 'p' AND u.slug = :me AND r.predicate = ANY(:kin) AND r.valid_to IS NULL "
    "AND EXISTS (SELECT 1 FROM relation_sources t JOIN drawers s ON s.id = t.drawer_id "
    "WHERE t.relation_id = r.id AND s.deleted_at IS NULL))"
)
"""The names asked for: the message's runs, and with kin words the names of the people the
user's current relations of those predicates point at (the user's entity by its unique
(user, kind, slug) key, its relations through ``ix_relations_subject``). Only a relation a
live turn said counts (`ingest.graph_liveness.live_relation`: a partner learned from a chat
now in the trash names no one); the stored ``valid_to`` is read as it is, so a partner whose
successor's chat was trashed is not taken back (the question then names no one by kin)."""


def _sql(with_vector: bool, extra: str, kin: bool = False) -> str:
    """A named speaker's drawers (the newest ``:cap``), by similarity (whole text or best
    sentence, as the semantic signal scores) or, without a query vector, newest first."""
    named = (
        f"{_ASKED_KIN if kin else _ASKED}, "
        "named AS (SELECT s.speaker FROM (SELECT DISTINCT d.speaker FROM drawers d "
        "WHERE d.user_id = :uid AND d.speaker IS NOT NULL) s "
        "WHERE lower(ltrim(s.speaker, :marks)) IN (SELECT n FROM asked) "
        "OR lower(split_part(ltrim(s.speaker, :marks), ' ', 1)) IN (SELECT n FROM asked) "
        "OR (s.speaker ~ :cjk_name AND strpos(:said, s.speaker) > 0)), "
        "theirs AS MATERIALIZED (SELECT d.id, d.embedding, d.occurred_at, d.role, d.room_id FROM drawers d "
        f"WHERE {BASE} AND d.speaker IN (SELECT speaker FROM named){extra} "
        "ORDER BY d.occurred_at DESC LIMIT :cap)"
    )
    if not with_vector:
        return (
            f"WITH {named} SELECT t.id, 0, t.occurred_at, t.role, t.room_id FROM theirs t "
            "ORDER BY t.occurred_at DESC, t.id LIMIT :n"
        )
    return (
        f"WITH {named} SELECT t.id, greatest(1 - (t.embedding <=> CAST(:qv AS vector)), "
        "(SELECT max(1 - (s.embedding <=> CAST(:qv AS vector))) FROM drawer_sentences s WHERE s.drawer_id = t.id)) "
        "AS sim, t.occurred_at, t.role, t.room_id FROM theirs t "
        "ORDER BY sim DESC NULLS LAST, t.occurred_at DESC, t.id LIMIT :n"
    )


async def speaker_candidates(session: AsyncSession, ctx: SignalContext, params: SpeakerParams) -> list[Scored]:
    """Drawers spoken by a person the message names, most similar to the message first."""
    if not ctx.named_speakers:
        return []
    names, kin = speaker_phrases(ctx.query.message, params), kin_words(ctx.query.message)
    if not names and not kin:
        return []
    extra, bind = filter_sql(ctx.filters)
    bind |= {"uid": ctx.user_id, "names": names, "cap": params.speaker_cap, "n": ctx.limit, "marks": HANDLE_MARKS}
    bind |= {"cjk_name": _CJK_NAME, "said": unicodedata.normalize("NFC", ctx.query.message)}
    if kin:
        bind |= {"kin": kin, "me": USER_SLUG}
    if ctx.vector is not None:
        bind["qv"] = vector_param(ctx.vector)
    return rows(await driver_rows(session, text(_sql(ctx.vector is not None, extra, bool(kin))), bind))
