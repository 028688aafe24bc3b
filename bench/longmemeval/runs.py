"""Where a run's files live, how a run is named, and JSON-lines I/O.

Every file of a run goes under ``<out>/<run_id>/`` so a run directory is a
self-contained artefact (logs, scores, manifest) that can be archived or
compared with another. The Postgres schema of the run is derived from the run
id, so two runs never share palace rows and the service's own schema is never
touched.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "RunPaths",
    "append_jsonl",
    "default_run_id",
    "merge_jsonl",
    "read_jsonl",
    "schema_for",
    "slug",
    "valid_run_id",
    "write_jsonl",
]

_RUN_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")
_SCHEMA_PREFIX = "bench_"
_PG_IDENT_MAX = 63


def slug(value: str) -> str:
    """Lowercase, runs of other characters become one ``_`` (``hybrid+rerank`` → ``hybrid_rerank``)."""
    return _NOT_SLUG.sub("_", value.lower()).strip("_") or "x"


def default_run_id(dataset: Path, preset: str) -> str:
    """``<dataset stem>_<preset>``, e.g. ``longmemeval_s_dev_hybrid``."""
    return f"{slug(dataset.stem)}_{slug(preset)}"


def valid_run_id(value: str) -> str:
    """Run ids become directory and schema names: letters, digits, ``.``, ``_``, ``-`` only."""
    if not _RUN_ID_RE.match(value):
        raise ValueError(f"invalid run id {value!r}: use letters, digits, '.', '_' or '-' (at most 80)")
    return value


def schema_for(run_id: str) -> str:
    """The run's Postgres schema, ``bench_<slug(run_id)>``; long ids keep a hash suffix to stay unique."""
    name = _SCHEMA_PREFIX + slug(run_id)
    if len(name) <= _PG_IDENT_MAX:
        return name
    digest = hashlib.sha256(run_id.encode()).hexdigest()[:10]
    return name[: _PG_IDENT_MAX - len(digest) - 1] + "_" + digest


@dataclass(frozen=True)
class RunPaths:
    """The files of one run, all under `root`."""

    out: Path
    run_id: str

    @property
    def root(self) -> Path:
        return self.out / self.run_id

    @property
    def manifest(self) -> Path:
        return self.root / "manifest.json"

    @property
    def users(self) -> Path:
        return self.root / "users.json"

    @property
    def retrieval_log(self) -> Path:
        return self.root / "retrieval_logs" / f"{self.run_id}.jsonl"

    @property
    def generation_log(self) -> Path:
        return self.root / "generation_logs" / f"{self.run_id}.jsonl"

    @property
    def judge_log(self) -> Path:
        return self.root / "judge_logs" / f"{self.run_id}.jsonl"

    @property
    def scores_dir(self) -> Path:
        return self.root / "scores"

    @property
    def qa_scores(self) -> Path:
        return self.root / "scores" / "qa_scores.json"

    @property
    def services_dir(self) -> Path:
        """Embedded Postgres data for runs without DATABASE_URL; shared by every run under `out`."""
        return self.out / ".services"

    @property
    def schema(self) -> str:
        return schema_for(self.run_id)

    def sweep(self, preset: str) -> RunPaths:
        """A sub-run of a sweep: ``<root>/sweep/<run_id>__<preset>/``, same ingest schema as this run."""
        return RunPaths(self.root / "sweep", f"{self.run_id}__{slug(preset)}")


def write_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> int:
    """Write records atomically (temp file + rename); returns how many."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    count = 0
    with tmp.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False, sort_keys=False) + "\n")
            count += 1
    tmp.replace(path)
    return count


def merge_jsonl(path: Path, records: Sequence[Mapping[str, Any]], *, key: str) -> list[Mapping[str, Any]]:
    """Write `records` into the file at `path` over those with the same `key`, keeping the
    others where they were (new keys go at the end), atomically; returns what the file holds.

    A `retrieve --limit 3` after a full retrieve wrote the log anew with its 3 questions, so
    the rankings of every other question of the run were lost and had to be retrieved again."""
    fresh = {str(r[key]): r for r in records}
    old = list(read_jsonl(path)) if path.exists() else []
    merged: list[Mapping[str, Any]] = [fresh.pop(str(r[key]), r) for r in old]
    merged += fresh.values()
    write_jsonl(path, merged)
    return merged


def append_jsonl(path: Path, record: Mapping[str, Any]) -> None:
    """Append one record and flush, so an interrupted stage keeps what it finished."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        handle.flush()


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Records of a JSON-lines file; a torn last line (interrupted append) is ignored, others raise."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            if number == len(lines):
                return
            raise ValueError(f"{path}:{number}: not JSON: {e}") from e
        if not isinstance(record, dict):
            raise ValueError(f"{path}:{number}: expected a JSON object")
        yield record
