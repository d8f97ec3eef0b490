"""`python -m summarylib.migrate`: see summarylib.migrate.cli. Without libcst (the `migrate`
extra) it says which extra to install, in one line on stderr, and exits 2, as on any usage
error; the libcst check comes first so that even `--help` says it."""

import sys


def _run() -> int:
    try:
        import libcst  # noqa: F401
    except ImportError:
        from summarylib.migrate import MISSING_LIBCST

        print(MISSING_LIBCST, file=sys.stderr)
        return 2
    from summarylib.migrate.cli import main

    return main()


raise SystemExit(_run())
