"""The size bounds the style guide sets, checked so they hold without anyone remembering.

A module over `MAX_MODULE_LINES` usually mixes purposes and a function over
`MAX_FUNCTION_LINES` usually hides stages; both are where the next change gets
expensive. Migrations are exempt: a revision is a frozen record of the schema, and
splitting one would change nothing anyone maintains. ruff's mccabe bound (12) covers
branching; this covers length, which ruff has no rule for.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("loci", "ingest", "retrieval", "domain", "service", "bench", "migrations", "tests")
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
EXEMPT = ("migrations/versions/",)


def _sources() -> list[Path]:
    files = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    return sorted(p for p in files if not any(part in p.relative_to(ROOT).as_posix() for part in EXEMPT))


def test_the_walk_finds_the_packages() -> None:
    names = {p.relative_to(ROOT).parts[0] for p in _sources()}
    assert {"loci", "ingest", "retrieval", "service", "bench", "tests"} <= names


def test_no_module_is_longer_than_the_bound() -> None:
    long = {
        p.relative_to(ROOT).as_posix(): n for p in _sources() if (n := p.read_text().count("\n")) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines (split by purpose): {long}"


def test_no_function_is_longer_than_the_bound() -> None:
    long: list[str] = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno} {node.name} ({length} lines)")
    assert not long, f"functions over {MAX_FUNCTION_LINES} lines (split into named steps): {long}"
