"""Mining: finished conversations become palace rows, entities, relations and embeddings.

The public surface is the storage calls (`store_conversation`, `append_turns`,
`complete_conversation`) and `mine_conversation`; the service's routes and arq jobs use
only these, plus the graph read functions for the entity routes.
"""

from ingest.conversations import append_turns, complete_conversation, get_conversation, store_conversation
from ingest.pipeline import mine_conversation
from ingest.records import ConversationRef, MiningDeps, MiningResult, TurnIn

__all__ = [
    "ConversationRef",
    "MiningDeps",
    "MiningResult",
    "TurnIn",
    "append_turns",
    "complete_conversation",
    "get_conversation",
    "mine_conversation",
    "store_conversation",
]
