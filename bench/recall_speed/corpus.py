"""The synthetic palaces' text: topics, names, places and templates, the embedded
sentence pool drawers perturb, user palace sizes and the questions asked."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

__all__ = [
    "ASSISTANT_TEMPLATES",
    "FILLER",
    "NAMES",
    "Pool",
    "build_pool",
    "questions",
    "slots",
    "two_clause_questions",
    "user_sizes",
]

_TOPICS_TEXT = """
sourdough bread baking marathon training knee injury vegetable garden tomatoes kitchen renovation
tiles mortgage refinancing tax return deductions wedding planning venue catering toddler sleep
schedule python refactoring database migration kubernetes cluster upgrade photography lenses
astrophotography camping gear tent sleeping bag hiking boots trail map piano lessons jazz chords
guitar strings vintage cars carburetor electric bike battery solar panels inverter coffee roasting
espresso grinder wine tasting pinot noir chess openings sicilian defence knitting patterns wool yarn
birdwatching binoculars aquarium fish filter houseplants fiddle leaf fig job interview salary
negotiation resume portfolio spanish lessons verb conjugation japanese kanji podcast microphone
editing video editing color grading drone footage woodworking dovetail joints climbing bouldering
shoes yoga retreat meditation apps budgeting spreadsheet savings goal credit card rewards travel
insurance lisbon trip porto wine tram kyoto temples ramen shops iceland ring road northern lights
"""
TOPICS = _TOPICS_TEXT.split()
_NAMES_TEXT = """
Ingrid Mateo Priya Oluwaseun Dmitri Keiko Fatima Lars Aiyana Tomasz Yusuf Beatriz Chen Niamh Rafael
Sigrid Amara Jonas Leilani Emeka Saoirse Viktor Anjali Mauricio Hana Tariq
"""
NAMES = _NAMES_TEXT.split()
_PLACES_TEXT = """
Trondheim Valencia Osaka Nairobi Winnipeg Tbilisi Cusco Hobart Tallinn Accra Bergen Marseille
Da-Nang Oaxaca Reykjavik Krakow Porto Kyoto Lisbon Boise
"""
PLACES = _PLACES_TEXT.split()
USER_TEMPLATES = [
    "I've been thinking about {t1} and {t2} lately, especially since {n} brought it up in {p}.",
    "Can you help me plan my {t1}? I want to fit in some {t2} too before the trip to {p}.",
    "My friend {n} recommended a new approach to {t1}; I usually prefer {t2} though.",
    "I love {t1}, and last month I finally tried {t2} with {n} in {p}.",
    "What's the best way to get started with {t1} if I already know a bit about {t2}?",
    "I always struggle with {t1} in the evenings, {n} says {t2} might help.",
]
ASSISTANT_TEMPLATES = [
    "Here are a few ideas for {t1}: start small, track your progress, and combine it with {t2}. ",
    "Great question about {t1}. Many people in {p} approach it through {t2}, which works well. ",
    "When it comes to {t1}, consistency matters more than intensity; {t2} is a good complement. ",
]
FILLER = [
    "It also depends on your schedule and budget, so adjust as needed.",
    "Let me know if you want a more detailed breakdown or a checklist.",
    "Another option is to ask a local group for recommendations and feedback.",
    "Keep notes as you go so you can see what actually works for you.",
    "Remember to take breaks and review the plan every couple of weeks.",
]
QUESTION_TEMPLATES = [
    "What did I say about {t1}?",
    "Remind me what {n} recommended for {t1}",
    "Any tips on {t1} and {t2} for my trip to {p}?",
    "What was I planning for {t1} last week?",
    "Did I mention {t2} in March?",
    "How is my {t1} going?",
]
# Measured apart, after the mixed set above (which stays comparable with earlier runs):
# these split into two clauses, and each clause costs one more semantic search.
TWO_CLAUSE_TEMPLATES = [
    "What did {n} recommend for {t1} before my trip to {p}?",
    "How long had I been doing {t1} when I started {t2}?",
]


@dataclass(frozen=True)
class Pool:
    sentences: list[str]
    slots: list[dict[str, str]]
    vectors: np.ndarray
    filler_vectors: dict[str, np.ndarray]


def slots(rng: random.Random) -> dict[str, str]:
    return {"t1": rng.choice(TOPICS), "t2": rng.choice(TOPICS), "n": rng.choice(NAMES), "p": rng.choice(PLACES)}


def build_pool(size: int, seed: int) -> Pool:
    """Real embeddings for a pool of topic sentences; drawers perturb these."""
    from loci.embedder import Embedder
    from loci.settings import load_settings

    rng = random.Random(seed)
    fills = [slots(rng) for _ in range(size)]
    sentences = [rng.choice(USER_TEMPLATES).format(**s) for s in fills]
    embedder = Embedder(load_settings().embedding)
    vectors = embedder.embed(sentences).vectors
    fillers = dict(zip(FILLER, embedder.embed(FILLER).vectors, strict=True))
    return Pool(sentences, fills, vectors, fillers)


def user_sizes(total: int, rng: random.Random) -> list[int]:
    sizes: list[int] = []
    while sum(sizes) < total:
        sizes.append(int(min(40_000, max(20, rng.lognormvariate(math.log(400), 1.1)))))
    sizes[-1] -= sum(sizes) - total
    if sizes[-1] < 1:
        sizes.pop()
    return sizes


def questions(pool: Pool, count: int, users: dict[int, int], seed: int) -> list[tuple[int, str]]:
    rng = random.Random(seed + 1)
    ids = list(users)
    out = []
    for _ in range(count):
        out.append((rng.choice(ids), rng.choice(QUESTION_TEMPLATES).format(**slots(rng))))
    return out


def two_clause_questions(qs: list[tuple[int, str]], seed: int) -> list[tuple[int, str]]:
    """The same users as `qs`, each asked a question that recall searches clause by clause."""
    rng = random.Random(seed + 2)
    return [(uid, rng.choice(TWO_CLAUSE_TEMPLATES).format(**slots(rng))) for uid, _ in qs]
