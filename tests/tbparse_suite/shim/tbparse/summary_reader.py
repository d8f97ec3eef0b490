"""tbparse's module path of `SummaryReader` (its suite imports it from here too)."""

from summarylib.tbparse import SummaryReader

__all__ = ["SummaryReader"]
