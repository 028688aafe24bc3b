"""Which of the names the assistant's replies hold a conversation's graph keeps: those people say too.

Why: the graph (entities, their mentions, their timelines) is the user's world. An assistant's
reply names what it suggests or explains: the sights of an itinerary it drafts, the authors of
a book it recommends, the models it compares, the labels of its lists ("**Security**:",
"**Hook (2 min)**"). None of that is part of the user's life until a person takes it up, and
stored it buried the user's own people and places in the entity list: on the eight labelled
sets (tests/fixtures/mining_quality*), 39-77 % of the names only a reply held were wrong or no
entity a labeller listed, against 7-38 % of those a person said. mem0's extraction prompt keeps
to the same line ("generate facts solely based on the user's messages").

A reply's name stays when (`PeopleSaid.say`):

* a person's turn of the job names it too, as the extractor read that turn, or the user's graph
  holds it already (named in an earlier conversation, any kind: `ingest.known_kinds.known_kinds`),
  the two compared by `loci.name_keys.name_key` ("Dr. Rachel Tan" is "Rachel Tan", "Sao Paulo"
  "São Paulo");
* or a person's words of the conversation, those mined before included, hold it whole, within
  one sentence, its case, accents, dots, a title and a possessive aside ("dr rachel tan" keeps
  "Dr. Rachel Tan", "parkhurst's" "Parkhurst", "McDonald's" itself) — unless it is one everyday
  English word ("Security", "May": `ingest.gazetteer.is_common_word`), which a person's lower
  case does not make a name;
* or, for a name in a script written without spaces (Chinese, Japanese, Thai …), a person's
  text holds it as a substring, as `ingest.extract_llm` checks such names.

Names in people's turns (the user, another person), in tool and system turns, and times, all
stay: only ``assistant`` turns are replies. The drawers keep every word, so recall still finds
what the assistant said by its text and vectors. Wings are chosen before this (`ingest.pipeline`),
as they were: the subject rule counts only what a person says anyway (`ingest.subjects`).

Cost: linear in the conversation's words. Each word is keyed once, and only the runs that start
with a word some reply name starts with are joined: 100 KB of people's text against 2,000 reply
names took ~45 ms here, run off the event loop as the extractor is (`ingest.pipeline`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import regex
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.echo_guard import strip_echoed_blocks
from ingest.extraction import USER_ENTITY, EntityMention, ExtractionOutcome, TurnView
from ingest.gazetteer import is_common_word
from loci.models import PERSON_ROLES, Turn
from loci.name_keys import name_key, slugify

__all__ = ["REPLY_ROLE", "Heard", "PeopleSaid", "keep_said", "people_before"]

REPLY_ROLE = "assistant"
_NAMED = frozenset({"p", "l", "o", "i", "e"})
"""The kinds a name may have (a time, "t", is a period the turn names, kept wherever it is said)."""
_POSSESSIVE = re.compile(r"['’]s(?=\W*$)", re.I)
_SENTENCE_END = re.compile(r"[.!?…]['\"’”)\]]*$")
_NO_END = re.compile(r"(?i)(?:dr|mr|mrs|ms|prof|st|mt|ft|jr|sr|ave|rd|no|vs|etc|[^\W\d_])\.")
"""A dot that ends a title, an abbreviation or an initial, not a sentence ("out to st. norbert")."""
_SPACELESS = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]")
"""Scripts written without spaces between words: a name in one is looked for as a substring."""
_LONGEST = 8
"""The most words a name is looked for in (longer runs are a title, not a name)."""


@dataclass(frozen=True, slots=True)
class Heard:
    """What a job reads before it extracts, to keep the replies' names by: people's turns of the
    conversation mined before (``earlier``), and the names the user's graph holds (``held``)."""

    earlier: Sequence[str] = ()
    held: Sequence[str] = ()


async def people_before(s: AsyncSession, conversation_id: int, mined_seq: int | None) -> list[str]:
    """People's turns of the conversation up to the watermark (mined by an earlier job: a chat mined
    in parts, or a job that stopped after some windows), without any echoed Loci block."""
    if not mined_seq:
        return []
    said = select(Turn.content).where(
        Turn.conversation_id == conversation_id, Turn.seq <= mined_seq, Turn.role.in_(PERSON_ROLES)
    )
    return [strip_echoed_blocks(text) for text in (await s.scalars(said.order_by(Turn.seq))).all()]


