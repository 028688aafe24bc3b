"""After a run: one ``memory_mined`` activity event and the ``usage_costs`` rows.

Both are written in their own transaction once the windows are committed, so a crash
mid-run records nothing for the windows a re-run will mine again.
"""

from __future__ import annotations

from typing import Any

from ingest.embed import EmbedOutcome
from ingest.plan import MinedConversation, MiningTotals
from ingest.records import MiningDeps, MiningResult
from loci.llm import ChatResult, usd_cost
from loci.models import Activity, UsageCost

__all__ = ["record_run"]


async def record_run(
    deps: MiningDeps, conv: MinedConversation, result: MiningResult, totals: MiningTotals, embedded: EmbedOutcome
) -> None:
    """The run's activity event, its embedding cost and one extraction cost row per model."""
    ref = {"conversation_id": conv.id, "external_id": conv.external_id}
    async with deps.db.user_session(conv.user_id) as s:
        s.add(Activity(user_id=conv.user_id, type="memory_mined", payload=_payload(ref, result, totals, embedded)))
        if embedded.tokens:
            model = deps.embedder.model_name
            price = deps.settings.llm.prices.get(model)
            s.add(
                UsageCost(
                    user_id=conv.user_id, source="memory_embed", model=model, tokens_in=embedded.tokens,
                    cost=usd_cost(price, embedded.tokens, 0), ref=ref,
                )
            )  # fmt: skip
        by_model: dict[str, list[ChatResult]] = {}
        for call in totals.calls:
            by_model.setdefault(call.model, []).append(call)
        for model, calls in by_model.items():
            costs = [c.cost for c in calls]
            s.add(
                UsageCost(
                    user_id=conv.user_id, source="memory_extract", model=model,
                    tokens_in=sum(c.prompt_tokens for c in calls), tokens_out=sum(c.completion_tokens for c in calls),
                    cost=None if any(c is None for c in costs) else sum(c or 0.0 for c in costs), ref=ref,
                )
            )  # fmt: skip


def _payload(ref: dict[str, Any], result: MiningResult, totals: MiningTotals, embedded: EmbedOutcome) -> dict[str, Any]:
    return {
        **ref,
        "turns": result.turns_mined,
        "drawers": result.drawers,
        "entities": result.entities,
        "relations": result.relations,
        "windows": result.windows,
        "extractor": result.extractor,
        "fallbacks": totals.fallbacks,
        "memories": totals.memories.as_dict(),
        "archive": totals.archive,
        "embedding_error": embedded.error,
        "embeddings_cached": embedded.cached,
        "duration_s": round(result.duration_s, 3),
        "seconds": {k: round(v, 4) for k, v in totals.seconds.items()},
        "embedded_tokens": embedded.tokens,
    }
