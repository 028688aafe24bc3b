"""Run manifests: round trip, stage timing, appending across invocations."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from bench.longmemeval.manifest import ManifestMismatch, RunManifest, git_state
from bench.longmemeval.runs import RunPaths
from bench.longmemeval.stages import Run
from loci.settings import Settings


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    path = tmp_path / "lme.json"
    path.write_text("[]", encoding="utf-8")
    return path


def test_create_records_dataset_machine_and_config(dataset: Path) -> None:
    manifest = RunManifest.create(
        preset="hybrid", dataset_path=dataset, config={"k": 10}, models={"embedder": "minilm"}
    )
    assert manifest.dataset_sha256 == hashlib.sha256(b"[]").hexdigest()
    assert manifest.dataset_path == str(dataset.resolve())
    assert manifest.config == {"k": 10} and manifest.models == {"embedder": "minilm"}
    assert manifest.machine.cpu_count is None or manifest.machine.cpu_count > 0
    assert manifest.started_at.tzinfo is not None
    assert manifest.git_commit is None or len(manifest.git_commit) == 40


def test_stage_timing_and_round_trip(dataset: Path, tmp_path: Path) -> None:
    manifest = RunManifest.create(preset="hybrid", dataset_path=dataset)
    with manifest.stage("ingest"):
        pass
    with pytest.raises(RuntimeError), manifest.stage("retrieve"):
        raise RuntimeError("boom")
    assert manifest.stages["ingest"].ok and manifest.stages["ingest"].seconds >= 0
    assert not manifest.stages["retrieve"].ok
    path = tmp_path / "run" / "manifest.json"
    manifest.save(path)
    assert RunManifest.load(path) == manifest


def test_stages_append_across_invocations(dataset: Path, tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    first = RunManifest.open(path, preset="hybrid", dataset_path=dataset, models={"embedder": "a"})
    with first.stage("ingest", save_to=path):
        pass
    second = RunManifest.open(path, preset="hybrid", dataset_path=dataset, models={"judge": "b"})
    with pytest.raises(ValueError), second.stage("retrieve", save_to=path):
        raise ValueError("saved even when the stage fails")
    loaded = RunManifest.load(path)
    assert set(loaded.stages) == {"ingest", "retrieve"}
    assert loaded.models == {"embedder": "a", "judge": "b"}
    assert loaded.started_at == first.started_at


def test_rerunning_a_stage_keeps_every_run_with_its_commit(dataset: Path, tmp_path: Path) -> None:
    """A resumed ingest that finds nothing to do must not hide how long the real one took."""
    path = tmp_path / "manifest.json"
    for _ in range(2):
        manifest = RunManifest.open(path, preset="hybrid", dataset_path=dataset)
        with manifest.stage("ingest", save_to=path):
            pass
    loaded = RunManifest.load(path)
    assert [name for name, _ in loaded.history] == ["ingest", "ingest"]
    assert loaded.stages["ingest"] == loaded.history[-1][1]
    assert all(t.git_commit == loaded.git_commit for _, t in loaded.history)  # this checkout's HEAD


def test_open_refuses_another_preset_or_dataset(dataset: Path, tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    RunManifest.create(preset="hybrid", dataset_path=dataset).save(path)
    with pytest.raises(ManifestMismatch, match="preset 'hybrid'"):
        RunManifest.open(path, preset="vector", dataset_path=dataset)
    other = tmp_path / "other.json"
    other.write_text("[{}]", encoding="utf-8")
    with pytest.raises(ManifestMismatch):
        RunManifest.open(path, preset="hybrid", dataset_path=other)


def test_malformed_manifest(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text('{"preset": "x"}', encoding="utf-8")
    with pytest.raises(ValueError, match="malformed run manifest"):
        RunManifest.load(path)
    path.write_text("{", encoding="utf-8")
    with pytest.raises(ValueError, match="cannot read"):
        RunManifest.load(path)


def test_git_state_outside_a_repository(tmp_path: Path) -> None:
    assert git_state(tmp_path) == (None, None)


def test_each_stage_keeps_the_config_it_ran_with(dataset: Path, tmp_path: Path) -> None:
    """`ingest --workers 4` then `retrieve --workers 8 --limit 5`: the manifest used to keep only
    the last invocation's config, as if ingest had run with 8 workers on 5 questions."""
    path = tmp_path / "manifest.json"
    ingest = RunManifest.open(path, preset="hybrid", dataset_path=dataset, config={"workers": 4, "limit": None})
    with ingest.stage("ingest", save_to=path):
        pass
    retrieve = RunManifest.open(path, preset="hybrid", dataset_path=dataset, config={"workers": 8, "limit": 5})
    with retrieve.stage("retrieve", save_to=path):
        pass
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["stages"]["ingest"]["config"] == {"workers": 4, "limit": None}
    assert data["stages"]["retrieve"]["config"] == {"workers": 8, "limit": 5}
    assert [(h["stage"], h["config"]["workers"]) for h in data["history"]] == [("ingest", 4), ("retrieve", 8)]
    assert data["config"] == {"workers": 8, "limit": 5}  # the top level: each key's latest value, as before
    assert "invocation" not in data
    loaded = RunManifest.load(path)
    assert loaded.stages["ingest"].config == {"workers": 4, "limit": None} and loaded == RunManifest.load(path)
    with loaded.stage("score-retrieval", save_to=path):  # run on a loaded manifest: its config is not known
        pass
    assert RunManifest.load(path).stages["score-retrieval"].config is None


def test_the_bench_stages_record_their_flags(dataset: Path, tmp_path: Path) -> None:
    """What `loci bench longmemeval ingest|retrieve|qa` build (`stages.Run.manifest`)."""
    paths, settings = RunPaths(tmp_path / "runs", "dev_hybrid"), Settings()
    first = Run(dataset, paths, "hybrid", settings, workers=2, processes=3).manifest()
    with first.stage("ingest", save_to=paths.manifest):
        pass
    second = Run(dataset, paths, "hybrid", settings, workers=6, limit=10).manifest(extra={"qa_context": {"k": 5}})
    with second.stage("qa", save_to=paths.manifest):
        pass
    stages = RunManifest.load(paths.manifest).stages
    assert (stages["ingest"].config or {})["workers"] == 2 and (stages["ingest"].config or {})["processes"] == 3
    assert (stages["qa"].config or {})["workers"] == 6 and (stages["qa"].config or {})["limit"] == 10
    assert "qa_context" not in (stages["ingest"].config or {}) and (stages["qa"].config or {})["qa_context"] == {"k": 5}


def test_a_manifest_written_before_stages_kept_their_config_still_loads(dataset: Path, tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    manifest = RunManifest.create(preset="hybrid", dataset_path=dataset, config={"workers": 2})
    with manifest.stage("ingest", save_to=path):
        pass
    data = json.loads(path.read_text(encoding="utf-8"))
    for entry in [data["stages"]["ingest"], *data["history"]]:
        del entry["config"]
    path.write_text(json.dumps(data), encoding="utf-8")
    assert RunManifest.load(path).stages["ingest"].config is None
