"""Explicit memories at scale: save, update and forget over HTTP against a real `loci
serve`, the session-start block, and what searching memories adds to recall, with
100k memories across 1,000 users (`python -m bench.memory_speed`)."""
