"""Export and import carry per-agent access, over HTTP (JSON and NDJSON).

Before, `GET /v1/export` carried the agents but not what each may see: after an import an
agent limited to some categories came back unconfigured (``categories: null``), free to read
every category and wing, and an agent given procedures on purpose lost them. Now the export
carries `GET /v1/access`'s document as ``access`` (never an agent's key) and an import
restores it exactly, all or nothing, refusing a bad entry with a 400 naming it. A file
without it (older exports) creates its agents closed, and the import's answer names them.

Agents survive an empty memory: an agent the target user already had, limited, came out of an
import reading every category when the file listed it without an entry, and the answer said
nothing; now ``agents_opened`` names it. A version 1 or 2 file carrying ``access`` (which
arrived with version 3) was accepted; it is refused naming the field, and an NDJSON access
refusal names its field below ``access.`` as the JSON file's does.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from litestar.testing import AsyncTestClient

from tests.conftest import UserHandle

Client = AsyncTestClient  # type: ignore[type-arg]
NewUser = Callable[..., Awaitable[UserHandle]]
NDJSON = {"content-type": "application/x-ndjson"}
ACCESS = {
    "defaults": {"modes": {"insight": {"mode": "rag"}}},
    "agents": {
        "coder": {
            "categories": ["preference", "procedure"],
            "wings": ["work"],
            "modes": {"procedure": {"mode": "rag", "cap": 2}},
        },
        "reader": {"categories": ["fact"], "wings": None, "modes": {}},
    },
}
"""As `GET /v1/access` answers it (a field left out reads null or empty)."""


async def _ok(answer: Any, status: int = 200) -> Any:
    assert answer.status_code == status, answer.text
    return answer.json()


async def _configured(client: Client, admin: dict[str, str], user: UserHandle) -> str:
    """Three agents (two limited, one not), a procedure for coder; the agent key's secret."""
    await _ok(await client.put("/v1/agents/plain", json={"name": "Plain"}, headers=user.headers))
    await _ok(await client.put("/v1/access", json=ACCESS, headers=user.headers))
    steps = {"agent_id": "coder", "category": "procedure", "content": "How to deploy", "body": "Test\nShip"}
    await _ok(await client.post("/v1/memories", json=steps, headers=user.headers), 201)
    issued = await client.post(f"/v1/admin/users/{user.id}/keys", json={"agent_id": "coder"}, headers=admin)
    key: str = (await _ok(issued, 201))["key"]
    return key


async def _access(client: Client, user: UserHandle) -> dict[str, Any]:
    found: dict[str, Any] = await _ok(await client.get("/v1/access", headers=user.headers))
    return found


async def _export_lines(client: Client, user: UserHandle) -> list[dict[str, Any]]:
    answer = await client.get("/v1/export", params={"format": "ndjson", "embeddings": "false"}, headers=user.headers)
    assert answer.status_code == 200, answer.text
    return [json.loads(line) for line in answer.text.splitlines() if line]


