"""Retrieval configuration as data: which signals, how much each weighs, which reranker.

`recall` takes one `RetrievalConfig` by value (`RecallRequest.config`); a preset (see
`presets`) is just a named one. Callers copy and change a config with
`dataclasses.replace`, so nothing in the pipeline branches on a preset's name, only on
these fields. The signals' own parameters default to the signal table's
(`retrieval.signals`).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from retrieval.params import (
    AnswerParams,
    BlockFloor,
    KeywordParams,
    MemorySearchParams,
    PreferenceParams,
    RecallDepth,
    ReplyParams,
    SemanticParams,
    Signal,
    SpeakerParams,
    TemporalParams,
)
from retrieval.signals import SIGNALS, default_weights

__all__ = ["RerankerKind", "RetrievalConfig"]


class RerankerKind(enum.StrEnum):
    NONE = "none"
    LLM = "llm"
    SETTINGS = "settings"
    """Use the user's ``memory_settings.use_rerank`` (the default preset's choice)."""


def _default(signal: Signal) -> Any:
    return SIGNALS[signal].params


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """Everything that changes what recall returns, in one comparable record."""

    name: str
    weights: Mapping[Signal, float] = field(default_factory=default_weights)
    """The enabled signals and their RRF weights (a signal absent from it is not queried)."""
    rrf_k: int = 60
    """RRF's rank offset: Cormack et al.'s 60 (the tuned presets use 20)."""
    reranker: RerankerKind = RerankerKind.SETTINGS
    rerank_top_n: int = 20
    """Fused drawers the reranker sees (when more than ``top_k``): enough to promote a
    buried answer, few enough for one short LLM prompt."""
    assistant_weight: float = 0.85
    """The role prior: scales the half of an exchange the message is not about. A user
    asking "what did I…" is after their own past turns, so the assistant's are scaled (and
    other people's, whose "I" is not the user's, unless the message names them); a
    message about what the assistant said scales the user's instead, and each listed reply
    first takes its question's evidence (`retrieval.reply.answer_exchanges`)."""
    current_first: bool = True
    """For a question about how things stand now, rank a turn whose facts the graph has since
    closed right below the turn that closed them, by a new value or by ending them ("I handed
    in my notice", `retrieval.superseded`): current state beats superseded state. An order
    the graph states, not a weight; False turns it off (to compare, as the bench does with
    presets)."""
    min_similarity: float = 0.30
    """Absolute relevance floor: a drawer with at least this cosine similarity, or a match
    by a signal that `counts_as_relevant`, is relevant on its own (room pooling counts
    only those; stated likes and saved memories must pass it)."""
    floor: BlockFloor = field(default_factory=BlockFloor)
    """Which of the top ``top_k`` the block shows beyond the absolute floor: those close
    to the best hit when the message has memories at all (`retrieval.floor`)."""
    room_pool_depth: int = 1
    """How many of a room's best drawers add up to the room's score (`fusion.pool_rooms`);
    1 turns pooling off."""
    room_pool_decay: float = 0.5
    """Each further drawer of a room adds this power of its score (0.5, 0.25, …)."""
    room_bonus_spread: float = 1.0
    """Share of the pooled room bonus each further drawer of a room keeps (geometric, by
    its place in the room: 1, spread, spread², …); 1 lifts all of a room's drawers
    alike, 0 only its best (`fusion.pool_rooms`)."""
    room_turns: int = 3
    """Drawers each room brings when recall groups by room (`GroupBy.ROOM`): the turn that
    matched plus enough of its context to read it, as room pooling counts 3."""
    sub_query_weight: float = 0.0
    """Weight of each clause's own semantic list when the message joins two
    (`query.sub_queries`), scaled by how far the clause's vector is from the whole
    message's (cosine distance), so a clause that restates the question adds little;
    0 searches with the whole message only."""
    query_terms: int = 24
    """Content words kept from a message: the keyword OR query and the entity phrases use
    them all (the keyword signal weighs the first `KeywordParams.idf_terms` by IDF)."""
    palace_count_cap: int = 20_000
    """The user's drawers are counted up to this (an index-only scan on every recall): it
    is the keyword IDF's N and the semantic exact-or-HNSW input, both flat beyond it."""
    semantic: SemanticParams = field(default_factory=lambda: _default(Signal.SEMANTIC))
    keyword: KeywordParams = field(default_factory=lambda: _default(Signal.KEYWORD))
    temporal: TemporalParams = field(default_factory=lambda: _default(Signal.TEMPORAL))
    preference: PreferenceParams = field(default_factory=lambda: _default(Signal.PREFERENCE))
    speaker: SpeakerParams = field(default_factory=lambda: _default(Signal.SPEAKER))
    reply: ReplyParams = field(default_factory=ReplyParams)
    """When the message asks what the assistant said, the replies of the user turns it
    matches form a list of their own (`retrieval.reply`)."""
    answer: AnswerParams = field(default_factory=AnswerParams)
    """When the message asks for a quantity, money, a time of day, a duration, a place or when
    something happened, the matching turns whose matched sentence holds one form a list of their
    own (`retrieval.answer_list`)."""
    depth: RecallDepth = field(default_factory=RecallDepth)
    """How many drawers a message recalls, from the message (`retrieval.depth`)."""
    memories: MemorySearchParams | None = field(default_factory=MemorySearchParams)
    """Explicit memories as a candidate source of their own, rendered ahead of the drawers; None
    searches the palace only (`dataclasses.replace(config, memories=None)`)."""

    @property
    def signals(self) -> tuple[Signal, ...]:
        """The enabled signals, in the table's order."""
        return tuple(s for s in Signal if self.weights.get(s, 0.0) > 0.0)

    def params(self, signal: Signal) -> Any:
        """The parameters in force for ``signal`` (its own record type)."""
        by_signal: dict[Signal, Any] = {
            Signal.SEMANTIC: self.semantic,
            Signal.KEYWORD: self.keyword,
            Signal.TEMPORAL: self.temporal,
            Signal.PREFERENCE: self.preference,
            Signal.SPEAKER: self.speaker,
        }
        return by_signal[signal]
