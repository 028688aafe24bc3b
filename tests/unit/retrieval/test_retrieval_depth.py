"""Selective recall's rule (`retrieval.depth`) and the cache's key (`retrieval.cache`): pure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from loci.generations import CACHE_TTL_MAX_S, GENERATION_TTL_S
from loci.settings import RetrievalSettings
from retrieval import HYBRID, RecallDepth, RecallFilters, RecallRequest
from retrieval.cache import TokenMemo, cache_key, normalise
from retrieval.depth import NO_CONTENT, SMALL_TALK, DepthKind, choose_depth, subject_query
from retrieval.query import analyse

RULE = RecallDepth()


@pytest.mark.parametrize(
    ("message", "kind"),
    [
        ("ok thanks", DepthKind.SKIP),
        ("👍", DepthKind.SKIP),
        ("What should I cook tonight?", DepthKind.ORDINARY),
        ("Do you remember my sister's name?", DepthKind.MEMORY),
        ("I remembered something about the trip", DepthKind.MEMORY),
        ("What did I say about the budget last time?", DepthKind.MEMORY),
        ("Did I tell you   about Ingrid?", DepthKind.MEMORY),
        ("What did we talk about regarding the Japan trip?", DepthKind.MEMORY),
        ("What did we decide about the budget?", DepthKind.MEMORY),
        ("What was the hotel you recommended in Kyoto?", DepthKind.MEMORY),
        ("What was that book you suggested?", DepthKind.MEMORY),
        ("What do you recommend for dinner?", DepthKind.ORDINARY),
        ("Can you suggest a hotel in Kyoto?", DepthKind.ORDINARY),
        ("word " * 60, DepthKind.LONG),
        ("word " * 59, DepthKind.ORDINARY),
    ],
)
def test_depth_by_message(message: str, kind: DepthKind) -> None:
    assert choose_depth(message, RULE).kind is kind


def test_resolved_top_k() -> None:
    assert choose_depth("What should I cook?", RULE).resolve(5) == 5  # the user's setting
    assert choose_depth("Do you remember Ingrid?", RULE).resolve(5) == 10
    assert choose_depth("Do you remember Ingrid?", RULE).resolve(20) == 20  # never fewer than the user asks
    assert choose_depth("Do you remember Ingrid?", RULE, explicit_top_k=2).resolve(20) == 2  # the caller wins
    assert choose_depth("ok", RULE, explicit_top_k=2).kind is DepthKind.SKIP
    small = replace(RULE, ordinary_top_k=3, memory_phrases=("ingrid",), long_words=5)
    assert choose_depth("What should I cook?", small).resolve(5) == 3
    assert choose_depth("Where is Ingrid?", small).kind is DepthKind.MEMORY
    assert choose_depth("one two three four five", small).kind is DepthKind.LONG
    assert choose_depth("Do you remember Ingrid?", replace(RULE, memory_phrases=())).kind is DepthKind.ORDINARY


@pytest.mark.parametrize("message", ["is it?", "what about that?", "Do you remember?", "the and of to a", "1️⃣2️⃣3️⃣"])
def test_a_message_without_a_content_word_is_skipped(message: str) -> None:
    depth = choose_depth(message, RULE, explicit_top_k=5)
    assert (depth.kind, depth.skipped) == (DepthKind.SKIP, NO_CONTENT)
    assert choose_depth(message, replace(RULE, skip_without_content=False)).kind is not DepthKind.SKIP


@pytest.mark.parametrize(
    "message",
    [
        "How are you today?",
        "Hi there, good morning!",
        "hello again!",
        "How’s it going?",
        "Good evening, how've you been?",
    ],
)
def test_a_greeting_is_skipped(message: str) -> None:
    depth = choose_depth(message, RULE, explicit_top_k=5)
    assert (depth.kind, depth.skipped) == (DepthKind.SKIP, SMALL_TALK)
    assert choose_depth(message, replace(RULE, small_talk=())).skipped != SMALL_TALK


@pytest.mark.parametrize(
    "message",
    [
        "Hi! How is my sister's new job going?",
        "Hey, where was I this morning?",
        "What did I eat today?",
        "today?",
        "Good morning, any news on the boiler?",
        "His flight lands tonight",
    ],
)
def test_a_greeting_with_something_to_ask_is_searched(message: str) -> None:
    assert choose_depth(message, RULE).kind is not DepthKind.SKIP


def test_the_memories_keyword_query_leaves_out_the_memory_phrases() -> None:
    asked = analyse("What did we decide about the Japan trip last time?", datetime(2024, 10, 1, tzinfo=UTC))
    subject = subject_query(asked, RULE)
    assert asked.terms == ("decide", "japan", "trip", "last", "time")
    assert (subject.terms, subject.tsquery) == (("japan", "trip"), "'japan' | 'trip'")
    plain = analyse("Where does Ingrid live?", datetime(2024, 10, 1, tzinfo=UTC))
    assert subject_query(plain, RULE) is plain


def test_cache_key_covers_what_changes_the_answer() -> None:
    base = RecallRequest(user_id=1, message="Where does Ingrid live?", conversation_id="c", agent_id="a")
    key = cache_key(base, HYBRID)
    assert normalise("  WHERE does ingrid   live?! ") == "where does ingrid live"
    assert cache_key(replace(base, message="where does ingrid live"), HYBRID) == key
    changed = [
        replace(base, agent_id="b"),
        replace(base, conversation_id="d"),
        replace(base, top_k=3),
        replace(base, filters=RecallFilters(wings=frozenset({"work"}))),
        replace(base, filters=RecallFilters(categories=frozenset({"fact"}))),
        replace(base, budget_tokens=300),
        replace(base, message="Where does Ingrid work?"),
    ]
    assert len({cache_key(r, HYBRID) for r in changed} | {key}) == len(changed) + 1
    assert cache_key(base, replace(HYBRID, rrf_k=60)) != key
    wings = RecallFilters(wings=frozenset({"a", "b", "c"}))
    assert cache_key(replace(base, filters=wings), HYBRID) == cache_key(
        replace(base, filters=RecallFilters(wings={"c", "b", "a"})), HYBRID
    )


def test_token_memo_counts_each_new_line_once() -> None:
    asked: list[list[str]] = []

    def count(lines: Sequence[str]) -> list[int]:
        asked.append(list(lines))
        return [len(line) for line in lines]

    memo = TokenMemo(count)
    assert memo(["ab", "abc", "ab"]) == [2, 3, 2] and asked == [["ab", "abc"]]
    again = TokenMemo(count, memo.known)  # what a hit gets from the entry: counts, no text
    assert all(len(k) == 16 for k in memo.known) and "ab" not in memo.known
    assert again(["abc", "abcd"]) == [3, 4] and asked[-1] == ["abcd"]


def test_the_ttl_setting_stays_below_the_generations_lifetime() -> None:
    assert RetrievalSettings(cache_ttl_s=CACHE_TTL_MAX_S).cache_ttl_s == CACHE_TTL_MAX_S < GENERATION_TTL_S
    with pytest.raises(ValidationError):
        RetrievalSettings(cache_ttl_s=CACHE_TTL_MAX_S + 1)
