"""Dependency providers shared by every controller."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide

from service.state import AppState, Caller

__all__ = ["DEPENDENCIES", "CallerDep", "StateDep"]

StateDep = NamedDependency[AppState]
"""Handler parameter type for the shared `AppState`."""
CallerDep = NamedDependency[Caller]
"""Handler parameter type for the authenticated user."""


def provide_state(state: State) -> AppState:
    loci_state: AppState = state.loci
    return loci_state


def provide_caller(request: Request[Any, Any, Any]) -> Caller:
    user = request.user
    if not isinstance(user, Caller):  # admin key on a user route, or auth skipped by mistake
        from litestar.exceptions import NotAuthorizedException

        raise NotAuthorizedException("this route needs a user API key")
    return user


DEPENDENCIES = {
    "app_state": Provide(provide_state, sync_to_thread=False),
    "caller": Provide(provide_caller, sync_to_thread=False),
}
