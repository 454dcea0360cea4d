"""Policy for ``spec.successPolicy`` (``operator``, ``targetReplicatedJobs``).

API doc (``jobset_types.go``): "SuccessPolicy configures when to declare the JobSet as
succeeded. The JobSet is always declared succeeded if all jobs in the set finished with status
complete." ``Operator`` "determines either All or Any of the selected jobs should succeed to
consider the JobSet successful"; ``TargetReplicatedJobs`` "are the names of the replicated jobs
the operator will apply to. A null or empty list will apply to all replicatedJobs."

Mirrors upstream ``executeSuccessPolicy`` (``jobset_controller.go``), ``jobMatchesSuccessPolicy``,
``replicatedJobMatchesSuccessPolicy``, ``numJobsMatchingSuccessPolicy`` and
``numJobsExpectedToSucceed`` (``success_policy.go``). No KEP of its own: part of the
original JobSet API design.

Evaluated only when the JobSet is not finished, no current Job has failed and at least one
current Job succeeded. Completion sets ``Completed``/``AllJobsCompleted``, flips an existing
``RestartingJobSet`` to False/``JobSetCompleted`` and sets ``terminalState: Completed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from jobset_ref.api import constants as c
from jobset_ref.api.enums import Operator
from jobset_ref.controller import conditions
from jobset_ref.controller.observe import Job, job_labels
from jobset_ref.controller.plan import Decision

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet, SuccessPolicy

__all__ = ["evaluate_success_policy", "jobs_expected_to_succeed", "jobs_matching_success_policy"]


def _policy(js: JobSet) -> SuccessPolicy:
    """The controller dereferences ``spec.successPolicy`` without a nil check (the webhook always
    defaults it). A nil policy reads here as the webhook default."""
    if js.spec.success_policy is not None:
        return js.spec.success_policy
    from jobset_ref.api.models import SuccessPolicy  # lazy: the models import pydantic (cold start)

    return SuccessPolicy(operator=Operator.ALL)


def jobs_matching_success_policy(js: JobSet, jobs: Sequence[Job]) -> int:
    """``numJobsMatchingSuccessPolicy``: Jobs whose ReplicatedJob is targeted (all if no targets)."""
    targets = _policy(js).target_replicated_jobs or []
    if not targets:
        return len(jobs)
    return sum(1 for job in jobs if job_labels(job).get(c.REPLICATED_JOB_NAME_KEY, "") in targets)


def jobs_expected_to_succeed(js: JobSet) -> int:
    """``numJobsExpectedToSucceed``: 1 for ``Any``; Σ targeted replicas for ``All``; else 0."""
    policy = _policy(js)
    if policy.operator == Operator.ANY:
        return 1
    if policy.operator == Operator.ALL:
        targets = policy.target_replicated_jobs or []
        return sum(r.replicas for r in js.replicated_jobs if not targets or r.name in targets)
    return 0


def evaluate_success_policy(js: JobSet, successful: Sequence[Job]) -> Decision:
    """``executeSuccessPolicy``: the completion operations, or an empty decision."""
    if jobs_matching_success_policy(js, successful) >= jobs_expected_to_succeed(js):
        return Decision(conditions.completed(), note="success policy satisfied")
    return Decision()
