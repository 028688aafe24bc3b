"""The session-start block's text: chosen memories in categories, within token budgets.

Pure (no database), so its rules are unit-tested directly. The text must stay
byte-identical between calls until a memory changes (or the user's time zone, on which its
dates are read), because apps put it at the start of the prompt and providers cache prompt
prefixes: nothing in it ticks (no "now", no ages), every order is a total order over stored
values, and tokens come from a counter that is a pure function of the text.

Layout::

    <user_memory revision="41">
    Saved memories about this user, by category:
    ## Profile
    - Name is Ana; lives in Lisbon
    ## Response style
    - Short answers, no emojis
    </user_memory>

Categories follow the configured order (`MemorySettings.categories`; categories no longer
configured come after them, by name) and empty ones are left out. Within a category:
core first (the profile is always shown), then pinned, then more important, then older
(``valid_from``), then lower id. Older-first means a new memory lands after the lines
already there, so the cached prefix up to it survives; the id settles ties within one
transaction. That order is also the order of admission: when a budget runs out, the
least important, newest lines are the ones dropped, always whole, never cut.

Budgets: core lines always go in (they are capped at `core_max_chars` when saved) and
count against their category. A category named in ``context_budgets`` admits lines up to
its own budget; the others share what the named ones left of ``context_tokens``, in
category order. Nothing ever exceeds ``context_tokens`` except a core profile larger than
it, which the settings' bounds make impossible by default. Each line (heading, bullet,
frame) is counted on its own with its special tokens, which over-counts slightly and so
errs on the safe side.

Stored text goes through `retrieval.plain`, the escaping of the recall block: it cannot
close the element, forge a heading or a bullet (whitespace and line separators collapse
to spaces, so every memory is exactly one ``- `` line) or hide behind bidi controls.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo

from loci.prompt_tokens import prompt_counter
from retrieval import LABEL_CHARS, plain

__all__ = [
    "CLOSE",
    "PREAMBLE",
    "Block",
    "BlockBudget",
    "BlockEntry",
    "CategoryUsage",
    "TokenCounter",
    "category_order",
    "entry_line",
    "entry_order",
    "heading",
    "open_tag",
    "render_block",
]

TokenCounter = Callable[[Sequence[str]], list[int]]
"""Tokens per text, as `loci.embedder.Embedder.count_tokens` counts them."""

CLOSE = "</user_memory>"
PREAMBLE = "Saved memories about this user, by category:"


def open_tag(revision: int) -> str:
    return f'<user_memory revision="{revision}">'


def heading(category: str) -> str:
    """``## Response style`` for ``response_style`` (escaped: a stored category is stored text)."""
    return "## " + plain(category.replace("_", " ").capitalize(), LABEL_CHARS)


def bullet(text: str) -> str:
    """One memory as one line, never cut (``max_chars`` is its own length): a line that does
    not fit is dropped whole."""
    return "- " + plain(text, max(len(text), 1))


def entry_line(e: BlockEntry, zone: tzinfo = UTC) -> str:
    """The entry's bullet; one learned from a conversation says when it was said
    (``- Lives in Porto (said 2026-03-14)``), so a model weighs an old statement as old,
    whenever it was mined: the day on ``zone``'s clock, the user's own (`loci.zones`; UTC
    when unset), so a chat at 22:30 in New York is said that day, not the UTC day after."""
    line = bullet(e.text)
    return line if e.said_at is None else f"{line} (said {e.said_at.astimezone(zone):%Y-%m-%d})"


@dataclass(frozen=True, slots=True)
class BlockEntry:
    """One memory as the block sees it; ``text`` is its summary or content, unescaped."""

    id: int
    category: str
    layer: str
    text: str
    pinned: bool
    importance: int
    valid_from: datetime
    said_at: datetime | None = None
    """When a memory learned from a conversation was said (its turn); None for one written on
    purpose. Its line ends with the date (`entry_line`): a stored value read on the user's zone,
    so the block never ticks (a change of zone changes it, as a memory's change does)."""


@dataclass(frozen=True, slots=True)
class BlockBudget:
    """Token budgets, from `MemorySettings` (``context_budgets``, ``context_tokens``)."""

    categories: tuple[str, ...]
    total: int
    per_category: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CategoryUsage:
    category: str
    count: int
    tokens: int


