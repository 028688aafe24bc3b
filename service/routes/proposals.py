"""Consent over HTTP: the proposals mining filed for sensitive profile fields, and the
user's answer to each (`domain.memory_proposals`).

User keys only: consent is the person's, so an agent key (which may act only as its
agent) gets a 401 here, as on the other user-only routes.
"""

from __future__ import annotations

from typing import Annotated

from litestar import Controller, get, post
from litestar.params import QueryParameter

from domain import memory_proposals
from domain.memory_proposals import ProposalDecision, ProposalPage
from loci.models import PROPOSAL_STATUSES
from service.deps import CallerDep, StateDep
from service.routes._docs import IdPath, IdQuery, Limit, errors

__all__ = ["ProposalController"]

StatusQuery = Annotated[
    str,
    QueryParameter(
        pattern=f"^({'|'.join((*PROPOSAL_STATUSES, 'all'))})$",
        description="pending (default), approved, rejected, lapsed, or all",
    ),
]


class ProposalController(Controller):
    path = "/v1/memories/proposals"
    tags = ("memories",)

    @get(
        "",
        operation_id="listMemoryProposals",
        summary="Changes to sensitive profile fields waiting for your approval",
        description=(
            "Mining proposes, instead of writing, changes to the fields in LOCI_MEMORY_CONSENT_FIELDS (name, "
            "pronouns, city, language, health); each waits LOCI_MEMORY_PROPOSAL_DAYS, newest first."
            " Keyset-paginated: pass `next_before` as `before`."
        ),
        responses=errors(400),
    )
    async def list_proposals(
        self,
        app_state: StateDep,
        caller: CallerDep,
        status: StatusQuery = "pending",
        limit: Limit = 50,
        before: IdQuery = None,
    ) -> ProposalPage:
        wanted = None if status == "all" else status
        return await memory_proposals.proposal_page(app_state.db, caller.user_id, wanted, limit=limit, before=before)

    @post(
        "/{proposal_id:str}/approve",
        operation_id="approveMemoryProposal",
        status_code=200,
        summary="Approve: write the change as your own core memory",
        description="An add or update of a core memory, source user; 409 once decided, 422 when the core is full.",
        responses=errors(400, 404, 409),
    )
    async def approve(self, app_state: StateDep, caller: CallerDep, proposal_id: IdPath) -> ProposalDecision:
        return await memory_proposals.approve_proposal(app_state.memory_store(), caller.user_id, proposal_id)

    @post(
        "/{proposal_id:str}/reject",
        operation_id="rejectMemoryProposal",
        status_code=200,
        summary="Reject: nothing is written, and mining will not propose it again",
        description="The rejection is kept (and recorded in history) so the same words are never proposed again; "
        "409 once decided.",
        responses=errors(400, 404, 409),
    )
    async def reject(self, app_state: StateDep, caller: CallerDep, proposal_id: IdPath) -> ProposalDecision:
        return await memory_proposals.reject_proposal(app_state.db, caller.user_id, proposal_id)
