"""``python -m planviz``: the command line (see :mod:`planviz.frontends.cli`)."""

import sys

from .frontends.cli import main

sys.exit(main())
