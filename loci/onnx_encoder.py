"""Embedding through ONNX Runtime, built from the loaded model's own weights.

Why: recall embeds one short message per call, and torch's eager forward spends most of
its 10-14 ms on per-operator overhead for such a small input; the same graph exported to
ONNX and run by ONNX Runtime with its BERT fusions takes ~6 ms on this 2-core CPU and
gives the same vector. Mining's batches (a conversation's user turns, a window's key
phrases) are small too: measured per text, ORT was 8x faster than torch under 32 tokens,
2x around 128 and still 1.4x at the 256-token limit, with Postgres busy on the same
cores (idle ORT threads do not spin here, torch's do).

How: the whole sentence-transformers pipeline (transformer, pooling, normalize) is
traced with ``torch.onnx.export`` (the TorchScript exporter; the dynamo one needs
onnxscript), optimised by ``onnxruntime.transformers`` (attention and layer-norm
fusions), and cached on disk as ``model-<key>.onnx``. The attention is traced in its
eager form (`_eager_attention`): the optimiser fuses that into one ``Attention`` node per
layer, and cannot fuse the SDPA form transformers picks by default. For a model in a local directory
(the bundled one) the key hashes its files (`onnx_cache.files_key`); otherwise it hashes
the loaded weights. Both include the onnxruntime version and `FORMAT`, so a changed model
or runtime gets a new file.

Trust, but verify, once: after the export the session must reproduce torch's vectors for
the `PROBES` (short, padded with spaces, over-long so truncation is exercised) within
`TOLERANCE` per component, and the standalone tokenizer must give the model's own ids.
The result is written beside the graph (`onnx_cache.Manifest`), and a later start with
that record (`load_verified_encoder`) runs without torch at all. Any failure (no
onnxruntime, export error, unwritable cache directory, a mismatch) is logged and the
builders return None: the caller keeps embedding with torch. Tokenization uses the
model's own ``preprocess`` on a private copy of its tokenizer (fast tokenizers carry
mutable truncation state, so one must not be shared with mining's thread), or the
standalone tokenizer where it was verified.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import logging
import os
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from loci.onnx_cache import TOKENIZER_PROBES, Manifest, StandaloneTokenizer, files_key, model_dir

__all__ = [
    "FORMAT",
    "PROBES",
    "TOLERANCE",
    "OnnxEncoder",
    "VerifiedEncoder",
    "build_onnx_encoder",
    "load_verified_encoder",
    "prune_cache",
    "weights_key",
]

log = logging.getLogger("loci.embedder")

FORMAT = "2"
"""Bump when the export recipe changes, so files cached by an older recipe are not reused.
2: attention traced eagerly, so the optimiser fuses it (`_eager_attention`)."""
STALE_AFTER_DAYS = 30
"""Cached graphs nobody loaded for this long are deleted (each is ~90 MB): a model or
runtime upgrade leaves the old key's file behind. A load marks its file used."""
TOLERANCE = 1e-5
"""Largest allowed per-component difference from torch's L2-normalised vector."""
PROBES = (
    "What did I say about sourdough bread last week?",
    "ok",
    "   Zoltan Brezhnev replaced the BRAKE PADS on my Subaru; the invoice was 340 euros.  ",
    " ".join(["the quarterly planning meeting moved to Thursday afternoon"] * 60),
)
_OUTPUT = "sentence_embedding"

Preprocess = Callable[[list[str]], dict[str, Any]]


