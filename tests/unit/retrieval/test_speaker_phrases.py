"""Which words of a message may name a speaker (`retrieval.speaker`)."""

from __future__ import annotations

from retrieval.params import SpeakerParams
from retrieval.speaker import kin_words, speaker_phrases


def test_a_name_counts_where_written_as_one_or_in_a_message_typed_all_lower_case() -> None:
    assert "will" not in speaker_phrases("What will I eat tonight?", SpeakerParams())
    assert "will" in speaker_phrases("Will said what about the amp?", SpeakerParams())
    assert "priya" in speaker_phrases("What did PRIYA buy?", SpeakerParams())
    assert "priya" in speaker_phrases("what did priya say?", SpeakerParams())
    # a keyboard's capital "I" does not make a lower-case message one written with capitals
    assert "priya" in speaker_phrases("what did priya tell me when I called?", SpeakerParams())
    assert "priya" in speaker_phrases("what did priya say when I’m away?", SpeakerParams())
    assert "will" not in speaker_phrases("What will I eat tonight?", SpeakerParams())
    assert "will" not in speaker_phrases("so what will I eat, Priya?", SpeakerParams())


def test_a_question_s_inverted_verb_opening_a_sentence_is_no_name() -> None:
    assert "will" not in speaker_phrases("Will I need a visa?", SpeakerParams())
    assert "will" not in speaker_phrases("Thanks. Will you remind me?", SpeakerParams())
    assert "may" not in speaker_phrases("may we bring the dog?", SpeakerParams())
    assert "will" in speaker_phrases("Will, I need your notes", SpeakerParams())  # said to Will
    assert "will" in speaker_phrases("Did Will I mentioned call?", SpeakerParams())  # not opening
    assert "will" in speaker_phrases("Will said I should go", SpeakerParams())
    # after a question word or a conjunction, and after a colon, as at a sentence's start
    assert "will" not in speaker_phrases("what will I eat tonight?", SpeakerParams())
    assert "will" not in speaker_phrases("so will I need a visa?", SpeakerParams())
    assert "will" not in speaker_phrases("Quick question: Will I need a visa?", SpeakerParams())
    assert "priya" in speaker_phrases("tell priya I said hi", SpeakerParams())  # no question word before it
    assert "李" in speaker_phrases("What did 李 say?", SpeakerParams())  # no case: a name as written


def test_kin_words_are_the_words_after_my() -> None:
    assert kin_words("What food restriction does my partner have?") == ["partner", "partner have"]
    assert "older sister" in kin_words("When is My older sister's flight?")
    assert kin_words("What did Priya say?") == []
    # the word said is read as the predicate mining records for it (loci.people_roles)
    assert kin_words("What does my wife eat?")[0] == "partner"
    assert kin_words("What did my mom say?")[0] == "mother"


def test_the_user_slug_is_the_one_mining_gives_the_user() -> None:
    from ingest.extraction import USER_ENTITY
    from ingest.graph import entity_slug
    from retrieval.speaker import USER_SLUG

    assert entity_slug(USER_ENTITY) == USER_SLUG and USER_ENTITY.kind == "p"
