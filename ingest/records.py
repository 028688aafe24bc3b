"""The records the ingest package exchanges with its callers (the public contract)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ingest.extraction import Extractor
from loci.db import Database
from loci.embedder import Embedder
from loci.llm import LLMClient
from loci.settings import Settings

__all__ = ["ConversationRef", "MiningDeps", "MiningResult", "TurnIn"]


@dataclass(frozen=True, slots=True)
class TurnIn:
    """One message as a caller sends it; ``created_at`` None means now.

    ``name`` tells the speakers of one role apart, as the OpenAI message's ``name`` does:
    ``user`` "Sam" (the account owner) and ``other`` "Priya" in a chat between two people."""

    role: str
    content: str
    created_at: datetime | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class ConversationRef:
    id: int
    external_id: str
    user_id: int
    status: str
    turn_count: int
    """The live turns: a trashed one is not among the conversation's turns, nor counted."""
    mined_seq: int
    mining_error: str | None = None
    """Why mining last failed (`domain.mining_failures`); None once it succeeds or new turns arrive."""
    mining_failed_at: datetime | None = None
    """When mining failed for a reason retrying cannot fix; the sweep skips it until this is cleared."""
    stored: bool = True
    """Whether the call that answered it wrote anything (a new conversation or new turns); False
    for a re-send of what is stored, which the API answers 200 instead of 201."""
    last_seq: int = 0
    """The highest seq stored, trashed turns included: what mining must reach. Not
    ``turn_count`` (live turns only, and seqs are never reused after a purge), so a mining
    job's id and "is anything unmined" use this."""


@dataclass(frozen=True, slots=True)
class MiningDeps:
    db: Database
    embedder: Embedder
    settings: Settings
    llm: LLMClient | None = None
    extractor: Extractor | None = None
    """Mine with this extractor instead of the configured one (`ingest.extractors`)."""


@dataclass(frozen=True, slots=True)
class MiningResult:
    conversation_id: int
    turns_mined: int
    drawers: int
    entities: int
    relations: int
    windows: int
    extractor: str
    duration_s: float
    fallback_count: int = 0
    """How many times the LLM path fell back to the offline one (a window's extraction or
    memories, the archive summary); each is listed in the ``memory_mined`` event's ``fallbacks``."""
    first_fallback: str | None = None
    """The first of them, where and why (``window 0: endpoint unavailable: …``): a job that
    reports ``extractor: offline`` says here whether the LLM was configured and failed."""
