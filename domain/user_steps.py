"""A periodic job's walk over users: one user's failure is that user's, not the run's.

Each daily or hourly job over users (trash purge, memory expiry and purge, proposals'
lapse, consolidation, decay) runs one step per user, each in its own transaction. A step
that failed (a statement cancelled by ``statement_timeout`` on a user with far more rows
than most, a deadlock, a row the code cannot handle) once ended the whole run: every user
after that one was skipped, the job logged "the database is unavailable", and the next
day's run stopped at the same user again. Now the failure is logged with the user's id and
traceback, counted, and the walk goes on. Only an outage (`loci.db_faults.is_outage`: the
connection is gone) still ends the run, as the next user would fail the same way.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from loci.db_faults import driver_error, is_outage

__all__ = ["UserSteps", "each_user"]

log = logging.getLogger("loci.jobs")
T = TypeVar("T")


@dataclass(slots=True)
class UserSteps(Generic[T]):
    """What the walk got: each passed step's result, and the ids of users whose step failed."""

    results: list[T] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)


async def each_user(
    job: str, users: AsyncIterable[int] | Iterable[int], step: Callable[[int], Awaitable[T]]
) -> UserSteps[T]:
    """Run ``step`` for each user in turn; a failed step is logged (``job`` and the user id)
    and counted in `UserSteps.failed`, and the next user's runs. An outage is raised."""
    out: UserSteps[T] = UserSteps()

    async def one(user_id: int) -> None:
        try:
            out.results.append(await step(user_id))
        except Exception as e:  # one user's failure: logged and counted below; an outage ends the run
            if is_outage(e):
                raise
            out.failed.append(user_id)
            cause = driver_error(e)
            first = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
            log.error("%s: user %d failed, going on (%s: %s)", job, user_id, type(cause).__name__, first, exc_info=e)

    if isinstance(users, AsyncIterable):
        async for user_id in users:
            await one(user_id)
    else:
        for user_id in users:
            await one(user_id)
    if out.failed:
        log.warning("%s: %d users failed: %s", job, len(out.failed), out.failed)
    return out
