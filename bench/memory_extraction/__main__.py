"""``python -m bench.memory_extraction``: see the package docstring."""

from bench.memory_extraction.cli import main

raise SystemExit(main())
