"""QA stages: a reader answers from the retrieved context; a judge grades the answers.

Both talk to an OpenAI-compatible endpoint through `loci.llm.LLMClient`
(``LOCI_LLM_BASE_URL``, models ``qa_model`` and ``judge_model``). Without an
endpoint they refuse (`NoEndpoint`) instead of inventing answers. Each finished
question is appended to its log at once, with token counts and cost, so an
interrupted stage resumes where it stopped and the spend is on record.

Reader context (``context_mode``): ``sessions`` shows the top-k retrieved
haystack sessions in full (LongMemEval's own RAG setup, via
`prompts.context_from_session`); ``memory`` shows Loci's rendered memory
context, which is what an application would get.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bench.longmemeval.dataset import Question, Session
from bench.longmemeval.prompts import (
    ContextItem,
    context_from_session,
    judge_prompt,
    parse_judge_verdict,
    reader_prompt,
)
from bench.longmemeval.runs import append_jsonl, read_jsonl
from loci.llm import ChatResult, LLMClient, LLMConfig, llm_config_or_none
from loci.settings import Settings

__all__ = [
    "CONTEXT_MODES",
    "NoEndpoint",
    "generate_answers",
    "judge_answers",
    "reader_context",
    "require_llm",
    "selected_records",
]

CONTEXT_MODES = ("sessions", "memory")
ProgressFn = Callable[[int], None]


class NoEndpoint(RuntimeError):
    """No LLM endpoint is configured."""


def require_llm(settings: Settings) -> LLMConfig:
    config = llm_config_or_none(
        settings.llm.base_url,
        settings.llm.api_key,
        timeout_s=max(settings.llm.timeout_s, 60.0),
        prices=settings.llm.prices,
        retry_after_max_s=settings.llm.retry_after_max_s,
    )
    if config is None:
        raise NoEndpoint(
            "no LLM endpoint configured: set LOCI_LLM_BASE_URL (and LOCI_LLM_API_KEY) to an "
            "OpenAI-compatible server; the QA stages need a reader and a judge model"
        )
    return config


def selected_records(log: Path, selected: Sequence[Question], *, made_by: str) -> list[dict[str, Any]]:
    """The records of `log` (retrieval or generation) of the questions `--limit`/`--subset`
    selected (all by default), in the log's order, as ingest and retrieve work on those only.

    `qa` and `score-qa` used to take every record of the log whatever the flags said, so a
    `score-qa --limit 2` judged and scored the whole run. Selected questions the log lacks are
    a note on stderr (`made_by` is the stage that writes them); none at all is an error."""
    wanted = {q.question_id for q in selected}
    picked = [r for r in read_jsonl(log) if str(r["question_id"]) in wanted]
    missing = len(wanted - {str(r["question_id"]) for r in picked})
    if len(picked) == 0:
        raise ValueError(f"{log} has none of the {len(wanted)} question(s) selected; run the {made_by} stage first")
    if missing:
        print(
            f"note: {log} has no record of {missing} of the {len(wanted)} question(s) selected; "
            f"run the {made_by} stage for them",
            file=sys.stderr,
        )
    return picked


def reader_context(question: Question, record: Mapping[str, Any], *, mode: str, sessions_k: int) -> list[ContextItem]:
    """The history the reader sees for one question, from its retrieval log record."""
    if mode == "memory":
        context = record.get("context") or ""
        return [ContextItem(date=None, content=str(context))] if context else []
    by_id: dict[str, list[Session]] = {}
    for session in question.sessions:  # a repeated session id: every occurrence, in haystack order
        by_id.setdefault(session.session_id, []).append(session)
    top = [session for sid in record["ranked_session_ids"][:sessions_k] for session in by_id.get(sid, ())]
    return [context_from_session(session) for session in top]


def _usage(result: ChatResult) -> dict[str, Any]:
    return {
        "model": result.model,
        "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens,
        "cost": result.cost,
        "latency_ms": round(result.latency_ms, 1),
    }


def _done(path: Path) -> set[str]:
    return {str(r["question_id"]) for r in read_jsonl(path)} if path.exists() else set()


async def _run_all(items: Sequence[Any], workers: int, fn: Callable[[Any], Any]) -> None:
    semaphore = asyncio.Semaphore(max(1, workers))

    async def one(item: Any) -> None:
        async with semaphore:
            await fn(item)

    async with asyncio.TaskGroup() as group:
        for item in items:
            group.create_task(one(item))


async def generate_answers(
    client: LLMClient,
    model: str,
    questions: Mapping[str, Question],
    retrieval: Sequence[Mapping[str, Any]],
    out: Path,
    *,
    mode: str = "sessions",
    sessions_k: int = 5,
    workers: int = 4,
    advance: ProgressFn = lambda _n: None,
) -> int:
    """Answer every logged question not yet in `out`; returns how many were answered now."""
    done = _done(out)
    todo = [r for r in retrieval if str(r["question_id"]) not in done]
    advance(len(retrieval) - len(todo))

    async def answer(record: Mapping[str, Any]) -> None:
        question = questions[str(record["question_id"])]
        context = reader_context(question, record, mode=mode, sessions_k=sessions_k)
        prompt = reader_prompt(question.question, question.question_date, context)
        result = await client.chat(model, [{"role": "user", "content": prompt}])
        append_jsonl(
            out,
            {
                "question_id": question.question_id,
                "question_type": question.question_type,
                "hypothesis": result.text,
                "context_mode": mode,
                "context_items": len(context),
                "prompt_chars": len(prompt),
                "usage": _usage(result),
                "usage_source": "memory_qa",
            },
        )
        advance(1)

    await _run_all(todo, workers, answer)
    return len(todo)


async def judge_answers(
    client: LLMClient,
    model: str,
    questions: Mapping[str, Question],
    generations: Sequence[Mapping[str, Any]],
    out: Path,
    *,
    workers: int = 4,
    advance: ProgressFn = lambda _n: None,
) -> int:
    """Judge every generated answer not yet in `out` with LongMemEval's per-type prompt."""
    done = _done(out)
    todo = [g for g in generations if str(g["question_id"]) not in done]
    advance(len(generations) - len(todo))

    async def grade(record: Mapping[str, Any]) -> None:
        question = questions[str(record["question_id"])]
        prompt = judge_prompt(
            question.question_type,
            question.question,
            question.answer,
            str(record["hypothesis"]),
            question.is_abstention,
        )
        result = await client.chat(model, [{"role": "user", "content": prompt}], max_tokens=10)
        append_jsonl(
            out,
            {
                "question_id": question.question_id,
                "question_type": question.question_type,
                "is_abstention": question.is_abstention,
                "correct": parse_judge_verdict(result.text),
                "judge_text": result.text,
                "usage": _usage(result),
                "usage_source": "memory_qa",
            },
        )
        advance(1)

    await _run_all(todo, workers, grade)
    return len(todo)
