"""Settings, read once from the environment and an optional `.env`.

Grouped by concern so each package takes only the group it needs. Every group is a
pydantic-settings class with its own env prefix, which keeps variable names flat and
guessable (``LOCI_LLM_BASE_URL``) while the code stays grouped. Nothing is built at
import time: `load_settings()` is called by the CLI and by tests, and the result is
passed down explicitly.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
from pydantic import AliasChoices, BaseModel, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict, SettingsError

from loci.errors import ConfigurationError
from loci.models._base import PERSON_ROLES
from loci.sensitive_fields import field_names

__all__ = [
    "BUDGET_TOKENS_MAX",
    "BUDGET_TOKENS_MIN",
    "CONTENT_MAX_CHARS_MAX",
    "DatabaseSettings",
    "EmbeddingSettings",
    "LLMSettings",
    "MemorySettings",
    "MiningSettings",
    "QueueSettings",
    "RetrievalSettings",
    "ServerSettings",
    "Settings",
    "load_settings",
]

BUNDLED_MODEL = "all-MiniLM-L6-v2"


def _group(p: str) -> SettingsConfigDict:  # no nan/inf: "nan" was told "should be <= 600", "inf" passed unbounded
    return SettingsConfigDict(env_prefix=p, env_file=".env", extra="ignore", populate_by_name=True, allow_inf_nan=False)


class DatabaseSettings(BaseSettings):
    model_config = _group("LOCI_DB_")

    url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("DATABASE_URL", "LOCI_DATABASE_URL"),
        description="Postgres >= 14 with pgvector; unset starts the embedded PostgreSQL 18.",
    )
    pool_size: int = Field(default=10, ge=1, le=200)
    app_role: str = Field(
        default="loci_app",  # a name: it is put into `SET ROLE "..."` on every connection (loci.db)
        pattern=r"^[a-z_][a-z0-9_]{0,62}$",
        description="Role the app switches to so row-level security applies (created by migrations).",
    )
    statement_timeout_ms: int = Field(default=30_000, ge=0, le=2_147_483_647)  # PostgreSQL refuses more (503s)


class QueueSettings(BaseSettings):
    model_config = _group("LOCI_QUEUE_")

    url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("REDIS_URL", "LOCI_REDIS_URL"),
        description="Redis/Valkey for arq; unset starts the embedded Valkey.",
    )
    worker_concurrency: int = Field(default=2, ge=1, le=64)
    worker_processes: int = Field(default=1, ge=1, le=16, description="worker processes `loci serve` runs (README)")
    job_timeout_s: int = Field(default=900, ge=10)
    sweep_every_minutes: int = Field(default=5, ge=1, le=60)


class ServerSettings(BaseSettings):
    model_config = _group("LOCI_")

    host: str = "127.0.0.1"
    port: int = Field(default=8420, ge=0, le=65535)
    data_dir: Path = Field(default_factory=lambda: Path(platformdirs.user_data_dir("loci")))
    admin_key: str | None = Field(default=None, min_length=16)
    max_body_bytes: int = Field(default=2_000_000, ge=1024)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    run_worker: bool = Field(default=True, description="serve also runs one arq worker in-process")


class EmbeddingSettings(BaseSettings):
    model_config = _group("LOCI_EMBEDDING_")

    model: str = Field(default=BUNDLED_MODEL, description="model name or local path")
    dim: int = Field(default=384, ge=8, le=4096)
    batch_size: int = Field(
        default=8,
        ge=1,
        le=4096,
        description="most texts per model call; a call also ends where token lengths drop (loci.embedder."
        "length_batches), so little of it is padding. With that cut, 8, 16 and 32 cost the same CPU per token "
        "on this 2-core machine (2.9k tokens per CPU second on dev-split sessions); raise it on a GPU",
    )
    device: str = Field(default="cpu", pattern=r"^(cpu|mps|(cuda|xpu)(:[0-9]+)?)$")  # "gpu" failed in torch, at start
    max_seq_tokens: int = Field(default=256, ge=16, le=8192)
    runtime: Literal["onnxruntime", "torch"] = Field(
        default="onnxruntime",
        description="what runs the model, for mining's batches and recall's queries alike: an ONNX Runtime "
        "export of the loaded model's own weights (checked against torch once, at export, the check recorded "
        "beside the graph; torch if anything fails) or torch itself. Measured on this 2-core CPU: 6 vs 10-14 ms "
        "per query, 1.4-8x faster per mined text (the shorter, the larger the gain). CPU only: else torch runs",
    )
    onnx_threads: int = Field(default=2, ge=1, le=64, description="ONNX Runtime intra-op threads per call")
    onnx_cache_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_cache_dir("loci")) / "onnx",
        description="where the exported graph is cached, keyed by model path and weights hash",
    )


class LLMSettings(BaseSettings):
    model_config = _group("LOCI_LLM_")

    base_url: str | None = Field(default=None, description="OpenAI-compatible endpoint, e.g. http://host/v1")
    api_key: str | None = None
    extract_model: str = Field(default="gpt-4o-mini", pattern=r"\S")  # empty: every call 4xx; refused at start
    rerank_model: str = Field(default="gpt-4o-mini", pattern=r"\S")
    qa_model: str = Field(default="gpt-4o-mini", pattern=r"\S")
    judge_model: str = Field(default="gpt-4o", pattern=r"\S")
    timeout_s: float = Field(default=20.0, gt=0, le=600)
    retry_after_max_s: float = Field(default=10.0, ge=0, le=600)  # a 429's Retry-After waits, in all (llm_retry)
    prices: dict[str, tuple[float, float]] = Field(default_factory=dict)  # JSON {model: [usd per 1M in, out]}

    @field_validator("base_url")
    @classmethod
    def _http_only(cls, value: str | None) -> str | None:
        if value is not None and not (value.startswith(("http://", "https://")) and value.split("/")[2]):
            raise ValueError("must be http:// or https:// and a host, e.g. http://localhost:11434/v1")
        return value.rstrip("/") if value else value


class MiningSettings(BaseSettings):
    model_config = _group("LOCI_MINING_")

    extractor: Literal["offline", "llm"] = "offline"
    window_turns: int = Field(default=8, ge=2, le=32)
    max_turn_chars: int = Field(default=100_000, ge=100)
    max_turns_per_request: int = Field(default=2_000, ge=1)
    embed_roles: Annotated[tuple[Literal["user", "other", "assistant", "system", "tool"], ...], NoDecode] = Field(
        default=PERSON_ROLES,
        description="roles whose drawers get a vector; the others are found by keyword, time and room "
        "pooling. The default embeds every turn a person wrote (the user and other people, `other`) and "
        "leaves the AI assistant's replies to those signals: they were 87% of the embedder's work on "
        "LongMemEval (bench/README.md); add 'assistant' to embed them too (the backfill job then embeds "
        "those already stored)",
    )
    sentence_vectors: bool = Field(
        default=True,
        description="also embed each sentence of an embedded multi-sentence drawer, so recall can match a "
        "memory stated in passing inside a longer message (LongMemEval dev: NDCG@10 0.939 -> 0.953, "
        "recall_all@5 0.908 -> 0.939; bench/README.md), for 2.4 more vectors per embedded drawer and an "
        "ingest about 1.5x as long there",
    )
    extract_memories: bool = Field(
        default=True,
        description="propose memories (stated facts, preferences, corrections) from the user's turns while "
        "mining and reconcile them with the saved ones; extracted memories never overwrite explicit ones",
    )
    archive: bool = Field(
        default=True,
        description="with extract_memories, also file a short summary of each mined conversation (what was "
        "discussed, decided, done) as an archive memory of category 'summary', written by the LLM when the "
        "extractor is 'llm', else from the turns that carry the decisions; re-mining updates it. Archive "
        "memories are recalled only for questions about the past or with a layer filter",
    )

    @field_validator("embed_roles", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value


BUDGET_TOKENS_MIN = 64
BUDGET_TOKENS_MAX = 32_000
"""Bounds of a memory context block's token budget, for the setting and per request."""


