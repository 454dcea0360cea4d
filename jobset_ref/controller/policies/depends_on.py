"""Policy for ``spec.replicatedJobs[].dependsOn`` (``name``, ``status``: ``Ready`` | ``Complete``).

API doc (``jobset_types.go``): "DependsOn is an optional list that specifies the preceding
ReplicatedJobs upon which the current ReplicatedJob depends. If specified, the ReplicatedJob
will be created only after the referenced ReplicatedJobs reach their desired state."
``Ready``: "all jobs of the dependency are ready (or succeeded/failed)"; ``Complete``: "all jobs
of the dependency completed successfully".

Mirrors upstream ``dependencyReachedStatus`` (``pkg/controllers/depends_on.go``) and the
``rJobsReplicas`` bookkeeping of ``reconcileReplicatedJobs`` / ``resumeJobsIfNecessary``.
KEP-672 (serial job execution).

Every entry must be reached (AND). ``seen_replicas[D]`` holds the replicas of ReplicatedJobs
visited so far in spec order (the current one included), so a dependency that is not earlier
in the spec counts as 0 replicas. Statuses are the ones computed at the start of the pass, so a
chain ``a → b → c`` advances at most one link per reconcile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from jobset_ref.api.enums import DependsOnStatus

if TYPE_CHECKING:
    from jobset_ref.api.models import ReplicatedJob

__all__ = ["dependency_reached_status"]


def dependency_reached_status(rjob: ReplicatedJob, seen_replicas: Mapping[str, int],
                              statuses: Sequence[Mapping[str, Any]]) -> bool:
    """``dependencyReachedStatus``: are all of ``rjob.dependsOn`` reached?"""
    by_name = {s.get("name"): s for s in statuses}
    for dep in rjob.depends_on or ():
        actual = by_name.get(dep.name)
        if actual is None:
            return False
        replicas = seen_replicas.get(dep.name, 0)
        succeeded = int(actual.get("succeeded") or 0)
        if dep.status == DependsOnStatus.COMPLETE and replicas != succeeded:
            return False
        if dep.status == DependsOnStatus.READY and replicas != (
                int(actual.get("failed") or 0) + int(actual.get("ready") or 0) + succeeded):
            return False
    return True
