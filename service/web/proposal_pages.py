"""The Proposals view of the /memory page: what mining would like to write about a
sensitive profile field, with Approve and Reject.

Thin handlers over `domain.memory_proposals`, as `/v1/memories/proposals` is: the form
posts, the handler makes the one call and redirects back with what it did in the query
string (``?done=approve``), which the page says in a line. Approving writes the change as
the user's own core memory; rejecting writes nothing, and mining will not ask again.

The tab pages as the Memories tab does: the answered list, which only grows, ``before`` the
last id shown ("Older →"); what waits comes first, on the first page only. It loaded every
proposal the user ever had to show 20 answers.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Controller, Request, get, post
from litestar.params import QueryParameter
from litestar.response import Redirect, Template

from domain import memory_proposals
from loci.errors import LociError
from service.deps import StateDep
from service.routes._docs import IdPath, IdQuery
from service.web.memory_pages import error_page
from service.web.session import SignInNeeded, redirect_to_sign_in, signed_in_page, signed_in_user

__all__ = ["ProposalPages"]

DONE_WORDS = {
    "approve": "Approved: it is in your profile now.",
    "reject": "Rejected: nothing was saved, and it will not be asked again.",
}
"""The line a decision leaves on the page (anything else in ``done`` is ignored)."""
DoneQuery = Annotated[str | None, QueryParameter(max_length=16)]
PENDING_PAGE = 50
"""Waiting proposals shown at once; answering them brings up the rest (they also lapse)."""
ANSWERED_PAGE = 50
"""Answered proposals per page; "Older →" pages on with ``before``."""


class ProposalPages(Controller):
    path = "/memory/proposals"
    include_in_schema = False
    exception_handlers = {SignInNeeded: redirect_to_sign_in, LociError: error_page}  # noqa: RUF012

    @get("", name="memory:proposals")
    async def proposals_page(
        self, request: Request[Any, Any, Any], app_state: StateDep, done: DoneQuery = None, before: IdQuery = None
    ) -> Template:
        user_id, zone = await signed_in_page(request, app_state)
        pending = None
        if before is None:
            pending = await memory_proposals.proposal_page(app_state.db, user_id, limit=PENDING_PAGE)
        answered = await memory_proposals.answered_page(app_state.db, user_id, limit=ANSWERED_PAGE, before=before)
        older = None if answered.next_before is None else f"/memory/proposals?before={answered.next_before}"
        context = {
            "pending": pending, "answered": answered.items, "older": older, "done": DONE_WORDS.get(done or ""),
            "days": app_state.settings.memory.proposal_days, "zone": zone,
        }  # fmt: skip
        return Template("proposals.html", context=context)

    @post("/{proposal_id:int}/approve", name="memory:proposal-approve", status_code=303)
    async def approve(self, request: Request[Any, Any, Any], app_state: StateDep, proposal_id: IdPath) -> Redirect:
        user_id = await signed_in_user(request, app_state)
        await memory_proposals.approve_proposal(app_state.memory_store(), user_id, proposal_id)
        return Redirect("/memory/proposals?done=approve", status_code=303)

    @post("/{proposal_id:int}/reject", name="memory:proposal-reject", status_code=303)
    async def reject(self, request: Request[Any, Any, Any], app_state: StateDep, proposal_id: IdPath) -> Redirect:
        user_id = await signed_in_user(request, app_state)
        await memory_proposals.reject_proposal(app_state.db, user_id, proposal_id)
        return Redirect("/memory/proposals?done=reject", status_code=303)
