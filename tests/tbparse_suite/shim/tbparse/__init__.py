"""A stand-in `tbparse` package whose `SummaryReader` is summarylib's: put first on sys.path of
a pytest run of tbparse's own test suite (tests/test_tbparse_suite.py), so that its
`from tbparse import SummaryReader` gets summarylib.tbparse's."""

from summarylib.tbparse import SummaryReader

__all__ = ["SummaryReader"]
__version__ = "0.0.9"
