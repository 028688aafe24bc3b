"""Bulk-loading a synthetic palace: one user at a time into COPY buffers, then the HNSW
indexes built once at the end (much faster than maintaining them row by row)."""

from __future__ import annotations

import math
import random
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import psycopg

from bench.recall_speed.corpus import ASSISTANT_TEMPLATES, FILLER, NAMES, Pool, user_sizes

__all__ = ["Loader", "load_corpus"]


def _vec(v: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.5f}" for x in v.tolist()) + "]"


def _copy_text(rows: list[tuple[Any, ...]]) -> bytes:
    def cell(v: Any) -> str:
        if v is None:
            return "\\N"
        s = v.isoformat() if isinstance(v, datetime) else str(v)
        return s.replace("\\", "\\\\").replace("\t", " ").replace("\n", " ")

    return ("\n".join("\t".join(cell(v) for v in row) for row in rows) + "\n").encode()


class Loader:
    """Streams one synthetic user at a time into COPY buffers."""

    def __init__(
        self,
        pool: Pool,
        rng: random.Random,
        np_rng: np.random.Generator,
        embed_roles: frozenset[str],
        sentence_vectors: bool,
    ) -> None:
        self.pool, self.rng, self.np_rng = pool, rng, np_rng
        self.embed_roles = embed_roles
        self.sentence_vectors = sentence_vectors
        self.ids = {"wing": 0, "room": 0, "closet": 0, "drawer": 0, "entity": 0}
        self.tables: dict[str, list[tuple[Any, ...]]] = {}

    def _next(self, kind: str) -> int:
        self.ids[kind] += 1
        return self.ids[kind]

    def _add(self, table: str, row: tuple[Any, ...]) -> None:
        self.tables.setdefault(table, []).append(row)

    def user(self, uid: int, size: int, start: datetime) -> None:
        rng = self.rng
        self._add("users", (uid, f"bench-{uid}"))
        wing = self._next("wing")
        self._add("wings", (wing, uid, 1, "topic", "general", "general"))
        entities = {n: self._next("entity") for n in rng.sample(NAMES, 6)}
        for name, eid in entities.items():
            self._add("entities", (eid, uid, "p", name, name.lower(), rng.randint(1, 40)))
        idx = self.np_rng.integers(0, len(self.pool.sentences), size)
        noise = self.np_rng.normal(0, 0.025, (size, self.pool.vectors.shape[1])).astype(np.float32)
        vecs = self.pool.vectors[idx] + noise
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        at = start
        room_seq = room = closet = 0
        seq = turns_left = 0
        for i in range(size):
            if turns_left == 0:
                room_seq += 1
                room, closet, seq, turns_left = self._next("room"), self._next("closet"), 0, rng.randint(6, 30)
                at += timedelta(hours=rng.uniform(5, 72))
                self._add("rooms", (room, uid, wing, room_seq, f"chat {room_seq}", at, at + timedelta(hours=1)))
                self._add("closets", (closet, uid, room, "chat", "chat"))
            seq += 1
            turns_left -= 1
            at += timedelta(minutes=rng.uniform(0.5, 5))
            slots = self.pool.slots[int(idx[i])]
            role = "user" if seq % 2 else "assistant"
            if role == "user":
                content = self.pool.sentences[int(idx[i])] + " " + " ".join(rng.sample(FILLER, rng.randint(0, 2)))
            else:
                body = rng.choice(ASSISTANT_TEMPLATES).format(**slots)
                content = body + " ".join(rng.choice(FILLER) for _ in range(rng.randint(2, 12)))
            drawer = self._next("drawer")
            aaak = f"§ W-001/R-{room_seq:02d}/D-{seq:03d}"
            vector = _vec(vecs[i]) if role in self.embed_roles else None  # as mining stores it
            self._add("drawers", (drawer, uid, wing, room, closet, seq, role, content, aaak, at, "x", vector))
            if vector is not None and self.sentence_vectors:
                self._sentences(uid, drawer, content, vecs[i])
            if slots["n"] in entities and role == "user":
                self._add("drawer_entities", (drawer, entities[slots["n"]], uid))

    def _sentences(self, uid: int, drawer: int, content: str, vector: np.ndarray) -> None:
        """As mining stores them: one row per `sentence_pieces` piece. The topic sentence's
        vector is near the drawer's, a filler's near that filler's real embedding."""
        from ingest import sentence_pieces

        for position, piece in enumerate(sentence_pieces(content)):
            base = self.pool.filler_vectors.get(piece, vector)
            v = base + self.np_rng.normal(0, 0.025, base.shape).astype(np.float32)
            self._add("drawer_sentences", (drawer, position, uid, _vec(v / np.linalg.norm(v))))

    def flush(self, conn: psycopg.Connection[Any]) -> None:
        columns = {
            "users": "id, name",
            "wings": "id, user_id, seq, kind, name, slug",
            "entities": "id, user_id, kind, name, slug, mention_count",
            "rooms": "id, user_id, wing_id, seq, label, started_at, ended_at",
            "closets": "id, user_id, room_id, topic, slug",
            "drawers": "id, user_id, wing_id, room_id, closet_id, seq, role, content, aaak, occurred_at, "
            "content_hash, embedding",
            "drawer_entities": "drawer_id, entity_id, user_id",
            "drawer_sentences": "drawer_id, position, user_id, embedding",
        }
        with conn.cursor() as cur:
            for table, cols in columns.items():
                rows = self.tables.get(table)
                if rows:
                    with cur.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
                        copy.write(_copy_text(rows))
        conn.commit()
        self.tables.clear()


