"""The candidate signals and each one's own parameters, as plain frozen records.

Every number a signal's SQL uses to score or cut its list lives here, with the reason it
has that value; `retrieval.signals` pairs each record with its signal's SQL and default
weight, and `RetrievalConfig` carries one of each, so a preset, a test or the benchmark
changes a number with `dataclasses.replace` instead of editing a query.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = [
    "AnswerParams",
    "BlockFloor",
    "GroupBy",
    "KeywordParams",
    "MemorySearchParams",
    "PreferenceParams",
    "RecallDepth",
    "ReplyParams",
    "SearchMode",
    "SemanticParams",
    "Signal",
    "SpeakerParams",
    "TemporalParams",
]


class Signal(enum.StrEnum):
    """A candidate source; each owns its SQL (`retrieval.semantic`, `keyword`, …)."""

    SEMANTIC = "semantic"
    KEYWORD = "keyword"
    TEMPORAL = "temporal"
    PREFERENCE = "preference"
    SPEAKER = "speaker"


class GroupBy(enum.StrEnum):
    """How recall groups its results (`RecallRequest.group_by`; None ranks drawers)."""

    ROOM = "room"
    """``top_k`` distinct rooms (one per conversation), each with its best drawers
    (`retrieval.grouping`)."""


class SearchMode(enum.StrEnum):
    """How the semantic signal finds nearest vectors."""

    AUTO = "auto"
    """Exact scan or HNSW walk, whichever reads fewer rows (`semantic.use_exact_search`)."""
    EXACT = "exact"
    HNSW = "hnsw"


@dataclass(frozen=True, slots=True)
class BlockFloor:
    """Which ranked drawers the block may show (`retrieval.floor`); the absolute
    `RetrievalConfig.min_similarity` still admits a drawer on its own."""

    gate_similarity: float = 0.20
    """The message has memories at all only when its best semantic hit reaches this.
    MiniLM puts a paraphrased fact at ~0.2-0.35 from its question and an unrelated
    message's best hit near 0.05-0.15 (probes in `test_recall_block_probes`)."""
    relative_share: float = 0.75
    """With the gate open, a ranked drawer counts when its similarity is at least this
    share of the best hit's (and the gate): the answer often ranks first or second with
    a cosine just under the best one's ("Where do I work now?": 0.21 against 0.23)."""
    lexical_min_similarity: float = 0.10
    """A drawer matched by the keyword signal alone counts only with at least this
    similarity when it has a vector: one shared stem with a drawer about something else
    (cosine ~0) is not relevance. Saved memories meet the same rule
    (`MemorySearchParams.keyword_needs_similarity`)."""
    admit_wordless: bool = False
    """Whether a drawer whose text holds no word at all (`query.has_words`: "?!...", "---",
    "🎉🎉🎉") may enter the block on its own. False: it is still ranked, and still shown as
    the neighbour of a drawer that entered, but never for itself. MiniLM reads every emoji as
    the same unknown token ("🎉🎉🎉" and "🍅🌱☀️" score 1.0 against each other) and puts
    punctuation near any short message, so such a drawer's similarity says nothing, and alone
    it tells the reader nothing. It can change a block (not a ranking) for any question, so it
    is a field: True shows them as before."""


@dataclass(frozen=True, slots=True)
class SemanticParams:
    search: SearchMode = SearchMode.AUTO
    ef_search: int = 100
    """HNSW candidate list per walk, raised to the wanted count when that is larger: above
    pgvector's default 40 so the walk does not stop short of the ``LIMIT`` (untuned)."""
    exact_max_rows: int = 4000
    """Palaces with up to this many vectors are always searched exactly (cheap, and
    perfect recall); beyond it the exact scan is weighed against the graph walk."""
    graph_step_cost: float = 7.0
    """What one candidate of HNSW's filtered walk costs, in rows of an exact scan. Measured
    on the 1M-drawer benchmark palace (500k vectors): exact 3.2-3.5 us per vector; the walk
    5-13 us per candidate for a user owning 2% of the graph once its pages are cached (but
    1.1 s on a cold cache) and ~27 us for one owning 0.5% (the further it strays from the
    query, the more neighbours it scores per candidate kept). 7 errs towards the exact
    scan, whose cost is predictable: at 500k vectors it covers palaces up to ~13k vectors."""


