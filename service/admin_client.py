"""The admin CLI's way to a running service: its admin API, found through the data dir.

Why: `loci serve` holds an exclusive lock on its data dir (one postmaster, one queue), so
`loci users create ann` could not open the database while the server ran, and without
`--data-dir` it silently made a second database the server never saw. The server writes
its URL into ``<data_dir>/server.json``; the CLI posts to that URL with the admin key
from the same data dir, and uses the database directly only when no server runs.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from loci.errors import ConfigurationError, InvalidInput
from loci.ownership import SERVER_FILE, SERVICES_FILE, lock_holder, read_record

__all__ = ["AdminApi", "running_service_url"]

TIMEOUT_S = 30.0
"""Generous: creating a user is one insert, but the server may be busy mining."""


def running_service_url(data_dir: Path) -> str | None:
    """The URL of the live `loci serve` on ``data_dir``, or None (none, or it was killed:
    its record outlives it, but not its lock, and its pid may be another process's now)."""
    import psutil

    record = read_record(data_dir, SERVER_FILE)
    if record is None or not isinstance(record.get("url"), str):
        return None
    pid = record.get("pid")
    if not isinstance(pid, int) or not psutil.pid_exists(pid):
        return None
    if lock_holder(data_dir) is None and read_record(data_dir, SERVICES_FILE) is not None:
        return None  # embedded services, but nobody holds them: the record is stale
    return str(record["url"])


class AdminApi:
    """The admin routes the CLI needs, answering plain dicts."""

    def __init__(self, url: str, admin_key: str) -> None:
        import httpx

        # One line per request at info would bury the command's own answer.
        logging.getLogger("httpx").setLevel(logging.WARNING)
        self.url = url
        self._client = httpx.Client(
            base_url=url, headers={"Authorization": f"Bearer {admin_key}"}, timeout=TIMEOUT_S, trust_env=False
        )

    def __enter__(self) -> AdminApi:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._client.close()

    def _call(self, method: str, path: str, json: Any = None) -> Any:
        import httpx

        try:
            response = self._client.request(method, path, json=json)
        except httpx.HTTPError as e:
            raise ConfigurationError(f"the Loci service at {self.url} did not answer ({e})") from e
        if response.status_code >= 400:
            try:
                answer = response.json()
                detail, extra = answer.get("detail", response.text), answer.get("extra")
            except (ValueError, AttributeError):
                detail, extra = response.text, None
            said = f"{detail} (HTTP {response.status_code} from {self.url})"
            field = extra[0].get("key") if isinstance(extra, list) and extra and isinstance(extra[0], dict) else None
            if response.status_code == 400 and isinstance(field, str):
                raise InvalidInput(said, field=field)  # the field, so the CLI can name its option
            raise ConfigurationError(said)
        return response.json() if response.content else None

    def create_user(self, name: str, email: str | None) -> dict[str, Any]:
        body = {"name": name} if email is None else {"name": name, "email": email}
        result: dict[str, Any] = self._call("POST", "/v1/admin/users", body)
        return result

    def create_key(self, user_id: int, name: str, agent: str | None = None) -> dict[str, Any]:
        body = {"name": name} if agent is None else {"name": name, "agent_id": agent}
        result: dict[str, Any] = self._call("POST", f"/v1/admin/users/{user_id}/keys", body)
        return result

    def list_users(self, after: int, limit: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._call("GET", f"/v1/admin/users?after={after}&limit={limit}")
        return result

    def list_keys(self, user_id: int) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = self._call("GET", f"/v1/admin/users/{user_id}/keys")
        return result

    def revoke_key(self, user_id: int, key_id: int) -> None:
        self._call("DELETE", f"/v1/admin/users/{user_id}/keys/{key_id}")
