"""The LLM extractor's JSON schema spells the kinds as types; they must stay the schema's."""

from __future__ import annotations

from typing import get_args

from ingest.extract_llm import EntityKind, WingKind
from loci.models import ENTITY_KINDS, WING_KINDS


def test_llm_schema_kinds_are_the_models_kinds() -> None:
    assert get_args(EntityKind) == ENTITY_KINDS
    assert get_args(WingKind) == WING_KINDS
