"""The LLM extractor reads the model's answer, and falls back to the rules, off the event
loop: both read every turn of the window by the offline rules (the answer's times, or the
whole fallback), seconds for pasted documents (`tests.integration.test_mining_off_the_loop`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from ingest import extract_llm
from ingest.extract_llm import LLMExtractor, WindowSchema
from ingest.extraction import TurnView
from loci.errors import UpstreamUnavailable

TURNS = [TurnView(1, 1, "user", "My sister Maya started at Globex last week.", datetime(2026, 11, 20, 9, tzinfo=UTC))]


class Answering:
    """A client whose model answers at once with ``answer``, or fails with ``error``."""

    def __init__(self, answer: WindowSchema | None = None, error: Exception | None = None) -> None:
        self.answer, self.error = answer, error

    async def chat_json(self, *args: Any, **kwargs: Any) -> tuple[WindowSchema, list[Any]]:
        if self.error is not None:
            raise self.error
        assert self.answer is not None
        return self.answer, []


def recording(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    threads: list[int] = []
    rule: Callable[..., Any] = getattr(extract_llm, name)

    def run(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.get_ident())
        return rule(*args, **kwargs)

    monkeypatch.setattr(extract_llm, name, run)
    return threads


async def test_the_models_answer_is_read_off_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    threads = recording(monkeypatch, "to_extraction")
    answer = WindowSchema.model_validate({"entities": [{"name": "Maya", "kind": "p", "turns": [1]}]})
    outcome = await LLMExtractor(Answering(answer), "m").extract(TURNS)  # type: ignore[arg-type]
    assert outcome.extractor == "llm" and threads and threading.get_ident() not in threads


async def test_the_fallback_to_the_rules_runs_off_the_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    threads = recording(monkeypatch, "extract_window")
    outcome = await LLMExtractor(Answering(error=UpstreamUnavailable("down")), "m").extract(TURNS)  # type: ignore[arg-type]
    assert outcome.extractor == "offline" and outcome.fallback
    assert threads and threading.get_ident() not in threads
