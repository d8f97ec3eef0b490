"""A worker process of summarylib.tbparse's sweep reads (see tbparse_sweep).

    python -m summarylib.reading.tbparse_worker

Reads one pickled `(groups, storage_options)` from stdin, where each group is a list of event
files, and writes each group's `read_files` values to stdout, pickled, one after another.
A fresh interpreter started for the read, never a fork: the caller's program is not run
again in it (a script without `if __name__ == "__main__":` stays one read, where
multiprocessing's spawn and fork server import the caller's main module anew), no lock held
by another of the caller's threads comes along, and it has the caller's environment as it
is at the read (an object store's endpoint and credentials).
"""

from __future__ import annotations

import os
import pickle
import sys

from summarylib.reading.tbparse_files import read_files


def main() -> None:
    # stdout carries the pickles alone: whatever else would print there goes to stderr.
    results = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    groups, storage_options = pickle.load(sys.stdin.buffer)
    with results:
        for files in groups:
            pickle.dump(read_files(files, storage_options), results, pickle.HIGHEST_PROTOCOL)
            results.flush()


if __name__ == "__main__":
    main()
