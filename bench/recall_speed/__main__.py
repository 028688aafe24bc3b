"""``python -m bench.recall_speed``: see the package docstring."""

from bench.recall_speed.cli import main

raise SystemExit(main())
