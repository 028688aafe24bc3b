"""Key-phrase candidates and their MMR ranking (pure; the real model is in the mining tests)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ingest.extract_offline import STOPWORDS
from ingest.keyphrases import candidate_phrases, document_vector, rank_key_phrases

WINDOW = [
    "I need to repot my fiddle leaf fig this weekend; the fiddle leaf fig keeps dropping leaves.",
    "A fiddle leaf fig drops leaves when the roots are crowded. Pick a pot two inches wider.",
    "Thanks, I'll buy a terracotta pot at the Gärtnerei Müller today.",
]


def test_candidates_are_repeated_content_phrases_without_stopword_edges() -> None:
    found = candidate_phrases(WINDOW, STOPWORDS)
    assert "fiddle leaf fig" in found and "fiddle leaf" in found
    assert all(p.split()[0] not in STOPWORDS and p.split()[-1] not in STOPWORDS for p in found)
    assert "terracotta" not in found  # said once
    assert "weekend" not in found


def test_candidates_fold_plurals_exclude_names_and_keep_unicode_words() -> None:
    found = candidate_phrases(["Müller's roses. Müller's roses.", "A rose, a rose."], STOPWORDS)
    assert "müller's roses" in found
    assert ("roses" in found) != ("rose" in found)  # one key for both forms
    assert candidate_phrases(WINDOW, STOPWORDS, exclude=frozenset({"fiddle"})).count("fiddle leaf fig") == 0
    assert candidate_phrases([], STOPWORDS) == ()


def _fake_embed(table: dict[str, list[float]]):  # type: ignore[no-untyped-def]
    def embed(texts: Sequence[str]) -> np.ndarray:
        rows = np.array([table[t] for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)

    return embed


def test_mmr_prefers_relevant_then_diverse_phrases() -> None:
    table = {
        "herb garden": [1.0, 0.1, 0.0],
        "herb gardens": [1.0, 0.08, 0.0],  # a near duplicate of the best
        "harvest": [0.6, 0.8, 0.0],
        "weather": [0.0, 0.0, 1.0],  # irrelevant
    }
    document = np.array([0.9, 0.4, 0.0], dtype=np.float32)
    document /= np.linalg.norm(document)
    ranked = rank_key_phrases(list(table), document, _fake_embed(table), limit=2, diversity=0.5)
    assert ranked == ("herb garden", "harvest")
    assert rank_key_phrases(list(table), document, _fake_embed(table), limit=2, diversity=0.0)[1] == "herb gardens"
    assert rank_key_phrases([], document, _fake_embed(table)) == ()


def test_document_vector_is_the_normalised_mean_of_present_vectors() -> None:
    assert document_vector([None, None]) is None
    v = document_vector([np.array([1.0, 0.0]), None, np.array([0.0, 1.0])])
    assert v is not None and np.allclose(v, [2**-0.5, 2**-0.5])
