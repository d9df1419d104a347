"""``python -m edge_ranker.cli``, as the ``edge-ranker`` console script."""

import sys

from edge_ranker.cli import main

sys.exit(main())
