"""The ``<memory_context>`` block: saved memories, then ranked drawers grouped by room
and closet, in budget.

Pure: tokens are counted by the function passed in (the service passes the embedder's
tokenizer, `Embedder.count_tokens`; its WordPiece counts run close to, and usually a
little above, BPE chat-model counts for English, so the budget errs on the safe side),
for the Latin-script text of each line only: other scripts and emoji, which WordPiece reads
as one unknown token a word or a letter a token, are estimated by script
(`loci.prompt_tokens.prompt_counter`). Each piece is counted separately with its special
tokens, which over-counts slightly.
Drawers are admitted best-first until the budget is spent, then shown grouped by where
they live, chronologically within a group, because that is how a reader follows them.
Every piece of stored text goes through `retrieval.escape.plain`, so nothing a user
said can close the block, forge a line of its structure or hide behind bidi controls.
Dates and times are the user's own when they set a zone (`loci.zones`), named once in the
preamble (`ZONED_PREAMBLE`) rather than on every line; without one they are UTC and the block
is what it always was, byte for byte (the LongMemEval bench compares blocks). Naming the zone
never costs the block its only item: at a budget too small for that, it is named in fewer words
(`COMPACT_ZONED_PREAMBLE`), else the block is the one a user without a zone gets (`_clocks`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from zoneinfo import ZoneInfo

from loci.prompt_tokens import estimated, prompt_counter
from loci.speakers import speaker_label
from loci.zones import readable_name, set_zone
from retrieval.escape import LABEL_CHARS, plain
from retrieval.request import RecalledDrawer, RecalledMemory

__all__ = [
    "COMPACT_ZONED_PREAMBLE",
    "MEMORY_HEADER",
    "ZONED_PREAMBLE",
    "Neighbour",
    "RenderItem",
    "TokenCounter",
    "estimate_tokens",
    "render_context",
]

TokenCounter = Callable[[Sequence[str]], list[int]]

OPEN = "<memory_context>"
CLOSE = "</memory_context>"
PREAMBLE = "Relevant memories from earlier conversations with this user (verbatim; § marks the source):"
"""Unchanged by the escaping (`retrieval.escape`): ``&lt;`` and its kin read as what they
are to a model, and a longer frame would take budget from the memories themselves."""
ZONED_PREAMBLE = (
    "Relevant memories from earlier conversations with this user "
    "(verbatim; § marks the source; dates and times in the user's zone, {zone}):"
)
"""`PREAMBLE` for a user who set a zone: every date and time below is on it (a turn at
``2026-03-01T03:30:00Z`` reads ``2026-02-28 22:30`` for ``America/New_York``). Said once, as an
IANA name, which holds through daylight saving where ``EST`` on each line would cost a token or
two a line and an offset would be wrong half the year; a time a model reads without it is
taken as the user's local time."""
COMPACT_ZONED_PREAMBLE = "Relevant memories (verbatim; § marks the source; times in {zone}):"
"""`ZONED_PREAMBLE` in fewer words, for a budget too small for it and the block's first item
(for ``America/New_York`` that one costs about 15 tokens more than `PREAMBLE`, which names no
zone; this one about 2). Where even this leaves the block empty, the block is the one a user
without a zone gets: `PREAMBLE`, times in UTC (`_clocks`). A model may take those times for the
user's own, as in any block without a zone; an empty block would give it nothing at all."""
_MIN_SNIPPET_CHARS = 80
_PRIME_ITEMS = 16
"""Items whose lines are counted together, as admission reaches them. Counting every item
up front took most of a recall with a large ``top_k``: on LongMemEval dev (``top_k`` 500,
long turns) render was 105 of 173 ms at the median, though a block holds a handful of
drawers; one call per line instead pays the tokenizer's per-call overhead hundreds of times
when admission walks far down the list looking for snippets that still fit."""
_LOOKAHEAD_ITEMS = 16
"""How far below the last admitted drawer admission keeps looking for one that still fits.
Without a bound, a nearly full block with ``top_k`` 500 counted every candidate's line to
squeeze nothing in: on LongMemEval dev the slowest renders counted 250-480k characters (all
of 240-500 candidates) to show 5-13 drawers. A drawer that fits only 16 ranks further down is
a short turn filling the last few tokens, not one worth the walk."""
MEMORY_HEADER = "[saved memories]"
"""Heads the explicit memories (stated on purpose, not verbatim turns), ahead of the drawers."""
MEMORY_MARK = "•"
"""Starts each saved memory's line, as ``§`` starts a drawer's: only the renderer writes it."""
MEMORY_CHARS = 500
"""A saved memory's content is cut here (the default `MemorySettings.content_max_chars`):
it is one short line; its ``body`` is searched but never injected, its ``summary`` is for
the session-start block."""


