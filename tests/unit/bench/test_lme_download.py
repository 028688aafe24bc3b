"""Downloads against a real local HTTP server with Range support (no internet)."""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bench.longmemeval.download import DownloadError, Expected, download_file, main, verify_json_list

NAME = "longmemeval_oracle.json"
BODY = json.dumps([{"question_id": f"q{i}", "pad": "x" * 100} for i in range(2000)]).encode()


@dataclass
class ServerState:
    files: dict[str, bytes]
    cut_next_after: int | None = None  # send this many body bytes, then drop the connection
    ignore_range: bool = False
    linked_etag: str | None = None  # sent on a redirect, as Hugging Face does
    ranges: list[str | None] = field(default_factory=list)


class _Handler(BaseHTTPRequestHandler):
    state: ServerState

    def log_message(self, format: str, *args: object) -> None:  # keep test output quiet
        return

    def do_GET(self) -> None:
        if self.path.startswith("/redirect/"):
            self.send_response(302)
            self.send_header("Location", "/files/" + self.path.removeprefix("/redirect/"))
            if self.state.linked_etag is not None:
                self.send_header("X-Linked-Etag", f'"{self.state.linked_etag}"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = self.state.files.get(self.path.removeprefix("/files/"))
        if body is None:
            self.send_error(404)
            return
        requested = self.headers.get("Range")
        self.state.ranges.append(requested)
        start = 0
        if requested is not None and not self.state.ignore_range:
            match = re.fullmatch(r"bytes=(\d+)-", requested)
            assert match is not None
            start = int(match.group(1))
            if start >= len(body):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(body)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        else:
            self.send_response(200)
        payload = body[start:]
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.state.cut_next_after is not None:
            payload, self.state.cut_next_after = payload[: self.state.cut_next_after], None
            self.close_connection = True
        self.wfile.write(payload)


@pytest.fixture
def server() -> Iterator[tuple[str, ServerState]]:
    state = ServerState(files={NAME: BODY, "broken.json": b'{"not": "a list"}'})
    handler = type("Handler", (_Handler,), {"state": state})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_downloads_and_verifies_json(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    url, state = server
    path = download_file(NAME, tmp_path, base_url=url + "/files", progress=False)
    assert path == tmp_path / NAME and path.read_bytes() == BODY
    assert not (tmp_path / (NAME + ".part")).exists()
    assert state.ranges == [None]
    # An existing file is not fetched again.
    download_file(NAME, tmp_path, base_url=url + "/files", progress=False)
    assert state.ranges == [None]


def test_interrupted_download_resumes_with_range(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    url, state = server
    state.cut_next_after = len(BODY) // 2
    with pytest.raises(DownloadError, match=r"interrupted after .* run again to resume"):
        download_file(NAME, tmp_path, base_url=url + "/files", progress=False)
    part = tmp_path / (NAME + ".part")
    kept = part.stat().st_size
    assert 0 < kept <= len(BODY) // 2
    assert not (tmp_path / NAME).exists()
    expected = Expected(size=len(BODY), sha256=hashlib.sha256(BODY).hexdigest())
    path = download_file(NAME, tmp_path, base_url=url + "/files", expected=expected, progress=True)
    assert path.read_bytes() == BODY
    assert state.ranges == [None, f"bytes={kept}-"]
    assert not part.exists()


def test_checksum_mismatch_removes_the_part(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    url, _ = server
    with pytest.raises(DownloadError, match=r"sha256 mismatch .* run again to re-download"):
        download_file(NAME, tmp_path, base_url=url + "/files", expected=Expected(sha256="0" * 64), progress=False)
    assert not (tmp_path / NAME).exists() and not (tmp_path / (NAME + ".part")).exists()


def test_linked_etag_from_redirect_is_checked(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    url, state = server
    state.linked_etag = "f" * 64
    with pytest.raises(DownloadError, match="sha256 mismatch"):
        download_file(NAME, tmp_path, base_url=url + "/redirect", progress=False)
    state.linked_etag = hashlib.sha256(BODY).hexdigest()
    assert download_file(NAME, tmp_path, base_url=url + "/redirect", progress=False).read_bytes() == BODY


def test_existing_file_checked_against_known_hash(tmp_path: Path) -> None:
    (tmp_path / NAME).write_bytes(b"[]")
    with pytest.raises(DownloadError, match="sha256 mismatch"):
        download_file(NAME, tmp_path, base_url="http://unused", expected=Expected(sha256="0" * 64))
    assert (tmp_path / NAME).exists()  # a finished file is never deleted


def test_stale_part_longer_than_file_restarts(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    url, state = server
    (tmp_path / (NAME + ".part")).write_bytes(b"x" * (len(BODY) + 10))
    assert download_file(NAME, tmp_path, base_url=url + "/files", progress=False).read_bytes() == BODY
    assert state.ranges == [f"bytes={len(BODY) + 10}-", None]


def test_server_ignoring_range_restarts_cleanly(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    url, state = server
    state.ignore_range = True
    (tmp_path / (NAME + ".part")).write_bytes(BODY[:100])
    assert download_file(NAME, tmp_path, base_url=url + "/files", progress=False).read_bytes() == BODY


def test_not_json_and_http_errors(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    url, _ = server
    with pytest.raises(DownloadError, match="not a LongMemEval JSON file: expected a JSON list"):
        download_file("broken.json", tmp_path, base_url=url + "/files", progress=False)
    with pytest.raises(DownloadError, match="HTTP 404"):
        download_file("missing.json", tmp_path, base_url=url + "/files", progress=False)


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_offline_error_is_one_actionable_line(tmp_path: Path) -> None:
    port = _closed_port()
    with pytest.raises(DownloadError) as info:
        download_file(NAME, tmp_path, base_url=f"http://127.0.0.1:{port}/x", progress=False)
    message = str(info.value)
    assert message.startswith(f"cannot reach 127.0.0.1:{port}: ")
    # `download` takes no --dataset: the hint names where the file goes, and which commands take a path
    assert f"put it at {tmp_path / NAME}, or pass a local copy to the other stages with --dataset PATH" in message
    assert "\n" not in message


def test_cli(tmp_path: Path, server: tuple[str, ServerState], capsys: pytest.CaptureFixture[str]) -> None:
    url, _ = server
    argv = ["--dest", str(tmp_path), "--files", "oracle", "--base-url", url + "/files", "--no-progress"]
    assert main(argv) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / NAME)
    offline = ["--dest", str(tmp_path / "x"), "--files", "s", "--base-url", f"http://127.0.0.1:{_closed_port()}"]
    assert main([*offline, "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: cannot reach") and err.count("\n") == 1


def test_verify_json_list_cheap_check_for_huge_files(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b"  [" + b" " * 5000 + b"]\n")
    assert verify_json_list(path, full_parse_limit=10) is None
    path.write_bytes(b'{"a": 1}')
    assert verify_json_list(path, full_parse_limit=1) is not None
    assert verify_json_list(path) == "expected a JSON list, got dict"
