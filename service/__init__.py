"""The HTTP service, workers and CLI: wires `ingest` and `retrieval` to the outside world."""
