"""The OpenAPI spec documents every route: summary, description, operation id, errors, examples."""

from __future__ import annotations

import json

from litestar.testing import AsyncTestClient

METHODS = ("get", "post", "put", "patch", "delete")


async def test_every_route_is_documented(client: AsyncTestClient) -> None:  # type: ignore[type-arg]
    spec = (await client.get("/schema/openapi.json")).json()
    operation_ids: list[str] = []
    problems: list[str] = []
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method not in item:
                continue
            op = item[method]
            where = f"{method.upper()} {path}"
            print(where, op.get("operationId"))
            operation_ids.append(op.get("operationId", ""))
            problems += [f"{where}: no {key}" for key in ("summary", "description", "operationId") if not op.get(key)]
            responses = op.get("responses", {})
            if path.startswith("/v1/") and "401" not in responses:
                problems.append(f"{where}: 401 not documented")
            by_id = "{" in path and path.startswith("/v1/") and method != "put"
            if by_id and "404" not in responses:
                problems.append(f"{where}: 404 not documented")
            for code, response in responses.items():
                if code.startswith(("4", "5")) and not response.get("description"):
                    problems.append(f"{where}: {code} has no description")
    assert not problems, "\n".join(problems)
    assert len(operation_ids) == len(set(operation_ids)), "operation ids must be unique"
    text = json.dumps(spec, ensure_ascii=False)
    assert '"examples"' in text and "§ W-003/R-12/D-007" in text
    assert "/memory" not in spec["paths"]  # HTML pages stay out of the API spec