def _ndjson(lines: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


async def _procedures(client: Client, user: UserHandle) -> list[str]:
    """What coder's scoped query finds of its procedures (a 403 when it may not ask for them)."""
    body = {"agent": "coder", "query": "deploy", "categories": ["procedure"]}
    found = await _ok(await client.post("/v1/memory/query", json=body, headers=user.headers))
    return [b["text"] for b in found["bullets"]]


async def test_json_export_carries_access_and_import_restores_it_exactly(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    source, target = await new_user("access-json-src"), await new_user("access-json-dst")
    key = await _configured(client, admin_headers, source)
    exported = await client.get("/v1/export", params={"embeddings": "false"}, headers=source.headers)
    assert exported.status_code == 200, exported.text
    assert key not in exported.text and key.split("_")[2] not in exported.text  # a key is a secret
    doc = exported.json()
    assert doc["access"] == await _access(client, source) == ACCESS
    result = await _ok(await client.post("/v1/import", json=doc, headers=target.headers), 201)
    assert result["agents_closed"] == []
    assert await _access(client, target) == ACCESS
    coder = await _ok(await client.get("/v1/agents/coder/access", headers=target.headers))
    assert (coder["categories"], coder["wings"]) == (["preference", "procedure"], ["work"])
    plain = await _ok(await client.get("/v1/agents/plain/access", headers=target.headers))
    assert (plain["categories"], plain["wings"], plain["modes"]) == (None, None, {})  # unconfigured, as it was
    assert await _procedures(client, target) == ["How to deploy"]


async def test_ndjson_export_carries_access_on_one_line_and_import_restores_it(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    source, target = await new_user("access-nd-src"), await new_user("access-nd-dst")
    await _configured(client, admin_headers, source)
    lines = await _export_lines(client, source)
    kinds = [line["type"] for line in lines]
    assert (
        kinds.count("access") == 1 and kinds.index("access") == max(i for i, k in enumerate(kinds) if k == "agent") + 1
    )
    access = next(line for line in lines if line["type"] == "access")
    assert {k: v for k, v in access.items() if k != "type"} == ACCESS
    assert lines[-1]["counts"]["access"] == 1
    answer = await client.post("/v1/import", content=_ndjson(lines), headers={**target.headers, **NDJSON})
    assert (await _ok(answer, 201))["agents_closed"] == []
    assert await _access(client, target) == ACCESS


async def test_an_older_file_without_access_creates_its_agents_closed(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    source = await new_user("access-old-src")
    await _configured(client, admin_headers, source)
    exported = await client.get("/v1/export", params={"embeddings": "false"}, headers=source.headers)
    doc = {k: v for k, v in exported.json().items() if k != "access"} | {"version": 2}
    target = await new_user("access-old-dst")
    await _ok(await client.put("/v1/agents/reader/access", json={"categories": ["fact", "preference"]},
                               headers=target.headers))  # fmt: skip
    result = await _ok(await client.post("/v1/import", json=doc, headers=target.headers), 201)
    assert result["agents_closed"] == ["coder", "plain"]  # reader was this user's already: kept
    agents = (await _access(client, target))["agents"]
    closed = {"categories": [], "wings": [], "modes": {}}
    assert agents == {
        "coder": closed,
        "plain": closed,
        "reader": {"categories": ["fact", "preference"], "wings": None, "modes": {}},
    }
    # the NDJSON stream likewise: a version 2 file, no access line
    lines = [line for line in await _export_lines(client, source) if line["type"] != "access"]
    lines[0]["version"] = 2
    lines[-1]["counts"].pop("access")
    streamed = await new_user("access-old-nd")
    answer = await client.post("/v1/import", content=_ndjson(lines), headers={**streamed.headers, **NDJSON})
    assert (await _ok(answer, 201))["agents_closed"] == ["coder", "plain", "reader"]
    assert (await _access(client, streamed))["agents"] == {"coder": closed, "plain": closed, "reader": closed}


async def test_a_bad_access_entry_is_a_400_naming_it_and_imports_nothing(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    source, target = await new_user("access-bad-src"), await new_user("access-bad-dst")
    await _configured(client, admin_headers, source)
    doc = (await client.get("/v1/export", params={"embeddings": "false"}, headers=source.headers)).json()
    coder = doc["access"]["agents"]["coder"]
    wrong = [
        ({"coder": {**coder, "categories": ["preference", "recipes"]}}, "access.agents.coder.categories[1]"),
        ({"coder": {**coder, "modes": {"recipes": {"mode": "rag"}}}}, "access.agents.coder.modes.recipes"),
        ({"coder": coder, "ghost": {"categories": ["fact"]}}, "access.agents.ghost"),
    ]
    for agents, field in wrong:
        bad = {**doc, "access": {**doc["access"], "agents": agents}}
        answer = await client.post("/v1/import", json=bad, headers=target.headers)
        assert answer.status_code == 400, answer.text
        assert [e["key"] for e in answer.json()["extra"]] == [field], answer.text
    misspelt = {**doc, "access": {**doc["access"], "agents": {"coder": {"categoires": ["fact"]}}}}
    answer = await client.post("/v1/import", json=misspelt, headers=target.headers)
    assert answer.status_code == 400, answer.text  # never ignored: that would widen what coder sees
    assert answer.json()["extra"][0]["key"] == "access.agents.coder.categoires", answer.text
    lines = await _export_lines(client, source)
    at = next(i for i, line in enumerate(lines) if line["type"] == "access")
    lines[at]["agents"]["coder"]["categories"] = ["recipes"]
    answer = await client.post("/v1/import", content=_ndjson(lines), headers={**target.headers, **NDJSON})
    assert answer.status_code == 400, answer.text
    assert answer.json()["extra"][0]["key"] == f"line {at + 1}.access.agents.coder.categories[0]", answer.text
    lines[at]["agents"]["coder"] = {"wings": ["Not A Slug"]}
    answer = await client.post("/v1/import", content=_ndjson(lines), headers={**target.headers, **NDJSON})
    assert answer.status_code == 400, answer.text
    assert answer.json()["extra"][0]["key"] == f"line {at + 1}.access.agents.coder.wings[0]", answer.text
    # all or nothing: none of those wrote an agent, and the file as exported imports
    assert (await _ok(await client.get("/v1/agents", headers=target.headers)))["items"] == []
    await _ok(await client.post("/v1/import", json=doc, headers=target.headers), 201)
    assert await _access(client, target) == ACCESS


async def _limit(client: Client, user: UserHandle, agent: str, **access: Any) -> None:
    await _ok(await client.put(f"/v1/agents/{agent}/access", json=access, headers=user.headers))


async def test_an_import_that_widens_an_agent_the_user_had_names_it(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    source = await new_user("access-open-src")
    await _configured(client, admin_headers, source)
    doc = (await client.get("/v1/export", params={"embeddings": "false"}, headers=source.headers)).json()
    lines = await _export_lines(client, source)
    for name, send in (("access-open-json", {"json": doc}), ("access-open-nd", {"content": _ndjson(lines)})):
        target = await new_user(name)
        await _limit(client, target, "plain", categories=["fact"])  # the file: unconfigured, so every one
        await _limit(client, target, "reader", categories=["fact"], wings=["home"])  # the file: every wing
        await _limit(client, target, "coder", categories=["fact", "preference", "procedure"], wings=["work"])
        headers = target.headers if "json" in send else {**target.headers, **NDJSON}
        result = await _ok(await client.post("/v1/import", **send, headers=headers), 201)
        assert (result["agents_closed"], result["agents_opened"]) == ([], ["plain", "reader"]), name
        assert await _access(client, target) == ACCESS  # still restored exactly: only now said


async def test_access_in_a_file_before_version_3_is_refused_naming_it(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    source, target = await new_user("access-v2-src"), await new_user("access-v2-dst")
    await _configured(client, admin_headers, source)
    doc = (await client.get("/v1/export", params={"embeddings": "false"}, headers=source.headers)).json()
    answer = await client.post("/v1/import", json=doc | {"version": 2}, headers=target.headers)
    assert answer.status_code == 400, answer.text
    assert [e["key"] for e in answer.json()["extra"]] == ["access"], answer.text
    assert "version 3" in answer.json()["detail"], answer.text
    lines = await _export_lines(client, source)
    lines[0]["version"] = 2
    at = next(i for i, line in enumerate(lines) if line["type"] == "access")
    answer = await client.post("/v1/import", content=_ndjson(lines), headers={**target.headers, **NDJSON})
    assert answer.status_code == 400, answer.text
    assert answer.json()["extra"][0]["key"] == f"line {at + 1}.access", answer.text
    assert (await _ok(await client.get("/v1/agents", headers=target.headers)))["items"] == []


async def test_an_import_that_widens_a_mode_or_recall_of_an_agent_the_user_had_names_it(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """Each of plain, reader and coder reads more only by one cause: recall switched back on
    (the file's ``recall_enabled`` defaults to true), rag to all, a cap raised. The user's
    default for ``fact`` (rag here, all in the file) widens too, for agents the file does not
    list as well: ``defaults_opened`` names the category."""
    source = await new_user("mode-open-src")
    await _configured(client, admin_headers, source)
    doc = (await client.get("/v1/export", params={"embeddings": "false"}, headers=source.headers)).json()
    lines = await _export_lines(client, source)
    everything = {"fact": {"mode": "all"}}  # so the default's change alone does not open them
    had = {
        "defaults": {"modes": {"fact": {"mode": "rag"}, "insight": {"mode": "rag"}}},
        "agents": {
            "plain": {"modes": everything},
            "reader": {"categories": ["fact"], "modes": {"preference": {"mode": "rag", "cap": 3}, **everything}},
            "coder": {
                "categories": ["preference", "procedure"],
                "wings": ["work"],
                "modes": {"procedure": {"mode": "rag", "cap": 1}, **everything},
            },
        },
    }
    for name, send in (("mode-open-json", {"json": doc}), ("mode-open-nd", {"content": _ndjson(lines)})):
        target = await new_user(name)
        await _ok(await client.put("/v1/agents/plain", json={"recall_enabled": False}, headers=target.headers))
        await _ok(await client.put("/v1/agents/other", json={"name": "Not in the file"}, headers=target.headers))
        await _ok(await client.put("/v1/access", json=had, headers=target.headers))
        headers = target.headers if "json" in send else {**target.headers, **NDJSON}
        result = await _ok(await client.post("/v1/import", **send, headers=headers), 201)
        assert (result["agents_opened"], result.get("defaults_opened")) == (["coder", "plain", "reader"], ["fact"])
        assert await _access(client, target) == ACCESS


async def test_an_older_file_that_switches_recall_back_on_names_the_agent(
    client: Client, new_user: NewUser, admin_headers: dict[str, str]
) -> None:
    """A file without ``access`` leaves an agent the user had its access, but not its recall."""
    source = await new_user("recall-open-src")
    await _configured(client, admin_headers, source)
    doc = (await client.get("/v1/export", params={"embeddings": "false"}, headers=source.headers)).json()
    doc.pop("access")
    lines = [line for line in await _export_lines(client, source) if line["type"] != "access"]
    lines[-1]["counts"].pop("access")
    for name, send in (("recall-open-json", {"json": doc}), ("recall-open-nd", {"content": _ndjson(lines)})):
        target = await new_user(name)
        await _ok(await client.put("/v1/agents/plain", json={"recall_enabled": False}, headers=target.headers))
        headers = target.headers if "json" in send else {**target.headers, **NDJSON}
        result = await _ok(await client.post("/v1/import", **send, headers=headers), 201)
        assert (result["agents_closed"], result["agents_opened"]) == (["coder", "reader"], ["plain"]), name