class RetrievalSettings(BaseSettings):
    model_config = _group("LOCI_RETRIEVAL_")

    preset: str = "hybrid"
    rerank_timeout_s: float = Field(default=8.0, gt=0, le=120)
    budget_tokens: int = Field(default=1500, ge=BUDGET_TOKENS_MIN, le=BUDGET_TOKENS_MAX)
    cache_ttl_s: float = Field(default=300.0, ge=0, le=3600)  # recall cache; 0: off (generations.CACHE_TTL_MAX_S)


DEFAULT_MEMORY_CATEGORIES = (
    "profile", "preference", "response_style", "fact", "goal", "relationship", "procedure", "insight", "summary",
)  # fmt: skip
"""``summary``: the archive summaries mining files for each conversation (`ingest.archive`)."""
Reach = Literal["recall", "agent"]
"""How far a category reaches when `MemorySettings.category_reach` names it: ``recall``
(recall and the scoped query find it, the session-start block never shows it) or
``agent`` (only `POST /v1/memory/query` and its MCP tool, for an agent whose allowlist
names the category; never the block nor ordinary recall). A category not named reaches
everywhere, as configured per agent."""
DEFAULT_CATEGORY_REACH: dict[str, Reach] = {"procedure": "agent", "insight": "recall"}
CATEGORY_PATTERN = r"^[a-z][a-z0-9_]{0,31}$"
CONTENT_MAX_CHARS_MAX = 5_000
"""The largest `content_max_chars` may be set to: the API schema states this bound, the setting a tighter one."""


