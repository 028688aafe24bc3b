"""Explicit memories at scale: save, update and forget over HTTP against a real `loci
serve`, the session-start block, and what searching memories adds to recall, with
100k memories across 1,000 users (`python -m bench.memory_speed`).

Last figures (2026-11-25, shared 2-core dev VM, load average 1.5–3.5, ``--ops 300``, main
before the one-message session opening and the embedding beside the write's first reads,
then after, run alternately), ms p50 / p95 over HTTP: save 17.5 / 25.7 and 21.6 / 25.5
before, 14.8 / 18.8 and 21.0 / 24.6 after; update 19.0 / 27.5 and 24.0 / 29.1 before,
14.9 / 18.6 and 20.7 / 25.7 after; forget 8.3 / 11.8 and 10.7 / 14.1 before, 8.5 / 12.3 and
8.3 / 10.7 after; context 5.8 / 10.0 and 8.8 / 12.1 before, 5.5 / 8.6 and 7.3 / 10.4 after.
Recall p95 with memories over without: +0.6 % and +13.2 % before, +7.6 % and +10.5 % after,
so issue 17's 10 % is still missed in some runs. The README's "Explicit memories" section has
the interleaved comparison and where the time goes.

`POST /v1/memory/query` (``--only query`` times just it, with recall interleaved as a
baseline): 2026-11-25, same VM at load average 8–14, bullets 81.7 / 129.2 ms p50 / p95 over
HTTP against recall's 101.3 / 161.2 beside it; issue 19's 50 ms p95 is not met at that load."""
