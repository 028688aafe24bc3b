"""The signal table: every candidate signal, what it needs and how much it weighs, as data.

One row per `Signal`: the function that owns its SQL, whether it runs after the query
vector is ready, whether a drawer it finds passes recall's relevance floor without a
similarity check, its default RRF weight and its default parameters. `RetrievalConfig`
takes its defaults from here and the pipeline iterates this table, so adding a signal
is one module and one row.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from retrieval.candidates import SignalContext
from retrieval.fusion import Scored
from retrieval.keyword import keyword_candidates
from retrieval.params import KeywordParams, PreferenceParams, SemanticParams, Signal, SpeakerParams, TemporalParams
from retrieval.preference import preference_candidates
from retrieval.semantic import semantic_candidates
from retrieval.speaker import speaker_candidates
from retrieval.temporal import temporal_candidates

__all__ = ["SIGNALS", "SignalSpec", "default_weights", "relevant_signals"]

P = TypeVar("P")


@dataclass(frozen=True, slots=True)
class SignalSpec(Generic[P]):
    signal: Signal
    candidates: Callable[[AsyncSession, SignalContext, P], Awaitable[list[Scored]]]
    params: P
    """Default parameters (`RetrievalConfig` carries the ones in force)."""
    default_weight: float
    needs_vector: bool
    """Runs once the query vector is ready (the others run while it is computed)."""
    counts_as_relevant: bool
    """A drawer this signal found passes the relevance floor (`min_similarity`) as is: a
    keyword, a named time or a named entity is evidence a cosine score cannot veto."""


SIGNALS: Mapping[Signal, SignalSpec[Any]] = MappingProxyType(
    {
        # The semantic list weighs as much as the keyword list since drawers are also
        # matched by their best sentence (migration 0009); before, whole-turn vectors were
        # the less precise signal and weighed 0.6 (bench/README.md has both).
        Signal.SEMANTIC: SignalSpec(
            signal=Signal.SEMANTIC,
            candidates=semantic_candidates,
            params=SemanticParams(),
            default_weight=1.0,
            needs_vector=True,
            counts_as_relevant=False,
        ),
        # Exact names and rare words: what a paraphrase-tolerant vector blurs.
        Signal.KEYWORD: SignalSpec(
            signal=Signal.KEYWORD,
            candidates=keyword_candidates,
            params=KeywordParams(),
            default_weight=1.0,
            needs_vector=False,
            counts_as_relevant=True,
        ),
        # Below the content signals: a named time narrows the search but rarely identifies
        # the memory (set with the pipeline, not tuned since).
        Signal.TEMPORAL: SignalSpec(
            signal=Signal.TEMPORAL,
            candidates=temporal_candidates,
            params=TemporalParams(),
            default_weight=0.6,
            needs_vector=True,
            counts_as_relevant=True,
        ),
        # A nudge: recurring entities and stated likes help suggestions but would crowd out
        # the answer at the content signals' weight (set with the pipeline, not tuned since).
        Signal.PREFERENCE: SignalSpec(
            signal=Signal.PREFERENCE,
            candidates=preference_candidates,
            params=PreferenceParams(),
            default_weight=0.3,
            needs_vector=True,
            counts_as_relevant=True,
        ),
        # The turns of a person the message names: a name says who spoke, not what about,
        # so half a content signal. Enough to lift Priya's turn about the venue over Sam's
        # (tests/integration/test_speakers.py), little enough that "what did I tell Priya?"
        # still ranks the user's own words by content. Untuned: LongMemEval names no
        # speakers, so it never changes a benchmark ranking. Its drawers must still pass
        # the similarity floor: being Priya's does not make a turn relevant.
        Signal.SPEAKER: SignalSpec(
            signal=Signal.SPEAKER,
            candidates=speaker_candidates,
            params=SpeakerParams(),
            default_weight=0.5,
            needs_vector=True,
            counts_as_relevant=False,
        ),
    }
)


def default_weights() -> dict[Signal, float]:
    """Every signal at its table weight: the hybrid presets' weights."""
    return {signal: spec.default_weight for signal, spec in SIGNALS.items()}


def relevant_signals() -> frozenset[str]:
    """Names of the lists whose drawers pass the relevance floor as they are."""
    return frozenset(str(s) for s, spec in SIGNALS.items() if spec.counts_as_relevant)
