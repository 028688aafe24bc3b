"""argparse checks the speed scripts share: a bad count is a usage error (one line, exit 2).

Why: `int` alone let `--sizes abc` end in a ValueError traceback after the model had loaded,
and `--sizes 0` or `--queries 0` in an IndexError from an empty list of timings, after a
database had been started and filled for nothing.
"""

from __future__ import annotations

import argparse

__all__ = ["at_least_one", "counts"]


def at_least_one(text: str) -> int:
    """A count: an integer of 1 or more, else a usage error naming the value."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer of 1 or more, got {text!r}")
    return value


def counts(text: str) -> list[int]:
    """A comma-separated list of counts (`--sizes 1000,10000`), none empty, each 1 or more."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers of 1 or more, got {text!r}")
    return [at_least_one(part) for part in parts]
