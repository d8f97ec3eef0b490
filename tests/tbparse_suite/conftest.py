"""tbparse's suite in cache/ runs as a project of its own (tests/test_tbparse_suite.py runs it,
in subprocesses); summarylib's test run does not collect it, nor the shim package."""

collect_ignore = ["cache", "shim"]
