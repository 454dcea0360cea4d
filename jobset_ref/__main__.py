"""``python -m jobset_ref``: the ``jobset-ref`` command."""

import sys

from jobset_ref.cli import main

sys.exit(main())
