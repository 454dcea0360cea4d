"""``jobframework/reconciler.go``: ``ReconcileGenericJob``, one reconciler per enabled integration.

The reconciler owns the job side of the contract with Kueue's core: it creates the job's
Workload, starts the job when the Workload is admitted (injecting the flavors' node selectors and
tolerations), stops it and restores its templates when the Workload is evicted, clears the
Workload's quota reservation once the stopped job has no active pods, reports ``PodsReady``
(waitForPodsReady) and reclaimable pods, and finishes the Workload when the job finishes.
It reads through shared informers and writes through the API, as upstream's cached client does.

Not ported (``docs/fidelity.md``): prebuilt workloads, workload slices (elastic jobs), composable
jobs, MultiKueue, admission-check pod set updates, the on-hold state and deactivation retention.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fakekube._core.clock import format_time
from fakekube.errors import ApiError, NotFound
from fakekube.machinery.patch.merge import create_merge_patch
from fakekube.machinery.selectors import LabelSelector
from fakekube.machinery.validation import is_dns1123_label, is_valid_label_value
from fakekube.runtime.context import Runtime
from fakekube.runtime.controller import Result
from fakekube.runtime.events import NORMAL, WARNING
from fakekube.runtime.informer import Informer

from . import constants as k
from . import workload_status as ws
from .interface import GenericJob, Integration, queue_name
from .podset import InvalidPodSetInfo, PodSetInfo, from_assignment, from_podset, merge_into_template
from .workload_names import workload_name_for_owner

Key = tuple[str, str]
OWNER_INDEX = "kueue.x-k8s.io/owner"
MANAGED_OWNERS_CHAIN_LIMIT = 10


@dataclass(frozen=True)
class FrameworkOptions:
    """The Configuration fields the job framework reads (``jobframework.Options``)."""

    manage_jobs_without_queue_name: bool = False
    managed_jobs_namespace_selector: LabelSelector | None = None
    wait_for_pods_ready: bool = True
    label_keys_to_copy: tuple[str, ...] = ()
    enabled: frozenset[str] = frozenset({"batch/job"})


def owner_index_key(api_version: str, kind: str, name: str) -> str:
    return f"{api_version}/{kind}/{name}"


def _workload_owner_keys(wl: Mapping[str, Any]) -> list[str]:
    """``SetupWorkloadOwnerIndex``: every owner of a Workload, by kind and name."""
    return [owner_index_key(ref.get("apiVersion", ""), ref.get("kind", ""), ref.get("name", ""))
            for ref in wl["metadata"].get("ownerReferences") or ()]


class SkipReconcile(Exception):
    """``UnretryableError``: the reconcile ends without a retry."""


class ReconcilerClient:
    """The writes of one reconcile: merge patches of the job (optimistic lock), Workload writes
    and the controller's events (events.k8s.io, no aggregation). The :class:`~.interface.JobClient`
    a job's custom ``stop`` is handed."""

    def __init__(self, framework: Framework, integration: Integration) -> None:
        self.framework = framework
        self.integration = integration
        self.client = framework.rt.shared_client(k.JOB_CONTROLLER_NAME)
        self.recorder = framework.rt.recorder(f"{integration.name}-{k.KUEUE_NAME}-controller", correlate=False)

    @property
    def now(self) -> str:
        return format_time(self.framework.rt.now)

    def patch_job(self, job: GenericJob, original: dict[str, Any], *, subresource: str | None = None) -> None:
        """``clientutil.Patch`` / ``PatchStatus``: a merge patch from ``original`` to ``job.obj``,
        carrying the resourceVersion it was computed from."""
        patch = create_merge_patch(original, job.obj)
        if not patch:
            return
        patch.setdefault("metadata", {})["resourceVersion"] = original["metadata"]["resourceVersion"]
        updated = self.client.patch(self.integration.resource, job.name, patch, namespace=job.namespace,
                                    subresource=subresource)
        job.obj = copy.deepcopy(updated)

    def event(self, obj: dict[str, Any], type_: str, reason: str, message: str) -> None:
        # DEVIATION(upstream): Kueue records events.k8s.io Events; these are core/v1 Events
        # (fakekube's recorder, no correlation) with upstream's type, reason and message.
        self.recorder.event(obj, type_, reason, ws.truncate_event_message(message), action=reason)

    def update_workload_status(self, wl: dict[str, Any], status: dict[str, Any]) -> dict[str, Any]:
        # DEVIATION(upstream): upstream patches Workload status (server-side apply, or a merge patch
        # under WorkloadRequestUseMergePatch); this is a /status update carrying the resourceVersion
        # read: a conflict fails the reconcile, which is retried with backoff.
        body = {**wl, "status": status}
        return self.client.update_status(copy.deepcopy(body))

    def set_workload_condition(self, wl: dict[str, Any], cond: dict[str, Any]) -> dict[str, Any]:
        """``SetConditionAndUpdate``: the condition with the Workload's generation."""
        cond = dict(cond)
        if ws.generation(wl):
            cond["observedGeneration"] = ws.generation(wl)
        status, _ = ws.with_condition(wl, cond, self.now)
        return self.update_workload_status(wl, status)

    def finish_workload(self, wl: dict[str, Any], reason: str, message: str) -> None:
        status, changed = ws.finish(wl, reason, message, self.now)
        if changed:
            self.update_workload_status(wl, status)

    def remove_workload_finalizer(self, wl: dict[str, Any]) -> None:
        """``workload.RemoveFinalizer``."""
        finalizers = list(wl["metadata"].get("finalizers") or [])
        if k.RESOURCE_IN_USE_FINALIZER not in finalizers:
            return
        finalizers.remove(k.RESOURCE_IN_USE_FINALIZER)
        body = copy.deepcopy(wl)
        body["metadata"]["finalizers"] = finalizers
        self.client.update(body)

    def update_workload(self, wl: dict[str, Any]) -> dict[str, Any]:
        return self.client.update(copy.deepcopy(wl))


