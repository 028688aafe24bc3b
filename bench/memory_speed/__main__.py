"""``python -m bench.memory_speed``: see the package docstring."""

from bench.memory_speed.cli import main

raise SystemExit(main())
