"""The OpenAPI document's configuration: offline Swagger UI and the bearer-key schemes.

Litestar's Swagger page loads its script, stylesheet and favicon from a CDN, so on a
machine without internet (or behind a strict proxy) `/schema/swagger` was a blank page.
The same files ship in the `swagger-ui-bundle-v2` wheel; they are served from
`DOCS_ASSETS` and the page points there.

Every /v1 route needs ``Authorization: Bearer <key>`` (service/auth.py). The schema says
so once, globally (`API_KEY`), so Swagger's "Authorize" button sends the key and
generated clients know it; the public probes opt out with ``security=[]`` and the admin
routes ask for `ADMIN_KEY` instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from litestar import Router
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import Components, Operation, SecurityScheme
from litestar.static_files import create_static_files_router
from swagger_ui_bundle import swagger_ui_path

__all__ = ["ADMIN_KEY", "API_KEY", "DOCS_ASSETS", "Public", "docs_assets_router", "openapi_config"]

API_KEY = "apiKey"
"""The security scheme of every user route: a user's API key as a bearer token."""
ADMIN_KEY = "adminKey"
"""The security scheme of /v1/admin: the admin key (LOCI_ADMIN_KEY) as a bearer token."""


@dataclass
class Public(Operation):
    """An operation that needs no key: ``security: []`` overrides the document's global
    requirement (Litestar writes no ``security`` at all for a handler without one)."""

    def __post_init__(self) -> None:
        self.security = []


DOCS_ASSETS = "/static/swagger-ui"
"""Where the Swagger UI files are served (under /static, which auth leaves public)."""

_FAVICON = f"<link rel='icon' type='image/png' href='{DOCS_ASSETS}/favicon-32x32.png'>"


def docs_assets_router() -> Router:
    """Serves the bundled Swagger UI files; kept out of the API schema."""
    return create_static_files_router(
        path=DOCS_ASSETS, directories=[str(swagger_ui_path)], name="swagger-ui", include_in_schema=False
    )


def openapi_config(*, title: str, version: str, description: str) -> OpenAPIConfig:
    """The /schema config: Swagger UI from `DOCS_ASSETS`, and the two bearer schemes."""
    swagger = SwaggerRenderPlugin(
        js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
        css_url=f"{DOCS_ASSETS}/swagger-ui.css",
        standalone_preset_js_url=f"{DOCS_ASSETS}/swagger-ui-standalone-preset.js",
        favicon=_FAVICON,
    )
    schemes = {
        API_KEY: SecurityScheme(
            type="http", scheme="bearer", description="A user's API key (POST /v1/admin/users/{user_id}/keys)"
        ),
        ADMIN_KEY: SecurityScheme(
            type="http", scheme="bearer", description="The admin key: LOCI_ADMIN_KEY or <data dir>/admin_key"
        ),
    }
    return OpenAPIConfig(
        title=title,
        version=version,
        description=description,
        path="/schema",
        render_plugins=[swagger],
        components=Components(security_schemes=schemes),  # type: ignore[arg-type]
        security=[{API_KEY: []}],
    )
