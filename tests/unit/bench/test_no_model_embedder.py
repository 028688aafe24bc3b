"""`bench.mining_speed --no-model` measures mining without the model: every way mining
reaches it gets random vectors, and the model is never loaded."""

from __future__ import annotations

import numpy as np

from bench.mining_speed import NoModelEmbedder
from loci.settings import EmbeddingSettings


def test_no_model_embedder_answers_memory_statement_jobs_without_loading_the_model() -> None:
    embedder = NoModelEmbedder(EmbeddingSettings())
    vectors = embedder.passage_job(["Conversation 2023-05-20: a summary", "Works at Globex"])()
    assert vectors.shape == (2, embedder.settings.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert embedder.query_job(["a question"])().shape == (1, embedder.settings.dim)
    assert not embedder.loaded  # the memory statements used to load and run the real model
