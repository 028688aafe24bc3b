"""Mining: finished conversations become palace rows, entities, relations and embeddings.

This is the whole public surface; the service, the domain layer and the bench import
from ``ingest`` only, never from its stage modules:

* storage: `store_conversation`, `append_turns`, `complete_conversation`,
  `get_conversation`, `list_turns`;
* mining: `mine_conversation` with its `MiningDeps` and `MiningResult` (and `UserBeingMined`,
  a try that would wait for the user's other job); `EXTRACTORS`,
  the table of extractors the setting names, and the `Extractor` protocol; `describe_fallback`,
  one LLM fallback of a run's ``memory_mined`` event in words;
* the backfill jobs: `backfill_null_embeddings`, `backfill_sentence_vectors`; and
  `drop_stale_cache`, the hourly drop of cached vectors past their retention;
* the graph reads behind the entity routes: `search_entities`, `get_entity`, `timeline`,
  and what they count as still known (`live_entity`, `live_relation`, `effective_valid_to`),
  which the export and the purge share, and the turns that said a relation (`forget_sources`,
  for a purge; `live_sources`, those an export names; `add_sources` and `sources_from_first`,
  for an import), and `entities_of_drawers` + `refresh_entities`, which
  recount an entity's mentions and dates, and name it again (name, slug, aliases), from what is
  live when drawers are trashed, restored or purged, and `unify_entities`, which on a restore
  joins what came back to the entities mined meanwhile that mining would have made it;
* `extract_memory_candidates`, the offline extractor of durable memories (what people
  state about themselves), with the `MemoryCandidate` it returns and the `TurnView` it reads;
* `sentence_pieces`, the rule that decides which sentences of a drawer get a vector
  (a recall benchmark building a synthetic palace must follow it);
* `unconsented` and `withhold_turn`: what the user has not agreed to have remembered,
  and a turn without it (the insights job reads turns as the archive summary does);
* `ARCHIVE`, what a conversation's archive summary is filed as (its category: what an
  agent's access says about summaries).
"""

from ingest.archive import ARCHIVE
from ingest.consent_withhold import unconsented, withhold_turn
from ingest.conversations import (
    MAX_TITLE_CHARS,
    append_turns,
    complete_conversation,
    get_conversation,
    list_turns,
    store_conversation,
)
from ingest.embed import backfill_null_embeddings, backfill_sentence_vectors, drop_stale_cache
from ingest.entity_stats import entities_of_drawers, refresh_entities
from ingest.entity_unify import unify_entities
from ingest.extraction import Extractor, TurnView
from ingest.extractors import EXTRACTORS
from ingest.graph import EntityOut, RelationOut
from ingest.graph_liveness import effective_valid_to, live_entity, live_relation
from ingest.graph_reads import (
    MAX_ENTITY_OFFSET,
    MAX_ENTITY_PAGE,
    MAX_TIMELINE_PAGE,
    get_entity,
    search_entities,
    timeline,
)
from ingest.memory_candidates import MemoryCandidate, slot_tag
from ingest.memory_mining import embed_statements
from ingest.memory_reconcile import normalise
from ingest.memory_rules import extract_memory_candidates
from ingest.names import slugify
from ingest.pipeline import UserBeingMined, mine_conversation
from ingest.place import lock_user as lock_placements
from ingest.plan import describe_fallback
from ingest.predicates import canonical_predicate, is_multi_valued
from ingest.records import ConversationRef, MiningDeps, MiningResult, TurnIn
from ingest.relation_sources import add_sources, forget_sources, live_sources, sources_from_first
from ingest.segment import sentence_pieces

__all__ = [
    "ARCHIVE",
    "EXTRACTORS",
    "MAX_ENTITY_OFFSET",
    "MAX_ENTITY_PAGE",
    "MAX_TIMELINE_PAGE",
    "MAX_TITLE_CHARS",
    "ConversationRef",
    "EntityOut",
    "Extractor",
    "MemoryCandidate",
    "MiningDeps",
    "MiningResult",
    "RelationOut",
    "TurnIn",
    "TurnView",
    "UserBeingMined",
    "add_sources",
    "append_turns",
    "backfill_null_embeddings",
    "backfill_sentence_vectors",
    "canonical_predicate",
    "complete_conversation",
    "describe_fallback",
    "drop_stale_cache",
    "effective_valid_to",
    "embed_statements",
    "entities_of_drawers",
    "extract_memory_candidates",
    "forget_sources",
    "get_conversation",
    "get_entity",
    "is_multi_valued",
    "list_turns",
    "live_entity",
    "live_relation",
    "live_sources",
    "lock_placements",
    "mine_conversation",
    "normalise",
    "refresh_entities",
    "search_entities",
    "sentence_pieces",
    "slot_tag",
    "slugify",
    "sources_from_first",
    "store_conversation",
    "timeline",
    "unconsented",
    "unify_entities",
    "withhold_turn",
]
