"""Replies read for the words of the message: which of the listed replies says what it asks.

The reply list (`retrieval.reply`) ranks the assistant's replies by how well the user's turn
they answer matches the message. Inside one conversation that picks the reply to its opening
question, the overview, over the later one that holds the detail asked for: "the hiking trail
you recommended that takes you through the park's most stunning landscapes" was answered by
"…the GR-90. This trail takes you through the park's most stunning landscapes…", the reply to
a follow-up question, while the reply to "what is there to do in the park?" ranked first.
Replies have no vectors by default (`LOCI_MINING_EMBED_ROLES`), and embedding their sentences
at recall time costs ~3 ms a sentence on this 2-core machine, tens of sentences a reply.

So the listed replies' own sentences are read and each reply scored by its best one: a
sentence scores the BM25 IDF of the message's terms it contains, the IDF taken over the
sentences read (`sentence_scores`). A term every candidate repeats (the park's name, the
topic) then weighs little and one only the answering sentence shares ("panoramic",
"trail") much, which is what tells the detail from the overview. When the message asks for
a kind of answer ("how many eggs did you say?": `retrieval.answer_type`), only sentences
holding one count ("- 2-3 eggs", not "whisk the eggs with a pinch of salt"). Each
conversation's best-read reply is then lifted among that conversation's drawers only
(`best_reply_first`): which conversation it was is left to the other signals.

The words are read as the keyword signal reads them (`retrieval.keyword.TS_CONFIG`,
stemmed by PostgreSQL): two statements, the replies' text by primary key and each term's
matches over their sentences. It runs only for a message about what the assistant said.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping, Sequence

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from loci.name_keys import UNDECOMPOSED
from loci.sentences import split_sentences
from retrieval.answer_type import AnswerKind, holds_answer
from retrieval.candidates import SignalContext
from retrieval.fusion import Fused, Scored
from retrieval.keyword import TS_CONFIG, ts_query
from retrieval.params import ReplyParams
from retrieval.query import or_tsquery

__all__ = ["REPLY_TEXT_LIST", "best_reply_first", "read_replies", "sentence_scores", "term_keys"]

REPLY_TEXT_LIST = "reply_text"
"""Marks a room's best-read reply in the log (`Fused.ranks`, always 1), whether or not its bonus moved it; no
RRF list."""

_CONTENT_SQL = (
    "SELECT id, loci_search_text(content) FROM drawers WHERE user_id = :uid AND id = ANY(:ids) AND deleted_at IS NULL"
)
"""The replies' text as the ``tsv`` columns read it (`retrieval.keyword`): normalised once a reply here rather
than once a sentence in `_hits_sql`."""


def _hits_sql(terms: int) -> str:
    """Which of ``terms`` terms each sentence of ``:sents`` contains, one row per sentence."""
    per_term = ", ".join(f"{ts_query(f't{i}')} AS q{i}" for i in range(terms))
    hits = ", ".join(f"(s.v @@ qs.q{i})" for i in range(terms))
    return (
        f"WITH qs AS MATERIALIZED (SELECT {per_term}), "
        f"s AS (SELECT u.i, to_tsvector('{TS_CONFIG}', u.x) AS v "
        "FROM unnest(CAST(:sents AS text[])) WITH ORDINALITY AS u(x, i)) "
        f"SELECT s.i, {hits} FROM s, qs ORDER BY s.i"
    )


def sentence_scores(hits: Sequence[Sequence[bool]], read: int) -> list[float]:
    """Each sentence's score: the sum of the BM25 IDF, ``ln(1 + (N - df + 0.5) / (df + 0.5))``,
    of the terms it contains, with N the ``read`` sentences (``hits`` holds the rows of those
    that may contain a term, `_may_contain`) and df those containing the term (pure)."""
    if not hits:
        return []
    df = [sum(1 for row in hits if row[i]) for i in range(len(hits[0]))]
    idf = [math.log(1 + (read - d + 0.5) / (d + 0.5)) for d in df]
    return [sum(w for w, hit in zip(idf, row, strict=True) if hit) for row in hits]


_UNSPLIT = str.maketrans({**UNDECOMPOSED, "’": "'", "y": "i"})
"""Letters ``unaccent`` reads as others but NFKD does not split ("Søren", "Łódź", "æbleskiver":
`loci.name_keys.UNDECOMPOSED`), the curly apostrophe `retrieval.query.keyword_terms` straightens, and "y",
which English stemming turns into "i" ("sky", "skies"; "dying", "die")."""


def _folded(text: str) -> str:
    """``text`` lower case, without accents or white space, "y" as "i": what `_may_contain` compares."""
    plain = unicodedata.normalize("NFKD", text.lower().translate(_UNSPLIT))
    return "".join(c for c in plain if not c.isspace() and not unicodedata.combining(c))


def term_keys(terms: Sequence[str]) -> list[str]:
    """The first letters of each term that English stemming keeps as they are, folded (`_folded`): three
    ("bakes" and "baking" keep "bak"), two of a word of five letters or fewer ("dying" is stemmed "die")."""
    return [f[: 2 if len(f) <= 5 else 3] for f in (_folded(t) for t in terms)]


def _may_contain(sentence: str, keys: Sequence[str]) -> bool:
    """Whether ``sentence`` may contain a term: it holds one's `term_keys`. Only those go to PostgreSQL;
    stemming a sentence there costs ~0.1 ms, and most hold none. A prefilter: a word the stemmer maps to a
    term with other first letters than these (none known beyond the ones folded above) would be missed."""
    folded = _folded(sentence)
    return any(k in folded for k in keys)


def _sentences(
    replies: Sequence[int], contents: Mapping[int, str], kind: AnswerKind | None, per_reply: int
) -> list[tuple[int, str]]:
    """(reply, sentence) pairs to read: each reply's first ``per_reply`` sentences, only those
    holding the kind of answer asked for when there is one."""
    out: list[tuple[int, str]] = []
    for drawer_id in replies:
        pieces = [s.strip() for s in split_sentences(contents.get(drawer_id, ""))][:per_reply]
        out.extend((drawer_id, s) for s in pieces if s and (kind is None or holds_answer(kind, s)))
    return out


async def read_replies(
    session: AsyncSession, ctx: SignalContext, replies: Sequence[Scored], params: ReplyParams
) -> list[Scored]:
    """Each room's best-read reply (`sentence_scores` of its best sentence), best first; a reply sharing no
    term with the message, or of no room, is left out. The first ``params.read_replies`` distinct replies of
    the list are read."""
    terms = list(ctx.query.terms)
    if not terms or not replies or params.read_replies <= 0:
        return []
    first: dict[int, Scored] = {}
    for reply in replies:
        if len(first) >= params.read_replies:
            break
        first.setdefault(reply.drawer_id, reply)
    found = await session.execute(text(_CONTENT_SQL), {"uid": ctx.user_id, "ids": list(first)})
    contents = {int(r[0]): str(r[1]) for r in found}
    read = _sentences(list(first), contents, ctx.query.answer_kind, params.read_sentences)
    keys = term_keys(terms)
    pairs = [(d, s) for d, s in read if _may_contain(s, keys)]
    if not pairs:
        return []
    bind: dict[str, object] = {"sents": [s for _, s in pairs]}
    bind |= {f"t{i}": or_tsquery([t]) for i, t in enumerate(terms)}
    rows = (await session.execute(text(_hits_sql(len(terms))), bind)).all()
    hits = [tuple(bool(h) for h in r[1:]) for r in sorted(rows, key=lambda r: int(r[0]))]
    scores = sentence_scores(hits, len(read))
    best: dict[int, float] = {}
    for (drawer_id, _), score in zip(pairs, scores, strict=True):
        best[drawer_id] = max(best.get(drawer_id, 0.0), score)
    out: dict[int, Scored] = {}
    for d in sorted((d for d, s in best.items() if s > 0), key=lambda d: (-best[d], d)):
        room = first[d].room_id
        if room is not None and room not in out:
            out[room] = Scored(d, best[d], first[d].occurred_at, first[d].role, room)
    return list(out.values())


def best_reply_first(
    fused: Sequence[Fused], room_of: Mapping[int, int], read: Sequence[Scored], bonus: float
) -> list[Fused]:
    """``fused`` (pooled) with each room's best-read reply lifted by ``bonus`` among its own
    room's drawers only (pure).

    The room keeps the places it held, and each place its score; only which of the room's
    drawers fills them changes. So rooms rank exactly as before (session metrics cannot move)
    and the reply that says what was asked goes ahead of its room's overview. Read over all
    rooms as an RRF list, the same words ranked a distractor first ("3 large eggs" in another
    omelette recipe outranked "2-3 eggs" in the classic French one asked about), which is a
    question for the other signals: which conversation it was.
    """
    lifted = {r.drawer_id for r in read}
    places: dict[int, list[int]] = {}
    for place, f in enumerate(fused):
        room = room_of.get(f.drawer_id)
        if room is not None:
            places.setdefault(room, []).append(place)
    out = list(fused)
    for held in places.values():
        members = [fused[p] for p in held]
        if lifted.isdisjoint(f.drawer_id for f in members):
            continue
        ordered = sorted(members, key=lambda f: -(f.score + (bonus if f.drawer_id in lifted else 0.0)))  # stable
        for place, f in zip(held, ordered, strict=True):
            ranks = {**f.ranks, REPLY_TEXT_LIST: 1} if f.drawer_id in lifted else f.ranks
            out[place] = Fused(f.drawer_id, fused[place].score, ranks)
    return out
