"""The API docs work offline: the Swagger page's script, stylesheet and icon come from Loci
itself, and the schema declares the bearer keys so "Authorize" sends them."""

from __future__ import annotations

import re
from typing import Any

from litestar.testing import AsyncTestClient


async def test_swagger_page_loads_every_asset_from_the_app(client: AsyncTestClient[Any]) -> None:
    page = await client.get("/schema/swagger")
    assert page.status_code == 200
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page.text)
    assert any(u.endswith(".js") for u in urls) and any(u.endswith(".css") for u in urls)
    external = [u for u in urls if "://" in u or u.startswith("//")]
    assert external == [], "the docs page must not load anything from another host"
    for url in urls:
        asset = await client.get(url)
        assert asset.status_code == 200, url
        assert len(asset.content) > 100, url
    bundle = next(u for u in urls if u.endswith("swagger-ui-bundle.js"))
    assert b"SwaggerUIBundle" in (await client.get(bundle)).content


async def test_schema_declares_bearer_keys_where_routes_need_them(client: AsyncTestClient[Any]) -> None:
    spec = (await client.get("/schema/openapi.json")).json()
    schemes = spec["components"]["securitySchemes"]
    assert {s["type"] for s in schemes.values()} == {"http"}
    assert {s["scheme"] for s in schemes.values()} == {"bearer"}
    assert spec["security"] == [{"apiKey": []}]
    for path, item in spec["paths"].items():
        for method, op in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            if path.startswith("/v1/admin/"):
                assert op["security"] == [{"adminKey": []}], f"{method} {path}"
            elif path == "/metrics":  # the operator's, outside /v1: the admin key, else 401
                assert op["security"] == [{"adminKey": []}], f"{method} {path}"
                assert (await client.get(path)).status_code == 401, path
            elif path.startswith("/v1/"):
                assert "security" not in op, f"{method} {path} must inherit the API key requirement"
            else:
                assert op["security"] == [], f"{method} {path} needs no key"
                assert (await client.get(path)).status_code in (200, 503), path
