"""How central a candidate subject is (KeyBERT's test, as closets use in
`ingest.keyphrases`): the cosine of its name to an embedding of the text it should be
about, relative to the closest candidate's.

Two texts are measured (`ingest.subjects.rank_candidates`):

* **the conversation**: the mean of its drawer embeddings, as before;
* **the user's opening turn**: people say first what they want help with ("thinking of
  getting a 3D printer … some tabletop minis", "my hands are a mess … had eczema as a
  kid"). Of the nouns the opening names, the one closest to the opening's own embedding
  is its topic; the others are details of it (a budget, a use, a body part). Counting
  repetition alone files such chats under the detail the user says twice ("Minis",
  "Hand"), so the opening's credit is graded by this closeness instead of given to every
  word of the opening alike.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ingest.subject_candidates import Candidate

__all__ = [
    "CENTRALITY_POOL",
    "CENTRAL_FORMS",
    "SCORE_DIGITS",
    "Embed",
    "add_centrality",
    "add_opening",
    "closeness",
    "settle_scores",
    "spoken_fallback",
]

CENTRALITY_POOL = 12
"""Only the best candidates before centrality are embedded: a handful of short phrases
per conversation (through the embedder's phrase cache), never every word."""
CENTRAL_FORMS = 3
"""Spellings of one candidate measured for centrality (its most frequent), a handful per
conversation through the phrase cache."""
Embed = Callable[[Sequence[str]], np.ndarray]
SPOKEN_OF = 0.5
"""Share of a chat's turns that speak of a person or pet (by name, kin word or "he"/"she") at which
they count as closest (`_spoken_of`)."""
PARTNERS = frozenset({"partner", "wife", "husband", "boyfriend", "girlfriend", "fiance", "fiancee"})
"""Kin words of the user's partner: the user's own life, never a companion along, so counted in full."""


def _unmeasured(c: Candidate) -> bool:
    """People and pets: a sentence embedder reads a first name as almost no meaning
    ("Derek" / "Dana" 0.30, "Derek" / "my brother" 0.24), so it cannot tell how central a
    person is; how much of the chat speaks of them does (`_spoken_of`), with the other weights."""
    return c.kind == "person" or c.pet


def closeness(pool: Sequence[Candidate], embed: Embed, text: np.ndarray) -> list[float]:
    """Each candidate's cosine to ``text``, as its closest spelling's.

    A candidate that links joined ("VW Transporter", "campervan", "van") is as central as
    its closest spelling: the embedder cannot place a model name, but can its category.
    A compound's name ("Tax return", "Allotment plot", "Headache diary") is one of its
    spellings: the compound kept whole is what the chat is about, and its head alone
    ("return", "plot", "diary") names only the container (`ingest.subjects._name_compounds`).
    """
    spellings = [[*([c.label] if c.label else []), *(f for f, _ in c.forms.most_common(CENTRAL_FORMS))] for c in pool]
    flat = embed([f for forms in spellings for f in forms]) @ text
    ends = np.cumsum([len(forms) for forms in spellings])
    return [max(float(part.max()), 0.0) for part in np.split(flat, ends[:-1])]


def _spoken_of(c: Candidate, n_turns: int) -> float:
    """How close a person or pet counts, unmeasured: as the closest candidate when the chat speaks
    of them in ``SPOKEN_OF`` of its turns or more, else in proportion; the user's partner always in
    full. In full whatever the share, a companion named in the opening and once more ("Cian got us
    tickets", "Jack set the phone up") outscored the festival or the phone the chat keeps to, as no
    topic is measured closest to both the opening and the whole chat; one the chat keeps coming back
    to ("Tom" from the bowls club, a brother's visit) is still the closest (2026-11-30). What this
    withholds is kept (``Candidate.withheld``): a chat it would leave with no subject at all is filed
    under the person (`spoken_fallback`). ``n_turns`` 0: unknown, in full."""
    if not n_turns or c.kin & PARTNERS:
        return 1.0
    return min(1.0, len(c.turns) / (n_turns * SPOKEN_OF))


def spoken_fallback(ranked: Sequence[Candidate], min_score: float) -> Candidate | None:
    """The best person or pet whose score reaches ``min_score`` with what `_spoken_of` withheld, for a
    chat no candidate's score reaches ("a second date with Marcus", named twice in 14 turns)."""
    return next((c for c in ranked if c.withheld and c.score + c.withheld >= min_score), None)


def _relative(pool: Sequence[Candidate], embed: Embed, text: np.ndarray, n_turns: int = 0) -> list[float]:
    """Closeness relative to the closest measured candidate; people and pets as `_spoken_of` says."""
    measured = [c for c in pool if not _unmeasured(c)]
    sims = dict(zip(map(id, measured), closeness(measured, embed, text), strict=True)) if measured else {}
    top = max(sims.values(), default=0.0)
    return [_spoken_of(c, n_turns) if _unmeasured(c) else (sims[id(c)] / top if top > 0 else 0.0) for c in pool]


def add_centrality(
    pool: Sequence[Candidate], embed: Embed, document: np.ndarray, weight: float, n_turns: int = 0
) -> None:
    """Closeness of each name to the whole conversation (of ``n_turns``), relative to the closest."""
    for c, share in zip(pool, _relative(pool, embed, document, n_turns), strict=True):
        c.score += weight * share
        c.withheld += weight * (1.0 - share) if _unmeasured(c) else 0.0


def add_opening(
    candidates: Sequence[Candidate], embed: Embed | None, opening: str, weight: float, n_turns: int = 0
) -> None:
    """The opening's credit for each candidate it names, graded by closeness to the opening
    turn (see the module doc); in full when nothing can be measured."""
    named = [c for c in candidates if c.opening]
    if not named:
        return
    shares = [1.0] * len(named)
    if embed is not None and opening.strip():
        shares = _relative(named, embed, embed([opening])[0], n_turns)
    shares = [1.0 if c.names_opening else share for c, share in zip(named, shares, strict=True)]
    for c, share in zip(named, shares, strict=True):
        c.score += weight * share
        c.withheld += weight * (1.0 - share) if _unmeasured(c) else 0.0


SCORE_DIGITS = 4
"""Decimals a candidate's score is kept to. The embedding terms carry float noise: one text's vector
differs by ~1e-7 with the batch it was embedded in (padding) and whether the cache already held it, and
a near tie ("Nadia" or "Hop forecast") went one way or the other between runs of the same code."""


def settle_scores(ranked: list[Candidate], domain_handicap: float = 0.0) -> None:
    """Each score, less ``domain_handicap`` for a domain's candidate (a subject's area, not the subject),
    rounded to `SCORE_DIGITS`, then the candidates in order: a tie goes to the name said more often,
    then to the key, never to float noise."""
    for c in ranked:
        c.score = round(c.score - (domain_handicap if c.domain is not None else 0.0), SCORE_DIGITS)
    ranked.sort(key=lambda c: (-c.score, -sum(c.forms.values()), c.key))
