"""Policy for ``spec.suspend``, including the Kueue carve-outs applied on resume.

API doc (``jobset_types.go``): "Suspend suspends all running child Jobs when set to true. If
the JobSet is suspended, all its Jobs are suspended. ... Resuming a JobSet resumes child Jobs."
While suspended, the webhook lets Kueue change the ReplicatedJobs' pod-template ``labels``,
``annotations``, ``nodeSelector``, ``tolerations`` and ``schedulingGates``; resuming merges
those into the existing child Jobs before unsuspending them.

Mirrors upstream ``jobSetSuspended``, ``jobSuspended``, ``suspendJobs``,
``resumeJobsIfNecessary``, ``resumeJob`` (``pkg/controllers/jobset_controller.go``) and
``collections.MergeMaps`` / ``MergeSlices``. No JobSet KEP: it follows the batch/v1 Job's
``suspend`` (Kubernetes KEP-2232) for Kueue; KEP-1150 (mutable suspended resources) is not
implemented upstream yet.

The merge is one-way: keys removed from the JobSet template are not removed from the Jobs.
With ``InOrder`` the ``Suspended`` condition stays True until every ReplicatedJob has started.
Which ReplicatedJobs may resume (``dependsOn``, ``InOrder``) is decided once per pass by
``policies.eligibility``; the plans here carry finished Job bodies for ``apply`` to write.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jobset_ref.api import constants as c
from jobset_ref.controller import conditions
from jobset_ref.controller.observe import Job, job_labels
from jobset_ref.controller.plan import Eligibility, ResumeJob, StatusOp

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet

__all__ = [
    "ResumePlan",
    "SuspendPlan",
    "job_suspended",
    "jobset_suspended",
    "merge_maps",
    "merge_slices",
    "plan_resume",
    "plan_suspend",
    "resumed_job",
    "resumed_pod_template",
]


def jobset_suspended(js: JobSet) -> bool:
    """``jobSetSuspended``: ``ptr.Deref(spec.suspend, false)``."""
    return bool(js.spec.suspend)


def job_suspended(job: Job) -> bool:
    """``jobSuspended``: ``ptr.Deref(job.spec.suspend, false)``."""
    return (job.get("spec") or {}).get("suspend") is True


@dataclass(frozen=True, slots=True)
class SuspendPlan:
    """Update these finished bodies of active Jobs (``spec.suspend: true``), then set the Suspended condition."""

    jobs: tuple[dict[str, Any], ...]
    ops: tuple[StatusOp, ...]


def plan_suspend(active: Sequence[Job]) -> SuspendPlan:
    """``suspendJobs``: every active Job not yet suspended; Suspended=True every pass."""
    bodies: list[dict[str, Any]] = []
    for job in active:
        if not job_suspended(job):
            body = copy.deepcopy(dict(job))
            body["spec"]["suspend"] = True
            bodies.append(body)
    return SuspendPlan(tuple(bodies), conditions.suspended())


@dataclass(frozen=True, slots=True)
class ResumePlan:
    """Resume these Jobs (in order), then apply ``ops`` (InProgress, or Suspended=False)."""

    jobs: tuple[ResumeJob, ...]
    ops: tuple[StatusOp, ...]


def plan_resume(js: JobSet, active: Sequence[Job], eligible: Eligibility) -> ResumePlan:
    """``resumeJobsIfNecessary``: the suspended active Jobs of the eligible ReplicatedJobs, in spec
    order; ``StartupPolicyInProgress`` while InOrder has not reached the end, else Suspended=False."""
    by_rjob: dict[str, list[Job]] = {}
    for job in active:
        by_rjob.setdefault(job_labels(job).get(c.REPLICATED_JOB_NAME_KEY, ""), []).append(job)
    templates = {r.name: r.pod_template for r in js.replicated_jobs}
    to_resume = tuple(resumed_job(job, templates[name])
                      for name in eligible.replicated_jobs for job in by_rjob.get(name, ()) if job_suspended(job))
    if eligible.in_order_in_progress:
        return ResumePlan(to_resume, (conditions.in_order_in_progress(),))
    return ResumePlan(to_resume, (conditions.resumed(),))


def resumed_job(job: Job, rjob_pod_template: Mapping[str, Any]) -> ResumeJob:
    """``resumeJob``'s body: no ``status.startTime``, the Kueue fields merged, ``spec.suspend: false``."""
    body = copy.deepcopy(dict(job))
    status = body.get("status") or {}
    clear_start_time = status.get("startTime") is not None
    if clear_start_time:
        del status["startTime"]
    body["spec"]["template"] = resumed_pod_template(body["spec"].get("template") or {}, rjob_pod_template)
    body["spec"]["suspend"] = False
    return ResumeJob(body, clear_start_time)


def merge_maps(old: Mapping[str, Any] | None, new: Mapping[str, Any] | None) -> dict[str, Any]:
    """``collections.MergeMaps``: ``old`` overlaid with ``new`` (new wins); never nil."""
    return {**(old or {}), **(new or {})}


def merge_slices(old: Sequence[Any] | None, new: Sequence[Any] | None) -> list[Any]:
    """``collections.MergeSlices``: the set union of both lists.

    # DEVIATION(upstream): Go returns the union in map-iteration (random) order; we keep the
    # first occurrence order: ``old`` items, then ``new`` items not already present.
    """
    out: list[Any] = []
    for item in [*(old or ()), *(new or ())]:
        if item not in out:
            out.append(copy.deepcopy(item))
    return out


def resumed_pod_template(job_pod_template: Mapping[str, Any], rjob_pod_template: Mapping[str, Any]) -> dict[str, Any]:
    """``resumeJob``'s Kueue merge: labels, annotations, nodeSelector (maps) and tolerations,
    schedulingGates (sets) from the ReplicatedJob's current pod template into the Job's."""
    template = copy.deepcopy(dict(job_pod_template))
    meta = template.setdefault("metadata", {})
    spec = template.setdefault("spec", {})
    rjob_meta = rjob_pod_template.get("metadata") or {}
    rjob_spec = rjob_pod_template.get("spec") or {}
    for key, old, new in (("labels", meta.get("labels"), rjob_meta.get("labels")),
                          ("annotations", meta.get("annotations"), rjob_meta.get("annotations"))):
        merged = merge_maps(old, new)
        if merged:
            meta[key] = dict(sorted(merged.items()))
        else:
            meta.pop(key, None)
    node_selector = merge_maps(spec.get("nodeSelector"), rjob_spec.get("nodeSelector"))
    if node_selector:
        spec["nodeSelector"] = dict(sorted(node_selector.items()))
    else:
        spec.pop("nodeSelector", None)
    for key in ("tolerations", "schedulingGates"):
        merged_list = merge_slices(spec.get(key), rjob_spec.get(key))
        if merged_list:
            spec[key] = merged_list
        else:
            spec.pop(key, None)
    return template
