"""What the user has not agreed to have remembered stays out of what Loci writes from their words.

A change to a sensitive field waits as a proposal (`ingest.memory_proposals`); pending,
rejected or lapsed, it is not the user's memory. The conversation's archive summary
(`ingest.archive`) and the daily insights (`domain.insights`) are written from the turns
themselves, though, so without this they would quote "I'm allergic to penicillin" right
after the user declined to have it remembered. Here the sentences that state such a
statement are taken out of the turns those writers read; the conversation and its drawers
are untouched (a purge of the turns removes the words themselves).

A sentence states a statement when every *distinctive* word of the statement (its words
less stopwords and the fixed form of a slot, "Lives in", "Name is") meets a word of the
sentence, two words meeting when they share their first `STEM` letters or one is the
start of the other ("allergic" and "allergy", "use" and "uses"). In the statement's own
turns (the proposal's turn seqs) half its distinctive words are enough, and when no
sentence there qualifies (a model reworded it freely) the whole turn is withheld: that
is where it was said. Matching errs on the side of leaving a sentence out: a summary one
sentence shorter costs little, a declined diagnosis in every later prompt costs trust.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ingest.extract_offline import STOPWORDS
from ingest.extraction import TurnView
from ingest.memory_candidates import SLOTS, MemoryCandidate
from loci.models import MemoryProposal
from loci.sensitive_fields import sensitive_field
from loci.sentences import split_sentences
from loci.settings import MemorySettings

__all__ = ["Withheld", "sensitive_statements", "unconsented", "withhold_text", "withhold_turn", "withhold_turns"]

STEM = 4
"""Letters two words must share at their start to meet ("allergic"/"allergy", "diabetes"/"diabetic")."""
MIN_WORD = 3
"""Shorter words ("to", "a", a bare digit) tell nothing apart."""
OWN_TURN_SHARE = 0.5
"""In the turn a statement came from, the share of its distinctive words a sentence needs."""
_WORD = re.compile(r"[a-z0-9]+")
_FORM_WORDS = frozenset(w for slot in SLOTS.values() for w in _WORD.findall(slot.template.lower()))
"""The fixed words of the slots' templates ("lives", "name", "works"): the form, not the fact."""
_UNANSWERED_OR_DECLINED = ("pending", "rejected", "lapsed")


@dataclass(frozen=True, slots=True)
class Withheld:
    """A statement the user has not consented to, the turns it came from and their
    conversation (None: the one being mined)."""

    content: str
    turn_seqs: tuple[int, ...] = ()
    conversation_id: int | None = None


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower().replace("’", "'")) if len(w) >= MIN_WORD]


def _distinctive(content: str) -> list[str]:
    words = [w for w in _words(content) if w not in STOPWORDS]
    facts = [w for w in words if w not in _FORM_WORDS]
    return facts or words


def _meet(a: str, b: str) -> bool:
    if len(a) >= STEM and len(b) >= STEM:
        return a[:STEM] == b[:STEM]
    return a.startswith(b) or b.startswith(a)


def _share(distinctive: Sequence[str], sentence: str) -> float:
    said = _words(sentence)
    found = sum(any(_meet(d, w) for w in said) for d in distinctive)
    return found / len(distinctive) if distinctive else 0.0


def _kept(text: str, withheld: Iterable[Withheld], bar: float) -> tuple[list[str], int]:
    """The sentences of ``text`` stating none of ``withheld``, and how many were taken out."""
    keys = [d for d in (_distinctive(w.content) for w in withheld) if d]
    pieces = split_sentences(text)
    kept = [p for p in pieces if not any(_share(d, p) >= bar for d in keys)]
    return kept, len(pieces) - len(kept)


def _joined(pieces: Sequence[str]) -> str:
    return " ".join(" ".join(p.split()) for p in pieces)


def withhold_text(text: str, withheld: Sequence[Withheld]) -> str:
    """``text`` without the sentences that state any of ``withheld`` (module docstring)."""
    if not withheld:
        return text
    kept, dropped = _kept(text, withheld, 1.0)
    return _joined(kept) if dropped else text


def withhold_turn(text: str, seq: int, withheld: Sequence[Withheld], conversation_id: int | None = None) -> str:
    """One turn's ``text`` without what states a ``withheld`` statement; empty when the turn
    is one a statement came from and says it in no recognisable sentence."""
    own = [w for w in withheld if seq in w.turn_seqs and w.conversation_id in (None, conversation_id)]
    text = withhold_text(text, [w for w in withheld if w not in own])
    if own:
        kept, dropped = _kept(text, own, OWN_TURN_SHARE)
        text = _joined(kept) if dropped else ""
    return text if text.strip() else ""


def withhold_turns(
    turns: Sequence[TurnView], withheld: Sequence[Withheld], conversation_id: int | None = None
) -> list[TurnView]:
    """``turns`` (of ``conversation_id``) with what states a ``withheld`` statement taken
    out (`withhold_turn`); a turn left with nothing is left out."""
    if not withheld:
        return list(turns)
    out: list[TurnView] = []
    for turn in turns:
        text = withhold_turn(turn.content, turn.seq, withheld, conversation_id)
        if text:
            out.append(turn if text == turn.content else replace(turn, content=text))
    return out


async def unconsented(s: AsyncSession, user_id: int) -> list[Withheld]:
    """The user's proposals waiting, rejected or lapsed, with the turns they came from."""
    rows = await s.execute(
        select(MemoryProposal.content, MemoryProposal.turn_seqs, MemoryProposal.conversation_id).where(
            MemoryProposal.user_id == user_id, MemoryProposal.status.in_(_UNANSWERED_OR_DECLINED)
        )
    )
    return [Withheld(content, tuple(seqs or ()), conv) for content, seqs, conv in rows.all()]


def sensitive_statements(candidates: Iterable[MemoryCandidate], settings: MemorySettings) -> list[Withheld]:
    """The candidates mining is about to file as proposals (not written yet when the archive
    summary is made): the statements of a sensitive field, with their turns."""
    return [
        Withheld(c.content, tuple(c.turn_seqs))
        for c in candidates
        if settings.consent_fields and sensitive_field(c.category, c.content, c.slot, settings.consent_fields)
    ]