class OnnxEncoder:
    """Embeds one text (`encode`, recall) or a batch (`encode_many`, mining); thread-safe
    (ORT sessions are, tokenizing is locked)."""

    def __init__(self, session: Any, preprocess: Preprocess, input_names: Sequence[str], path: Path) -> None:
        self.session = session
        self.path = path
        self._preprocess = preprocess
        self._inputs = tuple(input_names)
        self._lock = threading.Lock()

    def features(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Tokenize into one padded batch (Python code, holds the GIL: a fraction of a
        millisecond for a query and its clauses)."""
        with self._lock:
            features = self._preprocess(list(texts))
        return {name: np.asarray(features[name], dtype=np.int64) for name in self._inputs}

    def run(self, features: dict[str, np.ndarray]) -> np.ndarray:
        """The model call, one L2-normalised row per text; ONNX Runtime releases the GIL
        for all of it."""
        (out,) = self.session.run([_OUTPUT], features)
        vectors = np.asarray(out, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        result: np.ndarray = vectors / np.where(norms > 0, norms, 1.0)
        return result

    def encode(self, text: str) -> np.ndarray:
        vector: np.ndarray = self.run(self.features([text]))[0]
        return vector

    def encode_many(self, texts: Sequence[str]) -> np.ndarray:
        """One padded batch through the same graph; rows L2-normalised like `encode`."""
        return self.run(self.features(texts))


def _runtime_tag(model_path: str) -> str:
    import onnxruntime

    return f"{FORMAT}|{model_path}|onnxruntime {onnxruntime.__version__}"


def graph_key(model_path: str) -> str | None:
    """The cache key from the model directory's files, without loading the model; None for
    a model that is not a local directory."""
    directory = model_dir(model_path)
    return None if directory is None else "f" + files_key(directory, _runtime_tag(model_path))


def weights_key(model: Any, model_path: str) -> str:
    """The cache key: `graph_key` when the model is a directory, else a hash of the loaded
    weights (a hub name resolves to a cache path only after loading)."""
    key = graph_key(model_path)
    if key is not None:
        return key
    import torch

    digest = hashlib.sha256(f"{_runtime_tag(model_path)}|torch {torch.__version__}".encode())
    for name, tensor in model.state_dict().items():
        digest.update(name.encode())
        digest.update(tensor.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()[:24]


def _preprocessor(model: Any) -> Preprocess:
    """The model's own text preprocessing, on a copy of its tokenizer/processor."""
    first = copy.copy(model[0])  # shallow: shares the weights, which preprocessing never touches
    first.processor = copy.deepcopy(model[0].processor)

    def preprocess(texts: list[str]) -> dict[str, Any]:
        features: dict[str, Any] = first.preprocess(texts)
        return {k: v.numpy() if hasattr(v, "numpy") else v for k, v in features.items()}

    return preprocess


@contextlib.contextmanager
def _eager_attention(model: Any) -> Iterator[None]:
    """The transformer's attention in its eager form while the graph is traced, then as before.

    transformers runs BERT's attention through SDPA by default, which traces into matrix
    products wrapped in NaN guards (``IsNaN``, ``Where``) that `_optimise`'s attention fusion
    does not recognise: the graph kept 321 nodes, each layer's attention a dozen of them. Traced
    eagerly, each layer's attention becomes one fused ``Attention`` node (59 nodes in all).
    ONNX Runtime runs every node on every call, so a small batch (a window's key phrases, a
    subject's names: half of mining's model calls) costs less: one 3-token text 3.4 → 2.7 ms of
    CPU, eight 8.5 → 7.8 ms (2026-11-30, this 2-core VM); long batches cost the same. Vectors
    stay within 3e-7 of the unfused graph's and of torch's."""
    inner = getattr(model[0], "auto_model", None)
    before = getattr(getattr(inner, "config", None), "_attn_implementation", None)
    setter = getattr(inner, "set_attn_implementation", None)
    if setter is None or before in (None, "eager"):
        yield
        return
    setter("eager")
    try:
        yield
    finally:
        setter(before)


def _fused_attention(path: Path) -> int:
    """How many fused attention nodes the optimised graph holds (0: the fusion did not apply)."""
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    return sum(1 for node in graph.node if node.op_type in {"Attention", "MultiHeadAttention"})


def _export(model: Any, sample: dict[str, Any], names: Sequence[str], path: Path) -> None:
    import torch

    extras = {k: v for k, v in sample.items() if k not in names}

    class _Pipeline(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            out: torch.Tensor = self.inner({**extras, **dict(zip(names, tensors, strict=True))})[_OUTPUT]
            return out

    args = tuple(torch.from_numpy(np.asarray(sample[n], dtype=np.int64)) for n in names)
    axes: dict[str, dict[int, str]] = {n: {0: "batch", 1: "sequence"} for n in names}
    axes[_OUTPUT] = {0: "batch"}
    with warnings.catch_warnings(), torch.no_grad(), _eager_attention(model):
        warnings.simplefilter("ignore")  # tracer and exporter deprecation chatter
        torch.onnx.export(
            _Pipeline(model).eval(), args, str(path), input_names=list(names), output_names=[_OUTPUT],
            dynamic_axes=axes, opset_version=17, dynamo=False,
        )  # fmt: skip


def _optimise(raw: Path, out: Path, config: Any) -> Path:
    """BERT-family fusions (attention, layer norm, GELU); the raw graph if they fail."""
    try:
        from onnxruntime.transformers import optimizer

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            optimised = optimizer.optimize_model(
                str(raw), model_type="bert",
                num_heads=int(getattr(config, "num_attention_heads", 0) or 0),
                hidden_size=int(getattr(config, "hidden_size", 0) or 0),
            )  # fmt: skip
            optimised.save_model_to_file(str(out))
        return out
    except Exception as e:  # the optimizer is a best-effort speed-up, never a requirement
        log.warning("embedder.onnx_optimise_failed", extra={"error": repr(e)})
        return raw


def _materialise(model: Any, sample: dict[str, Any], names: Sequence[str], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=path.parent, prefix=".export-") as tmp:
        raw = Path(tmp) / "raw.onnx"
        _export(model, sample, names, raw)
        built = _optimise(raw, Path(tmp) / "optimised.onnx", getattr(model[0], "config", None))
        if not _fused_attention(built):  # works all the same, only slower per call
            log.warning("embedder.onnx_attention_unfused", extra={"path": str(path)})
        os.replace(built, path)  # atomic: a concurrent loader sees the old state or the whole file


def _session(path: Path, threads: int) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    # Idle ORT threads spin by default; on two cores that steals CPU from Postgres.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _verify(model: Any, encoder: OnnxEncoder) -> float:
    worst = 0.0
    for probe in PROBES:
        want = model.encode([probe], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)[0]
        worst = max(worst, float(np.max(np.abs(np.asarray(want, dtype=np.float32) - encoder.encode(probe)))))
    if worst > TOLERANCE:
        raise ValueError(f"ONNX vectors differ from torch by up to {worst:.2e} (> {TOLERANCE:g})")
    return worst


def prune_cache(cache_dir: Path, keep: Path, max_age_days: float = STALE_AFTER_DAYS) -> list[Path]:
    """Delete ``*.onnx`` files in ``cache_dir`` other than ``keep`` unused for ``max_age_days``.

    A file another process still uses is safe to remove: ONNX Runtime reads the whole
    model when a session is created. Returns what was deleted."""
    cutoff = time.time() - max_age_days * 86400
    removed: list[Path] = []
    for candidate in cache_dir.glob("*.onnx"):
        with contextlib.suppress(OSError):  # raced with another process: fine either way
            if candidate != keep and candidate.stat().st_mtime < cutoff:
                candidate.unlink()
                candidate.with_suffix(".json").unlink(missing_ok=True)  # its verification record
                removed.append(candidate)
    if removed:
        log.info("embedder.onnx_cache_pruned", extra={"files": [p.name for p in removed]})
    return removed


def _dimension(model: Any) -> int:
    get = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return int(get())


def _standalone_manifest(model: Any, model_path: str, names: Sequence[str], worst: float) -> Manifest | None:
    """The record a torch-free start needs, when the standalone tokenizer gives the model's
    own ids and token counts; None (keep checking with torch at each start) otherwise."""
    directory = model_dir(model_path)
    tokenizer = getattr(model, "tokenizer", None)
    if directory is None or tokenizer is None or tokenizer.pad_token is None:
        return None
    import torch

    manifest = Manifest(
        input_names=tuple(names), dim=_dimension(model),
        max_seq_length=int(model.max_seq_length), lowercase=bool(getattr(model[0], "do_lower_case", False)),
        pad_token=str(tokenizer.pad_token), pad_id=int(tokenizer.pad_token_id), max_abs_diff=worst,
        verified_with=f"torch {torch.__version__}",
    )  # fmt: skip
    standalone = StandaloneTokenizer(directory, manifest, int(model.max_seq_length))
    texts = [*PROBES, *TOKENIZER_PROBES]
    want = _preprocessor(model)(texts)
    got = standalone.features(texts)
    same_ids = all(np.array_equal(np.asarray(want[n]), got[n]) for n in names)
    counts = [len(ids) for ids in tokenizer(texts, add_special_tokens=True, truncation=False)["input_ids"]]
    if not same_ids or standalone.count(texts) != counts:
        log.warning("embedder.onnx_tokenizer_differs", extra={"path": model_path, "fallback": "torch at start"})
        return None
    return manifest


def build_onnx_encoder(model: Any, model_path: str, cache_dir: Path, threads: int) -> OnnxEncoder | None:
    """An ORT encoder equivalent to ``model`` (checked on `PROBES`), or None to keep torch.

    A new verification is recorded beside the graph, so the next start can skip torch."""
    try:
        preprocess = _preprocessor(model)
        sample = preprocess([PROBES[0]])
        names = [k for k, v in sample.items() if isinstance(v, np.ndarray)]
        path = cache_dir / f"model-{weights_key(model, model_path)}.onnx"
        if not path.exists():
            _materialise(model, sample, names, path)
        os.utime(path)  # in use: not stale for `prune_cache`, here or in another process
        prune_cache(cache_dir, keep=path)
        encoder = OnnxEncoder(_session(path, threads), preprocess, names, path)
        worst = _verify(model, encoder)
        manifest = _standalone_manifest(model, model_path, names, worst)
        if manifest is not None:
            manifest.write(path.with_suffix(".json"))
    except Exception as e:  # any failure means: keep embedding with torch
        log.warning("embedder.onnx_unavailable", extra={"error": repr(e), "fallback": "torch"})
        return None
    log.info("embedder.onnx_ready", extra={"path": str(path), "max_abs_diff": worst, "verified": "now"})
    return encoder


@dataclass(frozen=True, slots=True)
class VerifiedEncoder:
    """What a torch-free start gets: the graph's encoder, token counting, the sequence limit."""

    encoder: OnnxEncoder
    count_tokens: Callable[[Sequence[str]], list[int]]
    max_seq_length: int
    dim: int


def load_verified_encoder(
    model_path: str, cache_dir: Path, threads: int, max_seq_tokens: int
) -> VerifiedEncoder | None:
    """The cached graph whose export-time check is on record, without torch; None when
    there is none (first start, a new model or runtime): the caller then loads torch and
    `build_onnx_encoder` exports, checks and records."""
    try:
        key = graph_key(model_path)
        directory = model_dir(model_path)
        if key is None or directory is None:
            return None
        path = cache_dir / f"model-{key}.onnx"
        manifest = Manifest.read(path.with_suffix(".json"))
        if manifest is None or not path.exists():
            return None
        limit = min(manifest.max_seq_length, max_seq_tokens)
        tokenizer = StandaloneTokenizer(directory, manifest, limit)
        os.utime(path)
        prune_cache(cache_dir, keep=path)
        encoder = OnnxEncoder(_session(path, threads), tokenizer.features, manifest.input_names, path)
    except Exception as e:  # a broken record or graph: the torch path rebuilds both
        log.warning("embedder.onnx_record_unusable", extra={"error": repr(e), "fallback": "export again"})
        return None
    log.info(
        "embedder.onnx_ready", extra={"path": str(path), "max_abs_diff": manifest.max_abs_diff, "verified": "record"}
    )
    return VerifiedEncoder(encoder, tokenizer.count, limit, manifest.dim)
