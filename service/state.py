"""What a running service holds: the database, the embedder, the queue, settings.

Built once in the app's lifespan (or a worker's start-up) from explicit settings and
handed to handlers through dependency injection, never imported as globals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from loci.db import Database
from loci.embedder import Embedder
from loci.settings import Settings

__all__ = ["AppState", "Caller"]


@dataclass(frozen=True, slots=True)
class Caller:
    """The one user a request acts as."""

    user_id: int


@dataclass
class AppState:
    settings: Settings
    db: Database
    embedder: Embedder
    queue: Any = None  # arq.ArqRedis once connected
    worker: Any = None  # in-process arq.Worker, when `serve` runs one
    extras: dict[str, Any] = field(default_factory=dict)
