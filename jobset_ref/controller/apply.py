"""Apply: the only module of the reference controller that writes to the cluster.

Mirrors the client calls of upstream ``createJobs``, ``deleteJobs``, ``suspendJobs``,
``resumeJob``, ``createHeadlessSvcIfNecessary``, ``createPVCsIfNecessary``, ``syncJobScaling``,
``deleteJobSet``, ``updateJobSetStatus`` and the pod controller's ``deleteFollowerPods``
(``pkg/controllers``), with their error handling and immediate events.

# DEVIATION(upstream): upstream creates and deletes Jobs (and deletes follower pods) with
# ``workqueue.ParallelizeUntil`` (up to 50 at once); we write sequentially in spec/index (or
# list) order, so the request order, and the order of joined error messages, is deterministic.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from fakekube import AlreadyExists, ApiError, Client, NotFound
from fakekube.runtime import EventRecorder
from jobset_ref.api import constants as c
from jobset_ref.controller.observe import Job, job_name
from jobset_ref.controller.plan import WARNING, EventIntent, ReconcileError, ResumeJob, ScalingPatch
from jobset_ref.controller.status import StatusDraft

__all__ = ["Applier"]

ACTION = "Reconciling"


class Applier:
    """Writes through one client and records events through one recorder."""

    def __init__(self, client: Client, recorder: EventRecorder) -> None:
        self.client = client
        self.recorder = recorder

    # ------------------------------------------------------------------ events
    def event(self, jobset: Mapping[str, Any], type_: str, reason: str, message: str) -> None:
        """``Record.Eventf(js, nil, type, reason, "Reconciling", message)``.

        # DEVIATION(upstream): upstream records events.k8s.io/v1 Events (series); fakekube's
        # recorder writes core/v1 Events with ``action`` and aggregates repeats into ``count``.
        """
        self.recorder.event(dict(jobset), type_, reason, message, action=ACTION)

    def emit(self, jobset: Mapping[str, Any], events: Iterable[EventIntent]) -> None:
        """Emit the queued events, in order (only ever called after a successful status write)."""
        for ev in events:
            self.event(jobset, ev.type, ev.reason, ev.message)

    # ------------------------------------------------------------------ JobSet
    def write_status(self, jobset: Mapping[str, Any], draft: StatusDraft) -> dict[str, Any]:
        """``Status().Update(js)``: the one status write of the pass. A Conflict propagates."""
        body = {k: v for k, v in jobset.items() if k != "status"}
        body["status"] = draft.to_wire()
        return self.client.update_status(body)

    def delete_jobset(self, jobset: Mapping[str, Any]) -> None:
        """``deleteJobSet``: Foreground deletion (TTL expired)."""
        meta = jobset["metadata"]
        self.client.delete(c.KIND, meta["name"], meta.get("namespace"), propagation_policy="Foreground")

    # ------------------------------------------------------------------ Jobs
    def create_jobs(self, jobset: Mapping[str, Any], jobs: Sequence[dict[str, Any]]) -> None:
        """``createJobs``: every Job; failures joined into one error and one Warning event."""
        errors: list[str] = []
        for job in jobs:
            try:
                self.client.create(job)
            except ApiError as err:
                errors.append(f'job "{job_name(job)}" creation failed with error: {err.message}')
        if errors:
            message = "\n".join(errors)
            self.event(jobset, WARNING, c.JOB_CREATION_FAILED_REASON, message)
            raise ReconcileError(message)

    def delete_jobs(self, jobs: Iterable[Job]) -> None:
        """``deleteJobs``: Foreground; Jobs already being deleted are skipped; NotFound ignored."""
        errors: list[str] = []
        for job in jobs:
            if job["metadata"].get("deletionTimestamp"):
                continue
            try:
                self.client.delete("jobs.batch", job_name(job), job["metadata"].get("namespace"),
                                   propagation_policy="Foreground")
            except NotFound:
                continue
            except ApiError as err:
                errors.append(err.message)
        if errors:
            raise ReconcileError("\n".join(errors))

    def suspend_jobs(self, bodies: Iterable[dict[str, Any]]) -> None:
        """``suspendJobs``: a full Update of each suspended body; the first error aborts."""
        for body in bodies:
            self.client.update(body)

    def resume_jobs(self, jobs: Iterable[ResumeJob]) -> None:
        """``resumeJob`` for each Job: the status write that clears ``startTime`` (if needed), then the
        Update of the finished body on top of the written object; the first error aborts."""
        for job in jobs:
            body = job.body
            if job.clear_start_time:
                written = self.client.update_status(body)  # keeps the stored spec; returns the new resourceVersion
                body = {**written, "spec": body["spec"]}
            self.client.update(body)

    def patch_job_scaling(self, patches: Iterable[ScalingPatch]) -> None:
        """``syncJobScaling``: merge-patch parallelism/completions; errors joined."""
        errors: list[str] = []
        for patch in patches:
            name = job_name(patch.job)
            try:
                self.client.patch("jobs.batch", name, {"spec": {"parallelism": patch.parallelism,
                                                                "completions": patch.completions}},
                                  patch.job["metadata"].get("namespace"))
            except ApiError as err:
                errors.append(f'failed to patch job "{name}" for scaling: {err.message}')
        if errors:
            raise ReconcileError("\n".join(errors))

    # ------------------------------------------------------------------ Service and PVCs
    def create_service(self, jobset: Mapping[str, Any], service: dict[str, Any]) -> None:
        """Create the headless Service; on error a Warning event, then the error propagates."""
        try:
            self.client.create(service)
        except ApiError as err:
            self.event(jobset, WARNING, c.HEADLESS_SERVICE_CREATION_FAILED_REASON, err.message)
            raise

    def create_pvcs(self, jobset: Mapping[str, Any], groups: Sequence[Sequence[tuple[dict[str, Any], bool]]],
                    owner_ref: dict[str, Any]) -> None:
        """``reconcileVolumeClaimPolicies``: per policy, create PVCs until the first real error."""
        errors: list[str] = []
        for group in groups:
            for pvc, owned in group:
                body = copy.deepcopy(pvc)
                if owned:
                    body["metadata"]["ownerReferences"] = [dict(owner_ref)]
                try:
                    self.client.create(body)
                except AlreadyExists:
                    continue
                except ApiError as err:
                    self.event(jobset, WARNING, c.PVC_CREATION_FAILED_REASON, err.message)
                    errors.append(err.message)
                    break
        if errors:
            raise ReconcileError("\n".join(errors))

    # ------------------------------------------------------------------ pods (pod controller)
    def evict_follower_pods(self, pods: Iterable[Mapping[str, Any]], condition: dict[str, Any]) -> None:
        """``deleteFollowerPods``: DisruptionTarget condition via status update, then Background delete."""
        errors: list[str] = []
        for pod in pods:
            body = copy.deepcopy(dict(pod))
            conds: list[dict[str, Any]] = body.setdefault("status", {}).setdefault("conditions", [])
            changed = _update_pod_condition(conds, condition)
            try:
                if changed:
                    self.client.update_status(body)
                self.client.delete("pods", body["metadata"]["name"], body["metadata"].get("namespace"),
                                   propagation_policy="Background")
            except NotFound:
                continue
            except ApiError as err:
                errors.append(err.message)
        if errors:
            raise ReconcileError("\n".join(errors))


def _update_pod_condition(conditions: list[dict[str, Any]], condition: dict[str, Any]) -> bool:
    """``updatePodCondition``: replace a same-type condition of another status, or append a True one."""
    for i, cur in enumerate(conditions):
        if cur.get("type") == condition["type"]:
            if cur.get("status") != condition["status"]:
                conditions[i] = dict(condition)
                return True
            return False
    if condition["status"] == "True":
        conditions.append(dict(condition))
        return True
    return False