class MemorySettings(BaseSettings):
    """Explicit memories (`domain.memories`) and the session-start block (`domain.memory_context`)."""

    model_config = _group("LOCI_MEMORY_")

    categories: Annotated[tuple[str, ...], NoDecode] = Field(
        default=DEFAULT_MEMORY_CATEGORIES,
        description="the categories a memory may have, comma-separated; a save naming another is a 400",
    )
    core_max_chars: int = Field(
        default=1000,
        ge=100,
        le=20_000,
        description="total characters of a user's core profile: it goes into every session-start block, "
        "so it stays small enough to be worth its tokens on every call",
    )
    content_max_chars: int = Field(
        default=500, ge=50, le=CONTENT_MAX_CHARS_MAX, description="one memory's content: one short line"
    )
    context_min_confidence: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="extracted memories below this confidence stay out of the session-start block "
        "(recall still finds them); explicit ones are always in",
    )
    context_budgets: dict[str, int] = Field(
        default_factory=lambda: {"profile": 300, "preference": 500, "response_style": 200, "fact": 500},
        description="token budget per category in the session-start block (JSON object); categories not "
        "named share what is left of context_tokens",
    )
    context_tokens: int = Field(default=1500, ge=BUDGET_TOKENS_MIN, le=BUDGET_TOKENS_MAX)
    duplicate_similarity: float = Field(
        default=0.9,
        gt=0,
        le=1,
        description="cosine similarity at which an extracted statement is the same as a saved memory "
        "(mining confirms it instead of adding it; consolidation merges extracted ones this close)",
    )
    decay_half_life_days: float = Field(
        default=180,
        gt=0,
        description="an unconfirmed extracted memory's confidence halves over this many days (explicit "
        "memories never decay); with the 0.8 a stated fact starts at, it leaves the session-start "
        "block after about five weeks and stays recallable",
    )
    decay_step: float = Field(
        default=0.05, gt=0, le=1, description="the smallest fall in confidence the daily job writes (and records)"
    )
    expire_after_days: int = Field(
        default=60,
        ge=1,
        description="extracted memories neither recalled nor confirmed for this long, of low importance and "
        "not pinned, move to the trash",
    )
    expire_max_importance: int = Field(default=2, ge=1, le=5, description="'low importance': at most this")
    trash_days: int = Field(
        default=30, ge=1, description="expired memories are purged (deleted for good) after this many days"
    )
    contextual_days: float = Field(
        default=7,
        gt=0,
        le=3650,
        description="a contextual memory leaves the block and recall this long after it "
        "was saved, then goes to the trash (`loci.memory_kinds`)",
    )
    temporary_days: float = Field(default=1, gt=0, le=3650, description="the same for a temporary memory")
    category_kinds: dict[str, Literal["durable", "contextual", "temporary"]] = Field(
        default_factory=dict,
        description="the kind a memory of a category gets when its writer names none and its text has no "
        'time cue (JSON object, e.g. {"goal": "contextual"}); a category not named is durable',
    )
    consolidate_max_per_user: int = Field(
        default=20, ge=0, description="merges the daily consolidation makes per user at most (0: off)"
    )
    category_reach: dict[str, Reach] = Field(
        default_factory=lambda: dict(DEFAULT_CATEGORY_REACH),
        description="JSON object: categories that never enter the session-start block, and how far they "
        "reach instead: 'recall' (recall and the scoped query) or 'agent' (only the scoped query and its "
        "MCP tool, for an agent whose access list names the category). The one place that says it",
    )
    step_categories: Annotated[tuple[str, ...], NoDecode] = Field(
        default=("procedure",),
        description="categories whose body is numbered steps: checked and renumbered on save ('1. ...')",
    )
    insights_per_day: int = Field(
        default=3, ge=0, le=3, description="insights the daily job may derive per user (LLM only; 0: off)"
    )
    insight_max_chars: int = Field(default=200, ge=20, le=500, description="one insight's length at most")
    insights_lookback_days: int = Field(
        default=7, ge=1, le=90, description="how far back the insight job reads a user's activity"
    )
    consent_fields: Annotated[tuple[str, ...], NoDecode] = Field(
        default=field_names(),
        description="sensitive profile fields (loci/sensitive_fields.py) whose changes mining proposes for the "
        "user's approval instead of writing, comma-separated; empty: mining writes them at once",
    )
    proposal_days: int = Field(
        default=7, ge=1, le=365, description="a proposal nobody approves or rejects lapses after this many days"
    )

    @field_validator("categories", "step_categories", "consent_fields", mode="before")
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("categories")
    @classmethod
    def _category_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        bad = [c for c in value if not re.match(CATEGORY_PATTERN, c)]
        if bad or not value:
            raise ValueError(f"categories must be lowercase names ([a-z][a-z0-9_]*, up to 32), got {bad or 'none'}")
        return value

    @property
    def agent_only_categories(self) -> frozenset[str]:
        """Categories only an agent that names them in its allowlist reaches, by the scoped query."""
        return frozenset(c for c, reach in self.category_reach.items() if reach == "agent")

    @property
    def unblocked_categories(self) -> frozenset[str]:
        """Categories the session-start block never shows (every one `category_reach` names)."""
        return frozenset(self.category_reach)

    @field_validator("consent_fields")
    @classmethod
    def _field_names(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [f for f in value if f not in field_names()]
        if unknown:
            raise ValueError(f"unknown sensitive fields {unknown}; known: {', '.join(field_names())}")
        return value


class Settings(BaseModel):
    """All groups together; construct through `load_settings` to get clear errors."""

    database: DatabaseSettings = Field(default_factory=DatabaseSettings)
    queue: QueueSettings = Field(default_factory=QueueSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    embedding: EmbeddingSettings = Field(default_factory=EmbeddingSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    mining: MiningSettings = Field(default_factory=MiningSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    memory: MemorySettings = Field(default_factory=MemorySettings)


_GROUPS: dict[str, type[BaseSettings]] = {
    "database": DatabaseSettings,
    "queue": QueueSettings,
    "server": ServerSettings,
    "embedding": EmbeddingSettings,
    "llm": LLMSettings,
    "mining": MiningSettings,
    "retrieval": RetrievalSettings,
    "memory": MemorySettings,
}


def _env_name(group: type[BaseSettings], field_name: str) -> str:
    field = group.model_fields.get(field_name)
    alias = field.validation_alias if field else None
    if isinstance(alias, AliasChoices) and alias.choices:
        return str(alias.choices[0])
    prefix = str(group.model_config.get("env_prefix", ""))
    return f"{prefix}{field_name}".upper()


def load_settings(**overrides: dict[str, Any]) -> Settings:
    """Build settings from env/.env plus per-group overrides (CLI flags).

    A bad value raises `ConfigurationError` with one line naming the variable, so
    start-up fails with something a person can act on instead of a traceback.
    """
    built: dict[str, BaseSettings] = {}
    for name, group in _GROUPS.items():
        try:
            built[name] = group(**overrides.get(name, {}))
        except ValidationError as e:
            first = e.errors()[0]
            field = str(first["loc"][0]) if first["loc"] else "?"
            raise ConfigurationError(f"invalid setting {_env_name(group, field)}: {first['msg']}") from e
        except SettingsError as e:  # a value that is not even parseable (e.g. bad JSON)
            match = re.search(r'field "(\w+)"', str(e))
            field = match.group(1) if match else "?"
            raise ConfigurationError(f"invalid setting {_env_name(group, field)}: cannot parse the value") from e
    return Settings(**built)