def load_corpus(
    url: str, total: int, pool: Pool, seed: int, embed_roles: frozenset[str], sentence_vectors: bool
) -> dict[int, int]:
    rng, np_rng = random.Random(seed), np.random.default_rng(seed)
    sizes = user_sizes(total, rng)
    loader = Loader(pool, rng, np_rng, embed_roles, sentence_vectors)
    start = datetime(2023, 1, 1, tzinfo=UTC)
    t0 = time.perf_counter()
    with psycopg.connect(url) as conn:
        conn.execute("DROP INDEX IF EXISTS ix_drawers_embedding_hnsw")
        conn.execute("DROP INDEX IF EXISTS ix_drawer_sentences_embedding_hnsw")
        conn.commit()
        buffered = 0
        for uid, size in enumerate(sizes, start=1):
            loader.user(uid, size, start)
            buffered += size
            if buffered >= 20_000:
                loader.flush(conn)
                buffered = 0
        loader.flush(conn)
        for table in ("users", "wings", "entities", "rooms", "closets", "drawers"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        conn.commit()
        row = conn.execute("SELECT count(*) FROM drawer_sentences").fetchone()
        sentences = int(row[0]) if row else 0
        print(
            f"  loaded {total} drawers ({sentences} sentence vectors) for {len(sizes)} users in "
            f"{time.perf_counter() - t0:.1f}s",
            flush=True,
        )
        t1 = time.perf_counter()
        # The build slows several-fold once the graph outgrows maintenance_work_mem: ~2 KB per
        # 384-dim row with m=16, so 1M rows need ~2 GB (this machine has 24 GB).
        conn.execute(f"SET maintenance_work_mem = '{max(1, math.ceil(total * 2.5 / 1e6))}GB'")
        conn.execute("SET max_parallel_maintenance_workers = 1")
        for index, table in (
            ("ix_drawers_embedding_hnsw", "drawers"),
            ("ix_drawer_sentences_embedding_hnsw", "drawer_sentences"),
        ):
            conn.execute(
                f"CREATE INDEX {index} ON {table} USING hnsw (embedding vector_cosine_ops) "
                "WITH (m = 16, ef_construction = 64)"
            )
            conn.commit()
        print(f"  HNSW index built in {time.perf_counter() - t1:.1f}s", flush=True)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")
    return dict(enumerate(sizes, start=1))
