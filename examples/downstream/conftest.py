"""Make ``queue_operator`` importable without installing it.

A real project would ``pip install -e .`` its operator (or set ``pythonpath = ["."]`` in its own
pytest configuration) and need no conftest at all: the ``fake_cluster`` and ``jobset_cluster``
fixtures come from the installed ``jobset-ref`` distribution's pytest plugin.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = str(Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
