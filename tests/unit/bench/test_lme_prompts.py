"""Reader and judge prompts follow LongMemEval's code; verdicts parse robustly."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench.longmemeval.dataset import Session, Turn
from bench.longmemeval.prompts import (
    JUDGE_QUESTION_TYPES,
    ContextItem,
    context_from_session,
    judge_prompt,
    parse_judge_verdict,
    reader_prompt,
)

# Upstream's default template (src/evaluation/evaluate_qa.py), verbatim.
UPSTREAM_DEFAULT = (
    "I will give you a question, a correct answer, and a response from a model. Please answer yes if the "
    "response contains the correct answer. Otherwise, answer no. If the response is equivalent to the "
    "correct answer or contains all the intermediate steps to get the correct answer, you should also "
    "answer yes. If the response only contains a subset of the information required by the answer, "
    "answer no. \n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\n"
    "Is the model response correct? Answer yes or no only."
)


@pytest.mark.parametrize("qtype", ["single-session-user", "single-session-assistant", "multi-session"])
def test_default_judge_prompt_is_upstream_verbatim(qtype: str) -> None:
    prompt = judge_prompt(qtype, "Q?", "A", "R", is_abstention=False)
    assert prompt == UPSTREAM_DEFAULT.format("Q?", "A", "R")


def test_per_type_rules() -> None:
    temporal = judge_prompt("temporal-reasoning", "How many days?", "18", "19 days", False)
    assert "do not penalize off-by-one errors" in temporal
    assert "predicting 19 days when the answer is 18" in temporal
    update = judge_prompt("knowledge-update", "Where do I live?", "Paris", "Paris, formerly Rome", False)
    assert "previous information along with an updated answer" in update
    assert "intermediate steps" not in update
    preference = judge_prompt("single-session-preference", "Suggest a hotel", "likes quiet", "R", False)
    assert "\n\nRubric: likes quiet\n\n" in preference
    assert "utilizes the user's personal information correctly" in preference
    for prompt in (temporal, update, preference):
        assert prompt.endswith("Is the model response correct? Answer yes or no only.")


def test_abstention_overrides_type() -> None:
    for qtype in JUDGE_QUESTION_TYPES:
        prompt = judge_prompt(qtype, "Q?", "You never mentioned it", "I don't know", is_abstention=True)
        assert prompt.startswith("I will give you an unanswerable question")
        assert "\n\nExplanation: You never mentioned it\n\n" in prompt
        assert prompt.endswith("Does the model correctly identify the question as unanswerable? Answer yes or no only.")


def test_unknown_type_is_refused() -> None:
    with pytest.raises(ValueError, match="no judge prompt"):
        judge_prompt("open-domain", "Q", "A", "R", is_abstention=False)


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("yes", True),
        ("Yes.", True),
        ("  **Yes**", True),
        ("no", False),
        ("No.", False),
        ("No, saying yes would be wrong.", False),
        ("The response is correct: yes", True),  # upstream fallback: 'yes' in text
        ("", False),
        ("I cannot tell", False),
    ],
)
def test_parse_judge_verdict(text: str, verdict: bool) -> None:
    assert parse_judge_verdict(text) is verdict


def test_reader_prompt_sorts_history_by_date() -> None:
    later = ContextItem(datetime(2023, 5, 21, 11, 54, tzinfo=UTC), "\n\nuser: I moved to Paris.")
    earlier = ContextItem(datetime(2023, 5, 20, 2, 21, tzinfo=UTC), "\n\nuser: I live in Rome.")
    prompt = reader_prompt("Where do I live?", datetime(2023, 5, 23, 19, 11, tzinfo=UTC), [later, earlier])
    assert prompt.startswith("I will give you several history chats between you and a user.")
    assert prompt.index("I live in Rome") < prompt.index("I moved to Paris")
    assert "\n### Session 1:\nSession Date: 2023/05/20 (Sat) 02:21\nSession Content:\n" in prompt
    assert prompt.endswith("Current Date: 2023/05/23 (Tue) 19:11\nQuestion: Where do I live?\nAnswer:")
    cot = reader_prompt("Q", datetime(2023, 5, 23, tzinfo=UTC), [earlier], chain_of_thought=True)
    assert cot.endswith("Answer (step by step):") and "step by step" in cot


def test_context_from_session() -> None:
    session = Session(
        "s1",
        datetime(2023, 5, 20, tzinfo=UTC),
        (Turn("user", " I like tea ", True), Turn("assistant", "Noted.", False)),
    )
    assert context_from_session(session).content == "\n\nuser: I like tea\n\nassistant: Noted."
    assert context_from_session(session, user_only=True).content == "\n\nuser: I like tea"
