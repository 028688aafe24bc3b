"""LongMemEval harness: dataset loading, metrics, prompts, reports, manifests, download.

Only the light, database-free core is re-exported here; `report` (matplotlib)
and `download` (httpx, rich) are imported from their modules when needed.
"""

from bench.longmemeval.dataset import DatasetError, Question, Session, Turn, load_questions, turn_id
from bench.longmemeval.metrics import (
    Convention,
    Evaluation,
    Gold,
    Level,
    QuestionRanking,
    evaluate,
    gold_for,
)

__all__ = [
    "Convention",
    "DatasetError",
    "Evaluation",
    "Gold",
    "Level",
    "Question",
    "QuestionRanking",
    "Session",
    "Turn",
    "evaluate",
    "gold_for",
    "load_questions",
    "turn_id",
]
