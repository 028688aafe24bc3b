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

Partial int8, because the full graph moved recall: ``--keep-fp32 REGEX`` (repeatable)
leaves in fp32 every node whose name the regex finds, ``--keep-last-layers N`` the last N
encoder layers, ``--op-types MatMul`` leaves the embedding tables (Gather) alone, and
``--list-nodes`` prints the weight nodes with what the plan does to each. Node names are
the export's, e.g. ``/inner/inner.0/encoder/layer.3/intermediate/dense/MatMul``; per layer
there are six weight MatMuls (attention ``self/query``, ``self/key``, ``self/value``,
``attention/output/dense``; FFN ``intermediate/dense``, then ``layer.N/output/dense`` after
GELU). Quantizing one group at a time (300 dev turns, 2026-11-29), 1 - cosine to fp32 was:
query 0.00004, key 0.00009, attention output 0.00008 (all six layers together), but value
0.0009, each FFN matrix 0.0003-0.0011 in layers 0-3 (the down-projection of layer 0 the
worst) and under 0.0001 in layers 4-5; the embedding tables 0.0003 for no speed (a Gather
costs nothing). Errors add up about linearly, so a mean cosine of 0.999 leaves room for the
attention's query, key and output plus a few late FFN matrices, not for the value or the
early FFNs, which hold most of the speed. ``--reduce-range`` (7-bit weights) only helps
CPUs without VNNI, where 8-bit products can saturate; the dev VM has VNNI.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.mining_speed import DEFAULT_DATASET, sessions_from
from loci.embedder import Embedder, resolve_model_path
from loci.onnx_encoder import graph_key
from loci.settings import EmbeddingSettings


@dataclass(frozen=True, slots=True)
class Plan:
    """Which nodes the int8 graph quantizes; the default is all of them, as ORT would."""

    keep_fp32: tuple[str, ...] = ()  # regexes searched in node names: matching nodes stay fp32
    keep_last_layers: int = 0  # every node of the last N encoder layers stays fp32
    op_types: tuple[str, ...] = ()  # empty: ORT's default set (MatMul, Gather, Attention, ...)
    reduce_range: bool = False  # 7-bit weights (for CPUs without VNNI; costs precision)


_LAYER = re.compile(r"/layer\.(\d+)/")


def kept_fp32(names: Sequence[str], plan: Plan) -> list[str]:
    """The node names ``plan`` keeps in fp32: those a ``keep_fp32`` regex finds, and those of
    the last ``keep_last_layers`` encoder layers (numbered ``/layer.<i>/`` in the export)."""
    layers = [int(m.group(1)) for name in names if (m := _LAYER.search(name))]
    first_kept = max(layers) + 1 - plan.keep_last_layers if layers and plan.keep_last_layers > 0 else None
    patterns = [re.compile(p) for p in plan.keep_fp32]

    def kept(name: str) -> bool:
        layer = _LAYER.search(name)
        late = first_kept is not None and layer is not None and int(layer.group(1)) >= first_kept
        return late or any(p.search(name) for p in patterns)

    return [name for name in names if kept(name)]


def weight_nodes(graph_path: Path, op_types: Sequence[str] = ()) -> list[tuple[str, str]]:
    """(op type, name) of the nodes dynamic quantization can turn int8: a MatMul with a
    constant B (MatMulConstBOnly, ORT's default in dynamic mode) or a Gather from a table."""
    import onnx

    graph = onnx.load(graph_path, load_external_data=False).graph
    weights = {t.name for t in graph.initializer}
    position = {"MatMul": 1, "Gather": 0, "Attention": 1}
    return [
        (node.op_type, node.name)
        for node in graph.node
        if node.op_type in position
        and (not op_types or node.op_type in op_types)
        and node.input[position[node.op_type]] in weights
    ]


def _source_graph(fp32: Embedder) -> Path:
    key = graph_key(resolve_model_path(fp32.settings.model)) if fp32.runtime == "onnxruntime" else None
    source = fp32.settings.onnx_cache_dir / f"model-{key}.onnx"
    if key is None or not source.is_file():
        raise SystemExit("no cached ONNX graph of a local model to quantize (LOCI_EMBEDDING_RUNTIME=torch?)")
    return source


