"""The command line: run the offline extractor over the fixture, score it, print the figures.

The extractor sees each conversation as one window, as mining does, and its speed is
timed over ``--repeat`` passes (microseconds per user turn), because it runs on every
mined window and must not slow mining down.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from bench.cli_args import at_least_one
from bench.memory_extraction.fixture import DEFAULT_FIXTURE, Conversation, load_fixture
from bench.memory_extraction.score import KINDS, MATCH_THRESHOLD, Finding, Report, TurnKey, score
from ingest import MemoryCandidate, TurnView, extract_memory_candidates

__all__ = ["as_json", "as_text", "extract_all", "main"]

_AT = datetime(2026, 1, 1, tzinfo=UTC)


def _views(conv: Conversation) -> list[TurnView]:
    return [TurnView(t.seq, t.seq, t.role, t.content, _AT) for t in conv.turns]


def extract_all(conversations: Sequence[Conversation]) -> dict[TurnKey, list[MemoryCandidate]]:
    """The extractor's candidates for every turn, each conversation as one window."""
    found: dict[TurnKey, list[MemoryCandidate]] = defaultdict(list)
    for conv in conversations:
        for cand in extract_memory_candidates(_views(conv)):
            found[(conv.id, cand.turn_seqs[0])].append(cand)
    return dict(found)


def _micros_per_turn(conversations: Sequence[Conversation], repeat: int) -> float:
    windows = [_views(c) for c in conversations]
    user_turns = sum(t.role == "user" for w in windows for t in w)
    start = time.perf_counter()
    for _ in range(repeat):
        for w in windows:
            extract_memory_candidates(w)
    return (time.perf_counter() - start) / max(1, repeat * user_turns) * 1e6


def _fields(f: Finding) -> dict[str, object]:
    return {k: v for k, v in asdict(f).items() if v is not None}


def as_json(report: Report, micros: float) -> dict[str, object]:
    return {
        "match_threshold": MATCH_THRESHOLD,
        "overall": report.overall.as_dict(),
        "kinds": {k: report.kinds[k].as_dict() for k in KINDS},
        "empty_turns": {"total": report.empty_turns, "clean": report.clean_empty_turns},
        "micros_per_user_turn": round(micros, 1),
        "misses": [_fields(m) for m in report.misses],
        "false_positives": [_fields(m) for m in report.false_positives],
    }


def _line(f: Finding) -> str:
    retracts = f" (retracts {f.retracts!r})" if f.retracts else ""
    return f"  [{f.kind}] {f.conversation}#{f.seq} {f.category}: {f.content!r}{retracts}\n      turn: {f.turn!r}"


def as_text(report: Report, micros: float) -> str:
    rows = [f"{'kind':<12}{'tp':>5}{'fp':>5}{'fn':>5}{'precision':>11}{'recall':>8}{'f1':>7}"]
    for name, t in (("overall", report.overall), *((k, report.kinds[k]) for k in KINDS)):
        rows.append(f"{name:<12}{t.tp:>5}{t.fp:>5}{t.fn:>5}{t.precision:>11.3f}{t.recall:>8.3f}{t.f1:>7.3f}")
    rows.append(
        f"must-be-empty user turns: {report.clean_empty_turns}/{report.empty_turns} stayed empty; "
        f"extractor: {micros:.0f} µs per user turn"
    )
    rows.append(f"misses ({len(report.misses)}):")
    rows += [_line(m) for m in report.misses]
    rows.append(f"false positives ({len(report.false_positives)}):")
    rows += [_line(m) for m in report.false_positives]
    return "\n".join(rows)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Precision and recall of the offline memory extractor.")
    parser.add_argument("--fixture", type=Path, default=DEFAULT_FIXTURE, help="labelled conversations (JSON)")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--repeat", type=at_least_one, default=20, help="passes over the fixture for the timing")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:  # a missing file or one of another shape: a usage error naming it, not a traceback
        conversations = load_fixture(args.fixture)
    except OSError as e:
        parser.error(f"--fixture {args.fixture}: {e.strerror or e}")
    except (KeyError, TypeError, ValueError) as e:  # json.JSONDecodeError is a ValueError
        reason = f"missing field {e}" if isinstance(e, KeyError) else str(e)
        parser.error(f"--fixture {args.fixture}: not a labelled fixture ({reason})")
    report = score(conversations, extract_all(conversations))
    micros = _micros_per_turn(conversations, args.repeat)
    print(json.dumps(as_json(report, micros), indent=2) if args.json else as_text(report, micros))
    return 0
