"""A time guard for the extractor's rules that holds on a slow or busy machine.

A rule that rescans a turn from every word takes seconds on a 100 KB paste (the guards below
each caught one: 24 s, 33 s, 105 s), so each rule is timed on such pastes. A fixed limit in
seconds measures the machine as much as the rule: the same linear rule took 3.7 s of a 5 s
limit on a slow day under load, and would fail on a slower one. What tells linear from
quadratic on any machine is how the time grows: a quarter of the paste takes about a quarter of
the time when the rule is linear, a sixteenth when it is quadratic. The guard reads CPU time
(others' load moves it far less than the wall clock) and allows twice the linear growth.
"""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Callable

__all__ = ["assert_linear", "scanning"]

PARTS = 4
"""The small run reads this share of the paste: linear work grows PARTS times, quadratic PARTS²."""
SLACK_S = 0.15
"""CPU seconds any run may take beyond the ratio: timer grain, a cache warming."""


def _cpu_seconds(work: Callable[[str], object], text: str) -> float:
    """The CPU time of ``work``, the garbage collector held off: a full collection walks the whole test
    session's heap (0.2 s and more in `tests/unit` run whole), a cost of the session, not of the rule,
    that fell on the large run or not depending on what ran before it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        began = time.process_time()
        work(text)
        return time.process_time() - began
    finally:
        if enabled:
            gc.enable()


def assert_linear(work: Callable[[str], object], text: str, what: object = "") -> None:
    """Fail when ``work`` on ``text`` takes more than twice what linear growth from a quarter of
    it predicts. ``text`` should be a paste of repeated fragments (at least 20 KB), so that its
    quarter is the same kind of input; ``what`` names the case in the failure."""
    small = text[: len(text) // PARTS]
    small_s = min(_cpu_seconds(work, small) for _ in range(2))
    full_s = _cpu_seconds(work, text)
    limit = 2 * PARTS * small_s + SLACK_S
    assert full_s < limit, (
        f"{what}: {len(text)} chars took {full_s:.2f} s, a quarter {small_s:.3f} s (limit {limit:.2f})"
    )


def scanning(pattern: re.Pattern[str]) -> Callable[[str], object]:
    """The work of one rule's pattern over a text: every match it finds."""
    return lambda text: list(pattern.finditer(text))
