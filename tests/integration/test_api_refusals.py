"""Bad input across the /v1 API, over real HTTP: each refusal is a 400 (or 409) naming what was wrong.

Each case once got through or read badly: a misspelt query parameter (``?layr=core``) was
dropped and the unfiltered list answered; a non-numeric path id was a bare 404 "Not Found";
an array body named no field; "at least 1 characters"; a bad ``Idempotency-Key`` named the
handler's argument and pointed at the schema; removing a link twice said "not found".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from litestar.routes import HTTPRoute
from litestar.testing import AsyncTestClient

from tests.conftest import UserHandle

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]


def _refusal(answer: Any, status: int = 400) -> tuple[str, dict[str, Any]]:
    """The detail and the first ``extra`` item of a refusal."""
    assert answer.status_code == status, answer.text
    body = answer.json()
    return body["detail"], body["extra"][0]


@pytest.mark.parametrize(
    ("method", "path", "unknown", "takes"),
    [
        ("GET", "/v1/memories?layr=core", "layr", "agent_id, as_of, before, category, layer, limit, source"),
        ("GET", "/v1/context?bogus=1", "bogus", "agent_id, as_of, since_rev"),
        ("GET", "/v1/memories/proposals?status=pending&stauts=x", "stauts", "status"),
        ("POST", "/v1/recall?top_k=3", "top_k", "it takes none"),
    ],
)
async def test_an_undeclared_query_parameter_is_refused_naming_it(
    client: Client, new_user: NewUser, method: str, path: str, unknown: str, takes: str
) -> None:
    user = await new_user("query-params")
    answer = await client.request(method, path, headers=user.headers, json={"message": "hi"})
    detail, item = _refusal(answer)
    assert item["key"] == unknown and item["source"] == "query", item
    assert detail.startswith(f"{unknown}: is not a query parameter of this route") and takes in detail, detail


async def test_declared_parameters_and_the_pages_stay_as_they_were(client: Client, new_user: NewUser) -> None:
    """Only the API refuses: the pages, health and the docs take any query string, as before."""
    user = await new_user("query-lenient")
    listed = await client.get("/v1/memories?layer=core&limit=5", headers=user.headers)
    assert listed.status_code == 200, listed.text
    for path in ("/healthz?probe=1", "/schema/openapi.json?v=2", "/memory?utm_source=x"):
        assert (await client.get(path, headers=user.headers)).status_code == 200, path
    for path in ("/v1/memories/1", "/v1/me"):  # the OPTIONS handlers Litestar adds pass the check too
        options = await client.options(path, headers=user.headers)
        assert options.status_code == 204 and "GET" in options.headers["allow"], options.text


def _int_path_routes(client: Client) -> list[tuple[str, str, str]]:
    """(method, path with ``abc`` for one int parameter and 1 for the others, that parameter) of every /v1 route."""
    found = []
    for route in client.app.routes:
        if not isinstance(route, HTTPRoute) or not route.path.startswith("/v1/"):
            continue
        for method, (handler, _) in route.route_handler_map.items():
            params = handler.parsed_fn_signature.parameters
            ints = [name for name in route.path_parameters if name in params and params[name].annotation is int]
            if method in {"HEAD", "OPTIONS"}:
                continue
            for name in ints:
                path = route.path_format
                for other in route.path_parameters:
                    path = path.replace(f"{{{other}}}", "abc" if other == name else "1")
                found.append((method, path, name))
    return found


async def test_every_numeric_path_id_refuses_text_in_words(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """``/v1/memories/abc`` is a 400 saying the id must be a whole number, on every route with one."""
    user = await new_user("path-ids")
    routes = _int_path_routes(client)
    assert {("GET", "/v1/memories/abc"), ("POST", "/v1/memories/proposals/abc/approve")} <= {
        (m, p) for m, p, _ in routes
    }
    assert len(routes) >= 15, routes
    for method, path, name in routes:
        headers = admin_headers if path.startswith("/v1/admin/") else user.headers
        detail, item = _refusal(await client.request(method, path, headers=headers))
        assert item["key"] == name and item["source"] == "path", (path, item)
        assert detail == f"{name}: must be a whole number", (path, detail)


async def test_an_array_body_names_the_body(client: Client, new_user: NewUser) -> None:
    user = await new_user("array-body")
    detail, item = _refusal(await client.post("/v1/memories", json=[1, 2], headers=user.headers))
    assert item["key"] == "body" and detail == "body: expected object, got array", detail


async def test_a_bound_of_one_is_singular(client: Client, new_user: NewUser) -> None:
    user = await new_user("singular")
    entries = [{"category": "profile", "content": ""}]
    detail, item = _refusal(await client.put("/v1/profile", json={"entries": entries}, headers=user.headers))
    assert item["key"] == "entries[0].content" and detail == "entries[0].content: must be at least 1 character", detail


async def test_a_bad_idempotency_key_names_the_header_and_its_form(client: Client, new_user: NewUser) -> None:
    user = await new_user("idem-header")
    for key in ("k 1 é".encode(), b"x" * 256):
        headers = {**user.headers, "Idempotency-Key": key}
        answer = await client.post("/v1/memories", json={"content": "x", "category": "fact"}, headers=headers)
        detail, item = _refusal(answer)
        assert item["key"] == "Idempotency-Key" and item["source"] == "header", item
        assert detail.startswith("Idempotency-Key: must be ") and "schema" not in detail, detail
        assert ("visible ASCII" in detail) if b" " in key else ("255 characters" in detail), detail


async def test_removing_a_link_again_says_it_was_removed(client: Client, new_user: NewUser) -> None:
    user = await new_user("unlink-twice")
    ids = []
    for content in ("Works at Acme", "Acme makes rockets"):
        saved = await client.post("/v1/memories", json={"content": content, "category": "fact"}, headers=user.headers)
        ids.append(saved.json()["memory"]["id"])
    body = {"from_id": ids[0], "to_id": ids[1], "relation": "relates_to"}
    link_id = (await client.post("/v1/memories/links", json=body, headers=user.headers)).json()["link"]["id"]
    first = await client.delete(f"/v1/memories/links/{link_id}", headers=user.headers)
    assert first.status_code == 200 and first.json()["event"] == "unlink", first.text
    again = await client.delete(f"/v1/memories/links/{link_id}", headers=user.headers)
    assert again.status_code == 409, again.text
    assert again.json()["detail"].startswith(f"link {link_id} was already removed at "), again.text
    missing = await client.delete(f"/v1/memories/links/{link_id + 1000}", headers=user.headers)
    assert missing.status_code == 404 and missing.json()["detail"] == f"link {link_id + 1000} not found"
