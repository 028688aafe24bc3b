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


def _reference_candidates(texts: Sequence[str], stopwords: frozenset[str], exclude: frozenset[str]) -> tuple[str, ...]:
    """`candidate_phrases` as first written, each run of words tested word by word (kept to
    show the per-word tests it now does give the same phrases, in the same order)."""
    import re
    from collections import Counter

    token = re.compile(r"[^\W\d_](?:(?:[^\W\d_]|['\-])*[^\W\d_])?")
    plural = lambda w: w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 4 else w  # noqa: E731
    counts: Counter[str] = Counter()
    forms: dict[str, Counter[str]] = {}
    for text in texts:
        for sentence in re.split(r"[.!?;:\n]+", text.lower()):
            words = token.findall(sentence)
            for n in (1, 2, 3):
                for i in range(len(words) - n + 1):
                    run = words[i : i + n]
                    if run[0] in stopwords or run[-1] in stopwords or any(w in exclude for w in run):
                        continue
                    if max(len(w) for w in run) < 4 or (n > 1 and any(w in stopwords for w in run)):
                        continue
                    key = " ".join(plural(w) for w in run)
                    counts[key] += 1
                    forms.setdefault(key, Counter())[" ".join(run)] += 1
    singles = {k for k, n in counts.items() if " " not in k and n >= 2}
    kept = [k for k, n in counts.most_common() if n >= 2 or (" " in k and all(w in singles for w in k.split()))]
    return tuple(forms[k].most_common(1)[0][0] for k in kept[:12])


def test_candidates_are_those_of_the_word_by_word_rule() -> None:
    """Ties keep first-seen order (unigrams, then bigrams, then trigrams, sentence by sentence),
    and the most frequent spelling of a key wins, the first of equals."""
    windows = [
        WINDOW,
        ["Roses, roses and more Roses: the rose garden's roses. Rose garden!", "My rose gardens; the rose garden."],
        ["Café au lait at the café. Über-café? Ünïcödé wörds wörds.", "dogs cats dogs cats birds birds cats"],
        ["the a of", "", "x y z x y z", "Tax return, tax returns, tax-return; tax returns again."],
        ["Marathon training plan: long runs. Marathon training with long runs and easy runs, runs runs."],
    ]
    for texts in windows:
        for exclude in (frozenset(), frozenset({"rose", "training", "café"})):
            assert candidate_phrases(texts, STOPWORDS, exclude) == _reference_candidates(texts, STOPWORDS, exclude)
