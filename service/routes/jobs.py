"""Job status: queued / running / done (with counts) / failed (with the error)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, get
from litestar.params import FromPath

from domain.mining_jobs import mining_job
from service.deps import CallerDep, StateDep
from service.routes._docs import errors

__all__ = ["JobController"]


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
        description="Status of a mining job: queued, running, done (with counts) or failed (with the error).",
        responses=errors(404),
    )
    async def read(self, job_id: FromPath[str], caller: CallerDep, app_state: StateDep) -> JobOut:
        job = await mining_job(app_state.db, app_state.queue, caller.user_id, job_id)
        return JobOut(job.id, job.status, job.conversation_id, job.result, job.error)
