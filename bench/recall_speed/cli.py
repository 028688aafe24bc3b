"""The command line: per size, load (or reuse) a palace and measure recall on it."""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg

from bench import stopping
from bench.cli_args import at_least_one, counts
from bench.recall_speed.corpus import Pool, build_pool, questions, two_clause_questions, user_sizes
from bench.recall_speed.load import load_corpus
from bench.recall_speed.measure import measure

__all__ = ["FRESH_SEED_OFFSET", "main"]

FRESH_SEED_OFFSET = 1000
"""The concurrent pass's questions come from this far along the seed: other questions of
the same users, not a replay of the sequential pass's."""


def _loaded(url: str, size: int) -> bool:
    """A database this script already filled with ``size`` drawers and indexed."""
    try:
        with psycopg.connect(url) as conn:
            count = conn.execute("SELECT count(*) FROM drawers").fetchone()
            index = conn.execute("SELECT 1 FROM pg_indexes WHERE indexname = 'ix_drawers_embedding_hnsw'").fetchone()
    except psycopg.Error:
        return False
    return count is not None and int(count[0]) == size and index is not None


def run_size(base_url: str, size: int, pool: Pool, args: argparse.Namespace) -> None:
    from urllib.parse import urlsplit, urlunsplit

    from loci import migrate

    name = f"loci_speed_{size}"
    parts = urlsplit(base_url)
    url = urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))
    print(f"== {size:,} drawers ==", flush=True)
    if args.reuse and _loaded(url, size):
        users = dict(enumerate(user_sizes(size, random.Random(args.seed)), start=1))  # as load_corpus drew them
        print(f"  reusing {name} (same seed, so the same corpus)", flush=True)
        migrate.upgrade(url)  # a palace loaded by an older commit gets the newer migrations
    else:
        with psycopg.connect(base_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
        migrate.upgrade(url)
        roles = frozenset(args.embed_roles.split(","))
        users = load_corpus(url, size, pool, args.seed, roles, args.sentence_vectors)
    sizes = sorted(users.values())
    print(f"  users={len(users)} drawers/user median={sizes[len(sizes) // 2]} max={sizes[-1]}", flush=True)
    qs = questions(pool, args.queries, users, args.seed)
    clause_qs = two_clause_questions(qs, args.seed)
    concurrent_qs = questions(pool, args.queries, users, args.seed + FRESH_SEED_OFFSET)
    stopping.run(measure(url, (qs, clause_qs, concurrent_qs), args.concurrency, users, args.redis_url))


@contextlib.contextmanager
def _embedded(tmp: Path) -> Iterator[tuple[str, str]]:
    from loci.runtime import EmbeddedServices

    services = EmbeddedServices(tmp, ephemeral=True)
    urls = services.start()
    try:
        yield urls.database_url, urls.redis_url
    finally:
        services.stop()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Recall latency at scale on synthetic palaces (prints figures).")
    parser.add_argument(
        "--sizes", type=counts, default="10000,100000", help="comma-separated drawer counts (e.g. 1000000)"
    )
    parser.add_argument("--queries", type=at_least_one, default=300)
    parser.add_argument("--concurrency", type=at_least_one, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--embed-roles",
        default=None,
        help="roles whose drawers get a vector (default: LOCI_MINING_EMBED_ROLES, i.e. what mining stores)",
    )
    parser.add_argument(
        "--sentence-vectors",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="give multi-sentence drawers a vector per sentence (default: LOCI_MINING_SENTENCE_VECTORS)",
    )
    parser.add_argument("--database-url", default=None, help="a Postgres superuser URL; default: embedded")
    parser.add_argument(
        "--redis-url",
        default=None,
        help="Valkey for the conversation-cache pass (embedded runs use their own); none skips the pass",
    )
    parser.add_argument(
        "--reuse", action="store_true", help="with --database-url: measure an already loaded loci_speed_<size> again"
    )
    return parser


def main() -> int:
    """Figures on stdout; Ctrl-C or SIGTERM stops it (and its embedded servers) with 130 / 143."""
    args = _parser().parse_args()
    try:
        with stopping.stop_on_signals():
            _measure_sizes(args)
    except stopping.Interrupted as e:
        print("interrupted", file=sys.stderr)
        return e.exit_code
    return 0


def _measure_sizes(args: argparse.Namespace) -> None:
    if args.embed_roles is None or args.sentence_vectors is None:
        from loci.settings import load_settings

        mining = load_settings().mining
        args.embed_roles = args.embed_roles or ",".join(mining.embed_roles)
        args.sentence_vectors = mining.sentence_vectors if args.sentence_vectors is None else args.sentence_vectors
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    t0 = time.perf_counter()
    pool = build_pool(1500, args.seed)
    print(f"embedded the 1,500-sentence pool in {time.perf_counter() - t0:.1f}s", flush=True)
    sizes: list[int] = args.sizes
    if args.database_url:
        for size in sizes:
            run_size(args.database_url, size, pool, args)
        return
    with tempfile.TemporaryDirectory(prefix="loci-speed-") as tmp:
        os.chmod(tmp, 0o755)
        with _embedded(Path(tmp)) as (url, redis_url):
            args.redis_url = args.redis_url or redis_url
            for size in sizes:
                run_size(url, size, pool, args)
