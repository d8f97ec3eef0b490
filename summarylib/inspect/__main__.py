"""`python -m summarylib.inspect`: the command line of `summarylib.inspect.cli`."""

import sys

from summarylib.inspect.cli import main

sys.exit(main())
