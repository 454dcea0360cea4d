"""Policy for elastic scaling of ``spec.replicatedJobs[].template.spec.{parallelism,completions}``
(feature gate ``ElasticJobSet``).

With the gate on, the webhook lets Indexed ReplicatedJobs change ``parallelism`` and
``completions`` (equal, >= 1) while the JobSet is not finished; the controller then patches the
active child Jobs to match (Kubernetes' elastic Indexed Jobs).

Mirrors upstream ``syncJobScaling`` and ``jobScalingNeedsPatch``
(``pkg/controllers/jobset_controller.go``). KEP-463 (elastic JobSets).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from jobset_ref.api import constants as c
from jobset_ref.controller.observe import Job, job_labels
from jobset_ref.controller.plan import ScalingPatch

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet

__all__ = ["job_scaling_needs_patch", "plan_scaling"]


def job_scaling_needs_patch(job: Job, parallelism: int | None, completions: int | None) -> bool:
    """``jobScalingNeedsPatch``: desired values agree (P == C, incl. both nil) and the Job differs."""
    if parallelism != completions:
        return False
    spec = job.get("spec") or {}
    return spec.get("parallelism") != parallelism or spec.get("completions") != completions


def plan_scaling(js: JobSet, active: Sequence[Job]) -> list[ScalingPatch]:
    """``syncJobScaling``: one patch per active Job whose scaling drifted from its template."""
    desired = {r.name: (r.parallelism, r.completions) for r in js.replicated_jobs}
    patches: list[ScalingPatch] = []
    for job in active:
        name = job_labels(job).get(c.REPLICATED_JOB_NAME_KEY)
        if name is None or name not in desired:
            continue
        parallelism, completions = desired[name]
        if job_scaling_needs_patch(job, parallelism, completions):
            patches.append(ScalingPatch(job, parallelism, completions))
    return patches
