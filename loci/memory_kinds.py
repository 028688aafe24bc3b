"""How long a memory holds: its kind, and the expiry the kind gives it.

* ``durable``: traits and preferences, never expire (``expires_at`` NULL);
* ``contextual``: true for a while ("is in Berlin this week"), expire
  ``LOCI_MEMORY_CONTEXTUAL_DAYS`` (7) after the version's ``valid_from``;
* ``temporary``: true for the moment ("tired today"), ``LOCI_MEMORY_TEMPORARY_DAYS`` (1);
* ``deadline``: expire when the date the text names has passed ("the report is due
  Friday" holds until Friday ends), read by the project's date parser
  (`loci.timexpr`) relative to ``valid_from``, preferring the coming date.

A writer may name the kind (the API, the MCP tools, the client); otherwise `infer_kind`
decides by one documented rule, data in `KIND_CUES` and the setting
``LOCI_MEMORY_CATEGORY_KINDS``, first match wins:

1. a deadline word (``due``, ``deadline``, ``by``, ``until``) followed by a date the parser
   reads: ``deadline``;
2. a cue of the moment (``today``, ``tonight``, ``right now``, ``at the moment``,
   ``this morning``…): ``temporary``;
3. a cue of a period (``this week``, ``this weekend``, ``these days``, ``for now``,
   ``this month``): ``contextual``;
4. the category's kind in ``LOCI_MEMORY_CATEGORY_KINDS``; else ``durable``.

Time words make the cues (not the category) because the same category holds both
"prefers tea" and "prefers quiet today"; and nothing is guessed to expire without one, since
a durable fact wrongly expired is lost from every prompt, while a stale one is only
shown a while longer. Here in the core because both the API (`domain`) and mining
(`ingest`) write memories.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from loci.errors import InvalidInput
from loci.models import MEMORY_KINDS
from loci.settings import MemorySettings
from loci.timexpr import find_time_expressions

__all__ = [
    "KIND_CUES",
    "DeadlineMissing",
    "DeadlinePassed",
    "KindCue",
    "KindRule",
    "check_ahead",
    "deadline_of",
    "expiry_of",
    "infer_kind",
    "kind_of",
]


@dataclass(frozen=True, slots=True)
class KindCue:
    """Words that mark a kind; ``needs_date``: only when a date the parser reads follows them."""

    kind: str
    pattern: re.Pattern[str]
    needs_date: bool = False


def _words(*phrases: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(p.replace(" ", r"\s+") for p in phrases) + r")\b", re.IGNORECASE)


KIND_CUES: tuple[KindCue, ...] = (
    KindCue("deadline", _words("due", "deadline", "by", "until", "no later than"), needs_date=True),
    KindCue(
        "temporary",
        _words("today", "tonight", "right now", "at the moment", "this morning", "this afternoon", "this evening"),
    ),
    KindCue("contextual", _words("this week", "this weekend", "these days", "for now", "this month")),
)
"""The inference rule's words, in the order they are tried (see the module docstring)."""


@dataclass(frozen=True, slots=True)
class KindRule:
    """The periods and the category defaults, from `MemorySettings`; passed by value."""

    periods: Mapping[str, timedelta]
    category_kinds: Mapping[str, str]
    cues: tuple[KindCue, ...] = KIND_CUES

    @classmethod
    def of(cls, settings: MemorySettings) -> KindRule:
        periods = {"contextual": timedelta(days=settings.contextual_days)}
        periods["temporary"] = timedelta(days=settings.temporary_days)
        return cls(periods, dict(settings.category_kinds))


class DeadlineMissing(InvalidInput):
    """A deadline whose text names no date the parser reads: it could never expire."""


class DeadlinePassed(InvalidInput):
    """A deadline a writer states whose date has already passed: saved, it would expire
    before anyone read it."""


_GAP = re.compile(r"\s*(?:(?:is|are|on|at|in|for|the|of|set|was|end|close)\s+){0,3}", re.IGNORECASE)
"""What may stand between a deadline word and its date: "due on Friday", "deadline is next
Monday", "by the end of June"; "written by Ana in May" names no deadline."""


def deadline_of(text: str, anchor: datetime, after: int | None = None) -> datetime | None:
    """The end of a date in ``text`` read forward from ``anchor`` ("Friday" is the coming
    one): the first one, or with ``after`` the one that starts right there (past `_GAP`'s
    few words). None when there is none. The end of the named day (or week, month) is
    when the deadline has passed."""
    for span in find_time_expressions(text, anchor, prefer="future"):
        if after is None:
            return span.end
        at = text.find(span.text, after)
        if at >= 0 and _GAP.fullmatch(text, after, at) is not None:
            return span.end
    return None


def _cue_deadline(rule: KindRule, text: str, anchor: datetime) -> datetime | None:
    """The date a deadline word introduces, if any."""
    for cue in rule.cues:
        if cue.needs_date:
            for m in cue.pattern.finditer(text):
                if (when := deadline_of(text, anchor, m.end())) is not None:
                    return when
    return None


def infer_kind(rule: KindRule, category: str, text: str, anchor: datetime) -> str:
    """The kind of a memory whose writer named none (the rule in the module docstring)."""
    for cue in rule.cues:
        if cue.needs_date:
            if _cue_deadline(rule, text, anchor) is not None:
                return cue.kind
        elif cue.pattern.search(text):
            return cue.kind
    return rule.category_kinds.get(category, "durable")


def expiry_of(rule: KindRule, kind: str, text: str, anchor: datetime, field: str = "kind") -> datetime | None:
    """When a memory of ``kind`` saying ``text`` from ``anchor`` (its ``valid_from``) expires.
    A deadline with no date is `DeadlineMissing` naming ``field``."""
    if kind == "deadline":
        when = _cue_deadline(rule, text, anchor) or deadline_of(text, anchor)
        if when is None:
            raise DeadlineMissing(
                "a deadline needs a date in its content that can be read, in English words or numbers "
                "(e.g. 'due Friday', 'by 2026-06-01'); "
                "name another kind",
                field=field,
            )
        return when
    period = rule.periods.get(kind)
    return None if period is None else anchor + period


def check_ahead(kind: str, expires_at: datetime | None, anchor: datetime, *, field: str) -> None:
    """A deadline a person or an agent writes must lie ahead of ``anchor`` (the write's time):
    "Report due 2020-01-01" saved in 2026 would be born expired, never listed nor recalled,
    so it is `DeadlinePassed` naming ``field`` (``kind`` when the writer named it, ``content``
    when the kind was inferred from it). Mining does not ask: a transcript read late may
    well hold deadlines that were over before it was filed."""
    if kind == "deadline" and expires_at is not None and expires_at <= anchor:
        raise DeadlinePassed(
            f"the deadline in its content has already passed (it ended {expires_at.isoformat()}): a deadline "
            "must lie ahead; to keep it as a record of the past, save it with another kind (e.g. durable)",
            field=field,
        )


def kind_of(
    rule: KindRule, given: str | None, category: str, text: str, anchor: datetime
) -> tuple[str, datetime | None]:
    """The kind (``given``, else inferred) and the expiry of a new version."""
    if given is not None and given not in MEMORY_KINDS:
        raise InvalidInput(f"kind must be one of {', '.join(MEMORY_KINDS)}; got {given!r}", field="kind")
    kind = given if given is not None else infer_kind(rule, category, text, anchor)
    return kind, expiry_of(rule, kind, text, anchor)
