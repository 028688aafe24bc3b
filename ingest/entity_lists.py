"""Which names of a turn stand side by side in one list, so they are of one kind.

"Leeds, Otley and Ilkley", "Nyhavn and Strøget": a name nothing typed takes the kind of a
typed name beside it in the list (`ingest.entity_scan`). Advice often says something about
each name in brackets, and those brackets name places of their own: "Nether Edge and Sharrow
(leafy, close to Endcliffe Park and the Porter Valley), Walkley and Crookes (cheaper)". Sharrow
and Walkley are neighbours in the list, the names in the brackets between them an aside; the
brackets are matched within a bounded look back, so a turn is read in linear time.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

__all__ = ["listed_pairs"]

_JOIN = r"\s*(?:,|,?\s*(?:and|or|&))\s*(?:(?:and|or)\s+)?(?:the\s+)?$"
_LISTED = re.compile(rf"(?:\s*\([^()]{{0,80}}\))?{_JOIN}", re.I)
"""What stands between two names of one list: a comma, "and", "or", and a parenthesis about the
first that names nothing ("Sharrow (leafy, quiet), Walkley and Crookes")."""
_AFTER_ASIDE = re.compile(rf"\){_JOIN}", re.I)
_JOIN_LONGEST = 16
_ASIDE_LONGEST = 160
"""The longest aside in brackets that still sits between two names of one list."""


def listed_pairs(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """(j, i) for each name ``i`` whose list neighbour before it is name ``j`` (indexes into ``spans``,
    the names' (start, end) in ``text``, in order), by increasing ``i``."""
    ends = [end for _, end in spans]
    pairs: list[tuple[int, int]] = []
    for i in range(1, len(spans)):
        start = spans[i][0]
        if _LISTED.match(text, spans[i - 1][1], start):
            pairs.append((i - 1, i))
            continue
        lead = max(spans[i - 1][1], start - _JOIN_LONGEST)
        aside = _AFTER_ASIDE.search(text, lead, start)
        if aside is None:
            continue
        opened = text.rfind("(", max(0, aside.start() - _ASIDE_LONGEST), aside.start())
        j = bisect_right(ends, opened) - 1
        if opened >= 0 and 0 <= j < i - 1 and not text[ends[j] : opened].strip():
            pairs.append((j, i))
    return pairs
