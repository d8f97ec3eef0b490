"""`python -m summarylib.migrate`: see summarylib.migrate.cli."""

from summarylib.migrate.cli import main

raise SystemExit(main())
