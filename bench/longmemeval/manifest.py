"""Run manifest: what was run, on what, where, and how long each stage took.

A benchmark number without its dataset hash, commit, preset config and machine
is not reproducible, so every run directory gets a ``manifest.json``. Stages
(ingest, retrieve, read, judge) may run as separate CLI invocations, hence the
load -> ``with manifest.stage(...)`` -> save cycle, and `RunManifest.open`
refusing to append to a manifest of a different preset or dataset. Each
invocation may bring other flags (``ingest --workers 4``, then ``retrieve
--limit 50``), so every stage records the config it ran with (``stages.<name>.config``
and its ``history`` entry); the top-level ``config`` is every key's latest value.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.longmemeval.dataset import file_sha256

__all__ = ["MachineInfo", "ManifestMismatch", "RunManifest", "StageTiming", "git_state"]

_REPO_ROOT = Path(__file__).resolve().parents[2]


class ManifestMismatch(ValueError):
    """An existing manifest belongs to another preset or dataset."""


@dataclass(frozen=True)
class MachineInfo:
    """Enough about the host to tell whether two timings are comparable."""

    platform: str
    python: str
    cpu_count: int | None
    memory_bytes: int | None

    @classmethod
    def current(cls) -> MachineInfo:
        return cls(
            platform=platform.platform(),
            python=sys.version.split()[0],
            cpu_count=os.cpu_count(),
            memory_bytes=_physical_memory(),
        )


@dataclass(frozen=True)
class StageTiming:
    """Wall time of one stage; `ok` is False when the stage raised."""

    seconds: float
    finished_at: datetime
    ok: bool
    git_commit: str | None = None
    git_dirty: bool | None = None
    """The code this stage ran (a run's stages may span commits, e.g. a sweep after tuning)."""
    config: dict[str, Any] | None = None
    """The config of the invocation that ran it; None where it is not known (a stage run on
    a loaded manifest, or a manifest written before stages kept theirs)."""

    def to_dict(self, name: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {} if name is None else {"stage": name}
        return out | {
            "seconds": self.seconds,
            "finished_at": self.finished_at.isoformat(),
            "ok": self.ok,
            "git_commit": self.git_commit,
            "git_dirty": self.git_dirty,
            "config": self.config,
        }

    @classmethod
    def from_dict(cls, t: Mapping[str, Any]) -> StageTiming:
        return cls(
            seconds=float(t["seconds"]),
            finished_at=datetime.fromisoformat(t["finished_at"]),
            ok=bool(t["ok"]),
            git_commit=t.get("git_commit"),
            git_dirty=t.get("git_dirty"),
            config=dict(t["config"]) if t.get("config") is not None else None,
        )


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        return None


def git_state(repo_dir: Path = _REPO_ROOT) -> tuple[str | None, bool | None]:
    """(HEAD commit, working tree dirty?) or Nones where git or a commit is unavailable.

    Read-only: ``GIT_OPTIONAL_LOCKS=0`` stops ``git status`` refreshing the index.
    """
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    commit = _git(["rev-parse", "HEAD"], repo_dir, env)
    if commit is None:
        return None, None
    status = _git(["status", "--porcelain", "--untracked-files=no"], repo_dir, env)
    return commit, None if status is None else bool(status)


def _git(args: list[str], repo_dir: Path, env: Mapping[str, str]) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=repo_dir, env=env, capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


@dataclass
class RunManifest:
    """Mutable on purpose: stages are appended as they finish, then saved."""

    preset: str
    dataset_path: str
    dataset_sha256: str
    started_at: datetime
    machine: MachineInfo
    config: dict[str, Any] = field(default_factory=dict)
    models: dict[str, str] = field(default_factory=dict)
    git_commit: str | None = None
    git_dirty: bool | None = None
    stages: dict[str, StageTiming] = field(default_factory=dict)
    """The latest run of each stage."""
    history: list[tuple[str, StageTiming]] = field(default_factory=list)
    """Every stage run in order, so a resumed no-op ingest does not hide the real one."""
    invocation: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    """The config `create` or `open` was given in this process, recorded with each stage it
    runs; not saved itself (the stages carry it)."""

    @classmethod
    def create(
        cls,
        *,
        preset: str,
        dataset_path: Path | str,
        config: Mapping[str, Any] | None = None,
        models: Mapping[str, str] | None = None,
        repo_dir: Path = _REPO_ROOT,
    ) -> RunManifest:
        """A fresh manifest: hashes the dataset, reads git state and the machine."""
        dataset_path = Path(dataset_path)
        commit, dirty = git_state(repo_dir)
        return cls(
            preset=preset,
            dataset_path=str(dataset_path.resolve()),
            dataset_sha256=file_sha256(dataset_path),
            started_at=datetime.now(UTC),
            machine=MachineInfo.current(),
            config=dict(config or {}),
            models=dict(models or {}),
            git_commit=commit,
            git_dirty=dirty,
            invocation=None if config is None else dict(config),
        )

    @classmethod
    def open(
        cls,
        path: Path | str,
        *,
        preset: str,
        dataset_path: Path | str,
        config: Mapping[str, Any] | None = None,
        models: Mapping[str, str] | None = None,
    ) -> RunManifest:
        """Load the manifest at `path` to append to it, or create one if there is none.

        ``config`` is this invocation's: its keys update the top-level ``config`` and the
        stages run on the returned manifest record all of it. Raises ManifestMismatch if the
        existing one is for another preset or dataset: timings of different runs must not be mixed.
        """
        path = Path(path)
        if not path.exists():
            return cls.create(preset=preset, dataset_path=dataset_path, config=config, models=models)
        manifest = cls.load(path)
        sha = file_sha256(dataset_path)
        if manifest.preset != preset or manifest.dataset_sha256 != sha:
            raise ManifestMismatch(
                f"{path} is for preset {manifest.preset!r} on dataset {manifest.dataset_sha256[:12]}, "
                f"not preset {preset!r} on {sha[:12]}; use another run directory"
            )
        manifest.models.update(models or {})
        manifest.config.update(config or {})
        manifest.invocation = None if config is None else dict(config)
        return manifest

    @contextmanager
    def stage(self, name: str, *, save_to: Path | str | None = None) -> Iterator[None]:
        """Time the block as stage `name` (re-running a stage replaces its timing; `history` keeps all).

        With `save_to`, the manifest is saved when the stage ends, even if it raised.
        """
        start = time.perf_counter()
        ok = False
        try:
            yield
            ok = True
        finally:
            commit, dirty = git_state()
            config = None if self.invocation is None else dict(self.invocation)
            timing = StageTiming(time.perf_counter() - start, datetime.now(UTC), ok, commit, dirty, config)
            self.stages[name] = timing
            self.history.append((name, timing))
            if save_to is not None:
                self.save(save_to)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        del data["invocation"]
        data["started_at"] = self.started_at.isoformat()
        data["stages"] = {name: t.to_dict() for name, t in self.stages.items()}
        data["history"] = [t.to_dict(name) for name, t in self.history]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunManifest:
        try:
            return cls(
                preset=str(data["preset"]),
                dataset_path=str(data["dataset_path"]),
                dataset_sha256=str(data["dataset_sha256"]),
                started_at=datetime.fromisoformat(data["started_at"]),
                machine=MachineInfo(**data["machine"]),
                config=dict(data.get("config", {})),
                models=dict(data.get("models", {})),
                git_commit=data.get("git_commit"),
                git_dirty=data.get("git_dirty"),
                stages={name: StageTiming.from_dict(t) for name, t in data.get("stages", {}).items()},
                history=[(str(t["stage"]), StageTiming.from_dict(t)) for t in data.get("history", [])],
            )
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"malformed run manifest: {e!r}") from e

    def save(self, path: Path | str) -> None:
        """Write atomically (temp file + rename) so a crash never leaves half a manifest."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path | str) -> RunManifest:
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise ValueError(f"{path}: cannot read run manifest: {e}") from e
        try:
            return cls.from_dict(data)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from e
