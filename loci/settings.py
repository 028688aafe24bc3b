"""Settings, read once from the environment and an optional `.env`.

Grouped by concern so each package takes only the group it needs. Every group is a
pydantic-settings class with its own env prefix, which keeps variable names flat and
guessable (``LOCI_LLM_BASE_URL``) while the code stays grouped. Nothing is built at
import time: `load_settings()` is called by the CLI and by tests, and the result is
passed down explicitly.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

import platformdirs
from pydantic import AliasChoices, BaseModel, Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsError

from loci.errors import ConfigurationError
from loci.models._base import PERSON_ROLES
from loci.settings_base import BUDGET_TOKENS_MAX, BUDGET_TOKENS_MIN, group_config
from loci.settings_memory import (
    ARCHIVE_CATEGORY,
    CATEGORY_PATTERN,
    CONTENT_MAX_CHARS_MAX,
    DEFAULT_CATEGORY_REACH,
    DEFAULT_MEMORY_CATEGORIES,
    MemorySettings,
    Reach,
)

__all__ = [  # the memory group and its names live in `loci.settings_memory`, imported from here as before
    "AUTO_ONNX_THREADS_MAX",
    "AUTO_WORKER_PROCESSES_MAX",
    "BUDGET_TOKENS_MAX",
    "BUDGET_TOKENS_MIN",
    "CATEGORY_PATTERN",
    "CONTENT_MAX_CHARS_MAX",
    "DEFAULT_CATEGORY_REACH",
    "DEFAULT_MEMORY_CATEGORIES",
    "DatabaseSettings",
    "EmbeddingSettings",
    "LLMSettings",
    "MemorySettings",
    "MiningSettings",
    "QueueSettings",
    "Reach",
    "RetrievalSettings",
    "ServerSettings",
    "Settings",
    "load_settings",
    "onnx_threads_for",
]

BUNDLED_MODEL = "all-MiniLM-L6-v2"


_group = group_config


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
        # any name PostgreSQL takes quoted (63 bytes): no quote, no NUL, no space at either end
        pattern=r'^[^"\x00\s](?:[^"\x00]{0,61}[^"\x00\s])?$',
        description="Role the app switches to so row-level security applies (created by migrations).",
    )
    statement_timeout_ms: int = Field(default=30_000, ge=0, le=2_147_483_647)  # PostgreSQL refuses more (503s)


AUTO_WORKER_PROCESSES_MAX = 2
"""What ``LOCI_QUEUE_WORKER_PROCESSES=auto`` runs at most: mining's Python holds one GIL, so
one process used 1.3-1.4 of two cores and a second uses the rest; each loads its own model
(~0.3 GB at rest, ~1.4 GB at its peak), so more than two is an operator's choice, not a default."""


AUTO_ONNX_THREADS_MAX = 2
"""The most ONNX Runtime threads ``LOCI_EMBEDDING_ONNX_THREADS=auto`` gives one process's model
calls: the fixed default before ``auto``, so a process mining alone on 2 or more cores runs as it did."""


