"""Relations that end another with no new value of its own: mining closes by them, recall orders by them.

A single-valued relation ends when a new value replaces it ("I moved to Porto" closes "lives in
Lisbon"). Some end without one, by another predicate about the same thing: notice handed in
(`worked at Acme`) ends the job (`works at Acme`), the visit (`visited Kyoto`) carries out the
plan (`plans to visit Kyoto`). Mining closes the old row where the ending one starts
(`ingest.relation_close`; `ingest.graph_liveness` reads the same pairs when a drawer is
trashed), and recall ranks the turn that stated the ended fact right below the turn that ended
it, for a question about how things stand now (`retrieval.superseded`). Here in the core, as
`loci.sentences` is, because both mining and recall read these pairs and neither may import the
other (the layers in ``pyproject.toml``).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["ENDED_BY", "ENDINGS", "ENDS_CURRENT", "FULFILLED_BY", "HELD_AT"]

FULFILLED_BY: Mapping[str, str] = MappingProxyType({"plans to visit": "visited"})
"""A plan's predicate and the one that carries it out. A row of the second with the same
value, starting at or after the plan was said, ends the plan (`ingest.graph`): "I booked
flights to Japan" in May, then "we're in Kyoto… Japan is amazing" in June. A visit from
before the plan ("I went to Japan in 2019") does not: the plan is for another trip."""

ENDED_BY: Mapping[str, str] = MappingProxyType(
    {"works at": "worked at", "works as": "worked at", "worked at": "works at", "owns": "owned", "owned": "owns"}
)
"""A predicate and the one that ends it with no successor: "I handed in my notice at
Northwind" records `worked at Northwind`, which closes the current `works at Northwind` (the
same value) when it is said (`ingest.graph`), and forgetting it opens the job again
(`ingest.graph_liveness`). A new value still closes the old one as before ("I start at
Brightwave in June"). Going back ("I rejoined Northwind") ends the former employer's row the
same way, so a job left, taken again and left again reads as two spans of `works at`, each
followed by its `worked at`. The title held at the job (`works as`, `HELD_AT`) ends with it.
A product sold, returned, given away or stolen (`owned Yaris`) ends owning it (`owns Yaris`) the same way,
and buying it again (`owns Yaris`) ends the `owned`, as rejoining ends `worked at`."""

HELD_AT: Mapping[str, str] = MappingProxyType({"works as": "works at"})
"""An ended predicate of `ENDED_BY` held at a row of another rather than valued like its ender:
the title is held at the job. "I quit my job at Acme" (`worked at Acme`) ends `works at
Acme` by its value, and with it the subject's current `works as designer`, whatever its
value: `works at` holds one value at a time, so the title current when that job ends is the
one held there. An ender that closes no current job ("I used to work at Globex", a former
employer) leaves the title alone."""

ENDS_CURRENT: Mapping[str, tuple[str, str]] = MappingProxyType({"left job": ("works at", "worked at")})
"""An ending said without naming what ends ("I quit my job today", "I got laid off", "I
retired in March") → (the predicate whose current row it ends, whatever its value; the ender of
`ENDED_BY` it is recorded as). The extractor cannot name the job (it does not see the graph), so
it records the key (`ingest.change_rules`); the window's writer, which does, records the ender
with the value of the subject's current row instead (`ingest.relation_current`): "I quit my
job" while at Acme stores `worked at Acme`, exactly what "I quit my job at Acme" stores. So
closing the job and the title held there, reopening both when that chat is trashed and recall's
current state first read it as they read a named one, with no rule of their own; with no
current job, nothing is stored. Not a marker value or a predicate of its own in the graph: the
timeline would show "left job: job", and each reader would need a whatever-value branch."""

ENDINGS: tuple[tuple[str, str], ...] = (*ENDED_BY.items(), *FULFILLED_BY.items())
"""Every (ended predicate, predicate that ends it) pair, plans and jobs alike: what recall
looks for beside a new value of the same predicate (`retrieval.superseded`)."""
