"""Completion index sets of Indexed Jobs: ``IndexSet`` and the index-list format.

Mirrors ``pkg/controller/job/indexed_job_utils.go`` ``orderedIntervals`` (:class:`IndexSet`,
shared by the Job strategy and the Job controller) and ``parseIndexesFromString``, and in
``pkg/apis/batch/validation/validation.go`` ``validateIndexesFormat``, ``parseIndexInterval`` and
``validateFailedIndexesNotOverlapCompleted`` (Kubernetes 1.33/1.34).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import Any

from fakekube.errors import go_quote

__all__ = ["IndexSet", "failed_overlaps_completed", "validate_indexes_format"]


class IndexSet:
    """``orderedIntervals``: disjoint, ascending ``(first, last)`` intervals of completion indexes."""

    __slots__ = ("intervals",)

    def __init__(self, intervals: Iterable[tuple[int, int]] = ()) -> None:
        self.intervals: list[tuple[int, int]] = list(intervals)

    @classmethod
    def parse(cls, text: str | None, completions: int) -> IndexSet:
        """``parseIndexesFromString``: bad fragments are skipped, ranges truncated at ``completions``."""
        out: list[tuple[int, int]] = []
        if not text:
            return cls(out)
        for fragment in text.split(","):
            parts = fragment.split("-")
            try:
                first = int(parts[0])
                last = int(parts[1]) if len(parts) == 2 else first
            except ValueError:
                continue
            if len(parts) > 2 or first >= completions:
                continue
            last = min(last, completions - 1)
            if last < first or (out and first <= out[-1][1]):
                continue
            out.append((first, last))
        return cls(out)

    @classmethod
    def of(cls, indexes: Iterable[int]) -> IndexSet:
        return cls().with_indexes(indexes)

    def with_indexes(self, indexes: Iterable[int]) -> IndexSet:
        """``withOrderedIndexes``: the union with ``indexes`` (any order, duplicates allowed)."""
        new = sorted(set(indexes))
        if not new:
            return IndexSet(self.intervals)
        merged: list[tuple[int, int]] = []
        pending = [(i, i) for i in new]
        for first, last in sorted(self.intervals + pending):
            if merged and first <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], last))
            else:
                merged.append((first, last))
        return IndexSet(merged)

    def merge(self, other: IndexSet) -> IndexSet:
        merged: list[tuple[int, int]] = []
        for first, last in sorted(self.intervals + other.intervals):
            if merged and first <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(merged[-1][1], last))
            else:
                merged.append((first, last))
        return IndexSet(merged)

    def has(self, ix: int) -> bool:
        pos = bisect.bisect_right(self.intervals, (ix, float("inf"))) - 1
        return pos >= 0 and self.intervals[pos][0] <= ix <= self.intervals[pos][1]

    def total(self) -> int:
        return sum(last - first + 1 for first, last in self.intervals)

    def __iter__(self) -> Any:
        for first, last in self.intervals:
            yield from range(first, last + 1)

    def __str__(self) -> str:
        """Two consecutive indexes stay separate (``"3,4"``); three or more collapse (``"3-5"``)."""
        parts: list[str] = []
        for first, last in self.intervals:
            if first == last:
                parts.append(str(first))
            elif last == first + 1:
                parts.append(f"{first},{last}")
            else:
                parts.append(f"{first}-{last}")
        return ",".join(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IndexSet) and self.intervals == other.intervals

    def __hash__(self) -> int:
        return hash(tuple(self.intervals))

    def __repr__(self) -> str:
        return f"IndexSet({str(self)!r})"


def _go_atoi(text: str) -> int:
    """``strconv.Atoi``: optional sign, ASCII digits only."""
    if not re.fullmatch(r"[+-]?[0-9]+", text):
        raise ValueError(text)
    return int(text)


def _parse_index_interval(fragment: str, completions: int) -> tuple[int, int]:
    """``parseIndexInterval``; raises ValueError with upstream's message."""
    limits = fragment.split("-")
    if len(limits) > 2:
        raise ValueError(f"the fragment {go_quote(fragment)} "
                         "violates the requirement that an index interval can have at most two parts "
                         "separated by '-'")
    try:
        x = _go_atoi(limits[0])
    except ValueError:
        raise ValueError(f"cannot convert string to integer for index: {_q(limits[0])}") from None
    if x >= completions:
        raise ValueError(f"too large index: {_q(limits[0])}")
    if len(limits) > 1:
        try:
            y = _go_atoi(limits[1])
        except ValueError:
            raise ValueError(f"cannot convert string to integer for index: {_q(limits[1])}") from None
        if y >= completions:
            raise ValueError(f"too large index: {_q(limits[1])}")
        if x >= y:
            raise ValueError(f"non-increasing order, previous: {x}, current: {y}")
        return x, y
    return x, x


def _q(text: str) -> str:
    return go_quote(text)


def validate_indexes_format(text: str, completions: int) -> int:
    """``validateIndexesFormat``: the number of indexes, or ValueError with upstream's message."""
    if not text:
        return 0
    last: int | None = None
    total = 0
    for fragment in text.split(","):
        x, y = _parse_index_interval(fragment, completions)
        if last is not None and last >= x:
            raise ValueError(f"non-increasing order, previous: {last}, current: {x}")
        total += y - x + 1
        last = y
    return total


def failed_overlaps_completed(completed: str, failed: str, completions: int) -> str | None:
    """``validateFailedIndexesNotOverlapCompleted``: the error message, or None."""
    if not completed or not failed:
        return None

    def intervals(text: str) -> list[tuple[int, int] | None]:
        out: list[tuple[int, int] | None] = []
        for fragment in text.split(","):
            try:
                out.append(_parse_index_interval(fragment, completions))
            except ValueError:
                out.append(None)
        return out

    cs, fs = intervals(completed), intervals(failed)
    ci = fi = 0
    while ci < len(cs) and fi < len(fs):
        c, f = cs[ci], fs[fi]
        if c is None:
            ci += 1
        elif f is None:
            fi += 1
        else:
            if c[0] <= f[1] and f[0] <= c[1]:
                return f"failedIndexes and completedIndexes overlap at index: {max(c[0], f[0])}"
            if c[0] <= f[0]:
                ci += 1
            else:
                fi += 1
    return None
