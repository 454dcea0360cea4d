"""Defaulting: ``pkg/apiserver/schema/defaulting.Default``, in place on the caller's copy.

The defaults themselves were pruned when the schema was built (``defaulting.PruneDefaults``).
"""

from __future__ import annotations

from typing import Any

from fakekube._core.jsonutil import deep_copy

from .nodes import MISSING, Node

__all__ = ["default_in_place"]


def default_in_place(x: Any, s: Node | None) -> None:
    """``defaulting.Default``: fill absent (or non-nullable null) fields from ``default``, recursively."""
    if s is None:
        return
    if isinstance(x, dict):
        props = s.properties
        if props:
            for k, prop in props.items():
                if prop.default is MISSING:
                    continue
                if k not in x or (x[k] is None and not prop.nullable):
                    x[k] = deep_copy(prop.default)
        addl = s.additional
        for k in list(x):
            child = props.get(k) if props else None
            if child is not None:
                if child.has_defaults:
                    default_in_place(x[k], child)
            elif addl is not None:
                if x[k] is None and not addl.nullable:
                    x[k] = None if addl.default is MISSING else deep_copy(addl.default)
                if addl.has_defaults:
                    default_in_place(x[k], addl)
    elif isinstance(x, list):
        items = s.items
        if items is None:
            return
        for i, v in enumerate(x):
            if v is None and not items.nullable and items.default is not MISSING:
                x[i] = deep_copy(items.default)
            if items.has_defaults:
                default_in_place(x[i], items)
