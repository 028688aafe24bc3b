"""Recall's query words in every script (`retrieval.query.keyword_terms`, `retrieval.speaker`)."""

from __future__ import annotations

import unicodedata

from retrieval.params import SpeakerParams
from retrieval.query import has_content, keyword_terms
from retrieval.speaker import speaker_phrases


def test_a_word_keeps_its_vowel_signs_and_viramas() -> None:
    assert keyword_terms("मेरी बहन दिल्ली में रहती है") == ["मेरी", "बहन", "दिल्ली", "में", "रहती", "है"]
    assert keyword_terms("प्रिया कहाँ है?") == ["प्रिया", "कहाँ", "है"]


def test_a_word_in_nfd_is_one_word_in_nfc() -> None:
    assert keyword_terms(unicodedata.normalize("NFD", "Where is Inês?")) == ["Inês"]


def test_non_ascii_words_are_left_for_postgres_to_lower_case() -> None:
    # Python lowers "İ" to "i" + U+0307 and a final "Σ" to "ς"; PostgreSQL to "i" and "σ"
    assert keyword_terms("İstanbul ΟΔΥΣΣΕΥΣ") == ["İstanbul", "ΟΔΥΣΣΕΥΣ"]
    assert keyword_terms("Café café CAFÉ") == ["Café"]  # one word whatever its case


def test_ascii_words_read_as_before() -> None:
    assert keyword_terms("What was the name of that Thai place I liked? I don’t know") == [
        "name",
        "thai",
        "place",
        "liked",
    ]
    assert keyword_terms("O'Brien's 2 e-foil x") == ["o'brien", "foil"]
    assert not has_content("1️⃣2️⃣3️⃣") and not has_content("is it?")


def test_cjk_words_become_overlapping_pairs() -> None:
    assert keyword_terms("上海") == ["上海"]
    assert keyword_terms("王芳在哪里") == ["王芳", "芳在", "在哪", "哪里"]
    assert keyword_terms("ラーメン") == ["ラー", "ーメ", "メン"]
    assert keyword_terms("猫") == ["猫"]  # one character alone is a word
    assert keyword_terms("iPhone用") == ["iphone", "用"]


def test_speaker_names_are_not_lower_cased_in_python_unless_ascii() -> None:
    runs = speaker_phrases("What did İlker say?", SpeakerParams())
    assert "İlker" in runs and "i̇lker" not in runs
    assert "priya" in speaker_phrases("What did Priya say?", SpeakerParams())
    assert "प्रिया" in speaker_phrases("प्रिया ने क्या कहा?", SpeakerParams())
