"""``python -m planviz``: the command line (see :mod:`planviz.frontends.cli.commands`)."""

import sys

from planviz.frontends.cli.commands import main

sys.exit(main())
