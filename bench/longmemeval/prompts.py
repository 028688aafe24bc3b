"""Reader and judge prompts, worded exactly as LongMemEval's own code.

QA accuracy is only comparable with published numbers when the reader sees the
context the way LongMemEval's RAG setup shows it (``src/generation/
run_generation.py``: dated sessions, sorted by date, then the current date and
the question) and the judge applies the per-type rules of
``src/evaluation/evaluate_qa.py``. The template texts below are copied from
that code (MIT licence, Wu et al. 2024); keep them verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from bench.longmemeval.dataset import Session, format_date

__all__ = [
    "JUDGE_QUESTION_TYPES",
    "ContextItem",
    "context_from_session",
    "judge_prompt",
    "parse_judge_verdict",
    "reader_prompt",
]

_READER = (
    "I will give you several history chats between you and a user. "
    "Please answer the question based on the relevant chat history.\n\n\n"
    "History Chats:\n\n{history}\n\nCurrent Date: {date}\nQuestion: {question}\nAnswer:"
)
_READER_COT = (
    "I will give you several history chats between you and a user. "
    "Please answer the question based on the relevant chat history. "
    "Answer the question step by step: first extract all the relevant information, "
    "and then reason over the information to get the answer.\n\n\n"
    "History Chats:\n\n{history}\n\nCurrent Date: {date}\nQuestion: {question}\nAnswer (step by step):"
)
_HISTORY_ITEM = "\n### Session {number}:\nSession Date: {date}\nSession Content:\n{content}\n"

_CONTAINS = (
    "I will give you a question, a correct answer, and a response from a model. "
    "Please answer yes if the response contains the correct answer. Otherwise, answer no. "
)
_STEPS = (
    "If the response is equivalent to the correct answer or contains all the intermediate steps "
    "to get the correct answer, you should also answer yes. If the response only contains a subset "
    "of the information required by the answer, answer no. "
)
_OFF_BY_ONE = (
    "In addition, do not penalize off-by-one errors for the number of days. If the question asks for "
    "the number of days/weeks/months, etc., and the model makes off-by-one errors (e.g., predicting 19 "
    "days when the answer is 18), the model's response is still correct. "
)
_UPDATE = (
    "If the response contains some previous information along with an updated answer, the response "
    "should be considered as correct as long as the updated answer is the required answer."
)
_PREFERENCE = (
    "I will give you a question, a rubric for desired personalized response, and a response from a "
    "model. Please answer yes if the response satisfies the desired response. Otherwise, answer no. "
    "The model does not need to reflect all the points in the rubric. The response is correct as long "
    "as it recalls and utilizes the user's personal information correctly."
)
_ABSTENTION = (
    "I will give you an unanswerable question, an explanation, and a response from a model. Please "
    "answer yes if the model correctly identifies the question as unanswerable. The model could say "
    "that the information is incomplete, or some other information is given but the asked information "
    "is not."
)
_TAIL = "\n\nQuestion: {question}\n\n{label}: {answer}\n\nModel Response: {response}\n\n{ask}"
_ASK_CORRECT = "Is the model response correct? Answer yes or no only."
_ASK_ABSTAIN = "Does the model correctly identify the question as unanswerable? Answer yes or no only."

# question_type -> the instructions that precede the question.
_JUDGE_HEADERS: dict[str, str] = {
    "single-session-user": _CONTAINS + _STEPS,
    "single-session-assistant": _CONTAINS + _STEPS,
    "multi-session": _CONTAINS + _STEPS,
    "temporal-reasoning": _CONTAINS + _STEPS + _OFF_BY_ONE,
    "knowledge-update": _CONTAINS + _UPDATE,
    "single-session-preference": _PREFERENCE,
}
JUDGE_QUESTION_TYPES: frozenset[str] = frozenset(_JUDGE_HEADERS)


@dataclass(frozen=True)
class ContextItem:
    """One retrieved piece of history shown to the reader: its date and its text."""

    date: datetime | None
    content: str


def context_from_session(session: Session, *, user_only: bool = False) -> ContextItem:
    """Render a haystack session like LongMemEval's ``nl`` history format."""
    content = "".join(
        f"\n\n{turn.role}: {turn.content.strip()}" for turn in session.turns if turn.role == "user" or not user_only
    )
    return ContextItem(date=session.date, content=content)


def reader_prompt(
    question: str,
    question_date: datetime,
    context: Sequence[ContextItem],
    *,
    chain_of_thought: bool = False,
) -> str:
    """The QA prompt: dated history (oldest first), current date, question.

    Items are sorted by date as upstream does (undated items keep their order,
    after dated ones) so that retrieval order does not leak into the answer.
    """
    ordered = sorted(
        enumerate(context),
        key=lambda pair: (pair[1].date is None, pair[1].date or question_date, pair[0]),
    )
    history = "".join(
        _HISTORY_ITEM.format(
            number=number,
            date=format_date(item.date) if item.date is not None else "unknown",
            content=item.content,
        )
        for number, (_, item) in enumerate(ordered, start=1)
    )
    template = _READER_COT if chain_of_thought else _READER
    return template.format(history=history, date=format_date(question_date), question=question)


def judge_prompt(question_type: str, question: str, answer: str, response: str, is_abstention: bool) -> str:
    """The official per-type judge prompt; abstention questions use the unanswerable rubric.

    Raises ValueError for an unknown question type rather than judging it with
    the wrong rules.
    """
    if is_abstention:
        return _ABSTENTION + _TAIL.format(
            question=question, label="Explanation", answer=answer, response=response, ask=_ASK_ABSTAIN
        )
    header = _JUDGE_HEADERS.get(question_type)
    if header is None:
        raise ValueError(f"no judge prompt for question type {question_type!r}")
    label = "Rubric" if question_type == "single-session-preference" else "Correct Answer"
    body = _TAIL.format(question=question, label=label, answer=answer, response=response, ask=_ASK_CORRECT)
    return header + body


_FIRST_WORD = re.compile(r"[a-z]+")


def parse_judge_verdict(text: str) -> bool:
    """True when the judge said yes.

    A leading "yes"/"no" word decides (so "No, yes is wrong" is False); failing
    that we fall back to upstream's rule, ``'yes' in text.lower()``, to stay
    comparable with published accuracies.
    """
    lowered = text.strip().lower()
    first = _FIRST_WORD.search(lowered)
    if first is not None and first.start() <= 3 and first.group() in ("yes", "no"):
        return first.group() == "yes"
    return "yes" in lowered
