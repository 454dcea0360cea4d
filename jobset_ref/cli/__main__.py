"""``python -m jobset_ref.cli``: the ``jobset-ref`` command."""

import sys

from jobset_ref.cli import main

sys.exit(main())
