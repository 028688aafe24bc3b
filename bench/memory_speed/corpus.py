"""The synthetic memories: short first-person facts over the recall benchmark's topics,
names and places, one template family per category, with real embeddings for a pool
that each stored memory perturbs (the same trick as `bench.recall_speed.corpus`)."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from bench.recall_speed.corpus import NAMES, PLACES, TOPICS

__all__ = ["MemoryPool", "build_memory_pool", "memory_counts"]

TEMPLATES: dict[str, tuple[str, ...]] = {
    "profile": ("I live in {p}.", "My name is {n}.", "I work on {t1} for a living.", "I grew up in {p}."),
    "preference": (
        "I prefer {t1} over {t2}.",
        "I don't like {t1}.",
        "I love {t1}, especially with {n}.",
        "I usually do {t1} on weekends.",
    ),
    "response_style": ("Keep answers short and to the point.", "Use metric units.", "Explain {t1} step by step."),
    "fact": (
        "My friend {n} lives in {p}.",
        "I started {t1} three years ago.",
        "My sister {n} is into {t2}.",
        "I'm allergic to {t1}.",
    ),
    "goal": ("I want to get better at {t1} this year.", "I'm saving up for {t2}."),
    "relationship": ("{n} is my manager.", "{n} is my running partner."),
}
CATEGORY_SHARE = {"profile": 0.08, "preference": 0.35, "response_style": 0.04, "fact": 0.35, "goal": 0.1}
"""The rest are relationships. Core (profile) memories stay few per user, as the 1,000
character cap keeps them."""


@dataclass(frozen=True)
class MemoryPool:
    category: list[str]
    content: list[str]
    vectors: np.ndarray


def _fill(template: str, rng: random.Random) -> str:
    t1, t2 = rng.sample(TOPICS, 2)
    return template.format(t1=t1, t2=t2, n=rng.choice(NAMES), p=rng.choice(PLACES))


def build_memory_pool(size: int, seed: int) -> MemoryPool:
    """``size`` distinct memory lines with their real embeddings."""
    from loci.embedder import Embedder
    from loci.settings import load_settings

    rng = random.Random(seed)
    categories = [*CATEGORY_SHARE, "relationship"]
    weights = [*CATEGORY_SHARE.values(), 1 - sum(CATEGORY_SHARE.values())]
    seen: dict[str, str] = {}
    while len(seen) < size:
        category = rng.choices(categories, weights)[0]
        seen.setdefault(_fill(rng.choice(TEMPLATES[category]), rng), category)
    contents = list(seen)
    vectors = Embedder(load_settings().embedding).embed(contents).vectors
    return MemoryPool([seen[c] for c in contents], contents, vectors)


def memory_counts(total: int, users: int, rng: random.Random) -> list[int]:
    """Per-user memory counts, log-normal around ``total / users`` (a few heavy users)."""
    raw = [rng.lognormvariate(0, 0.8) for _ in range(users)]
    scale = total / sum(raw)
    counts = [max(1, round(r * scale)) for r in raw]
    counts[-1] += total - sum(counts)
    if counts[-1] < 1:  # rounding took too much from the last user: spread the difference
        counts[-1] = 1
    return counts