def onnx_threads_for(setting: int | Literal["auto"], cores: int, processes: int = 1) -> int:
    """The intra-op threads each of ``processes`` mining processes sharing ``cores`` gives ONNX
    Runtime: a number as set; ``auto`` an equal share of the cores, at least 1 and at most
    `AUTO_ONNX_THREADS_MAX`.

    Why share: two processes of two threads each on 2 cores (`loci serve`'s worker child,
    ``bench.mining_speed --processes 2``) keep four model threads busy on two cores, and each call
    then waits on a thread the other process's work preempted; one thread each spent ~8 % less CPU
    a mined turn, the same vectors (README, mining speed, 2026-11-30)."""
    if setting != "auto":
        return setting
    return max(1, min(AUTO_ONNX_THREADS_MAX, cores // max(processes, 1)))


def _usable_cores() -> int:
    """The cores this process may run on (its affinity; `service.machine_capacity` also reads a
    container's quota, for `loci serve`'s children)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def _number_or_auto(value: object, expected: str) -> object:
    """``auto`` in any case, a number as its digits; another word raises ``expected`` (the
    union's own message spoke only of an integer)."""
    if isinstance(value, str):
        word = value.strip()
        if word.lower() == "auto":
            return "auto"
        if not word.lstrip("+-").isdigit():
            raise ValueError(expected)
        return word
    return value


class QueueSettings(BaseSettings):
    model_config = _group("LOCI_QUEUE_")

    url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("REDIS_URL", "LOCI_REDIS_URL"),
        description="Redis/Valkey for arq; unset starts the embedded Valkey.",
    )
    worker_concurrency: int = Field(default=2, ge=1, le=64)
    worker_processes: Annotated[int, Field(ge=1, le=16)] | Literal["auto"] = Field(
        default="auto",
        description="worker processes `loci serve` runs: 1-16, or auto (one per core, at most "
        f"{AUTO_WORKER_PROCESSES_MAX}; README)",
    )
    job_timeout_s: int = Field(default=900, ge=10)
    sweep_every_minutes: int = Field(default=5, ge=1, le=60)

    @field_validator("worker_processes", mode="before")
    @classmethod
    def _number_or_auto(cls, value: object) -> object:
        return _number_or_auto(value, "should be a number of processes (1-16) or auto")


class ServerSettings(BaseSettings):
    model_config = _group("LOCI_")

    host: str = "127.0.0.1"
    port: int = Field(default=8420, ge=0, le=65535)
    data_dir: Path = Field(default_factory=lambda: Path(platformdirs.user_data_dir("loci")))
    admin_key: str | None = Field(default=None, min_length=16)
    max_body_bytes: int = Field(default=2_000_000, ge=1024)
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    run_worker: bool = Field(default=True, description="serve also runs one arq worker in-process")
    metrics_enabled: bool = Field(default=True, description="GET /metrics, for the admin key (README: Metrics)")


class EmbeddingSettings(BaseSettings):
    model_config = _group("LOCI_EMBEDDING_")

    model: str = Field(default=BUNDLED_MODEL, description="model name or local path")
    dim: int = Field(default=384, ge=8, le=4096)
    batch_size: int = Field(
        default=8,
        ge=1,
        le=4096,
        description="most texts per model call; a call also ends where padding its shorter texts would cost "
        "more than another call (loci.embedder.length_batches). With those cuts, 8, 16 and 32 cost the same CPU "
        "per token on this 2-core machine (2.9k tokens per CPU second on dev-split sessions); raise it on a GPU",
    )
    device: str = Field(
        default="cpu", pattern=r"^(cpu|mps|(cuda|xpu|hpu|npu|xla|mtia)(:[0-9]+)?)$"
    )  # "gpu" failed in torch, at start
    max_seq_tokens: int = Field(default=256, ge=16, le=8192)
    runtime: Literal["onnxruntime", "torch"] = Field(
        default="onnxruntime",
        description="what runs the model, for mining's batches and recall's queries alike: an ONNX Runtime "
        "export of the loaded model's own weights (checked against torch once, at export, the check recorded "
        "beside the graph; torch if anything fails) or torch itself. Measured on this 2-core CPU: 6 vs 10-14 ms "
        "per query, 1.4-8x faster per mined text (the shorter, the larger the gain). CPU only: else torch runs",
    )
    onnx_threads: Annotated[int, Field(ge=1, le=64)] | Literal["auto"] = Field(
        default="auto",
        description="ONNX Runtime intra-op threads per call: 1-64, or auto (the cores shared by the mining "
        f"processes, at most {AUTO_ONNX_THREADS_MAX}: `onnx_threads_for`)",
    )
    onnx_cache_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_cache_dir("loci")) / "onnx",
        description="where the exported graph is cached, keyed by model path and weights hash",
    )
    cache_retention_hours: int = Field(
        default=24,
        ge=0,
        le=24 * 366,
        description="the hourly job drops embedding_cache rows older than this (ingest.embed.drop_stale_cache): "
        "a purged drawer's own text leaves the cache at once (migration 0037), its sentences' vectors only so; "
        "0 keeps them forever",
    )

    @field_validator("onnx_threads", mode="before")
    @classmethod
    def _threads_or_auto(cls, value: object) -> object:
        return _number_or_auto(value, "should be a number of threads (1-64) or auto")

    def intra_op_threads(self) -> int:
        """`onnx_threads` for this process: ``auto`` as for a process mining alone on the cores it
        may use. Where several share the cores, their launcher sets a number (`onnx_threads_for`)."""
        return onnx_threads_for(self.onnx_threads, _usable_cores())


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


class RetrievalSettings(BaseSettings):
    model_config = _group("LOCI_RETRIEVAL_")

    preset: str = "hybrid"
    rerank_timeout_s: float = Field(default=8.0, gt=0, le=120)
    budget_tokens: int = Field(default=1500, ge=BUDGET_TOKENS_MIN, le=BUDGET_TOKENS_MAX)
    cache_ttl_s: float = Field(default=300.0, ge=0, le=3600)  # recall cache; 0: off (generations.CACHE_TTL_MAX_S)
    log_retention_days: int = Field(
        default=7,
        ge=0,
        le=366,
        description="days a recall's retrieval_logs row (its message, results and notes) is kept; the hourly job "
        "drops older ones (retrieval.log_queue.drop_old_recall_logs); 0 writes none",
    )


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
            said = first["msg"].removeprefix("Value error, ")  # pydantic's label for our validators' words
            raise ConfigurationError(f"invalid setting {_env_name(group, field)}: {said}") from e
        except SettingsError as e:  # a value that is not even parseable (e.g. bad JSON)
            match = re.search(r'field "(\w+)"', str(e))
            field = match.group(1) if match else "?"
            raise ConfigurationError(f"invalid setting {_env_name(group, field)}: cannot parse the value") from e
    settings = Settings(**built)
    _check_archive_category(settings)
    return settings


def _check_archive_category(settings: Settings) -> None:
    """Refuse a category list without the archive's while mining files archive summaries.

    Why: leaving ``summary`` out of LOCI_MEMORY_CATEGORIES was accepted and changed nothing:
    mining went on filing every conversation's summary under it, a category the rest of Loci
    then refused (an export of those memories did not import; no agent's allowlist could name
    them). LOCI_MINING_ARCHIVE=false is the way to file none."""
    mining = settings.mining
    if mining.archive and mining.extract_memories and ARCHIVE_CATEGORY not in settings.memory.categories:
        raise ConfigurationError(
            f"invalid setting LOCI_MEMORY_CATEGORIES: it has no {ARCHIVE_CATEGORY!r}, the category of the "
            "conversation summaries mining files (LOCI_MINING_ARCHIVE is on); add it, or set LOCI_MINING_ARCHIVE=false"
        )
