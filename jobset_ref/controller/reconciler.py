"""The JobSet reconciler: ``reconcile`` is a table of contents in upstream order.

Mirrors ``Reconcile``, ``reconcile``, ``reconcileReplicatedJobs``, ``resumeJobsIfNecessary``,
``SetupWithManager`` and ``SetupJobSetIndexes`` of upstream
``pkg/controllers/jobset_controller.go`` (kubernetes-sigs/jobset @ 08dfbdf); spec §3.

One pass: read the JobSet from the informer cache; sort its Jobs (found through the
``.metadata.controller`` index, never by scanning) into buckets; fold every decision into one
:class:`~jobset_ref.controller.status.StatusDraft`; write the status once at the end if
anything changed, and only then emit the queued events. An error anywhere skips the write and
drops the events (objects already written in the pass stay written).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from fakekube import ApiError, Result, Runtime
from fakekube.clock import SECOND, SimTime, to_datetime
from jobset_ref.api import constants as c
from jobset_ref.controller import budget, conditions, construct, observe
from jobset_ref.controller.apply import Applier
from jobset_ref.controller.observe import ChildJobs
from jobset_ref.controller.plan import Decision, Eligibility, ReconcileError
from jobset_ref.controller.policies import (
    elastic,
    eligibility,
    failure_policy,
    in_place_restart,
    managed_by,
    network,
    success_policy,
    suspend,
    ttl_after_finished,
    volume_claim_policies,
)
from jobset_ref.controller.status import StatusDraft, calculate_replicated_job_statuses

if TYPE_CHECKING:
    from jobset_ref.api.models import JobSet, JobSetStatus

__all__ = ["CONTROLLER_NAME", "JobSetReconciler"]

CONTROLLER_NAME = "jobset-controller"
JOBSET_RESOURCE = f"{c.PLURAL}.{c.GROUP}"

Key = tuple[str, str]


class JobSetReconciler:
    """The JobSet controller as a fakekube component (``start``/``stop``)."""

    name = CONTROLLER_NAME

    def __init__(self, runtime: Runtime, *, feature_gates: Mapping[str, bool]) -> None:
        self.rt = runtime
        self.gates = dict(feature_gates)
        self.restart_job_gate = bool(self.gates.get(c.FEATURE_RESTART_JOB))
        self.in_place_gate = bool(self.gates.get(c.FEATURE_IN_PLACE_RESTART))
        self.elastic_gate = bool(self.gates.get(c.FEATURE_ELASTIC_JOBSET))
        self.apply = Applier(runtime.client(CONTROLLER_NAME), runtime.recorder(CONTROLLER_NAME, correlate=False))
        # API errors and ReconcileErrors are retried by the controller's one rule (controller-runtime's default).
        self.controller = runtime.controller(CONTROLLER_NAME, self.reconcile, retry_on=(ApiError, ReconcileError))
        self.passes = 0

    # ================================================================== wiring (SetupWithManager)
    def start(self) -> None:
        self.jobsets = self.rt.informer(JOBSET_RESOURCE)
        self.jobs = self.rt.informer("jobs.batch")
        self.services = self.rt.informer("services")
        # SetupJobSetIndexes: Jobs by the UID of their JobSet controller owner.
        self.jobs.add_index(c.JOBS_INDEX_BY_JOBSET_KEY, observe.jobset_controller_uid,
                            uses=("metadata.ownerReferences",))
        self.jobsets.add_handler(self._on_jobset)
        self.jobs.add_handler(self._on_owned)
        self.services.add_handler(self._on_owned)
        if self.in_place_gate:
            self.pods = self.rt.informer("pods")
            self.pods.add_index(c.PODS_INDEX_BY_JOBSET_KEY, _pod_jobset_index, uses=("metadata.labels", "metadata.namespace"))
            self.pods.add_handler(self._on_pod)
        self.controller.start()

    def stop(self) -> None:
        self.controller.stop()

    def _on_jobset(self, _event: str, obj: dict[str, Any], _old: dict[str, Any] | None) -> None:
        """``For(&JobSet{})``: every event, status-only updates included."""
        self.controller.enqueue(_key(obj))

    def _on_owned(self, _event: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        """``Owns(&Job{})``/``Owns(&Service{})``: enqueue the JobSet controller owner (old and new)."""
        for item in (old, obj):
            if item is None:
                continue
            for ref in item["metadata"].get("ownerReferences") or ():
                if ref.get("controller") and ref.get("kind") == c.KIND \
                        and str(ref.get("apiVersion", "")).split("/")[0] == c.GROUP:
                    self.controller.enqueue((item["metadata"].get("namespace") or "", ref["name"]))
                    break

    def _on_pod(self, _event: str, obj: dict[str, Any], _old: dict[str, Any] | None) -> None:
        """With gate InPlaceRestart: pods enqueue ``<ns>/<jobset-name label>``."""
        name = (obj["metadata"].get("labels") or {}).get(c.JOBSET_NAME_KEY)
        if name is not None:
            self.controller.enqueue((obj["metadata"].get("namespace") or "", name))

    # ================================================================== Reconcile
    def reconcile(self, key: Key) -> Result | None:
        """``Reconcile``: one pass, one status write at most, events only after it succeeds."""
        namespace, name = key
        cached = self.jobsets.get(name, namespace)
        if cached is None or cached["metadata"].get("deletionTimestamp"):
            return None
        self.passes += 1
        obj = copy.deepcopy(cached)
        from jobset_ref.api.models import JobSet  # lazy: pydantic on the first reconcile

        js = JobSet.from_wire(obj)
        draft = StatusDraft(obj.get("status"), self.rt.now)
        requeue_after = self._reconcile(obj, js, draft)  # an error skips the status write and the events
        if draft.should_update:
            updated = self.apply.write_status(obj, draft)  # a Conflict propagates: events dropped
            self.apply.emit(updated, draft.events)
        return Result(requeue_after=requeue_after)

    def _reconcile(self, obj: dict[str, Any], js: JobSet, draft: StatusDraft) -> SimTime:
        """``reconcile``: the table of contents (spec §3.2). Returns requeue-after (ns)."""
        # 1. spec.managedBy: a JobSet managed by another controller is not touched.
        if managed_by.managed_by_external_controller(js) is not None:
            self._note(js, f"managed by {js.spec.managed_by}: skipped")
            return 0
        # 2. List (by controller-owner UID) and classify child Jobs.
        children = observe.get_child_jobs(js, draft.model, self._owned_jobs(js),
                                          restart_job_gate=self.restart_job_gate)
        # 3. status.replicatedJobsStatus.
        statuses = calculate_replicated_job_statuses(js, draft.model, children,
                                                     restart_job_gate=self.restart_job_gate)
        draft.set_replicated_jobs_status(statuses)
        # 4. Finished: delete active Jobs, then spec.ttlSecondsAfterFinished.
        if _finished(draft.model):
            return self._reconcile_finished(obj, js, draft, children)
        # 5. Delete Jobs of previous restart attempts.
        self.apply.delete_jobs(children.previous)
        # 6. RestartingJobSet=False once every Job is ready again.
        if not suspend.jobset_suspended(js) and _all_jobs_ready(js, statuses):
            draft.apply((conditions.restarting_false(c.RESTARTING_JOBSET_REASON_JOBS_READY,
                                                     c.RESTARTING_JOBSET_MESSAGE_JOBS_READY),))
        # 7. spec.failurePolicy: one action when a current Job failed.
        if children.failed:
            self._decided(js, draft, failure_policy.evaluate_failure_policy(
                js, draft.model, children.failed, restart_job_gate=self.restart_job_gate))
            return 0
        # 8. spec.successPolicy.
        if children.successful:
            decision = success_policy.evaluate_success_policy(js, children.successful)
            if decision:
                self._decided(js, draft, decision)
                return 0
        # 9. spec.network: the headless Service.
        self._reconcile_headless_service(obj, js)
        # 10. spec.volumeClaimPolicies: PVCs.
        if js.spec.volume_claim_policies:
            self.apply.create_pvcs(obj, volume_claim_policies.construct_pvcs(js), construct.owner_reference(js))
        # 11. Elastic scaling of active Jobs (gate ElasticJobSet).
        if self.elastic_gate:
            self.apply.patch_job_scaling(elastic.plan_scaling(js, children.active))
        # 12. Create missing Jobs (dependsOn, startupPolicy InOrder, BlockingRecreate, suspend).
        eligible = eligibility.eligible_replicated_jobs(js, statuses)
        self._reconcile_replicated_jobs(obj, js, draft, children, eligible)
        # 13. spec.suspend: suspend active Jobs, or resume them as dependsOn/InOrder allow.
        self._reconcile_suspend(js, draft, children, eligible)
        # 14. failurePolicy.restartStrategy InPlaceRestart (gate InPlaceRestart).
        if in_place_restart.is_in_place_restart_strategy(js):
            self._reconcile_in_place_restart(js, draft)
        return 0

    # ================================================================== steps
    def _owned_jobs(self, js: JobSet) -> list[dict[str, Any]]:
        """Jobs whose controller owner has this JobSet's UID, in this namespace, by name."""
        uid = str(js.metadata.get("uid") or "")
        return [j for j in self.jobs.by_index(c.JOBS_INDEX_BY_JOBSET_KEY, uid)
                if (j["metadata"].get("namespace") or "") == js.namespace]

    def _reconcile_finished(self, obj: dict[str, Any], js: JobSet, draft: StatusDraft,
                            children: ChildJobs) -> SimTime:
        self.apply.delete_jobs(children.active)
        decision = ttl_after_finished.evaluate_ttl(js, draft.model, to_datetime(self.rt.now))
        if decision.delete:
            self._note(js, "ttlSecondsAfterFinished expired: deleting the JobSet")
            self.apply.delete_jobset(obj)
            return 0
        return max(0, _to_ns(decision.requeue_after))

    def _reconcile_headless_service(self, obj: dict[str, Any], js: JobSet) -> None:
        exists = self.services.get(network.get_subdomain(js), js.namespace) is not None
        if network.needs_headless_service(js, service_exists=exists):
            self.apply.create_service(obj, construct.construct_headless_service(js))

    def _reconcile_replicated_jobs(self, obj: dict[str, Any], js: JobSet, draft: StatusDraft,
                                   children: ChildJobs, eligible: Eligibility) -> None:
        """``reconcileReplicatedJobs`` (spec §3.6): a failed batch ends the pass before later ones."""
        if eligible.replicated_jobs:
            # DEVIATION(upstream): no such budget upstream; an in-memory simulation needs one.
            budget.check_job_budget(js)
        plan = construct.plan_creation(js, draft.model, eligible, children, restart_job_gate=self.restart_job_gate)
        for batch in plan.batches:
            self.apply.create_jobs(obj, batch)
        draft.apply(plan.ops)

    def _reconcile_suspend(self, js: JobSet, draft: StatusDraft, children: ChildJobs, eligible: Eligibility) -> None:
        if suspend.jobset_suspended(js):
            plan = suspend.plan_suspend(children.active)
            self.apply.suspend_jobs(plan.jobs)
            draft.apply(plan.ops)
            return
        resume = suspend.plan_resume(js, children.active, eligible)
        self.apply.resume_jobs(resume.jobs)
        draft.apply(resume.ops)

    def _reconcile_in_place_restart(self, js: JobSet, draft: StatusDraft) -> None:
        if not self.in_place_gate:
            self._note(js, "in-place restart strategy cannot be used when the feature gate is disabled")
            return
        pods = self.pods.by_index(c.PODS_INDEX_BY_JOBSET_KEY, f"{js.namespace}/{js.name}")
        self._decided(js, draft, in_place_restart.evaluate_in_place_restart(js, draft.model, pods))

    # ================================================================== helpers
    def _decided(self, js: JobSet, draft: StatusDraft, decision: Decision) -> None:
        if decision.note:
            self._note(js, decision.note)
        draft.apply(decision.ops)

    def _note(self, js: JobSet, text: str) -> None:
        self.rt.trace.add(f"{CONTROLLER_NAME} {js.namespace}/{js.name}: {text}")


def _key(obj: Mapping[str, Any]) -> Key:
    return (obj["metadata"].get("namespace") or "", obj["metadata"]["name"])


def _finished(status: JobSetStatus) -> bool:
    """``jobSetFinished``: a True Completed or Failed condition."""
    return status.is_condition_true(c.JOBSET_COMPLETED) or status.is_condition_true(c.JOBSET_FAILED)


def _all_jobs_ready(js: JobSet, statuses: list[dict[str, Any]]) -> bool:
    """``allJobsReady``: Σ(ready + succeeded) == Σ replicas."""
    return sum(r.replicas for r in js.replicated_jobs) == sum(
        int(s.get("ready") or 0) + int(s.get("succeeded") or 0) for s in statuses)


def _pod_jobset_index(pod: Mapping[str, Any]) -> list[str]:
    """``podsIndexByJobSet``: ``<namespace>/<jobset-name label>``."""
    name = (pod["metadata"].get("labels") or {}).get(c.JOBSET_NAME_KEY)
    return [] if name is None else [f"{pod['metadata'].get('namespace') or ''}/{name}"]


def _to_ns(delta: timedelta) -> SimTime:
    return (delta.days * 86_400 + delta.seconds) * SECOND + delta.microseconds * 1000