@dataclass(frozen=True, slots=True)
class KeywordParams:
    idf_terms: int = 12
    """The message's first this many terms each get an IDF-weighted test (one column per
    candidate row each); later terms (the analysis keeps `RetrievalConfig.query_terms`)
    still match through the OR query and count through ``ts_rank_cd``."""
    idf_floor: float = 0.05
    """BM25's IDF turns negative for a term in over half the drawers; floored so a common
    word still counts a little instead of pushing a drawer down."""
    scan_cap: int = 2_000
    """At most this many matching drawers (the most recent) are scored, which bounds the
    cost for big palaces and common words; IDF is estimated on them."""
    rank_normalization: int = 1
    """``ts_rank_cd`` normalisation flag 1 (divide by 1 + log(length)): long answers that
    mention everything once do not win on density."""


@dataclass(frozen=True, slots=True)
class TemporalParams:
    max_spans: int = 3
    """Time expressions searched per message: bounds the statements one recall runs."""
    margin_max_days: float = 3.0
    """Drawers just outside a named span still come, after those inside: people misplace
    an event by a few days. The margin is `margin_share` of the span's length, at least
    `margin_min_days` and at most this (untuned)."""
    margin_min_days: float = 1.0
    margin_share: float = 0.25
    inside_score: float = 1.0
    """Drawers inside a span come before those in its margin (then by similarity)."""
    outside_score: float = 0.5
    recency_weight: float = 0.15
    """RRF weight of the mild recency prior the signal falls back to when the message names
    no time (newest first over the other signals' candidates); small, so it only breaks
    near-ties between otherwise equal drawers."""


@dataclass(frozen=True, slots=True)
class PreferenceParams:
    entity_base: float = 1.0
    """A named entity's drawers score this plus ln(1 + its mention count): every match
    counts, the entities the user keeps returning to a little more."""
    like_base: float = 1.0
    """A stated like scores this plus its cosine similarity to the message (or its
    ``ts_rank_cd`` without a vector), on the entities' scale: a drawer that is both sums."""
    entity_cap: int = 2_000
    """Drawers taken per recall from the named entities' mentions (bounds a common entity)."""
    max_phrase_words: int = 3
    """Entity names are looked up as 1- to this-many-word runs of the message."""
    max_phrases: int = 64
    """Slugs (and names) looked up at most, so a long message stays one cheap index probe."""


@dataclass(frozen=True, slots=True)
class ReplyParams:
    """The replies of the user turns a message about the assistant's words matches
    (`retrieval.reply`): a question and its answer are one exchange."""

    weight: float = 1.0
    """RRF weight of the replies' list: the semantic signal's, whose order it carries over
    to the half of the exchange that holds the answer; 0 turns it off."""
    max_questions: int = 20
    """Matching user turns whose replies are looked up at most (the best first): four
    times the default ``top_k``, one short statement."""
    text_weight: float = 1.0
    """How far each conversation's best-read reply (`retrieval.reply_text`) is lifted among that
    conversation's drawers: by ``text_weight / (rrf_k + 1)``, what a rank-1 match in an RRF list of
    this weight adds; 1.0, the keyword signal's weight, as it is the message's words read sentence
    by sentence (not fitted); 0 turns the reading off."""
    read_replies: int = 10
    """Listed replies whose text is read at most (in the list's order)."""
    read_sentences: int = 30
    """Sentences of one reply looked at most (its first, before the answer-kind test): a long
    reply's tail is rarely what was asked for, and each sentence that may hold a term is one
    ``to_tsvector`` in the statement."""


