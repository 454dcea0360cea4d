"""Indexes kept as dicts of buckets, each bucket an insertion-ordered dict of members (``None`` values)."""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["discard"]

B = TypeVar("B")


def discard(index: dict[B, dict[Any, Any]], bucket: B, member: Any) -> None:
    """Remove ``member`` from ``index[bucket]`` if there, dropping the bucket when it empties."""
    members = index.get(bucket)
    if members is not None:
        members.pop(member, None)
        if not members:
            del index[bucket]
