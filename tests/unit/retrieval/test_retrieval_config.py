"""The retrieval config is data: presets are named configs built from the signal table."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest

from loci.errors import InvalidInput
from retrieval import HYBRID, PRESETS, RerankerKind, RetrievalConfig, SearchMode, Signal, get_preset
from retrieval.params import PreferenceParams, SpeakerParams, TemporalParams
from retrieval.preference import phrases
from retrieval.signals import SIGNALS, default_weights, relevant_signals
from retrieval.speaker import speaker_phrases
from retrieval.temporal import span_margin


def test_every_signal_has_one_row_and_the_config_takes_its_defaults() -> None:
    assert set(SIGNALS) == set(Signal)
    config = RetrievalConfig(name="x")
    assert dict(config.weights) == default_weights()
    for signal, spec in SIGNALS.items():
        assert spec.signal is signal
        assert config.params(signal) == spec.params
    assert relevant_signals() == {"keyword", "temporal", "preference"}  # semantic must pass the similarity floor


def test_presets_write_no_weight_twice() -> None:
    assert PRESETS["hybrid"] is HYBRID and dict(HYBRID.weights) == default_weights()
    assert PRESETS["hybrid+rerank"] == replace(HYBRID, name="hybrid+rerank", reranker=RerankerKind.LLM)
    assert dict(PRESETS["hybrid-unpooled"].weights) == default_weights()
    assert PRESETS["vector-only"].signals == (Signal.SEMANTIC,)
    assert PRESETS["keyword-only"].signals == (Signal.KEYWORD,)
    assert all(name == config.name for name, config in PRESETS.items())


def test_a_config_is_changed_by_value() -> None:
    hnsw = replace(HYBRID, semantic=replace(HYBRID.semantic, search=SearchMode.HNSW))
    assert hnsw.semantic.search is SearchMode.HNSW and HYBRID.semantic.search is SearchMode.AUTO
    assert hnsw.keyword is HYBRID.keyword


def test_unknown_preset_names_the_field() -> None:
    with pytest.raises(InvalidInput) as err:
        get_preset("nope")
    assert err.value.field == "preset"


def test_span_margin_is_a_share_of_the_span_within_bounds() -> None:
    params = TemporalParams()
    assert span_margin(timedelta(hours=2), params) == timedelta(days=1)
    assert span_margin(timedelta(days=8), params) == timedelta(days=2)
    assert span_margin(timedelta(days=365), params) == timedelta(days=3)


def test_entity_phrases_are_runs_around_content_terms() -> None:
    words = ["dinner", "with", "ethiopian", "food", "tonight"]
    slugs, names = phrases(words, {"ethiopian", "food"}, PreferenceParams())
    assert "ethiopian-food" in slugs and "with ethiopian food" in names and "dinner with ethiopian" in names
    assert all(len(n.split()) <= 3 for n in names)
    capped, _ = phrases(words, {"ethiopian", "food"}, PreferenceParams(max_phrases=2))
    assert len(capped) == 2


def test_speaker_phrases_are_the_messages_word_runs_case_blind() -> None:
    runs = speaker_phrases("What did Priya Sharma say about O'Brien's venue?", SpeakerParams(max_name_words=2))
    assert "priya" in runs and "priya sharma" in runs and "o'brien's venue" in runs
    assert "what did priya" not in runs  # longer than max_name_words
    assert len(speaker_phrases(" ".join(f"w{i}" for i in range(200)), SpeakerParams(max_phrases=10))) == 10
