"""Recall latency at scale: synthetic palaces of 10k / 100k / 1M drawers (prints figures).

Not a timed test: run it by hand, e.g.::

    python -m bench.recall_speed --sizes 10000,100000 --queries 300

What it does, per size:

1. Starts an embedded PostgreSQL (or uses ``--database-url``), creates a fresh database,
   runs the real migrations, and drops the HNSW index so the load is not slowed by it.
2. Generates many users whose palace sizes follow a log-normal distribution (median
   ~400 drawers, clipped to 20..40,000) until the total is reached; texts are template
   sentences over a few hundred topics, names and places, with realistic lengths (user
   turns ~15-60 words, assistant turns ~60-250 words), so full-text statistics are not
   degenerate. Some drawers are linked to per-user entities for the preference signal.
3. Embeddings are made cheaply: a pool of 1,500 real sentences is embedded once with the
   real model, and each drawer gets its topic sentence's vector plus Gaussian noise
   (sigma 0.025 per dimension, cosine ~0.9 to the base), re-normalised. That keeps the
   clustered structure real embeddings have (random unit vectors would make HNSW look
   worse than it is) without embedding a million texts on two cores. Only the roles mining
   embeds get one (``--embed-roles``, default ``LOCI_MINING_EMBED_ROLES``: users' turns).
4. Bulk-loads with COPY (as the superuser, so RLS does not apply to the load), then
   builds the HNSW index with ``maintenance_work_mem`` sized to the graph (2.5 GB per
   million rows; the build is much slower once the graph no longer fits), and ANALYZEs.
5. Measures `retrieval.recall` end to end in process (query embedding, every signal,
   fusion, hydration, rendering, queueing the retrieval_logs row): sequentially, then with 8
   concurrent clients, and prints p50/p95/p99 overall and p50 per stage. The concurrent
   clients ask as many *other* questions (another seed, same users): re-asking the
   sequential pass's would find every rendered line's token count already remembered
   (`loci.embedder`), which a real stream of questions only partly does.
6. With a Valkey (the embedded one, or ``--redis-url``), a conversation-cache pass
   (`bench.recall_speed.cache_pass`): per conversation two questions asked 1 2 1 2 1, so three
   of five recalls should be hits; prints the hit rate and hit and miss latency with stages.
7. Prints ``EXPLAIN (ANALYZE, BUFFERS)`` for every SQL statement one recall ran, captured
   from the engine, so the plans are of exactly the production queries.

Timings on a shared 2-core machine are noisy; run when the machine is otherwise idle.
``--reuse`` with ``--database-url`` measures an already loaded ``loci_speed_<size>``
again (loading and indexing 1M drawers takes ~13 minutes here).

Measured 2026-11-23 on the 2-core dev VM (24 GB RAM), embedded PostgreSQL 18 with the
``shared_buffers`` it now gets (a quarter of memory), 200 queries, query embedding on ONNX
Runtime, vectors on users' turns only (the mining default), ms::

    drawers  users  max/user  sequential p50/p95/p99   8 clients p50/p95/p99   recalls/s
    10k        22     2,532     16.7 / 24.6 / 32.7      119 / 159 / 173          65.9
    100k      152     8,403     20.0 / 31.8 / 50.9      122 / 175 / 201          63.0
    1M      1,407    19,031     21.0 / 36.7 / 59.0      123 / 180 / 223          62.4

(``--sizes 10000,100000,1000000 --reuse --database-url …``; the 1M palace loads in 230 s
and its HNSW index is built separately.) Sequential latency by palace size at 1M: up to
1k drawers p50 19.9 / p95 26.1, 1k-2.5k 25.4 / 37.8, 2.5k-5k 38.7 / 59.0, 5k-10k ~55-62,
the 19k-drawer palace 80.

The same 1M palace before this round of changes gave 20.9 / 134.9 / 483.9 sequential, with
palaces of 2.5k-5k drawers at p50 218 ms. Two causes, both in the biggest palaces:

* keyword 150-300 ms: under row-level security ``@@`` is not leakproof, so Postgres read
  the palace backwards through ``(user_id, occurred_at)`` testing each row. Now the lookup
  goes through ``keyword_matches()`` (migration 0006), which can use ``ix_drawers_user_tsv``:
  4-33 ms on the same palaces;
* semantic 190-420 ms: palaces above 4,000 drawers went through HNSW, whose filtered walk
  visits ~``limit / share`` candidates for a user owning 0.5% of the graph. Now
  `retrieval.semantic.use_exact_search` compares that with an exact scan of the user's
  vectors (``ix_drawers_user_vectors``, migration 0007): 6-24 ms.

``jit=off`` on every connection moved p95 135 -> 112 before those; ``shared_buffers`` 128 MB
-> 4 GB took 8 clients from 47 to 69 recalls/s on the same code. With 8 clients the two
cores are saturated, so that latency is queueing.

Each run then still had one ~400 ms outlier: a full garbage collection walking the
millions of objects torch and transformers load. `loci.runtime.freeze_startup_heap` (which
the service and this script call after loading the model) removes it; at commit e682c6a,
1M: sequential 19.8 / 32.5 / 51.2 (the 19k-drawer palace 70), 8 clients 122 / 165 / 191,
63.7 recalls/s.

With sentence vectors (migration 0009; ``--sentence-vectors``, the mining default: each
`ingest.segment.sentence_pieces` piece of a user drawer gets its topic's or its filler's
vector plus noise, ~2 per user drawer here against 2.4 on LongMemEval), recall as of f800eb3:
10k 16.7 / 22.5 / 31.1, 100k 18.7 / 31.4 / 49.1, 1M 17.7 / 32.9 / 71.2 sequential (8 clients
105 / 151 / 204, 72.9 recalls/s). By palace size at 1M: up to 1k drawers p50 17.1, 1k-2.5k
23.5, 2.5k-5k 46.9, 5k-10k ~71-80, the 19k-drawer palace 116: the exact scan reads the
sentences too.

2026-11-27 evening, quiet, 100k, ``--reuse``, the concurrent pass on other questions than
the sequential one, 9b8debf and after alternately (three runs each): 8 clients 91.3, 91.5,
95.9 -> 108.5, 107.4, 110.4 recalls/s, p95 116-122 -> 105-111 ms; sequential unchanged
(p50 11.3-12.6, p95 17.0-20.1). From remembered token counts of long lines, log rows queued
instead of written in the transaction, the block rendered in a worker thread, and the
signals read through psycopg with the query vector formatted once (README, Recall).
"""

from bench.recall_speed.cli import main

__all__ = ["main"]
