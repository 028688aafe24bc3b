"""Job status: queued / running / done (with counts) / failed (with the error)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Controller, get
from litestar.params import PathParameter

from domain.mining_jobs import mining_job
from loci.inputs import ID_PATTERN, MAX_ID_CHARS
from service.deps import CallerDep, StateDep
from service.routes._docs import errors

__all__ = ["JobController"]

JobPath = Annotated[
    str,
    PathParameter(
        pattern=ID_PATTERN,
        max_length=MAX_ID_CHARS,
        description="a job id, as completing or mining a conversation answers",
    ),
]


class JobOut(msgspec.Struct):
    id: str
    status: str
    conversation_id: str
    result: dict[str, Any] | None = None
    error: str | None = None


class JobController(Controller):
    path = "/v1/jobs"
    tags = ("jobs",)

    @get(
        "/{job_id:str}",
        operation_id="getJob",
        summary="Where a mining job stands",
        description=(
            "Status of a mining job: queued, running, done (with counts) or failed (with the error). "
            "A job whose conversation was deleted for good answers 410 Gone, saying so."
        ),
        responses=errors(404, 410),
    )
    async def read(self, job_id: JobPath, caller: CallerDep, app_state: StateDep) -> JobOut:
        job = await mining_job(app_state.db, app_state.queue, caller.user_id, job_id)
        return JobOut(job.id, job.status, job.conversation_id, job.result, job.error)
