"""JSON merge patch (``application/merge-patch+json``).

JSON merge patch (:func:`json_merge_patch`) is evanphx v4 ``MergePatch``: RFC 7386 (``null``
deletes, objects merge, lists and scalars replace) plus v4's null pruning, which also drops
``null`` members of objects nested in lists whenever the value is inserted rather than merged.
"""

from __future__ import annotations

from typing import Any

from fakekube._core.jsonutil import deep_copy, json_equal

__all__ = ["create_merge_patch", "json_merge_patch", "pruned"]


def pruned(value: Any) -> Any:
    """A copy with ``null`` object members dropped at every depth (v4 ``pruneNulls``)."""
    if isinstance(value, dict):
        return {k: pruned(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [pruned(v) for v in value]
    return value


def _merge_value(cur: Any, patch: Any) -> Any:
    if not isinstance(cur, dict):
        return pruned(patch)
    if not isinstance(patch, dict):
        return deep_copy(patch)
    for key, value in patch.items():
        if value is None:
            cur.pop(key, None)
        elif cur.get(key) is None:
            cur[key] = pruned(value)
        else:
            cur[key] = _merge_value(cur[key], value)
    return cur


def json_merge_patch(target: Any, patch: Any) -> Any:
    """Apply an RFC 7386 merge patch (evanphx v4 semantics): ``null`` deletes, lists replace whole."""
    return _merge_value(deep_copy(target), patch)


def _merge_diff(original: dict[str, Any], modified: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, new in modified.items():
        if key not in original:
            out[key] = deep_copy(new)
            continue
        old = original[key]
        if isinstance(old, dict) and isinstance(new, dict):
            sub = _merge_diff(old, new)
            if sub:
                out[key] = sub
        elif not json_equal(old, new):
            out[key] = deep_copy(new)
    for key in original:
        if key not in modified:
            out[key] = None
    return out


def create_merge_patch(original: Any, modified: Any) -> Any:
    """The merge patch turning ``original`` into ``modified`` (v4 ``CreateMergePatch`` for objects).

    ``null`` members of ``modified`` cannot be expressed: a merge patch ``null`` deletes.
    """
    if isinstance(original, dict) and isinstance(modified, dict):
        return _merge_diff(original, modified)
    return deep_copy(modified)
