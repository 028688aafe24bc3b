"""What lets a warm start embed without torch: a file key, a standalone tokenizer, a record.

Why: loading sentence-transformers (torch, transformers) took 8-15 s of every start on
this 2-core machine, only to check the cached ONNX graph against torch again. The check
now runs once, when the graph is exported, and its result is written beside the graph
as ``model-<key>.json``. The key hashes the model directory's files (weights, configs,
vocabulary), the onnxruntime version and the export recipe, so it is computed without
importing torch; a changed model or runtime gets a new key and goes through the export
and the check again. A start that finds the record loads the graph with onnxruntime and
tokenizes with the `tokenizers` library straight from ``tokenizer.json``: ~1 s instead of
~10.

The record also says that this standalone tokenizer gives the model's own token ids
(checked at export on `onnx_encoder.PROBES` and `TOKENIZER_PROBES`), so both paths feed
the graph the same input.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["MANIFEST_VERSION", "TOKENIZER_PROBES", "Manifest", "StandaloneTokenizer", "files_key", "model_dir"]

MANIFEST_VERSION = 1
"""Bump when the record's fields change meaning; older records are then ignored."""
TOKENIZER_PROBES = ("", "\tTabs\nand a newline ", "ÉCOLE naïve café — 340 €?", "UPPER lower MiXeD 12,345.67")
"""Texts beyond the vector probes that exercise the tokenizer's normalisation."""
_WEIGHT_NAMES = ("model.safetensors", "pytorch_model.bin")
_HASHED_SUFFIXES = (".json", ".txt", ".model")  # configs, vocabularies, sentencepiece models
_CHUNK = 1 << 20


def model_dir(model_path: str) -> Path | None:
    """The local directory a model loads from, or None (a hub name): only a directory can
    be keyed without loading the model."""
    path = Path(model_path)
    return path if path.is_dir() and (path / "tokenizer.json").is_file() else None


def _hashed_files(directory: Path) -> list[Path]:
    """Configs and vocabularies at any depth (module configs sit in ``1_Pooling/``), and the
    one weights file sentence-transformers loads (safetensors first). Other formats a hub
    snapshot may carry (``onnx/``, ``tf_model.h5``) do not change what torch loads."""
    files = [
        p
        for p in directory.rglob("*")
        if p.is_file() and p.suffix in _HASHED_SUFFIXES and not any(part.startswith(".") for part in p.parts)
    ]
    files = [p for p in files if "onnx" not in p.relative_to(directory).parts[:-1]]
    weights = next((directory / n for n in _WEIGHT_NAMES if (directory / n).is_file()), None)
    return sorted(files) + ([weights] if weights is not None else [])


def files_key(directory: Path, extra: str) -> str:
    """Hash of the model's files and ``extra`` (recipe and runtime versions): ~0.25 s for
    MiniLM's 90 MB of weights."""
    digest = hashlib.sha256(extra.encode())
    for path in _hashed_files(directory):
        digest.update(str(path.relative_to(directory)).encode())
        with path.open("rb") as f:
            while chunk := f.read(_CHUNK):
                digest.update(chunk)
    return digest.hexdigest()[:24]


@dataclass(frozen=True, slots=True)
class Manifest:
    """The export-time verification, stored as ``model-<key>.json`` beside the graph."""

    input_names: tuple[str, ...]
    dim: int
    max_seq_length: int  # the model's own limit, before LOCI_EMBEDDING_MAX_SEQ_TOKENS caps it
    lowercase: bool
    pad_token: str
    pad_id: int
    max_abs_diff: float  # worst difference from torch on the probes, at export
    verified_with: str  # "torch <version>", for whoever reads the file
    version: int = MANIFEST_VERSION

    def write(self, path: Path) -> None:
        """Atomically: a concurrent start reads the whole record or none."""
        with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=".manifest-", delete=False) as f:
            json.dump(asdict(self), f, indent=1)
        os.replace(f.name, path)

    @classmethod
    def read(cls, path: Path) -> Manifest | None:
        """The record, or None when absent, unreadable or from another manifest version."""
        try:
            raw: dict[str, Any] = json.loads(path.read_text())
            raw["input_names"] = tuple(raw["input_names"])
            manifest = cls(**raw)
        except (OSError, ValueError, TypeError, KeyError):
            return None
        return manifest if manifest.version == MANIFEST_VERSION else None


class StandaloneTokenizer:
    """The model's fast tokenizer loaded by `tokenizers` alone (no transformers, no torch),
    set up like sentence-transformers does: truncate to the sequence limit, pad to the
    longest text in the batch, lowercase first when the model asks for it."""

    def __init__(self, directory: Path, manifest: Manifest, max_seq_length: int) -> None:
        from tokenizers import Tokenizer

        self.input_names = manifest.input_names
        self.lowercase = manifest.lowercase
        self._batch = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self._batch.enable_truncation(max_length=max_seq_length)
        self._batch.enable_padding(pad_id=manifest.pad_id, pad_token=manifest.pad_token)
        self._count = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self._count.no_truncation()
        self._count.no_padding()

    def _prepare(self, texts: Sequence[str]) -> list[str]:
        return [t.lower() for t in texts] if self.lowercase else list(texts)

    def features(self, texts: list[str]) -> dict[str, Any]:
        """The graph's inputs, as the model's own preprocessing would give them."""
        encoded = _encode(self._batch, self._prepare(texts))
        columns = {
            "input_ids": [e.ids for e in encoded],
            "attention_mask": [e.attention_mask for e in encoded],
            "token_type_ids": [e.type_ids for e in encoded],
        }
        return {name: np.asarray(columns[name], dtype=np.int64) for name in self.input_names}

    def count(self, texts: Sequence[str]) -> list[int]:
        """Tokens per text with special tokens and without truncation (usage accounting)."""
        return [len(e) for e in _encode(self._count, self._prepare(texts))]


def _encode(tokenizer: Any, texts: list[str]) -> Any:
    """``encode_batch`` without the character offsets nothing here reads (the same ids, masks
    and types; `tokenizers` 0.20.1 and later): mining counts every turn's sentences to split it
    and every text it embeds, and this takes a sixth off that (dev-split turns, 2026-11-30)."""
    fast = getattr(tokenizer, "encode_batch_fast", None)
    return fast(texts) if fast is not None else tokenizer.encode_batch(texts)
