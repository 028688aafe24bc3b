"""Job status: queued / running / done (with counts) / failed (with the error)."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Controller, get
from litestar.params import FromPath
from sqlalchemy import select

from domain.mining_jobs import job_info, parse_job_id
from loci.errors import NotFound
from loci.models import Conversation
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
        ref = parse_job_id(job_id, caller.user_id)
        async with app_state.db.user_session(caller.user_id) as s:
            conv = (
                await s.execute(select(Conversation).where(Conversation.id == ref.conversation_id))
            ).scalar_one_or_none()
        if conv is None:
            raise NotFound(f"job {job_id!r} not found")
        info = await job_info(app_state.queue, job_id)
        if info is None:
            if conv.mined_seq >= ref.target_seq:  # the result expired, but the work is done
                return JobOut(job_id, "done", conv.external_id)
            raise NotFound(f"job {job_id!r} not found")
        return JobOut(job_id, info.status, conv.external_id, info.result, info.error)
