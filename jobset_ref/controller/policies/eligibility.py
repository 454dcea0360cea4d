"""Which ReplicatedJobs may have their Jobs created or resumed now: ``dependsOn``, then ``InOrder``.

Upstream ``reconcileReplicatedJobs`` (creation) and ``resumeJobsIfNecessary`` (resume) walk
``spec.replicatedJobs`` the same way (``pkg/controllers/jobset_controller.go``): record the
ReplicatedJob's replicas, skip it unless every ``dependsOn`` entry has reached its status
(``dependencyReachedStatus``), and with startup policy ``InOrder`` skip it once all its replicas
have started (``allReplicasStarted``) and stop at the first one that has not. This module is that
walk, once, for both.

It is the one place where the ``depends_on`` and ``startup_policy`` policies meet, so it is not
one of the policies that must stand alone; ``suspend`` and ``construct`` receive its answer as an
:class:`~jobset_ref.controller.plan.Eligibility` value.

A suspended JobSet ignores ``InOrder`` (its Jobs are created suspended, all at once); the walk
uses the ReplicatedJob statuses computed at the start of the pass, so an ``a → b → c`` chain
advances at most one link per reconcile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from jobset_ref.controller.plan import Eligibility
from jobset_ref.controller.policies import depends_on, startup_policy, suspend

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet

__all__ = ["eligible_replicated_jobs"]


def eligible_replicated_jobs(js: JobSet, statuses: Sequence[Mapping[str, Any]]) -> Eligibility:
    """The ReplicatedJobs (in spec order) whose missing Jobs may be created and suspended Jobs resumed."""
    in_order = startup_policy.in_order(js) and not suspend.jobset_suspended(js)
    status_by_name = {s.get("name"): s for s in statuses}
    seen: dict[str, int] = {}
    eligible: list[str] = []
    for rjob in js.replicated_jobs:
        seen[rjob.name] = rjob.replicas
        if not depends_on.dependency_reached_status(rjob, seen, statuses):
            continue
        if in_order and startup_policy.all_replicas_started(rjob.replicas, status_by_name.get(rjob.name)):
            continue
        eligible.append(rjob.name)
        if in_order:
            break
    return Eligibility(tuple(eligible), in_order)
