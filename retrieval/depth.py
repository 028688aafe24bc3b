"""Selective recall: how much one message fetches, decided from the message alone.

Pure and cheap (a regex and a word count), so it runs before anything else and the skip
costs nothing. The rule is data (`RecallDepth` in the config); what it chose is logged
(``retrieval.depth``), written to the retrieval log's notes and answered in the response's
stats, so a preset's rule can be checked against what it did.
"""

from __future__ import annotations

import enum
import functools
import logging
import re
from dataclasses import dataclass

from retrieval.params import RecallDepth
from retrieval.query import is_trivial

__all__ = ["Depth", "DepthKind", "choose_depth"]

log = logging.getLogger("loci.retrieval")

_WORD = re.compile(r"\w+", re.UNICODE)


class DepthKind(enum.StrEnum):
    SKIP = "skip"
    """A trivial continuation: nothing is recalled."""
    ORDINARY = "ordinary"
    MEMORY = "memory"
    """The message asks about memory ("do you remember…", "what did I say…")."""
    LONG = "long"
    EXPLICIT = "explicit"
    """The caller named ``top_k``."""


@dataclass(frozen=True, slots=True)
class Depth:
    kind: DepthKind
    top_k: int | None
    """Drawers to recall; None: the user's ``top_k`` setting (read with the controls)."""

    def resolve(self, user_top_k: int) -> int:
        """The count in force once the user's setting is known."""
        if self.kind in (DepthKind.MEMORY, DepthKind.LONG) and self.top_k is not None:
            return max(self.top_k, user_top_k)
        return self.top_k if self.top_k is not None else user_top_k


@functools.lru_cache(maxsize=32)
def _phrases(phrases: tuple[str, ...]) -> re.Pattern[str]:
    """One alternation per rule: a phrase matches at a word start with any ending."""
    body = "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in phrases if p.strip())
    return re.compile(rf"\b(?:{body})" if body else r"(?!)", re.IGNORECASE)


def choose_depth(message: str, rule: RecallDepth, explicit_top_k: int | None = None) -> Depth:
    """The depth for ``message`` under ``rule``; a caller's ``explicit_top_k`` wins over the
    rule (a trivial message is still skipped: it has nothing to search for)."""
    if is_trivial(message):
        depth = Depth(DepthKind.SKIP, 0)
    elif explicit_top_k is not None:
        depth = Depth(DepthKind.EXPLICIT, explicit_top_k)
    elif _phrases(rule.memory_phrases).search(message):
        depth = Depth(DepthKind.MEMORY, rule.deep_top_k)
    elif len(_WORD.findall(message)) >= rule.long_words:
        depth = Depth(DepthKind.LONG, rule.deep_top_k)
    else:
        depth = Depth(DepthKind.ORDINARY, rule.ordinary_top_k)
    log.debug("retrieval.depth", extra={"depth": str(depth.kind), "top_k": depth.top_k})
    return depth
