"""`loci worker` whose mining pauses after each committed window, for the SIGKILL test.

Usage: ``python -m tests.slow_mining_worker SECONDS [worker options]``. It wraps
`ingest.pipeline.commit_window` (the window's transaction has committed when it
returns) with a sleep, then runs the real CLI, so a test can kill a real worker
deterministically between two windows without production code knowing about tests.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import ingest.pipeline as pipeline
from service.cli import main as cli


def slow_down(seconds: float) -> None:
    """Sleep ``seconds`` after every committed window of every mining job in this process."""
    commit = pipeline.commit_window

    async def commit_then_wait(*args: Any, **kwargs: Any) -> None:
        await commit(*args, **kwargs)
        await asyncio.sleep(seconds)

    pipeline.commit_window = commit_then_wait


def main(argv: list[str]) -> None:
    slow_down(float(argv[0]))
    cli.main(args=["worker", *argv[1:]], prog_name="loci")


if __name__ == "__main__":
    main(sys.argv[1:])