@dataclass(frozen=True, slots=True)
class AnswerParams:
    """The turns whose matched sentence holds the kind of thing the message asks for
    (`retrieval.answer_list`): a count for "how many", money for "how much did I spend"."""

    weight: float = 0.5
    """RRF weight of that list: half a content signal, as the speaker signal's, since it
    says what kind of thing a turn holds, not what about (not fitted); 0 turns it off."""
    max_turns: int = 20
    """Matching turns read at most (the best first): four times the default ``top_k``, one
    short statement by primary key."""


@dataclass(frozen=True, slots=True)
class SpeakerParams:
    max_name_words: int = 3
    """Speakers are looked up by 1- to this-many-word runs of the message ("Priya", "Mary
    Ann Lee"); a speaker also matches by the first word of their name alone."""
    max_phrases: int = 64
    """Runs looked up at most, so a long message stays one cheap probe of the names."""
    speaker_cap: int = 2_000
    """A named speaker's drawers scored per recall at most (the most recent): bounds the
    cost of a person who wrote thousands of turns."""


@dataclass(frozen=True, slots=True)
class MemorySearchParams:
    """Explicit memories (`retrieval.memory_search`): a candidate kind of its own beside the
    drawers, searched semantically and by keyword and fused by the same RRF (``rrf_k`` of
    the config, the semantic signal's exact-or-HNSW choice, the keyword signal's IDF)."""

    layers: tuple[str, ...] = ("knowledge",)
    """Recalled by relevance on every message. ``core`` is left out: it is the profile every
    session-start block (`GET /v1/context`) already carries, and repeating it here would
    spend the recall budget on what the model already reads; a client without that block
    adds it here."""
    past_layers: tuple[str, ...] = ("archive",)
    """Added only when the message is about the past (`QueryAnalysis.about_past`): session
    and task summaries answer "what did we do last week", and crowd out facts otherwise."""
    semantic_weight: float = 1.0
    """RRF weight of the memories' semantic list: as much as the drawers' (`SIGNALS`)."""
    keyword_weight: float = 1.0
    """RRF weight of the memories' keyword list: as much as the drawers'."""
    subject_terms: bool = True
    """The memories' keyword list searches the message's terms without the words of the memory
    phrases it uses (`depth.subject_query`; `RecallDepth.memory_phrases`: "did we decide",
    "last time"), which say how it asks, not what about. Saved lines say "I decided…" and
    "last week" often: "What did we decide about the Japan trip last time?" found "I decided to
    stop drinking soda last year" (cosine 0.15, past the word-match floor below) by "decide"
    and "last". The drawers' keyword signal keeps every term. False: the memories' too."""
    keyword_needs_similarity: bool = True
    """A memory found by its words alone passes recall's floor only as a drawer does
    (`BlockFloor.lexical_min_similarity`): when its vector is not unrelated to the message
    (or it has none). A summary spans a whole conversation, so it shares a word ("decided",
    "last", "time") with most questions about the past: "What did we decide about the Japan
    trip last time?" brought the job's and the diagnosis's summaries (cosine 0.09 and 0.06)
    beside Japan's (0.53). False: any keyword match passes, as before (the scoped query
    keeps that rule: a search lists what shares its words)."""
    candidate_limit: int = 20
    """Depth of each memory list: four times ``max_items``, enough for the two lists to
    agree on the best few."""
    max_items: int = 5
    """Memories returned and rendered at most (ahead of the drawers, in the same budget):
    a saved fact is short, and more than a handful would crowd out the conversations."""
    scan_cap: int = 2_000
    """Keyword matches scored per recall at most (the newest), as the drawers' ``scan_cap``."""
    category_weights: tuple[tuple[str, float], ...] = (("insight", 0.3),)
    """Multiplies a memory's fused score by its category's weight (not named: 1). An
    ``insight`` is the model's third-person guess from recent activity (`domain.insights`),
    not something the user said: at 0.3 it ranks below a memory found by one list alone at
    rank 1 (``1/(k+1)`` with both lists at 1.0) and only fills what the user's own words leave."""


