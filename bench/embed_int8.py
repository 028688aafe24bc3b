"""Would an int8 embedder be worth it? Speed and vector agreement, fp32 vs int8.

A script that prints figures, not a test:

    python -m bench.embed_int8 --texts 600
    python -m bench.embed_int8 --write-cache /tmp/onnx-int8   # then a dev run with it:
    LOCI_EMBEDDING_ONNX_CACHE_DIR=/tmp/onnx-int8 loci bench longmemeval ingest ...

The int8 graph is ONNX Runtime's dynamic quantization of the very graph Loci runs (the
cached fp32 export): weights int8 per output channel, activations quantized per call.
Per channel matters: one scale per weight matrix (``--per-tensor``) gave a mean cosine of
0.956 to the fp32 vectors (worst 0.80) on 600 dev turns, per channel 0.994 (worst 0.95).
Both models embed the same LongMemEval turns, in alternating rounds so machine load hits
both alike; the script prints tokens per second and per CPU second, the cosine between
the two vectors of each text, and how often each text's 10 nearest neighbours (and its
nearest one) agree: a proxy only. Whether recall is unchanged takes a dev run with the
graph written by ``--write-cache`` (same file name and verification record as the fp32
one, so the embedder loads it as it would its own); see the README's mining-speed notes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import time
from pathlib import Path

import numpy as np

from bench.mining_speed import DEFAULT_DATASET, sessions_from
from loci.embedder import Embedder, resolve_model_path
from loci.onnx_encoder import graph_key
from loci.settings import EmbeddingSettings


def quantized_cache(fp32: Embedder, directory: Path, *, per_channel: bool) -> Path:
    """Write the int8 twin of ``fp32``'s cached graph (and its record) into ``directory``."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    key = graph_key(resolve_model_path(fp32.settings.model)) if fp32.runtime == "onnxruntime" else None
    source = fp32.settings.onnx_cache_dir / f"model-{key}.onnx"
    if key is None or not source.is_file():
        raise SystemExit("no cached ONNX graph of a local model to quantize (LOCI_EMBEDDING_RUNTIME=torch?)")
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / source.name
    quantize_dynamic(
        source, target, per_channel=per_channel, weight_type=QuantType.QInt8,
        # the fused attention ops hide some tensor types from shape inference
        extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},
    )  # fmt: skip
    shutil.copy(source.with_suffix(".json"), target.with_suffix(".json"))
    return directory


def _neighbours(vectors: np.ndarray, k: int) -> np.ndarray:
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    order: np.ndarray = np.argsort(-sims, axis=1)[:, :k]
    return order


def _rates(models: dict[str, Embedder], texts: list[str], rounds: int) -> dict[str, list[tuple[float, float]]]:
    """(tokens per second, tokens per CPU second) of each model, round by round."""
    rates: dict[str, list[tuple[float, float]]] = {name: [] for name in models}
    for _ in range(rounds):
        for name, model in models.items():
            wall, cpu = time.perf_counter(), time.process_time()
            tokens = model.embed(texts).tokens
            rates[name].append((tokens / (time.perf_counter() - wall), tokens / (time.process_time() - cpu)))
    return rates


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--texts", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--per-tensor", action="store_true", help="one scale per weight matrix (worse, see above)")
    parser.add_argument("--write-cache", type=Path, default=None, help="keep the int8 graph here, for a dev run")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    texts = [t.content for s in sessions_from(args.dataset, args.texts) for t in s.turns][: args.texts]
    fp32 = Embedder(EmbeddingSettings())
    fp32.load()
    directory = args.write_cache or Path(os.environ.get("TMPDIR", "/tmp")) / f"loci-int8-{os.getpid()}"
    quantized_cache(fp32, directory, per_channel=not args.per_tensor)
    int8 = Embedder(EmbeddingSettings(onnx_cache_dir=directory))
    int8.load()
    models = {"fp32": fp32, "int8": int8}
    rates = _rates(models, texts, args.rounds)
    a, b = fp32.embed(texts).vectors, int8.embed(texts).vectors
    if args.write_cache is None:
        shutil.rmtree(directory)
    cos = (a * b).sum(axis=1)
    na, nb = _neighbours(a, 10), _neighbours(b, 10)
    overlap = np.mean([len(set(x) & set(y)) / 10 for x, y in zip(na, nb, strict=True)])
    for name, values in rates.items():
        shown = ", ".join(f"{wall:.0f} ({cpu:.0f} per CPU s)" for wall, cpu in values)
        print(f"{name:>5} tokens/s: {shown}")
    speedup = np.mean([c for _, c in rates["int8"]]) / np.mean([c for _, c in rates["fp32"]])
    print(f"speed-up int8/fp32 per CPU second: {speedup:.2f}x")
    print(f"cosine fp32 vs int8: mean {cos.mean():.4f}, min {cos.min():.4f}")
    print(f"top-10 neighbour overlap: {overlap:.3f}; nearest neighbour agrees: {np.mean(na[:, 0] == nb[:, 0]):.3f}")
    if args.write_cache is not None:
        print(f"int8 graph kept in {args.write_cache} (LOCI_EMBEDDING_ONNX_CACHE_DIR)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