def _bare(name: str) -> str:
    return _POSSESSIVE.sub("", name)


@lru_cache(maxsize=8192)
def _keys(name: str) -> frozenset[str]:
    """The keys a name may be said by: with and without a title, with and without a possessive
    (cached, bounded: a worker runs for weeks; `PeopleSaid.read` and `.say` both ask for each name)."""
    return frozenset(key(n) for n in {name, _bare(name)} for key in (name_key, slugify))


@dataclass(frozen=True, slots=True)
class PeopleSaid:
    """What a conversation's people said, to hold a reply's names against (module doc)."""

    named: frozenset[str]
    """`name_key`s of the names the extractor read in people's turns and the user's graph holds."""
    runs: frozenset[str]
    """Keys of the word runs of people's sentences that may be a reply's name."""
    spaceless: str
    """People's text, case-folded, for names in scripts without spaces."""

    @classmethod
    def read(cls, texts: Iterable[str], named: Iterable[str], candidates: Collection[str]) -> PeopleSaid:
        """``texts``: people's turns of the conversation; ``named``: the names read in them and held by
        the graph; ``candidates``: the replies' names, whose first words bound the runs kept."""
        texts = list(texts)
        firsts: dict[str, int] = {}
        for first, words in ((k.split("-")[0], k.count("-") + 1) for n in candidates for k in _keys(n)):
            firsts[first] = min(_LONGEST, max(firsts.get(first, 0), words))
        runs: set[str] = set()
        for sentence in _sentences(texts):
            for i, word in enumerate(sentence):
                for j in range(i + 1, i + 1 + firsts.get(word, 0)):
                    if j <= len(sentence):
                        runs.add("-".join(sentence[i:j]))
        spaceless = " ".join(t.casefold() for t in texts if _SPACELESS.search(t))
        return cls(frozenset(name_key(n) for n in named), frozenset(runs), spaceless)

    def say(self, name: str) -> bool:
        keys = _keys(name)
        if keys & self.named:
            return True
        if _SPACELESS.search(name):
            return name.casefold() in self.spaceless
        return any(key in self.runs and ("-" in key or not is_common_word(key)) for key in keys)


def _sentences(texts: Iterable[str]) -> Iterable[list[str]]:
    """Each sentence of ``texts`` as its keyed words ("Parkhurst's," → "parkhurst"; "e-bike" → "e", "bike")."""
    for text in texts:
        sentence: list[str] = []
        for token in text.split():
            key = slugify(_bare(token))
            if any(c.isalnum() for c in token):
                sentence.extend(key.split("-"))
            if _SENTENCE_END.search(token) and not _NO_END.fullmatch(token) and sentence:
                yield sentence
                sentence = []
        if sentence:
            yield sentence


def keep_said(
    extracted: Sequence[tuple[Sequence[TurnView], ExtractionOutcome]],
    earlier: Iterable[str] = (),
    held: Iterable[str] = (),
) -> list[ExtractionOutcome]:
    """Each window's outcome (with its turns), its replies' names kept only where people say them
    (module doc). ``earlier``: people's turns of the conversation mined before; ``held``: names the
    user's graph holds (`ingest.known_kinds.known_kinds`)."""
    people = {t.seq for turns, _ in extracted for t in turns if t.role in PERSON_ROLES}
    replies = {t.seq for turns, _ in extracted for t in turns if t.role == REPLY_ROLE}
    mentions = [(seq, m) for _, o in extracted for seq, found in o.extraction.mentions.items() for m in found]
    candidates = {m.name for seq, m in mentions if seq in replies and m.kind in _NAMED and m != USER_ENTITY}
    if not candidates:
        return [o for _, o in extracted]
    texts = [*earlier, *(t.content for turns, _ in extracted for t in turns if t.seq in people)]
    named = [*held, *(m.name for seq, m in mentions if seq in people and m.kind in _NAMED)]
    said = PeopleSaid.read(texts, named, candidates)
    kept = {name for name in candidates if said.say(name)}

    def keep(seq: int, found: tuple[EntityMention, ...]) -> tuple[EntityMention, ...]:
        if seq not in replies:
            return found
        return tuple(m for m in found if m.name not in candidates or m.name in kept)

    return [
        replace(o, extraction=replace(o.extraction, mentions={s: keep(s, f) for s, f in o.extraction.mentions.items()}))
        for _, o in extracted
    ]
