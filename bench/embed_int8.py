"""Would an int8 embedder be worth it? Speed and vector agreement, fp32 vs int8 (dynamic).

A script that prints figures, not a test:

    python -m bench.embed_int8 --texts 150

Quantizes every ``nn.Linear`` of the loaded model to int8 with PyTorch's dynamic
quantization (no extra dependency) and embeds the same LongMemEval turns with both,
alternating rounds so machine load hits both alike. Prints tokens/s of each, the
cosine between the two vectors of each text, and how often each text's 10 nearest
neighbours (and its nearest one) agree: a proxy for "recall unchanged".
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.mining_speed import DEFAULT_DATASET, sessions_from
from loci.embedder import Embedder
from loci.settings import EmbeddingSettings


def _int8(embedder: Embedder) -> Embedder:
    import torch

    quantized = Embedder(embedder.settings)
    quantized.load()
    quantize: Any = torch.ao.quantization.quantize_dynamic
    quantized._model = quantize(quantized.reference_model(), {torch.nn.Linear}, dtype=torch.qint8)
    return quantized


def _neighbours(vectors: np.ndarray, k: int) -> np.ndarray:
    sims = vectors @ vectors.T
    np.fill_diagonal(sims, -np.inf)
    order: np.ndarray = np.argsort(-sims, axis=1)[:, :k]
    return order


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--texts", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    texts = [t.content for s in sessions_from(args.dataset, args.texts) for t in s.turns][: args.texts]
    fp32 = Embedder(EmbeddingSettings())
    fp32.load()
    models = {"fp32": fp32, "int8": _int8(fp32)}
    rates: dict[str, list[float]] = {name: [] for name in models}
    for _ in range(args.rounds):
        for name, model in models.items():
            started = time.perf_counter()
            batch = model.embed(texts)
            rates[name].append(batch.tokens / (time.perf_counter() - started))
    a, b = models["fp32"].embed(texts).vectors, models["int8"].embed(texts).vectors
    cos = (a * b).sum(axis=1)
    na, nb = _neighbours(a, 10), _neighbours(b, 10)
    overlap = np.mean([len(set(x) & set(y)) / 10 for x, y in zip(na, nb, strict=True)])
    for name, values in rates.items():
        print(f"{name:>5} tokens/s: {', '.join(f'{v:.0f}' for v in values)}")
    print(f"speed-up int8/fp32: {np.mean(rates['int8']) / np.mean(rates['fp32']):.2f}x")
    print(f"cosine fp32 vs int8: mean {cos.mean():.4f}, min {cos.min():.4f}")
    print(f"top-10 neighbour overlap: {overlap:.3f}; nearest neighbour agrees: {np.mean(na[:, 0] == nb[:, 0]):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
