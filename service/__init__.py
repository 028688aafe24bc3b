"""The adapters: HTTP routes, /memory pages, arq worker wiring and the `loci` CLI over `domain`."""
