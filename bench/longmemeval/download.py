"""Fetch the public LongMemEval files, resumably, and check what arrived.

The files are large (the M file is several GB) and links drop, so a download
streams into ``<name>.part`` and a rerun continues it with an HTTP Range
request instead of starting over. Integrity: an expected sha256/size when
known (passed in, or Hugging Face's ``X-Linked-Etag``/``X-Linked-Size``
headers, which carry the sha256 and size of LFS files), and in every case the
result must look like a JSON list. The base URL is a parameter so tests can
serve files from a local HTTP server; offline, the error says how to proceed
with a local copy instead.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TextColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from bench.longmemeval.dataset import file_sha256

__all__ = [
    "DATASET_FILES",
    "HF_BASE_URL",
    "KNOWN_FILES",
    "DownloadError",
    "Expected",
    "download_dataset",
    "download_file",
    "main",
    "verify_json_list",
]

HF_BASE_URL = "https://huggingface.co/datasets/xiaowu0162/longmemeval-cleaned/resolve/main"
DATASET_FILES: Mapping[str, str] = {
    "s": "longmemeval_s_cleaned.json",
    "oracle": "longmemeval_oracle.json",
    "m": "longmemeval_m_cleaned.json",
}
_FULL_PARSE_LIMIT = 1 << 30  # above this, parsing the JSON would cost too much memory
_SHA256_RE = re.compile(r"^[0-9a-f]{64}$")


class DownloadError(RuntimeError):
    """A download failed; the message is one line a user can act on."""


@dataclass(frozen=True)
class Expected:
    """What a file should be; None means unknown (then the server's headers are used)."""

    size: int | None = None
    sha256: str | None = None


# Sizes/hashes we are sure of. Empty on purpose: we have not verified any against
# the host, and a wrong pinned hash is worse than none. The X-Linked-* headers and
# the JSON check cover the gap.
KNOWN_FILES: Mapping[str, Expected] = {}


@dataclass(frozen=True)
class _Remote:
    total: int | None
    sha256: str | None


def download_file(
    name: str,
    target_dir: Path | str,
    *,
    base_url: str = HF_BASE_URL,
    expected: Expected | None = None,
    client: httpx.Client | None = None,
    progress: bool = True,
    timeout: float = 30.0,
) -> Path:
    """Download `base_url/name` into `target_dir/name`, resuming a `.part` file.

    Returns the final path. An existing final file is kept (checked only
    against a known size/sha256: it was verified when it was downloaded). Raises DownloadError on network failure (the
    `.part` is kept for resuming) or on a failed integrity check (it is removed).
    """
    target = Path(target_dir) / name
    part = target.with_name(name + ".part")
    expected = expected or KNOWN_FILES.get(name) or Expected()
    if target.exists():
        if expected.size is not None or expected.sha256 is not None:
            _check(target, expected, _Remote(None, None), keep=True)
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    url = f"{base_url.rstrip('/')}/{name}"
    owned = client is None
    http = client or httpx.Client(follow_redirects=True, timeout=httpx.Timeout(timeout, read=120.0))
    try:
        remote = _fetch(http, url, part, progress)
    except (httpx.ConnectError, httpx.ConnectTimeout) as e:
        host = urlsplit(url).netloc
        raise DownloadError(
            f"cannot reach {host}: {e}; fetch {url} another way and put it at {target}, "
            "or pass a local copy to the other stages with --dataset PATH"
        ) from e
    except httpx.TransportError as e:
        size = part.stat().st_size if part.exists() else 0
        raise DownloadError(f"download of {name} interrupted after {size} bytes ({e!r}); run again to resume") from e
    finally:
        if owned:
            http.close()
    _check(part, expected, remote, keep=False)
    part.replace(target)
    return target


def download_dataset(
    target_dir: Path | str,
    names: Sequence[str] = (DATASET_FILES["s"], DATASET_FILES["oracle"]),
    *,
    base_url: str = HF_BASE_URL,
    expected: Mapping[str, Expected] | None = None,
    progress: bool = True,
) -> list[Path]:
    """Download several files with one connection pool; see `download_file`."""
    with httpx.Client(follow_redirects=True, timeout=httpx.Timeout(30.0, read=120.0)) as client:
        return [
            download_file(
                name,
                target_dir,
                base_url=base_url,
                expected=(expected or {}).get(name),
                client=client,
                progress=progress,
            )
            for name in names
        ]


def _fetch(client: httpx.Client, url: str, part: Path, progress: bool) -> _Remote:
    offset = part.stat().st_size if part.exists() else 0
    # identity: Range offsets count raw bytes, so the body must not be re-encoded.
    headers = {"Accept-Encoding": "identity"}
    if offset:
        headers["Range"] = f"bytes={offset}-"
    with client.stream("GET", url, headers=headers) as response:
        remote = _remote_info(response)
        if response.status_code == 416 and offset:
            # Nothing left to send: the part is complete, or stale and longer than the file.
            total = _content_range_total(response.headers.get("content-range"))
            if total is not None and total == offset:
                return _Remote(total, remote.sha256)
            part.unlink()
            return _fetch(client, url, part, progress)
        if response.status_code == 206 and offset:
            _check_content_range(response, offset, url)
            mode = "ab"
        elif response.status_code == 200:
            offset, mode = 0, "wb"  # the server ignored Range: start over
        else:
            raise DownloadError(f"{url}: HTTP {response.status_code} {response.reason_phrase}")
        total = _total_size(response, offset) or remote.total
        with part.open(mode) as sink, _bar(progress, part.name[: -len(".part")], total, offset) as advance:
            # No chunk_size: write bytes as they arrive, so an interruption loses nothing.
            for chunk in response.iter_bytes():
                sink.write(chunk)
                advance(len(chunk))
        return _Remote(total, remote.sha256)


def _remote_info(response: httpx.Response) -> _Remote:
    """Hugging Face puts the LFS sha256 and size on the redirect response, so look at the chain."""
    sha256: str | None = None
    size: int | None = None
    for hop in (*response.history, response):
        etag = hop.headers.get("x-linked-etag")
        if etag is not None:
            candidate = etag.removeprefix("W/").strip('"').lower()
            sha256 = candidate if _SHA256_RE.match(candidate) else sha256
        linked_size = hop.headers.get("x-linked-size")
        if linked_size is not None and linked_size.isdigit():
            size = int(linked_size)
    return _Remote(size, sha256)


def _content_range_total(value: str | None) -> int | None:
    match = re.match(r"^bytes (?:\d+-\d+|\*)/(\d+)$", (value or "").strip())
    return int(match.group(1)) if match else None


def _check_content_range(response: httpx.Response, offset: int, url: str) -> None:
    value = response.headers.get("content-range", "")
    match = re.match(r"^bytes (\d+)-\d+/(?:\d+|\*)$", value.strip())
    if match is None or int(match.group(1)) != offset:
        raise DownloadError(f"{url}: asked to resume at byte {offset}, server sent range {value!r}")


def _total_size(response: httpx.Response, offset: int) -> int | None:
    if response.status_code == 206:
        return _content_range_total(response.headers.get("content-range"))
    length = response.headers.get("content-length")
    return offset + int(length) if length is not None and length.isdigit() else None


def _check(path: Path, expected: Expected, remote: _Remote, *, keep: bool) -> None:
    """Size, then sha256, then JSON shape; a bad `.part` is deleted so the next run starts clean."""
    want_size = expected.size if expected.size is not None else remote.total
    want_sha = (expected.sha256 or remote.sha256 or "").lower() or None
    problem: str | None = None
    size = path.stat().st_size
    if want_size is not None and size != want_size:
        problem = f"size mismatch for {path.name}: expected {want_size} bytes, got {size}"
    elif want_sha is not None and (actual := file_sha256(path)) != want_sha:
        problem = f"sha256 mismatch for {path.name}: expected {want_sha}, got {actual}"
    elif (shape := verify_json_list(path)) is not None:
        problem = f"{path.name} is not a LongMemEval JSON file: {shape}"
    if problem is None:
        return
    if not keep:
        path.unlink(missing_ok=True)
        problem += "; the partial download was removed, run again to re-download"
    raise DownloadError(problem)


def verify_json_list(path: Path, *, full_parse_limit: int = _FULL_PARSE_LIMIT) -> str | None:
    """None if `path` holds a JSON list, else what is wrong.

    Files above `full_parse_limit` bytes (the M release) are only checked for
    their first and last non-blank bytes, since parsing them costs many GB.
    """
    size = path.stat().st_size
    if size <= full_parse_limit:
        try:
            with path.open("rb") as handle:
                data = json.load(handle)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            return f"invalid JSON ({e})"
        return None if isinstance(data, list) else f"expected a JSON list, got {type(data).__name__}"
    with path.open("rb") as handle:
        head = handle.read(4096).lstrip()
        handle.seek(max(0, size - 4096))
        tail = handle.read().rstrip()
    if not head.startswith(b"[") or not tail.endswith(b"]"):
        return "does not start with '[' and end with ']'"
    return None


@contextmanager
def _bar(enabled: bool, label: str, total: int | None, completed: int) -> Iterator[Callable[[int], None]]:
    if not enabled:
        yield lambda _n: None
        return
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns) as bar:
        task = bar.add_task(label, total=total, completed=completed)
        yield lambda n: bar.advance(task, n)


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: ``python -m bench.longmemeval.download --dest DIR [--files s oracle m]``."""
    parser = argparse.ArgumentParser(description="Download the public LongMemEval files (resumable).")
    parser.add_argument("--dest", type=Path, required=True, help="directory to download into")
    parser.add_argument(
        "--files",
        nargs="+",
        choices=sorted(DATASET_FILES),
        default=["s", "oracle"],
        help="which files (m is several GB; default: s oracle)",
    )
    parser.add_argument("--base-url", default=HF_BASE_URL, help="where the files are served from")
    parser.add_argument(
        "--sha256",
        action="append",
        default=[],
        metavar="FILE=HEX",
        help="expected sha256 of a file, e.g. longmemeval_oracle.json=ab12...",
    )
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    expected: dict[str, Expected] = {}
    for item in args.sha256:
        name, sep, digest = item.partition("=")
        if not sep:
            parser.error(f"--sha256 wants FILE=HEX, got {item!r}")
        expected[name] = Expected(sha256=digest.lower())
    names = [DATASET_FILES[key] for key in args.files]
    try:
        paths = download_dataset(
            args.dest, names, base_url=args.base_url, expected=expected, progress=not args.no_progress
        )
    except DownloadError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    for path in paths:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
