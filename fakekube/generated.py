"""Committed generated files, publicly: the ``python -m <module> [--check]`` command that keeps one
current (``jobset_ref.api.crd`` uses it for the JobSet CRD).

A re-export of fakekube's internal module; import from here.
"""

from __future__ import annotations

from fakekube._core.generated import regenerate_command

__all__ = ["regenerate_command"]