class Framework:
    """State shared by the reconcilers and webhooks of one installation: options, the enabled
    integrations and the informers they read."""

    def __init__(self, rt: Runtime, options: FrameworkOptions, integrations: dict[str, Integration]) -> None:
        self.rt = rt
        self.options = options
        self.integrations = integrations  # every registered one: isKnownOwner walks them all
        self.enabled = {name: i for name, i in integrations.items() if name in options.enabled}
        self.workloads: Informer = rt.informer("workloads.kueue.x-k8s.io")
        self.workloads.add_index(OWNER_INDEX, _workload_owner_keys, uses=("metadata.ownerReferences",))
        self.namespaces: Informer = rt.informer("namespaces")
        self._job_informers: dict[str, Informer] = {}

    def job_informer(self, integration: Integration) -> Informer:
        informer = self._job_informers.get(integration.name)
        if informer is None:
            informer = self._job_informers[integration.name] = self.rt.informer(integration.resource)
        return informer

    # ------------------------------------------------------------------ owners
    def known_owner(self, ref: dict[str, Any]) -> bool:
        """``isKnownOwner``: a registered integration (or a ReplicaSet)."""
        if ref.get("kind") == "ReplicaSet" and ref.get("apiVersion") == "apps/v1":
            return True
        return any(i.owns(ref) for i in self.integrations.values())

    def enabled_owner(self, ref: dict[str, Any]) -> Integration | None:
        """``getJobTypeForOwner``: the enabled integration of an owner reference."""
        for integration in self.enabled.values():
            if integration.owns(ref):
                return integration
        return None

    def is_owner_managed_by_kueue(self, obj: dict[str, Any]) -> bool:
        """``IsOwnerManagedByKueueForObject``."""
        owner = ws.controller_of(obj)
        return owner is not None and self.enabled_owner(owner) is not None

    def find_ancestor(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """``FindAncestorJobManagedByKueue``: the top-most Kueue-managed ancestor (with a queue name
        unless manageJobsWithoutQueueName), walking controller references."""
        seen: set[str] = set()
        current = obj
        namespace = obj["metadata"].get("namespace") or ""
        top: dict[str, Any] | None = None
        while True:
            uid = current["metadata"].get("uid") or ""
            if uid in seen:
                raise SkipReconcile("cyclic ownership")
            seen.add(uid)
            owner = ws.controller_of(current)
            if owner is None or not self.known_owner(owner):
                return top
            integration = self.enabled_owner(owner)
            registered = next((i for i in self.integrations.values() if i.owns(owner)), None)
            resource = registered.resource if registered is not None else "replicasets.apps"
            try:
                parent = self.rt.server.get(resource, owner["name"], namespace, copy=False)
            except (NotFound, KeyError):
                raise SkipReconcile("workload owner not found") from None
            if (parent["metadata"].get("uid") or "") != owner.get("uid"):
                return top
            if integration is not None and (self.options.manage_jobs_without_queue_name or queue_name(parent)):
                top = parent
            current = parent
            if len(seen) > MANAGED_OWNERS_CHAIN_LIMIT:
                raise SkipReconcile("managed owner chain limit reached")

    def namespace_managed(self, namespace: str) -> bool:
        """``namespaceMatchesSelector`` against managedJobsNamespaceSelector."""
        selector = self.options.managed_jobs_namespace_selector
        if selector is None:
            return True
        ns = self.namespaces.get(namespace)
        return ns is not None and selector.matches(ns["metadata"].get("labels") or {})

    def workloads_of(self, api_version: str, kind: str, namespace: str, name: str) -> list[dict[str, Any]]:
        """Workloads with an owner reference to the named job (the owner index), oldest first."""
        found = [wl for wl in self.workloads.by_index(OWNER_INDEX, owner_index_key(api_version, kind, name))
                 if (wl["metadata"].get("namespace") or "") == namespace]
        return sorted(found, key=lambda wl: (wl["metadata"].get("creationTimestamp") or "", wl["metadata"]["name"]))


class JobReconciler:
    """``genericReconciler`` for one integration: For(job).Owns(Workload)."""

    def __init__(self, framework: Framework, integration: Integration) -> None:
        self.framework = framework
        self.integration = integration
        self.name = f"{integration.name}-kueue-controller"
        self.rt = framework.rt
        self.out = ReconcilerClient(framework, integration)
        self.queue = self.rt.controller(self.name, self._reconcile)
        self._wired = False

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self.queue.start()
        if not self._wired:
            self._wired = True
            self.jobs = self.framework.job_informer(self.integration)
            self.jobs.add_handler(self._on_job)
            self.framework.workloads.add_handler(self._on_workload)
            if self.integration.setup is not None:
                self.integration.setup(self)
        for job in self.jobs.list():
            self.queue.enqueue(_key(job))

    def stop(self) -> None:
        self.queue.stop()

    def _on_job(self, event: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        self.queue.enqueue(_key(obj))

    def _on_workload(self, event: str, wl: dict[str, Any], old: dict[str, Any] | None) -> None:
        owner = ws.controller_of(wl)
        if owner is not None and self.integration.owns(owner):
            self.queue.enqueue((wl["metadata"].get("namespace") or "", owner["name"]))

    # ------------------------------------------------------------------ ReconcileGenericJob
    def _reconcile(self, key: Key) -> Result | None:
        try:
            return self._reconcile_generic_job(key)
        except SkipReconcile:
            return None

    def _reconcile_generic_job(self, key: Key) -> Result | None:
        namespace, name = key
        fw, out = self.framework, self.out
        stored = self.jobs.get(name, namespace)
        if stored is None or stored["metadata"].get("deletionTimestamp"):
            self._finalize(namespace, name)
            return None
        job = self.integration.new_job(copy.deepcopy(stored))
        if fw.namespaces.get(namespace) is None:
            return None
        if not fw.namespace_managed(namespace):
            return None
        ancestor = fw.find_ancestor(job.obj)
        top_level = ancestor is None
        if not fw.options.manage_jobs_without_queue_name and not queue_name(job.obj):
            if top_level or not queue_name(ancestor or {}):
                return None
        if not top_level:
            assert ancestor is not None
            if self._should_suspend_child(job, ancestor):
                original = copy.deepcopy(job.obj)
                job.suspend()
                out.patch_job(job, original)
                out.event(job.obj, NORMAL, k.REASON_SUSPENDED, "Kueue managed child job suspended")
            return None

        wl = self._ensure_one_workload(job)

        if wl is not None and ws.is_finished(wl):
            out.event(job.obj, NORMAL, k.REASON_FINISHED_WORKLOAD, f"Workload '{ws.key(wl)}' is declared finished")
            out.remove_workload_finalizer(wl)
            return None

        if wl is not None and wl["metadata"].get("deletionTimestamp"):
            self._stop_job(job, wl, k.STOP_WORKLOAD_DELETED, "Workload is deleted")
            out.remove_workload_finalizer(wl)
            return None

        message, success, finished = job.finished()
        if finished:
            if wl is not None and not ws.is_finished(wl):
                reason = k.FINISHED_SUCCEEDED if success else k.FINISHED_FAILED
                try:
                    out.finish_workload(wl, reason, message)
                except NotFound:
                    pass
                out.event(job.obj, NORMAL, k.REASON_FINISHED_WORKLOAD, f"Workload '{ws.key(wl)}' is declared finished")
            return None

        if wl is None:
            self._handle_job_with_no_workload(job)
            return None

        if job.has_reclaimable_pods:
            reclaimable = _limit_to_podset_sizes(wl, job.reclaimable_pods())
            current = (wl.get("status") or {}).get("reclaimablePods") or []
            if _as_counts(reclaimable) != _as_counts(current):
                status = {**(wl.get("status") or {}), "reclaimablePods": reclaimable}
                out.update_workload_status(wl, status)
                return None

        if fw.options.wait_for_pods_ready:
            cond = self._pods_ready_condition(job, wl)
            if not ws.has_condition_with_type_and_reason(wl, cond):
                try:
                    out.set_workload_condition(wl, cond)
                except NotFound:
                    pass
                return None

        evicted = ws.find(wl, k.EVICTED)
        if evicted is not None and evicted.get("status") == "True":
            self._stop_job(job, wl, k.STOP_WORKLOAD_EVICTED, evicted.get("message", ""))
            if ws.has_quota_reservation(wl) and not job.is_active():
                self._clear_admission(wl, evicted)
            return None

        if job.is_suspended():
            if ws.is_admitted(wl):
                self._start_job(job, wl)
                return None
            if (wl.get("spec") or {}).get("queueName", "") != queue_name(job.obj):
                body = copy.deepcopy(wl)
                body["spec"]["queueName"] = queue_name(job.obj)
                out.update_workload(body)
            return None

        if not ws.is_admitted(wl):
            self._stop_job(job, wl, k.STOP_NOT_ADMITTED, "Not admitted by cluster queue")
        return None

    # ------------------------------------------------------------------ steps
    def _finalize(self, namespace: str, name: str) -> None:
        """``finalizeWorkloads``: each Workload of a job that is gone is finished (owner not found)
        and loses its finalizer, so the garbage collector can delete it."""
        for wl in self.framework.workloads_of(self.integration.api_version, self.integration.kind, namespace, name):
            try:
                if not wl["metadata"].get("deletionTimestamp") and ws.controller_of(wl) is not None:
                    status, changed = ws.finish(wl, k.FINISHED_OWNER_NOT_FOUND, "The workload's owner no longer exists",
                                                self.out.now)
                    if changed:
                        wl = self.out.update_workload_status(wl, status)
                self.out.remove_workload_finalizer(wl)
            except NotFound:
                continue

    def _should_suspend_child(self, job: GenericJob, ancestor: dict[str, Any]) -> bool:
        """``shouldSuspendChildJob``: a running child of a managed job whose latest unfinished
        Workload is missing or not admitted."""
        _, _, finished = job.finished()
        if finished or job.is_suspended():
            return False
        integration = self.framework.enabled_owner(ws.controller_of(job.obj) or {})
        meta = ancestor["metadata"]
        api_version = ancestor.get("apiVersion") or (integration.api_version if integration else "")
        kind = ancestor.get("kind") or (integration.kind if integration else "")
        unfinished = [wl for wl in self.framework.workloads_of(api_version, kind, meta.get("namespace") or "",
                                                               meta["name"]) if not ws.is_finished(wl)]
        if not unfinished:
            return True
        return not ws.is_admitted(unfinished[-1])

    def _ensure_one_workload(self, job: GenericJob) -> dict[str, Any] | None:
        """``ensureOneWorkload``: the matching Workload; others are deleted, a non-matching one of a
        suspended job without quota is updated to match it."""
        out = self.out
        match: dict[str, Any] | None = None
        to_delete: list[dict[str, Any]] = []
        for wl in self.framework.workloads_of(self.integration.api_version, self.integration.kind,
                                              job.namespace, job.name):
            if match is None and self._equivalent(job, wl):
                match = wl
            else:
                to_delete.append(wl)
        to_update = None
        if match is None and to_delete and job.is_suspended() and not ws.has_quota_reservation(to_delete[0]):
            to_update, to_delete = to_delete[0], to_delete[1:]
        if match is None and not job.is_suspended():
            only = to_delete[0] if len(to_delete) == 1 else None
            _, _, finished = job.finished()
            if not finished:
                msg = ("Missing Workload; unable to restore pod templates" if only is None
                       else "No matching Workload; restoring pod templates according to existent Workload")
                self._stop_job(job, only, k.STOP_NO_MATCHING_WORKLOAD, msg)
        deleted = 0
        for wl in to_delete:
            try:
                out.remove_workload_finalizer(wl)
                if wl["metadata"].get("deletionTimestamp"):
                    continue
                out.client.delete("workloads.kueue.x-k8s.io", wl["metadata"]["name"], job.namespace)
            except NotFound:
                continue
            deleted += 1
            out.event(job.obj, NORMAL, k.REASON_DELETED_WORKLOAD, f"Deleted not matching Workload: {ws.key(wl)}")
        if deleted:
            raise SkipReconcile("no matching workloads" if match is None else "extra workloads")
        if to_update is not None:
            new = self._construct_workload(job)
            body = copy.deepcopy(to_update)
            active = (body.get("spec") or {}).get("active")
            body["spec"] = new["spec"]
            if active is not None:
                body["spec"]["active"] = active
            updated = out.update_workload(body)
            out.event(job.obj, NORMAL, k.REASON_UPDATED_WORKLOAD,
                      f"Updated not matching Workload for suspended job: {ws.key(updated)}")
            return updated
        if match is not None:
            match = self._update_priority(job, match)
        return match

    def _equivalent(self, job: GenericJob, wl: dict[str, Any]) -> bool:
        """``EquivalentToWorkload``: same owner, max execution time and pod sets (counts and
        containers; tolerations unless admitted, as admission adds the flavors')."""
        owner = ws.controller_of(wl)
        if owner is None or owner.get("name") != job.name or owner.get("uid") != job.meta.get("uid"):
            return False
        if (wl.get("spec") or {}).get("maximumExecutionTimeSeconds") != max_execution_time_seconds(job.obj):
            return False
        job_podsets = job_pod_sets(job)
        ignore_tolerations = ws.is_admitted(wl)
        spec_podsets = (wl.get("spec") or {}).get("podSets") or []
        running = self._expected_running_podsets(wl)
        if running is not None:
            if _compare_podset_lists(job_podsets, running, ignore_tolerations):
                return True
            return job.is_suspended() and _compare_podset_lists(job_podsets, spec_podsets, ignore_tolerations)
        return _compare_podset_lists(job_podsets, spec_podsets, ignore_tolerations)

    def _expected_running_podsets(self, wl: dict[str, Any]) -> list[dict[str, Any]] | None:
        if not ws.has_quota_reservation(wl):
            return None
        try:
            infos = self._podsets_info_from_status(wl)
        except (ApiError, InvalidPodSetInfo):
            return None
        by_name = {info.name: info for info in infos}
        running = copy.deepcopy((wl.get("spec") or {}).get("podSets") or [])
        for podset in running:
            info = by_name.get(podset["name"])
            if info is None:
                return None
            try:
                merge_into_template(podset.setdefault("template", {}), info)
            except InvalidPodSetInfo:
                return None
            if podset.get("minCount") is not None:
                podset["count"] = info.count
        return running

    def _podsets_info_from_status(self, wl: dict[str, Any]) -> list[PodSetInfo]:
        """``getPodSetsInfoFromStatus``: flavors, the TAS workload annotation, the podset label and
        the queue labels (``AssignQueueLabelsForPods``)."""
        admission = (wl.get("status") or {}).get("admission") or {}
        assignments = admission.get("podSetAssignments") or []
        podsets = (wl.get("spec") or {}).get("podSets") or []
        server = self.rt.server
        infos = []
        for i, assignment in enumerate(assignments):
            info = from_assignment(assignment, podsets[i] if i < len(podsets) else {},
                                   lambda name: server.get("resourceflavors.kueue.x-k8s.io", name, None, copy=False))
            info.annotations[k.WORKLOAD_ANNOTATION] = wl["metadata"]["name"]
            info.labels[k.PODSET_LABEL] = assignment["name"]
            info.labels[k.LOCAL_QUEUE_LABEL] = (wl.get("spec") or {}).get("queueName", "")
            cluster_queue = admission.get("clusterQueue", "")
            if not is_dns1123_label(cluster_queue):
                info.labels[k.CLUSTER_QUEUE_LABEL] = cluster_queue
            infos.append(info)
        return infos

    def _start_job(self, job: GenericJob, wl: dict[str, Any]) -> None:
        """``startJob``: unsuspend with the admission's pod set infos; a permanent mismatch
        finishes the Workload (``FailedToStart``)."""
        out = self.out
        original = copy.deepcopy(job.obj)
        try:
            infos = self._podsets_info_from_status(wl)
            job.run_with_podsets_info(infos)
        except InvalidPodSetInfo as err:
            out.finish_workload(wl, k.FAILED_TO_START, str(err))
            return
        out.patch_job(job, original)
        cluster_queue = ((wl.get("status") or {}).get("admission") or {}).get("clusterQueue", "")
        out.event(job.obj, NORMAL, k.REASON_STARTED, f"Admitted by clusterQueue {cluster_queue}")

    def _stop_job(self, job: GenericJob, wl: dict[str, Any] | None, reason: str, message: str) -> None:
        """``stopJob``: suspend and restore the templates the Workload recorded."""
        infos = [from_podset(ps) for ps in (wl.get("spec") or {}).get("podSets") or []] if wl is not None else []
        if job.has_custom_stop:
            if job.stop(self.out, infos, reason, message):
                self.out.event(job.obj, NORMAL, k.REASON_STOPPED, message)
            return
        if job.is_suspended():
            return
        original = copy.deepcopy(job.obj)
        job.suspend()
        if wl is not None:
            job.restore_podsets_info(infos)
        self.out.patch_job(job, original)
        self.out.event(job.obj, NORMAL, k.REASON_STOPPED, message)

    def _clear_admission(self, wl: dict[str, Any], evicted: dict[str, Any]) -> None:
        """Once the evicted job has no active pods: ``Requeued`` (True after preemption or node
        failures) and the quota reservation released (QuotaReserved=False ``Pending``)."""
        now = self.out.now
        reason, message = evicted.get("reason", ""), evicted.get("message", "")
        requeued = reason in (k.EVICTED_BY_PREEMPTION, k.EVICTED_DUE_TO_NODE_FAILURES)
        status, changed = ws.requeue_and_release(wl, reason, message, requeued, k.PENDING, now)
        if changed:
            self.out.update_workload_status(wl, status)

    def _handle_job_with_no_workload(self, job: GenericJob) -> None:
        """``handleJobWithNoWorkload``: once no pod is active, create the Workload."""
        if job.is_active():
            return
        wl = self._construct_workload(job)
        created = self.out.client.create(wl)
        self.out.event(job.obj, NORMAL, k.REASON_CREATED_WORKLOAD, f"Created Workload: {ws.key(created)}")

    def _construct_workload(self, job: GenericJob) -> dict[str, Any]:
        """``ConstructWorkload`` + ``prepareWorkload``: name, copied labels, the job-uid label,
        controller reference, finalizer, queue, pod sets and priority."""
        meta = job.meta
        labels = {key_: value for key_, value in sorted((meta.get("labels") or {}).items())
                  if key_ in self.framework.options.label_keys_to_copy}
        uid = str(meta.get("uid") or "")
        if not is_valid_label_value(uid):
            labels[k.JOB_UID_LABEL] = uid
        annotations = {key_: value for key_, value in (meta.get("annotations") or {}).items()
                       if key_.startswith(k.PROV_REQ_ANNOTATION_PREFIX)}
        podsets = job_pod_sets(job)
        wl_meta: dict[str, Any] = {
            "name": workload_name_for_owner(job.name, uid, self.integration.api_version, self.integration.kind),
            "namespace": job.namespace,
        }
        if labels:
            wl_meta["labels"] = labels
        if annotations:
            wl_meta["annotations"] = annotations
        wl_meta["ownerReferences"] = [{"apiVersion": self.integration.api_version, "kind": self.integration.kind,
                                       "name": job.name, "uid": uid, "controller": True, "blockOwnerDeletion": True}]
        wl_meta["finalizers"] = [k.RESOURCE_IN_USE_FINALIZER]
        spec: dict[str, Any] = {"podSets": podsets}
        if queue_name(job.obj):
            spec["queueName"] = queue_name(job.obj)
        max_exec = max_execution_time_seconds(job.obj)
        if max_exec is not None:
            spec["maximumExecutionTimeSeconds"] = max_exec
        ref, priority = self._extract_priority(job.obj, podsets)
        if ref is not None:
            spec["priorityClassRef"] = ref
        spec["priority"] = priority
        return {"apiVersion": k.API_VERSION, "kind": k.WORKLOAD_KIND, "metadata": wl_meta, "spec": spec}

    def _extract_priority(self, obj: dict[str, Any], podsets: list[dict[str, Any]]) -> tuple[dict[str, Any] | None, int]:
        """``ExtractPriority``: the WorkloadPriorityClass label, else the pods' PriorityClass, else
        the global default PriorityClass, else 0. A missing class is an error (retried)."""
        server = self.rt.server
        wpc_name = ((obj.get("metadata") or {}).get("labels") or {}).get(k.WORKLOAD_PRIORITY_CLASS_LABEL, "")
        if wpc_name:
            wpc = server.get("workloadpriorityclasses.kueue.x-k8s.io", wpc_name, None, copy=False)
            return ({"group": k.WORKLOAD_PRIORITY_CLASS_GROUP, "kind": k.WORKLOAD_PRIORITY_CLASS_KIND,
                     "name": wpc_name}, int(wpc.get("value") or 0))
        pc_name = next((ps["template"]["spec"]["priorityClassName"] for ps in podsets
                        if ((ps.get("template") or {}).get("spec") or {}).get("priorityClassName")), "")
        if pc_name:
            pc = server.get("priorityclasses.scheduling.k8s.io", pc_name, None, copy=False)
            return ({"group": k.POD_PRIORITY_CLASS_GROUP, "kind": k.POD_PRIORITY_CLASS_KIND, "name": pc_name},
                    int(pc.get("value") or 0))
        default = None
        for pc in server.list("priorityclasses.scheduling.k8s.io", copy=False)["items"]:
            if pc.get("globalDefault") and (default is None or int(default.get("value") or 0) > int(pc.get("value") or 0)):
                default = pc
        if default is not None:
            return ({"group": k.POD_PRIORITY_CLASS_GROUP, "kind": k.POD_PRIORITY_CLASS_KIND,
                     "name": default["metadata"]["name"]}, int(default.get("value") or 0))
        return None, k.DEFAULT_PRIORITY

    def _update_priority(self, job: GenericJob, wl: dict[str, Any]) -> dict[str, Any]:
        """``UpdateWorkloadPriority``: follow a changed ``kueue.x-k8s.io/priority-class`` label
        (workloads whose priority comes from a pod PriorityClass are left alone)."""
        spec = wl.get("spec") or {}
        ref = spec.get("priorityClassRef")
        if ws.has_quota_reservation(wl) and ref is None:
            return wl
        if ref is not None and ref.get("kind") != k.WORKLOAD_PRIORITY_CLASS_KIND:
            return wl
        wanted = job.labels.get(k.WORKLOAD_PRIORITY_CLASS_LABEL, "")
        if (ref or {}).get("name", "") == wanted:
            return wl
        new_ref, priority = self._extract_priority(job.obj, spec.get("podSets") or [])
        body = copy.deepcopy(wl)
        if new_ref is None:
            body["spec"].pop("priorityClassRef", None)
        else:
            body["spec"]["priorityClassRef"] = new_ref
        body["spec"]["priority"] = priority
        updated = self.out.update_workload(body)
        self.out.event(job.obj, NORMAL, k.REASON_UPDATED_WORKLOAD, f"Updated workload priority class: {ws.key(wl)}")
        return updated

    def _pods_ready_condition(self, job: GenericJob, wl: dict[str, Any]) -> dict[str, Any]:
        """``generatePodsReadyCondition``."""
        now = self.out.now
        not_ready = "Not all pods are ready or succeeded"
        recovering = "At least one pod has failed, waiting for recovery"
        if not ws.is_admitted(wl):
            return ws.pods_ready_condition("False", k.WAIT_FOR_START, not_ready, now)
        current = ws.find(wl, k.PODS_READY)
        if job.pods_ready():
            reason = k.STARTED
            if current is not None and current.get("reason") in (k.WAIT_FOR_RECOVERY, k.RECOVERED):
                reason = k.RECOVERED
            return ws.pods_ready_condition("True", reason, "All pods reached readiness and the workload is running", now)
        if current is None:
            return ws.pods_ready_condition("False", k.WAIT_FOR_START, not_ready, now)
        if current.get("status") == "True" or current.get("reason") == k.WAIT_FOR_RECOVERY:
            return ws.pods_ready_condition("False", k.WAIT_FOR_RECOVERY, recovering, now)
        return ws.pods_ready_condition("False", k.WAIT_FOR_START, not_ready, now)


def _key(obj: dict[str, Any]) -> Key:
    return (obj["metadata"].get("namespace") or "", obj["metadata"]["name"])


def job_pod_sets(job: GenericJob) -> list[dict[str, Any]]:
    """``JobPodSets``: the job's pod sets, each container's env keeping the last of duplicate
    names (in the place of the first)."""
    podsets = job.pod_sets()
    for podset in podsets:
        spec = (podset.get("template") or {}).get("spec") or {}
        for field in ("initContainers", "containers"):
            for container in spec.get(field) or ():
                env = container.get("env")
                if env:
                    last: dict[str, dict[str, Any]] = {}
                    for var in env:
                        last[var.get("name", "")] = var
                    container["env"] = list(last.values())
    return podsets


def max_execution_time_seconds(obj: dict[str, Any]) -> int | None:
    """``MaximumExecutionTimeSecondsForObject``: the label as a positive int32, else None."""
    text = ((obj.get("metadata") or {}).get("labels") or {}).get(k.MAX_EXEC_TIME_SECONDS_LABEL)
    if text is None:
        return None
    try:
        value = int(text, 10)
    except ValueError:
        return None
    return value if 0 < value < 2**31 else None


def _semantic(value: Any) -> Any:
    """``equality.Semantic``: empty and missing lists and maps are equal."""
    if isinstance(value, dict):
        return {key_: _semantic(v) for key_, v in value.items() if v not in (None, [], {})}
    if isinstance(value, list):
        return [_semantic(v) for v in value]
    return value


def _compare_podset_lists(a: list[dict[str, Any]], b: list[dict[str, Any]], ignore_tolerations: bool) -> bool:
    """``ComparePodSetSlices``: counts, minCounts, containers, init containers (and tolerations)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if int(x.get("count", 0)) != int(y.get("count", 0)):
            return False
        if x.get("minCount", -1) != y.get("minCount", -1):
            return False
        xs, ys = (x.get("template") or {}).get("spec") or {}, (y.get("template") or {}).get("spec") or {}
        fields = ("initContainers", "containers") if ignore_tolerations else ("tolerations", "initContainers",
                                                                               "containers")
        if any(_semantic(xs.get(f)) != _semantic(ys.get(f)) for f in fields):
            return False
    return True


def _limit_to_podset_sizes(wl: dict[str, Any], pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``LimitReclaimablePodsToPodSetSizes``."""
    sizes = {ps["name"]: int(ps.get("count", 0)) for ps in (wl.get("spec") or {}).get("podSets") or []}
    return [{"name": p["name"], "count": min(int(p["count"]), sizes.get(p["name"], int(p["count"])))} for p in pods]


def _as_counts(pods: list[dict[str, Any]]) -> dict[str, int]:
    return {p["name"]: int(p.get("count", 0)) for p in pods}


__all__ = ["WARNING", "Framework", "FrameworkOptions", "JobReconciler", "ReconcilerClient", "SkipReconcile"]