@dataclass(frozen=True, slots=True)
class Neighbour:
    """The adjacent turn that completes a question/answer pair with a recalled drawer."""

    role: str
    content: str
    before: bool
    """True when the neighbour is the question that came before the recalled answer."""
    speaker: str | None = None


@dataclass(frozen=True, slots=True)
class RenderItem:
    drawer: RecalledDrawer
    closet_id: int
    closet_topic: str
    neighbour: Neighbour | None = None


def estimate_tokens(texts: Sequence[str]) -> list[int]:
    """A documented fallback: ~4 characters per token plus 2 specials (English, BPE-ish)."""
    return [len(t) // 4 + 2 for t in texts]


def _snippet(content: str, max_chars: int) -> str:
    return plain(content, max_chars)


def _said_by(role: str, speaker: str | None) -> str:
    """Who said a line: "user", or "Priya (other)" when the turn named its speaker."""
    return speaker_label(plain(role, LABEL_CHARS), plain(speaker, LABEL_CHARS) if speaker else None)


def _group_header(item: RenderItem) -> str:
    d = item.drawer
    topic = f" › {plain(item.closet_topic, LABEL_CHARS)}" if item.closet_topic else ""
    return f"[{plain(d.wing, LABEL_CHARS)} › {plain(d.room_label, LABEL_CHARS)}{topic}]"


def _lines(item: RenderItem, max_chars: int, with_neighbour: bool) -> list[str]:
    d = item.drawer
    main = (
        f"{d.aaak} · {d.occurred_at:%Y-%m-%d %H:%M} · {_said_by(d.role, d.speaker)}: {_snippet(d.content, max_chars)}"
    )
    n = item.neighbour
    if not (with_neighbour and n):
        return [main]
    said = f"{_said_by(n.role, n.speaker)}: {_snippet(n.content, max_chars // 2)}"
    extra = f"  ({'asked before' if n.before else 'reply'}) {said}"
    return [extra, main] if n.before else [main, extra]


class _Counts:
    """Counts each distinct line once; the full lines of items are counted `_PRIME_ITEMS`
    at a time (`prime`), since per-call overhead dominates for short lines."""

    def __init__(self, count: TokenCounter) -> None:
        self.count = count
        self.cache: dict[str, int] = {}

    def prime(self, lines: Sequence[str]) -> None:
        todo = list(dict.fromkeys(line for line in lines if line not in self.cache))
        if todo:
            self.cache.update(zip(todo, self.count(todo), strict=True))

    def __call__(self, lines: Sequence[str]) -> int:
        self.prime(lines)
        return sum(self.cache[line] for line in lines)


def _memory_line(memory: RecalledMemory, max_chars: int) -> str:
    source = plain(memory.source, LABEL_CHARS)
    if memory.confidence is not None:
        source = f"{source} ({memory.confidence:.2f})"
    # dated by when it was said (a summary of a March chat mined in November reads March's date)
    head = f"{MEMORY_MARK} {memory.dated:%Y-%m-%d} · {plain(memory.category, LABEL_CHARS)} · {source}"
    return f"{head}: {plain(memory.content, max_chars)}"


def _admit_memories(
    memories: Sequence[RecalledMemory], cost_of: _Counts, used: int, budget_tokens: int, max_chars: int
) -> tuple[list[str], int]:
    """Saved memories best-first, each whole or not at all, under their header."""
    lines: list[str] = []
    header_cost = cost_of([MEMORY_HEADER])
    for memory in memories:
        line = _memory_line(memory, max_chars)
        cost = cost_of([line]) + (0 if lines else header_cost)
        if used + cost <= budget_tokens:
            used += cost
            lines.append(line)
    return ([MEMORY_HEADER, *lines] if lines else []), used


_DENSE_MIN_CHARS = _MIN_SNIPPET_CHARS // 4
"""The shortest snippet `_fit` cuts for dense text: 20 characters (in Chinese, a sentence)."""


def _fit(item: RenderItem, cost_of: _Counts, left: int, max_chars: int) -> tuple[list[str], int] | None:
    """The item's lines and their cost within ``left`` tokens, or None: whole, then a snippet
    cut at about 3 characters a token (re-checked with the real counter); for text in scripts
    other than Latin (`loci.prompt_tokens.estimated`: Chinese, emoji) that spends more than
    that, once more at the characters a token that cut measured, so a Chinese turn is
    shortened to fit rather than left out. Latin text keeps the first two tries alone."""
    tried: tuple[int, int] | None = None
    for chars in (max_chars, min((left - 24) * 3, max_chars)):
        if chars < _MIN_SNIPPET_CHARS:
            continue
        lines = _lines(item, chars, False)
        cost = cost_of(lines)
        if cost <= left:
            return lines, cost
        tried = (chars, cost)
    if tried is None or not estimated(item.drawer.content):
        return None
    chars, cost = min(tried[0], len(item.drawer.content)), tried[1]
    bare = cost_of(_lines(replace(item, drawer=replace(item.drawer, content="")), chars, False))
    if (cost - bare) * 3 <= chars:  # no denser than the first guess: a shorter cut cannot fit
        return None
    scaled = chars * (left - bare) // (cost - bare)
    if not _DENSE_MIN_CHARS <= scaled < chars:
        return None
    lines = _lines(item, scaled, False)
    cost = cost_of(lines)
    return (lines, cost) if cost <= left else None


def _admit_drawers(
    items: Sequence[RenderItem], cost_of: _Counts, used: int, budget_tokens: int, max_snippet_chars: int
) -> list[tuple[RenderItem, list[str]]]:
    """Ranked drawers first, every one before any neighbour: a drawer recall ranked is
    worth more than the turn beside another one, so a neighbour never takes the budget a
    lower-ranked drawer needed (`_add_neighbours` spends what is left)."""
    headers: set[tuple[int, int]] = set()
    chosen: list[tuple[RenderItem, list[str]]] = []
    last_admitted = -1
    for index, item in enumerate(items):
        if index - last_admitted > _LOOKAHEAD_ITEMS:
            break
        if index % _PRIME_ITEMS == 0:  # the next items' lines in one tokenizer call
            batch = items[index : index + _PRIME_ITEMS]
            cost_of.prime([line for i in batch for line in (_group_header(i), *_lines(i, max_snippet_chars, True))])
        key = (item.drawer.room_id, item.closet_id)
        header_cost = 0 if key in headers else cost_of([_group_header(item)])
        fitted = _fit(item, cost_of, budget_tokens - used - header_cost, max_snippet_chars)
        if fitted is not None:
            used += header_cost + fitted[1]
            headers.add(key)
            chosen.append((item, fitted[0]))
            last_admitted = index
        if budget_tokens - used < _MIN_SNIPPET_CHARS // 4:
            break
    return _add_neighbours(chosen, cost_of, used, budget_tokens, max_snippet_chars)


def _add_neighbours(
    chosen: list[tuple[RenderItem, list[str]]], cost_of: _Counts, used: int, budget_tokens: int, max_chars: int
) -> list[tuple[RenderItem, list[str]]]:
    """Each shown drawer's question/answer neighbour, best-ranked first, while the budget
    lasts; not one already shown as a drawer of its own (it would be there twice)."""
    shown = {(item.drawer.room_id, item.drawer.content) for item, _ in chosen}
    out: list[tuple[RenderItem, list[str]]] = []
    for item, lines in chosen:
        n = item.neighbour
        whole = lines == _lines(item, max_chars, False)
        if n is not None and whole and (item.drawer.room_id, n.content) not in shown:
            pair = _lines(item, max_chars, True)
            extra = cost_of(pair) - cost_of(lines)
            if used + extra <= budget_tokens:
                used += extra
                lines = pair
        out.append((item, lines))
    return out


def _clocks(zone: str | None) -> list[tuple[str, ZoneInfo | None]]:
    """The preambles to try, in order, each with the clock its block's times are on: the zone's
    (`ZONED_PREAMBLE`, then `COMPACT_ZONED_PREAMBLE`), then UTC (`PREAMBLE`), so that naming the
    zone never leaves empty a block a user without one would get. The times printed are always
    on the clock the preamble names (UTC for `PREAMBLE`). A zone this machine's database lacks
    reads as none (`loci.zones.zone_of`), as everywhere else."""
    clock = set_zone(zone)
    if clock is None:
        return [(PREAMBLE, None)]
    name = plain(readable_name(clock), LABEL_CHARS)
    zoned = [(ZONED_PREAMBLE.format(zone=name), clock), (COMPACT_ZONED_PREAMBLE.format(zone=name), clock)]
    return [*zoned, (PREAMBLE, None)]


def _on_clock(
    clock: ZoneInfo | None, items: Sequence[RenderItem], memories: Sequence[RecalledMemory]
) -> tuple[Sequence[RenderItem], Sequence[RecalledMemory]]:
    """The items and memories with their times on ``clock`` (None: as given, UTC): the same
    instants (order and grouping do not change), read as the user's wall time."""
    if clock is None:
        return items, memories
    items = [replace(i, drawer=replace(i.drawer, occurred_at=i.drawer.occurred_at.astimezone(clock))) for i in items]
    memories = [replace(m, said_at=m.dated.astimezone(clock)) for m in memories]  # `_memory_line` reads ``dated``
    return items, memories


def render_context(
    items: Sequence[RenderItem],
    budget_tokens: int,
    count_tokens: TokenCounter = estimate_tokens,
    max_snippet_chars: int = 1200,
    memories: Sequence[RecalledMemory] = (),
    max_memory_chars: int = MEMORY_CHARS,
    zone: str | None = None,
) -> str | None:
    """Render best-first within ``budget_tokens``; None when no item fits (or none given).

    Saved ``memories`` come first, under their own header and ahead of the drawers in
    the budget too; without them the block is exactly the drawers' block. Dates and times
    are on ``zone``, the user's IANA zone, named in the preamble (`ZONED_PREAMBLE`; in fewer
    words, or UTC's block, where naming it would leave the block empty: `_clocks`); None:
    UTC, unmarked, as before the setting existed.
    """
    if not (items or memories) or budget_tokens <= 0:
        return None
    cost_of = _Counts(prompt_counter(count_tokens))  # shared: the zoned tries count the same lines
    for preamble, clock in _clocks(zone):
        timed, dated = _on_clock(clock, items, memories)
        block = _render(preamble, timed, dated, cost_of, budget_tokens, (max_snippet_chars, max_memory_chars))
        if block is not None:
            return block
    return None


def _render(
    preamble: str,
    items: Sequence[RenderItem],
    memories: Sequence[RecalledMemory],
    cost_of: _Counts,
    budget_tokens: int,
    max_chars: tuple[int, int],
) -> str | None:
    """The block under ``preamble`` (`render_context`); ``max_chars``: a snippet's and a memory's."""
    max_snippet_chars, max_memory_chars = max_chars
    used = cost_of([OPEN, preamble, CLOSE])
    saved: list[str] = []
    if memories:
        cost_of.prime([MEMORY_HEADER, *(_memory_line(m, max_memory_chars) for m in memories)])
        saved, used = _admit_memories(memories, cost_of, used, budget_tokens, max_memory_chars)
    chosen = _admit_drawers(items, cost_of, used, budget_tokens, max_snippet_chars)
    if not chosen and not saved:
        return None
    groups: dict[tuple[int, int], list[tuple[RenderItem, list[str]]]] = {}
    for item, lines in chosen:  # dict order = order of each group's best-ranked drawer
        groups.setdefault((item.drawer.room_id, item.closet_id), []).append((item, lines))
    out = [OPEN, preamble, *saved]
    for members in groups.values():
        out.append(_group_header(members[0][0]))
        for _item, lines in sorted(members, key=lambda m: (m[0].drawer.occurred_at, m[0].drawer.drawer_id)):
            out.extend(lines)
    out.append(CLOSE)
    return "\n".join(out)