def quantized_cache(fp32: Embedder, directory: Path, *, per_channel: bool = True, plan: Plan | None = None) -> Path:
    """Write the int8 twin of ``fp32``'s cached graph (and its record) into ``directory``,
    leaving in fp32 the nodes ``plan`` keeps; returns ``directory``."""
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    plan = plan or Plan()
    source = _source_graph(fp32)
    names = [node.name for node in onnx.load(source, load_external_data=False).graph.node]
    directory.mkdir(parents=True, exist_ok=True)
    target = directory / source.name
    quantize_dynamic(
        source, target, per_channel=per_channel, weight_type=QuantType.QInt8, reduce_range=plan.reduce_range,
        op_types_to_quantize=list(plan.op_types) or None, nodes_to_exclude=kept_fp32(names, plan),
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--texts", type=int, default=600)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--per-tensor", action="store_true", help="one scale per weight matrix (worse, see above)")
    parser.add_argument("--write-cache", type=Path, default=None, help="keep the int8 graph here, for a dev run")
    parser.add_argument(
        "--keep-fp32", action="append", default=[], metavar="REGEX",
        help="leave nodes whose name this regex finds in fp32 (repeatable; names: --list-nodes)",
    )  # fmt: skip
    parser.add_argument("--keep-last-layers", type=int, default=0, metavar="N", help="leave the last N layers fp32")
    parser.add_argument(
        "--op-types", type=lambda s: tuple(s.split(",")), default=(), metavar="OPS",
        help="quantize only these op types, e.g. MatMul (default: ORT's set, Gather included)",
    )  # fmt: skip
    parser.add_argument("--reduce-range", action="store_true", help="7-bit weights (for CPUs without VNNI)")
    parser.add_argument("--list-nodes", action="store_true", help="print the quantizable nodes, kept or not, and stop")
    return parser


def _agreement(a: np.ndarray, b: np.ndarray) -> str:
    """Cosine of each text's two vectors, and how far its nearest neighbours agree."""
    cos = (a * b).sum(axis=1)
    na, nb = _neighbours(a, 10), _neighbours(b, 10)
    overlap = np.mean([len(set(x) & set(y)) / 10 for x, y in zip(na, nb, strict=True)])
    return (
        f"cosine fp32 vs int8: mean {cos.mean():.5f}, min {cos.min():.4f}\n"
        f"top-10 neighbour overlap: {overlap:.3f}; nearest neighbour agrees: {np.mean(na[:, 0] == nb[:, 0]):.3f}"
    )


def _list_nodes(fp32: Embedder, plan: Plan) -> None:
    nodes = weight_nodes(_source_graph(fp32), plan.op_types)
    kept = set(kept_fp32([name for _, name in nodes], plan))
    for op_type, name in nodes:
        print(f"{'fp32' if name in kept else 'int8'}  {op_type:<8} {name}")
    print(f"{len(nodes) - len(kept)} of {len(nodes)} weight nodes int8")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    plan = Plan(tuple(args.keep_fp32), args.keep_last_layers, args.op_types, args.reduce_range)
    fp32 = Embedder(EmbeddingSettings())
    fp32.load()
    if args.list_nodes:
        _list_nodes(fp32, plan)
        return 0
    texts = [t.content for s in sessions_from(args.dataset, args.texts) for t in s.turns][: args.texts]
    directory = args.write_cache or Path(os.environ.get("TMPDIR", "/tmp")) / f"loci-int8-{os.getpid()}"
    quantized_cache(fp32, directory, per_channel=not args.per_tensor, plan=plan)
    int8 = Embedder(EmbeddingSettings(onnx_cache_dir=directory))
    int8.load()
    rates = _rates({"fp32": fp32, "int8": int8}, texts, args.rounds)
    a, b = fp32.embed(texts).vectors, int8.embed(texts).vectors
    if args.write_cache is None:
        shutil.rmtree(directory)
    for name, values in rates.items():
        shown = ", ".join(f"{wall:.0f} ({cpu:.0f} per CPU s)" for wall, cpu in values)
        print(f"{name:>5} tokens/s: {shown}")
    if args.rounds > 0:
        speedup = np.mean([c for _, c in rates["int8"]]) / np.mean([c for _, c in rates["fp32"]])
        print(f"speed-up int8/fp32 per CPU second: {speedup:.2f}x")
    print(_agreement(a, b))
    if args.write_cache is not None:
        print(f"int8 graph kept in {args.write_cache} (LOCI_EMBEDDING_ONNX_CACHE_DIR)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
