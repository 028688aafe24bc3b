"""`GET /metrics`: Prometheus metrics, for the admin key only; and the HTTP metrics' middleware.

The bearer middleware (service/auth.py) leaves this route alone (``exclude_from_auth``): it would
look the admin key up as a user's key. A guard compares the admin key in constant time, as
/readyz does for its details, and answers 401 otherwise: the metrics say how much Loci is used
and how it is doing, which is the operator's business.
"""

from __future__ import annotations

import hmac
from typing import Any

from litestar import Controller, Response, get
from litestar.connection import ASGIConnection
from litestar.exceptions import NotAuthorizedException
from litestar.handlers import BaseRouteHandler
from litestar.middleware import DefineMiddleware
from litestar.plugins.prometheus import PrometheusConfig

from service.auth import bearer_token
from service.deps import StateDep
from service.metrics import MEDIA_TYPE, render
from service.routes._api_docs import ADMIN_KEY
from service.routes._docs import errors
from service.state import AppState

__all__ = ["MetricsController", "http_metrics"]


def http_metrics() -> DefineMiddleware:
    """Litestar's Prometheus middleware: ``loci_http_requests_total`` and
    ``loci_http_request_duration_seconds`` (with ``…_in_progress`` and ``…_error_total``) by
    ``method``, ``path`` and ``status_code``. ``group_path`` puts the route's template in ``path``
    (``/v1/conversations/{conversation_id}``), never the address asked for, so no id reaches a
    label. Not counted here: an address that matches no route (Litestar answers it before any
    middleware runs) and a request auth refuses (the middleware sits inside auth, since an
    exception raised through it is counted as a 200); those have counters of their own
    (`service.metrics.observe_unrouted`, `observe_auth_refused`)."""
    return PrometheusConfig(app_name="loci", prefix="loci_http", group_path=True).middleware


def admin_only(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
    """401 unless the request carries the admin key (`Authorization: Bearer $LOCI_ADMIN_KEY`)."""
    state: AppState = connection.app.state.loci
    token, admin_key = bearer_token(connection), state.settings.server.admin_key
    if not (token and admin_key and hmac.compare_digest(token.encode(), admin_key.encode())):
        raise NotAuthorizedException("metrics need the admin key: send 'Authorization: Bearer $LOCI_ADMIN_KEY'")


class MetricsController(Controller):
    tags = ("health",)
    security = ({ADMIN_KEY: []},)

    @get(
        "/metrics",
        operation_id="metrics",
        summary="Prometheus metrics",
        description="The Prometheus text format: HTTP requests by route template, method and status (and those refused "
        "for their key or matching no route); recalls by "
        "depth and cache result; mining jobs by outcome, turns mined; the job queue's length. Labels carry no "
        "user, key, conversation or text. Admin key only (`Authorization: Bearer $LOCI_ADMIN_KEY`); "
        "`LOCI_METRICS_ENABLED=false` removes the route.",
        guards=[admin_only],
        opt={"exclude_from_auth": True},
        media_type=MEDIA_TYPE,
        responses=errors(),  # 401 (and 503, which every route may answer)
    )
    async def metrics(self, app_state: StateDep) -> Response[bytes]:
        return Response(await render(app_state.queue), media_type=MEDIA_TYPE)