@dataclass(frozen=True, slots=True)
class RecallDepth:
    """How many drawers one message recalls, chosen from the message itself
    (`retrieval.depth`): none for a trivial continuation ("ok", "thanks"), the user's
    ``top_k`` for an ordinary turn, more when the message asks about memory or is long.
    A caller's explicit ``top_k`` always wins."""

    ordinary_top_k: int | None = None
    """Drawers for an ordinary turn; None: the user's ``memory_settings.top_k`` (default 5).
    Most turns need a little context, and every drawer shown costs prompt tokens."""
    deep_top_k: int = 10
    """At least this many for a message that asks about memory or is long: "what did I say
    about…" wants every trace, and a long message touches several subjects."""
    memory_phrases: tuple[str, ...] = (
        "remember",
        "remind me",
        "recall",
        "last time",
        "what did i say",
        "what did i tell you",
        "did i tell you",
        "did i mention",
        "i told you",
        "i mentioned",
        "we talked about",
        "we discussed",
        "did we talk",
        "did we discuss",
        "did we decide",
        "we decided",
        "did we agree",
        "we agreed",
        "you know about me",
        "you told me",
        "you said",
        "did you say",
        "you mentioned",
        "you recommended",
        "you suggested",
    )
    """Phrases (matched at a word start, any ending: "remembered") that ask about memory:
    the user's words, what was settled together, and the assistant's own earlier answers
    ("what was the hotel you recommended?"), which are in the memory only as old turns.
    Past tense only: "what do you recommend?" asks for something new."""
    long_words: int = 60
    """A message of at least this many words is long (a pasted text, a detailed request)."""
    skip_without_content: bool = True
    """Recall nothing for a message without a content word (`query.has_content`: every word a
    stopword or a lone letter or digit, "is it?", "what about that?", "1️⃣2️⃣3️⃣"), as for a
    trivial one. Such a message has no keyword query, and its vector encodes only its form: its
    nearest drawers were the palace's content-free turns ("?!...", "---", emoji), past the
    floor at cosine 0.3-1.0, so the block showed them. A question names what it asks about, so
    this should leave benchmark rankings alone (not yet re-measured); False recalls as before."""
    small_talk: tuple[str, ...] = (
        "hi",
        "hello",
        "hey",
        "hiya",
        "good morning",
        "good afternoon",
        "good evening",
        "good night",
        "morning",
        "how are you",
        "how are you doing",
        "how're you",
        "how r u",
        "how are things",
        "how's it going",
        "how is it going",
        "how's everything",
        "how have you been",
        "how's your day",
        "how is your day going",
        "what's up",
        "whats up",
        "hope you're well",
        "hope you are well",
        "hope you're doing well",
        "nice to meet you",
        "long time no see",
        "i'm back",
        "it's me again",
    )
    """Greetings and pleasantries ("How are you today?", "Hi there, good morning!"): a message
    made of one of these, `small_talk_companions` and stopwords alone is skipped like a trivial
    one (`retrieval.depth.is_small_talk`). "today" is a content word elsewhere, so "How are you
    today?" had a keyword and a vector, and a turn that happened to say "today" reached the
    block. Any other content word, a question word or "my" makes it an ordinary message ("Hi!
    How is my sister's new job going?", "Hey, where was I this morning?")."""
    small_talk_companions: tuple[str, ...] = (
        "there",
        "again",
        "today",
        "tonight",
        "this morning",
        "this afternoon",
        "this evening",
        "everyone",
        "friend",
    )
    """Words that go with a greeting ("hi there", "how are you today", "hello again") and are
    taken out with it; alone they greet nothing ("today?" stays a message)."""
