"""The relevance floor: which of the ranked drawers the ``<memory_context>`` block may show.

Two questions, answered apart (pure functions over the fused list and the similarities):

* **Does the message have anything in memory at all?** Ranking always returns
  something; the floor must keep a block out of a message the palace knows nothing
  about ("Explain TCP and UDP"). The best semantic hit decides: the message has
  memories when it reaches `BlockFloor.gate_similarity`.
* **Which of the top ``top_k`` belong in it?** The fused ranking is the best evidence of
  which drawer answers (signals agree on it, its room vouches for it); cosine alone
  is weak evidence of the reverse. A paraphrased fact sits at ~0.2-0.35 with MiniLM
  ("Where do I live these days?" against "I moved to Lisbon last month": 0.27), so an
  absolute cut at 0.30 dropped answers that ranked first. A ranked drawer therefore
  counts when it is close to the best hit (`BlockFloor.relative_share` of its
  similarity), not only when it clears the absolute `RetrievalConfig.min_similarity`.

A match by a signal that `counts_as_relevant` (keyword, temporal, preference) still
counts, except a keyword-only match whose drawer has a vector that is nowhere near the
message (`BlockFloor.lexical_min_similarity`): one shared stem ("differently" for
"difference") is not relevance. Drawers without a vector (assistant turns when only
the user's are embedded) can only be found by those signals, so for them the match
stands.

A drawer whose text holds no word ("?!...", "---", "🎉🎉🎉") never counts on its own
(`BlockFloor.admit_wordless`); it may still come as the neighbour of one that does.

Saved memories meet the same lexical rule (`lexical_match`, from `memory_search.fuse_memories`).

A turn that replaced a drawer which passes (``replaced``: `retrieval.superseded`, the
graph's "I moved to Lisbon" closing "I live in Paris") passes too, whatever its cosine:
the current-state rule ranked it above the old turn because it holds what is true now, and
a block showing only the old turn tells the model the superseded fact ("Where do I live
these days?" answered Paris while Lisbon ranked first: its cosine, 0.27, is under
0.75 of Paris's).

Room pooling keeps the absolute rule (`passes_absolute`) so the ranking does not move
with the block's floor.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from retrieval.config import RetrievalConfig
from retrieval.fusion import Fused
from retrieval.params import Signal
from retrieval.reply import REPLY_LIST
from retrieval.signals import relevant_signals

__all__ = ["block_relevant", "lexical_match", "passes_absolute"]

_RELEVANT = relevant_signals() | {REPLY_LIST}  # a reply of a question past the floor
_LEXICAL = frozenset({str(Signal.KEYWORD)})


def passes_absolute(fused: Fused, sims: Mapping[int, float], config: RetrievalConfig) -> bool:
    """The fixed floor: a match by a relevant signal, or cosine ≥ ``min_similarity``."""
    if not _RELEVANT.isdisjoint(fused.ranks):
        return True
    return sims.get(fused.drawer_id, 0.0) >= config.min_similarity


def lexical_match(similarity: float | None, minimum: float) -> bool:
    """Whether a match by words alone counts: the item has no known similarity (no vector, or
    no semantic search ran), or one of at least ``minimum`` (`BlockFloor.lexical_min_similarity`)."""
    return similarity is None or similarity >= minimum


def _matched(fused: Fused, sims: Mapping[int, float], ceiling: float | None, config: RetrievalConfig) -> bool:
    signals = _RELEVANT.intersection(fused.ranks)
    if not signals:
        return False
    if not signals <= _LEXICAL:
        return True
    return lexical_match(sims.get(fused.drawer_id, ceiling), config.floor.lexical_min_similarity)


def _vectorless_match(fused: Fused, vectorless: Collection[int]) -> bool:
    return fused.drawer_id in vectorless and not _RELEVANT.isdisjoint(fused.ranks)


def _with_replacements(passed: set[int], ranked: Collection[int], replaced: Mapping[int, Collection[int]]) -> set[int]:
    """``passed`` and, chains followed, every ranked turn that replaced one of them."""
    out, todo = set(passed), list(passed)
    while todo:
        for newer in replaced.get(todo.pop(), ()):
            if newer in ranked and newer not in out:
                out.add(newer)
                todo.append(newer)
    return out


def block_relevant(
    ranked: Sequence[Fused],
    sims: Mapping[int, float],
    ceiling: float | None,
    vectorless: Collection[int],
    config: RetrievalConfig,
    wordless: Collection[int] = (),
    replaced: Mapping[int, Collection[int]] | None = None,
) -> set[int]:
    """The ids of ``ranked`` (recall's top ``top_k``) that may enter the block.

    ``sims`` holds the best cosine similarity to the message (or a clause) of each drawer
    the semantic signal returned; ``ceiling`` is None when that list held every drawer
    with a vector, else its last similarity, which bounds every drawer with a vector it
    left out; ``vectorless`` are the ranked drawers without one, ``wordless`` those whose
    text holds no word (left out unless `BlockFloor.admit_wordless`), ``replaced`` each
    superseded drawer's replacements (`retrieval.superseded.superseded_by`).
    """
    best = max(sims.values(), default=0.0)
    gate_open = best >= config.floor.gate_similarity
    near = max(config.floor.gate_similarity, best * config.floor.relative_share)
    passed: set[int] = set()
    for fused in ranked:
        if fused.drawer_id in wordless and not config.floor.admit_wordless:
            continue
        sim = sims.get(fused.drawer_id)
        close = sim is not None and (sim >= config.min_similarity or (gate_open and sim >= near))
        if close or _vectorless_match(fused, vectorless) or _matched(fused, sims, ceiling, config):
            passed.add(fused.drawer_id)
    return _with_replacements(passed, {f.drawer_id for f in ranked}, replaced or {})
