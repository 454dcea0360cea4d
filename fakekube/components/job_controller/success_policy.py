"""``success_policy.go``: ``matchSuccessPolicy`` of an Indexed Job."""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.kinds.job_indexes import IndexSet


def match_success_policy(policy: dict[str, Any] | None, completions: int,
                         succeeded: IndexSet) -> str | None:
    """``matchSuccessPolicy``: the ``Matched rules at index <i>`` message, or None."""
    if policy is None or not succeeded.intervals:
        return None
    total = succeeded.total()
    for index, rule in enumerate(policy.get("rules") or []):
        indexes, count = rule.get("succeededIndexes"), rule.get("succeededCount")
        if indexes is not None:
            wanted = IndexSet.parse(indexes, completions)
            hits = sum(1 for ix in wanted if succeeded.has(ix))
            if (count is None and hits == wanted.total()) or (count is not None and hits >= count):
                return f"Matched rules at index {index}"
        elif count is not None and total >= count:
            return f"Matched rules at index {index}"
    return None
