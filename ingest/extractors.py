"""Which extractor mines a window: the one table to add an extractor to.

``LOCI_MINING_EXTRACTOR`` names an entry of `EXTRACTORS` (the setting's allowed values
are checked against this table by a unit test). A caller may instead pass an
`Extractor` by value in `MiningDeps.extractor` (a test, the benchmark), which wins over
the setting. An entry whose requirements are missing (the LLM one without an endpoint)
builds nothing and the offline extractor mines, as the LLM extractor itself falls back
per window on bad output.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from ingest.extract_llm import LLMExtractor
from ingest.extract_offline import OfflineExtractor
from ingest.extraction import Extractor
from ingest.records import MiningDeps

__all__ = ["EXTRACTORS", "ExtractorFactory", "extractor_for"]

ExtractorFactory = Callable[[MiningDeps], Extractor | None]
"""Builds an extractor from the mining dependencies, or None when it cannot run here."""


def _offline(deps: MiningDeps) -> Extractor:
    return OfflineExtractor()


def _llm(deps: MiningDeps) -> Extractor | None:
    return LLMExtractor(deps.llm, deps.settings.llm.extract_model) if deps.llm is not None else None


EXTRACTORS: Mapping[str, ExtractorFactory] = MappingProxyType({"offline": _offline, "llm": _llm})


def extractor_for(deps: MiningDeps) -> Extractor:
    """The extractor passed in, else the configured one, else the offline one."""
    if deps.extractor is not None:
        return deps.extractor
    build = EXTRACTORS[deps.settings.mining.extractor]
    return build(deps) or OfflineExtractor()
