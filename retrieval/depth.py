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
from dataclasses import dataclass, replace

from retrieval.params import RecallDepth
from retrieval.query import QueryAnalysis, has_content, is_trivial, or_tsquery

__all__ = [
    "NO_CONTENT",
    "SMALL_TALK",
    "TRIVIAL",
    "Depth",
    "DepthKind",
    "choose_depth",
    "is_small_talk",
    "subject_query",
]

log = logging.getLogger("loci.retrieval")

_WORD = re.compile(r"\w+", re.UNICODE)
_WORD_REST = re.compile(r"\w*", re.UNICODE)
_ASKS = re.compile(r"\b(?:what|where|when|who|whom|whose|which|why|my|mine)\b", re.IGNORECASE)

TRIVIAL = "trivial message"
NO_CONTENT = "nothing to search for: every word is a stopword"
SMALL_TALK = "small talk: a greeting or pleasantry, nothing to search for"


class DepthKind(enum.StrEnum):
    SKIP = "skip"
    """A trivial continuation, or a message without a content word: nothing is recalled."""
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
    skipped: str | None = None
    """Why a `DepthKind.SKIP` recalls nothing (`TRIVIAL`, `NO_CONTENT`, `SMALL_TALK`), answered as
    ``skipped``."""

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
    rule (a trivial message, or one without a content word when ``rule.skip_without_content``,
    is still skipped: it has nothing to search for)."""
    if is_trivial(message):
        depth = Depth(DepthKind.SKIP, 0, TRIVIAL)
    elif rule.skip_without_content and not has_content(message):
        depth = Depth(DepthKind.SKIP, 0, NO_CONTENT)
    elif is_small_talk(message, rule):
        depth = Depth(DepthKind.SKIP, 0, SMALL_TALK)
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


def is_small_talk(message: str, rule: RecallDepth) -> bool:
    """Whether ``message`` only greets: it holds one of ``rule.small_talk`` and, once those and
    ``rule.small_talk_companions`` are taken out (whole words, the longest first), no content
    word, no question word and no "my" is left ("Hey, where was I this morning?" asks)."""
    text = message.replace("’", "'")
    greeting = _whole_phrases(rule.small_talk)
    if not greeting.search(text):
        return False
    rest = _whole_phrases(rule.small_talk_companions).sub(" ", greeting.sub(" ", text))
    return not has_content(rest) and _ASKS.search(rest) is None


@functools.lru_cache(maxsize=32)
def _whole_phrases(phrases: tuple[str, ...]) -> re.Pattern[str]:
    """One alternation, longest phrase first, each a whole-word match ("hi" is not "his")."""
    ordered = sorted((p for p in phrases if p.strip()), key=len, reverse=True)
    body = "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in ordered)
    return re.compile(rf"(?<!\w)(?:{body})(?!\w)" if body else r"(?!)", re.IGNORECASE)


def subject_query(analysis: QueryAnalysis, rule: RecallDepth) -> QueryAnalysis:
    """``analysis`` without the words of the memory phrases its message uses (``rule.memory_phrases``,
    each to the end of its last word: "we decided", "last time"): what the message asks about,
    not how it asks. "What did we decide about the Japan trip last time?" is about "japan" and
    "trip"; "decide", "last" and "time" say it asks about the past, and match every summary
    or saved memory that says "we decided" or "last week" (`MemorySearchParams.subject_terms`)."""
    message = analysis.message
    asking: set[str] = set()
    for found in _phrases(rule.memory_phrases).finditer(message):
        rest = _WORD_REST.match(message, found.end())
        end = rest.end() if rest is not None else found.end()
        asking.update(w.lower() for w in _WORD.findall(message[found.start() : end]))
    terms = tuple(t for t in analysis.terms if t not in asking)
    return analysis if terms == analysis.terms else replace(analysis, terms=terms, tsquery=or_tsquery(list(terms)))
