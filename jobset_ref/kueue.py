"""Kueue's JobSet integration (``pkg/controller/jobs/jobset`` of kubernetes-sigs/kueue v0.19.2),
registered with fakekube's job framework as ``jobset.x-k8s.io/jobset``.

- A JobSet labelled ``kueue.x-k8s.io/queue-name`` is suspended at creation (``mjobset.kb.io``).
- Its Workload has one PodSet per replicatedJob, of ``replicas * min(parallelism, completions)``
  pods, with the replicatedJob's pod template and a topologyRequest (TopologyAwareScheduling is
  on in v0.19.2): the completion index as pod index, the job index as sub-group.
- On admission it is resumed with each flavor's node labels and tolerations (and Kueue's labels
  and ``kueue.x-k8s.io/workload`` annotation) merged into the replicatedJob templates; on eviction
  it is suspended and the templates restored. The JobSet controller carries template changes to
  the child Jobs it resumes.
- Reclaimable pods: the succeeded replicas of each replicatedJob.
- Ready: every replica of every replicatedJob ready or succeeded.

Importing this module registers the integration (as upstream's ``init()`` does);
:func:`jobset_ref.install` with ``kueue=`` enables it.
"""

from __future__ import annotations

import copy
from typing import Any

from fakekube import FieldError
from fakekube.kueue import (
    GenericJob,
    Integration,
    PodSetInfo,
    bad_len,
    merge_into_template,
    register_integration,
    restore_template,
    topology_request,
)
from jobset_ref.api import constants as c

__all__ = ["FRAMEWORK_NAME", "INTEGRATION", "JobSetJob", "pods_count_per_replica"]

FRAMEWORK_NAME = "jobset.x-k8s.io/jobset"
JOB_COMPLETION_INDEX_ANNOTATION = "batch.kubernetes.io/job-completion-index"


def pods_count_per_replica(replicated_job: dict[str, Any]) -> int:
    """``PodsCountPerReplica``: ``min(parallelism, completions)``, parallelism defaulting to 1."""
    spec = (replicated_job.get("template") or {}).get("spec") or {}
    parallelism = int(spec["parallelism"]) if spec.get("parallelism") is not None else 1
    completions = int(spec["completions"]) if spec.get("completions") is not None else parallelism
    return min(parallelism, completions)


def _replicas(replicated_job: dict[str, Any]) -> int:
    return int(replicated_job.get("replicas", 1))


class JobSetJob(GenericJob):
    """``jobset.JobSet`` as a ``GenericJob`` (with ``JobWithReclaimablePods``)."""

    api_version = c.API_VERSION
    kind = c.KIND
    has_reclaimable_pods = True

    @property
    def replicated_jobs(self) -> list[dict[str, Any]]:
        return self.spec.get("replicatedJobs") or []

    def is_suspended(self) -> bool:
        return bool(self.spec.get("suspend"))

    def is_active(self) -> bool:
        return any(int(s.get("active") or 0) > 0 for s in self.status.get("replicatedJobsStatus") or ())

    def suspend(self) -> None:
        self.spec["suspend"] = True

    def pod_label_selector(self) -> str:
        return f"{c.JOBSET_NAME_KEY}={self.name}"

    def pod_sets(self) -> list[dict[str, Any]]:
        podsets = []
        for rjob in self.replicated_jobs:
            template = copy.deepcopy(((rjob.get("template") or {}).get("spec") or {}).get("template") or {})
            podset: dict[str, Any] = {"name": rjob["name"], "template": template,
                                      "count": _replicas(rjob) * pods_count_per_replica(rjob)}
            request = topology_request(template.get("metadata") or {}, pod_index_label=JOB_COMPLETION_INDEX_ANNOTATION,
                                       sub_group_index_label=c.JOB_INDEX_KEY, sub_group_count=_replicas(rjob))
            if request is not None:
                podset["topologyRequest"] = request
            podsets.append(podset)
        return podsets

    def _templates(self) -> list[dict[str, Any]]:
        return [rjob.setdefault("template", {}).setdefault("spec", {}).setdefault("template", {})
                for rjob in self.replicated_jobs]

    def run_with_podsets_info(self, infos: list[PodSetInfo]) -> None:
        self.spec["suspend"] = False
        if len(infos) != len(self.replicated_jobs):
            raise bad_len(len(self.replicated_jobs), len(infos))
        for template, info in zip(self._templates(), infos, strict=True):
            merge_into_template(template, info)

    def restore_podsets_info(self, infos: list[PodSetInfo]) -> bool:
        if len(infos) != len(self.replicated_jobs):
            return False
        changed = False
        for template, info in zip(self._templates(), infos, strict=True):
            changed = restore_template(template, info) or changed
        return changed

    def finished(self) -> tuple[str, bool, bool]:
        conditions = self.status.get("conditions") or []
        for type_, success in (("Completed", True), ("Failed", False)):
            for cond in conditions:
                if cond.get("type") == type_ and cond.get("status") == "True":
                    return cond.get("message", ""), success, True
        return "", False, False

    def pods_ready(self) -> bool:
        replicas = sum(_replicas(rjob) for rjob in self.replicated_jobs)
        ready = sum(int(s.get("ready") or 0) + int(s.get("succeeded") or 0)
                    for s in self.status.get("replicatedJobsStatus") or ())
        return replicas == ready

    def reclaimable_pods(self) -> list[dict[str, Any]]:
        statuses = {s.get("name"): s for s in self.status.get("replicatedJobsStatus") or ()}
        if not statuses:
            return []
        out = []
        for rjob in self.replicated_jobs:
            status = statuses.get(rjob["name"])
            succeeded = int((status or {}).get("succeeded") or 0)
            if status is not None and 0 < succeeded <= _replicas(rjob):
                out.append({"name": rjob["name"], "count": succeeded * pods_count_per_replica(rjob)})
        return out


def _validate_create(job: GenericJob) -> list[FieldError]:
    """``validateTopologyRequest``: a malformed TAS annotation of a replicatedJob template."""
    errors: list[FieldError] = []
    assert isinstance(job, JobSetJob)
    for i, rjob in enumerate(job.replicated_jobs):
        meta = (((rjob.get("template") or {}).get("spec") or {}).get("template") or {}).get("metadata") or {}
        try:
            topology_request(meta)
        except ValueError as err:
            errors.append(FieldError.invalid(f"spec.replicatedJobs[{i}].template.spec.template.metadata.annotations",
                                             meta.get("annotations") or {}, str(err)))
    return errors


def _validate_update(old: GenericJob, new: GenericJob) -> list[FieldError]:
    return _validate_create(new)


INTEGRATION = Integration(name=FRAMEWORK_NAME, api_version=c.API_VERSION, kind=c.KIND,
                          resource=f"{c.PLURAL}.{c.GROUP}", new_job=JobSetJob,
                          validate_create=_validate_create, validate_update=_validate_update)

register_integration(INTEGRATION)
