"""`bench.embed_int8` writes an int8 graph the embedder loads as its own, for a dev run."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from bench.embed_int8 import quantized_cache
from loci.embedder import Embedder
from loci.settings import EmbeddingSettings

TEXTS = ["I moved to Lisbon last month.", "The old battery is a 12V20Ah pack; we swapped it for a 44V 30Ah one."]


def test_the_int8_cache_loads_as_the_embedders_own_graph_and_stays_close(embedder: Embedder, tmp_path: Path) -> None:
    directory = quantized_cache(embedder, tmp_path / "int8", per_channel=True)
    int8 = Embedder(EmbeddingSettings(onnx_cache_dir=directory))
    int8.load()
    assert int8.runtime == "onnxruntime"
    ours, theirs = embedder.embed(TEXTS).vectors, int8.embed(TEXTS).vectors
    cosines = (ours * theirs).sum(axis=1)
    assert np.all(cosines > 0.95), cosines  # the same model, quantized
    assert not np.allclose(ours, theirs, atol=1e-4)  # and really another graph, not the fp32 one
    assert next(directory.glob("*.onnx")).stat().st_size < 40_000_000  # int8: ~23 MB, not 90
