"""Time expressions in free text, resolved against an anchor time.

Recall runs this on every user message before each LLM call, and mining tags every
chat turn with the times it mentions, so it must be cheap (tens of microseconds per
message) and must not invent dates: a false "May" pulls the wrong memories forward.

Why a hand-written grammar rather than ``dateparser.search``: on a three-sentence chat
message it took ~8 ms, read "We may" as May 30th and "paid 2000" as the year 2000, missed
"last weekend", and it returns points, not the spans ("last week", "a few days ago",
"last summer") that recall filters need. The phrases people use in chat form a small closed set, so
``_grammar`` holds one precompiled regex per family with a resolver each, and
``_calendar`` holds the date arithmetic and the "which one did they mean" policy, and
``tense`` reads from a sentence whether an unqualified name ("on June 14th") is the coming
one, the last one, or (no tense to read) the nearer of the two.
Rules are only tried next to a word a phrase must contain (a month, "ago", a digit), so
a message with no time words costs one word split (``spans._candidates``).
Absolute dates are parsed straight from the captured groups (validated by ``date``);
handing the matched string to a library would only re-parse what the regex already split.
``dateutil.relativedelta`` was the obvious helper for month arithmetic, but ships
untyped, and clamped month addition is five lines.
"""

from loci.timexpr.spans import Granularity, Prefer, TimeSpan, Voice, find_time_expressions
from loci.timexpr.timestamps import (
    MAX_YEAR,
    MIN_YEAR,
    check_in_range,
    local_time,
    parse_timestamp,
    utc_offset_minutes,
)

__all__ = [
    "MAX_YEAR",
    "MIN_YEAR",
    "Granularity",
    "Prefer",
    "TimeSpan",
    "Voice",
    "check_in_range",
    "find_time_expressions",
    "local_time",
    "parse_timestamp",
    "utc_offset_minutes",
]
