"""Which nodes `bench.embed_int8` leaves in fp32: by regex on the name, by last layers, or both.

Why: a partial int8 graph is only worth measuring if the rule keeps exactly the nodes it
names; a regex that also caught ``attention/output/dense`` when meant for the FFN's
``layer.N/output/dense``, or an off-by-one in "the last N layers", would measure another graph.
"""

from __future__ import annotations

from bench.embed_int8 import Plan, kept_fp32

NAMES = [
    "/inner/inner.0/embeddings/word_embeddings/Gather",
    *(
        f"/inner/inner.0/encoder/layer.{i}/{part}/MatMul"
        for i in range(3)
        for part in ("attention/self/value", "attention/output/dense", "output/dense")
    ),
]


def test_nothing_is_kept_by_default() -> None:
    assert kept_fp32(NAMES, Plan()) == []


def test_a_regex_keeps_only_the_names_it_finds() -> None:
    kept = kept_fp32(NAMES, Plan(keep_fp32=(r"layer\.\d+/output/dense",)))
    assert kept == [f"/inner/inner.0/encoder/layer.{i}/output/dense/MatMul" for i in range(3)]


def test_the_last_layers_count_from_the_highest_layer_number() -> None:
    kept = kept_fp32(NAMES, Plan(keep_last_layers=1))
    assert kept == [n for n in NAMES if "/layer.2/" in n]
    assert len(kept_fp32(NAMES, Plan(keep_last_layers=3))) == 9  # every layer, not the embeddings


def test_rules_add_up() -> None:
    kept = kept_fp32(NAMES, Plan(keep_fp32=("word_embeddings", "self/value"), keep_last_layers=1))
    assert kept[0].endswith("word_embeddings/Gather")
    assert len(kept) == 1 + 3 + 2  # the table, every value projection, the rest of layer 2
