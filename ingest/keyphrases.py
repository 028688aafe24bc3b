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
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import itemgetter

import numpy as np

__all__ = ["candidate_phrases", "document_vector", "rank_key_phrases"]

_TOKEN = re.compile(r"[^\W\d_](?:(?:[^\W\d_]|['\-])*[^\W\d_])?")  # letters, inner ' and - (Unicode)
_MIN_CHARS = 4  # a phrase's longest word must have at least this many letters
_SENTENCE_BREAK = re.compile(r"[.!?;:\n]+")


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
    counts: dict[str, int] = {}
    forms: dict[str, dict[str, int]] = {}
    for text in texts:
        for sentence in _SENTENCE_BREAK.split(text.lower()):
            for key, form in _phrases(_TOKEN.findall(sentence), stopwords, exclude):
                counts[key] = counts.get(key, 0) + 1
                spelled = forms.setdefault(key, {})
                spelled[form] = spelled.get(form, 0) + 1
    # Counter.most_common's orders: by count, ties in first-seen order (a stable sort; `max`
    # keeps the first of the most frequent spellings)
    ranked = sorted(counts.items(), key=itemgetter(1), reverse=True)
    singles = {k for k, n in ranked if " " not in k and n >= 2}
    kept = [k for k, n in ranked if n >= 2 or (" " in k and all(w in singles for w in k.split()))]
    return tuple(max(forms[k], key=forms[k].__getitem__) for k in kept[:limit])


def _phrases(words: Sequence[str], stopwords: frozenset[str], exclude: frozenset[str]) -> Iterator[tuple[str, str]]:
    """(key, surface form) of each 1- to 3-word run of ``words`` that holds no stopword and no
    excluded word and a word of `_MIN_CHARS` letters: every unigram, then every bigram, then
    every trigram, the order the counts' ties keep. Each word is tested once, not once per run
    it is in (the per-run tests were 3 % of mining's samples)."""
    usable = [w not in stopwords and w not in exclude for w in words]
    long = [len(w) >= _MIN_CHARS for w in words]
    keys = [_plural_key(w) if ok else "" for w, ok in zip(words, usable, strict=True)]
    m = len(words)
    for i in range(m):
        if usable[i] and long[i]:
            yield keys[i], words[i]
    for i in range(m - 1):
        if usable[i] and usable[i + 1] and (long[i] or long[i + 1]):
            yield f"{keys[i]} {keys[i + 1]}", f"{words[i]} {words[i + 1]}"
    for i in range(m - 2):
        if usable[i] and usable[i + 1] and usable[i + 2] and (long[i] or long[i + 1] or long[i + 2]):
            yield f"{keys[i]} {keys[i + 1]} {keys[i + 2]}", f"{words[i]} {words[i + 1]} {words[i + 2]}"


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