@dataclass(frozen=True, slots=True)
class Block:
    """The rendered block ("" when nothing is shown) and what went into it."""

    text: str
    token_count: int
    categories: tuple[CategoryUsage, ...]
    omitted: int


def entry_order(e: BlockEntry) -> tuple[int, bool, int, datetime, int]:
    """Order within a category, and of admission (see the module docstring)."""
    return (0 if e.layer == "core" else 1, not e.pinned, -e.importance, e.valid_from, e.id)


def category_order(configured: Sequence[str], present: Sequence[str]) -> list[str]:
    """Configured categories first, in their order; any others after, by name."""
    known = set(configured)
    return [c for c in configured if c in present] + sorted({c for c in present if c not in known})


class _Allocation:
    """Lines admitted per category, charged against category and total budgets."""

    def __init__(self, budget: BlockBudget, cost: Callable[[str], int], frame_tokens: int) -> None:
        self.budget = budget
        self.cost = cost
        self.left = budget.total - frame_tokens
        self.lines: dict[str, list[str]] = {}
        self.tokens: dict[str, int] = {}

    def _price(self, category: str, line: str) -> int:
        head = 0 if self.lines.get(category) else self.cost(heading(category))
        return head + self.cost(line)

    def _charge(self, category: str, line: str, price: int) -> None:
        self.lines.setdefault(category, []).append(line)
        self.tokens[category] = self.tokens.get(category, 0) + price
        self.left -= price

    def force(self, category: str, line: str) -> None:
        self._charge(category, line, self._price(category, line))

    def offer(self, category: str, line: str) -> bool:
        price = self._price(category, line)
        room = self.left
        if category in self.budget.per_category:
            room = min(room, self.budget.per_category[category] - self.tokens.get(category, 0))
        if price > room:
            return False
        self._charge(category, line, price)
        return True


def _counter(count_tokens: TokenCounter, lines: Sequence[str]) -> Callable[[str], int]:
    """Counts every distinct line in one tokenizer call (per-call overhead dominates), as a
    chat model's prompt spends them (`loci.prompt_tokens`: other scripts than Latin by script)."""
    count_tokens = prompt_counter(count_tokens)
    distinct = list(dict.fromkeys(lines))
    counts = dict(zip(distinct, count_tokens(distinct), strict=True)) if distinct else {}
    return lambda line: counts[line] if line in counts else count_tokens([line])[0]


def render_block(
    entries: Sequence[BlockEntry],
    revision: int,
    budget: BlockBudget,
    count_tokens: TokenCounter,
    zone: tzinfo = UTC,
) -> Block:
    """The block for ``entries`` at ``revision`` within ``budget`` (see the module docstring),
    its dates on ``zone``'s clock (`entry_line`)."""
    line_of = functools.partial(entry_line, zone=zone)
    by_category: dict[str, list[BlockEntry]] = {}
    for e in sorted(entries, key=entry_order):
        by_category.setdefault(e.category, []).append(e)
    order = category_order(budget.categories, list(by_category))
    frame = [open_tag(revision), PREAMBLE, CLOSE]
    cost = _counter(count_tokens, [*frame, *map(heading, order), *map(line_of, entries)])
    alloc = _Allocation(budget, cost, sum(map(cost, frame)))
    for category in order:
        for e in by_category[category]:
            if e.layer == "core":
                alloc.force(category, line_of(e))
    named = [c for c in order if c in budget.per_category]
    shared = [c for c in order if c not in budget.per_category]
    shown = sum(1 for e in entries if e.layer == "core")
    for category in (*named, *shared):
        for e in by_category[category]:
            if e.layer != "core" and alloc.offer(category, line_of(e)):
                shown += 1
    if not alloc.lines:
        return Block("", 0, (), len(entries))
    body = [line for c in order if c in alloc.lines for line in (heading(c), *alloc.lines[c])]
    usage = tuple(CategoryUsage(c, len(alloc.lines[c]), alloc.tokens[c]) for c in order if c in alloc.lines)
    tokens = sum(map(cost, frame)) + sum(u.tokens for u in usage)
    return Block("\n".join([frame[0], frame[1], *body, CLOSE]), tokens, usage, len(entries) - shown)
