"""The command line: load a palace and memories, then time recall with and without
memories in process and the memory API over HTTP against a real `loci serve`."""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import psycopg

from bench import stopping
from bench.cli_args import at_least_one
from bench.memory_speed.corpus import build_memory_pool
from bench.memory_speed.http import measure_api, serving
from bench.memory_speed.load import load_memories
from bench.memory_speed.query import measure_query
from bench.memory_speed.recall import compare_recall
from bench.recall_speed.cli import _embedded
from bench.recall_speed.corpus import build_pool, questions
from bench.recall_speed.load import load_corpus

__all__ = ["main"]

DATABASE = "loci_memory_speed"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Memory API and recall latency with many memories (prints figures).")
    parser.add_argument("--memories", type=at_least_one, default=100_000, help="memories across all users")
    parser.add_argument(
        "--users", type=at_least_one, default=1_000, help="users holding them (the palace's users among them)"
    )
    parser.add_argument("--drawers", type=at_least_one, default=10_000, help="palace drawers for the recall comparison")
    parser.add_argument("--ops", type=at_least_one, default=300, help="saves (then updates, forgets) and context calls")
    parser.add_argument("--queries", type=at_least_one, default=200, help="recalls with and without memories")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--only", choices=("all", "query"), default="all", help="query: time only POST /v1/memory/query (issue 19)"
    )
    parser.add_argument("--database-url", default=None, help="a Postgres superuser URL; default: embedded")
    return parser


def _add_users(url: str, first: int, last: int) -> None:
    with psycopg.connect(url) as conn, conn.cursor() as cur:
        with cur.copy("COPY users (id, name) FROM STDIN") as copy:
            for uid in range(first, last + 1):
                copy.write_row((uid, f"bench-{uid}"))
        cur.execute("SELECT setval(pg_get_serial_sequence('users', 'id'), (SELECT max(id) FROM users))")
        conn.commit()


def _run(base_url: str, args: argparse.Namespace, data_dir: Path) -> None:
    from urllib.parse import urlsplit, urlunsplit

    from loci import migrate

    parts = urlsplit(base_url)
    url = urlunsplit((parts.scheme, parts.netloc, f"/{DATABASE}", parts.query, parts.fragment))
    with psycopg.connect(base_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DATABASE}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{DATABASE}"')
    migrate.upgrade(url)
    t0 = time.perf_counter()
    pool = build_pool(1500, args.seed)
    memory_pool = build_memory_pool(3000, args.seed)
    print(f"embedded the sentence pools in {time.perf_counter() - t0:.1f}s", flush=True)
    palace = load_corpus(url, args.drawers, pool, args.seed, frozenset({"user"}), True)
    users = list(palace)
    if args.users > len(users):
        _add_users(url, len(users) + 1, args.users)
        users = list(range(1, args.users + 1))
    counts = load_memories(url, args.memories, users, memory_pool, args.seed)
    print(f"  memories per user: median={sorted(counts.values())[len(counts) // 2]} max={max(counts.values())}")
    qs = questions(pool, args.queries, palace, args.seed)
    if args.only == "all":
        stopping.run(compare_recall(url, qs))
    sample = random.Random(args.seed).sample(users, min(20, len(users)))
    with serving(url, data_dir) as (base, admin_key):
        measure_query(base, admin_key, qs)
        if args.only == "all":
            measure_api(base, admin_key, sample, args.ops)


def main() -> int:
    """Figures on stdout; Ctrl-C or SIGTERM stops it (and its servers) with 130 / 143."""
    args = _parser().parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        with stopping.stop_on_signals(), tempfile.TemporaryDirectory(prefix="loci-memory-speed-") as tmp:
            os.chmod(tmp, 0o755)
            if args.database_url:
                _run(args.database_url, args, Path(tmp) / "serve")
            else:
                with _embedded(Path(tmp) / "pg") as (url, _redis):
                    _run(url, args, Path(tmp) / "serve")
    except stopping.Interrupted as e:
        print("interrupted", file=sys.stderr)
        return e.exit_code
    return 0
