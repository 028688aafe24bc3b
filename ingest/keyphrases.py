"""Topic key phrases for the offline extractor, scored with the embedder (KeyBERT's method).

Word frequency alone names closets after whatever a window repeats ("thing", "time",
"really"). KeyBERT (Grootendorst, 2020) instead ranks candidate phrases by how close
their embedding is to the document's, and picks a diverse few with Maximal Marginal
Relevance. The KeyBERT package itself is not used because it embeds every n-gram its
CountVectorizer finds (hundreds per window, seconds on this CPU, and scikit-learn as a
dependency); here the candidates are the window's few most frequent content n-grams
(`candidate_phrases`), and the document vector is the mean of the window's drawer
embeddings, which mining has already computed, so the only extra model work is one
small batch of short phrases per window.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

import numpy as np

__all__ = ["candidate_phrases", "document_vector", "rank_key_phrases"]

_TOKEN = re.compile(r"[^\W\d_](?:(?:[^\W\d_]|['\-])*[^\W\d_])?")  # letters, inner ' and - (Unicode)
_MIN_CHARS = 4  # a phrase's longest word must have at least this many letters


def _plural_key(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 4 else word


def candidate_phrases(
    texts: Iterable[str], stopwords: frozenset[str], exclude: frozenset[str] = frozenset(), limit: int = 12
) -> tuple[str, ...]:
    """The window's most frequent 1- to 3-word content phrases (no stopword at either end).

    A phrase must occur twice, or be a bigram or trigram made of words that each occur
    twice, so one-off word salad never names a closet. Plurals count towards their
    singular; the most frequent surface form is the one returned.
    """
    counts: Counter[str] = Counter()
    forms: dict[str, Counter[str]] = {}
    for text in texts:
        for sentence in re.split(r"[.!?;:\n]+", text.lower()):
            words = _TOKEN.findall(sentence)
            for n in (1, 2, 3):
                for i in range(len(words) - n + 1):
                    run = words[i : i + n]
                    if run[0] in stopwords or run[-1] in stopwords or any(w in exclude for w in run):
                        continue
                    if max(len(w) for w in run) < _MIN_CHARS or (n > 1 and any(w in stopwords for w in run)):
                        continue
                    key = " ".join(_plural_key(w) for w in run)
                    counts[key] += 1
                    forms.setdefault(key, Counter())[" ".join(run)] += 1
    singles = {k for k, n in counts.items() if " " not in k and n >= 2}
    kept = [k for k, n in counts.most_common() if n >= 2 or (" " in k and all(w in singles for w in k.split()))]
    return tuple(forms[k].most_common(1)[0][0] for k in kept[:limit])


def document_vector(vectors: Iterable[np.ndarray | None]) -> np.ndarray | None:
    """Normalised mean of the window's drawer embeddings (None when none were embedded)."""
    present = [v for v in vectors if v is not None]
    if not present:
        return None
    mean = np.mean(np.stack(present), axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm > 0 else None


def rank_key_phrases(
    candidates: Sequence[str],
    document: np.ndarray,
    embed: Callable[[Sequence[str]], np.ndarray],
    limit: int = 3,
    diversity: float = 0.5,
) -> tuple[str, ...]:
    """Maximal Marginal Relevance over cosine similarity, as KeyBERT's ``use_mmr``.

    Each pick maximises ``(1 - diversity) * sim(phrase, document) - diversity *
    max sim(phrase, already picked)``, so "herb garden" and "herb gardens kit" do not
    both become topics. ``embed`` returns L2-normalised rows.
    """
    if not candidates:
        return ()
    vectors = embed(candidates)
    relevance = vectors @ document
    between = vectors @ vectors.T
    picked = [int(np.argmax(relevance))]
    while len(picked) < min(limit, len(candidates)):
        rest = [i for i in range(len(candidates)) if i not in picked]
        scores = [(1 - diversity) * relevance[i] - diversity * max(between[i, j] for j in picked) for i in rest]
        picked.append(rest[int(np.argmax(scores))])
    return tuple(candidates[i] for i in picked)
