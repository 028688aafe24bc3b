"""The extractor table is the one place an extractor is added, and the setting follows it."""

from __future__ import annotations

import typing
from collections.abc import Mapping, Sequence

from ingest import EXTRACTORS, MiningDeps
from ingest.extraction import NO_KNOWN_KINDS, Extraction, ExtractionOutcome, TurnView
from ingest.extractors import extractor_for
from loci.settings import MiningSettings, load_settings


class _Fixed:
    name = "fixed"
    reads_subjects = False

    async def extract(
        self, turns: Sequence[TurnView], subjects: Sequence[str] = (), known: Mapping[str, str] = NO_KNOWN_KINDS
    ) -> ExtractionOutcome:
        return ExtractionOutcome(Extraction((), None, {}, ()), self.name)


def _deps(configured: str, **kwargs: typing.Any) -> MiningDeps:
    settings = load_settings(mining={"extractor": configured})
    return MiningDeps(db=None, embedder=None, settings=settings, **kwargs)  # type: ignore[arg-type]


def test_the_setting_accepts_exactly_the_table_entries() -> None:
    allowed = typing.get_args(MiningSettings.model_fields["extractor"].annotation)
    assert set(allowed) == set(EXTRACTORS)


def test_each_entry_builds_by_its_name() -> None:
    assert extractor_for(_deps("offline")).name == "offline"


def test_the_llm_entry_without_an_endpoint_mines_offline() -> None:
    assert extractor_for(_deps("llm")).name == "offline"


def test_an_extractor_passed_by_value_wins_over_the_setting() -> None:
    fixed = _Fixed()
    assert extractor_for(_deps("llm", extractor=fixed)) is fixed
