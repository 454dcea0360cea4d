"""``job_controller.go``: the controller wiring (informers, event handlers, work queues,
``ControllerExpectations``), ``syncJob`` (counting, finish detection in upstream order) and
``manageJob`` (creating and deleting pods in slow-start batches); orphan pods lose their tracking
finalizer (``syncOrphanPod``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fakekube._core.clock import SECOND, SimTime, format_time, parse_time
from fakekube._core.jsonutil import copier, deep_copy
from fakekube.apiserver.kinds.job_status import condition_true, is_job_finished
from fakekube.apiserver.kinds.jobs import JOB_CONTROLLER_NAME
from fakekube.errors import ApiError, NotFound, SimulationError
from fakekube.machinery.objects import OwnerReference, controller_ref, find_condition, meta_of
from fakekube.runtime.context import Runtime
from fakekube.runtime.controller import Backoff, Result
from fakekube.runtime.events import NORMAL, WARNING

from .backoff import BackoffRecord, new_backoff_record, remaining_backoff
from .conditions import ensure_condition, new_condition
from .indexed import (
    INDEX_FAILURE_COUNT,
    INDEX_IGNORED_FAILURE_COUNT,
    add_completion_index_env,
    calculate_failed_indexes,
    calculate_succeeded_indexes,
    creation_info_per_index,
    first_pending_indexes,
    generate_name_with_index,
    new_index_failure_counts,
    pods_with_delayed_deletion,
)
from .pod_failure_policy import fail_job_message, match_pod_failure_policy
from .pods import (
    COMPLETION_INDEX,
    POD_INDEX,
    UNKNOWN_INDEX,
    Key,
    active_pods_order,
    completion_index,
    is_indexed,
    is_ready,
    is_suspended,
    job_controller_uid,
    only_replace_failed_pods,
    per_index,
    pod_key,
    spec_of,
)
from .success_policy import match_success_policy
from .tracking import TRACKING_FINALIZER, FinalizerTracking, SyncCtx, has_finalizer, new_finished_pods

SYNC_JOB_BATCH_PERIOD: SimTime = 1 * SECOND
API_BACKOFF = Backoff(1 * SECOND, 60 * SECOND)  # DefaultJobApiBackOff, MaxJobApiBackOff
EXPECTATIONS_TIMEOUT: SimTime = 300 * SECOND
MAX_POD_CREATE_DELETE_PER_SYNC = 500
SLOW_START_INITIAL_BATCH_SIZE = 1
MAX_SIMULATED_PODS = 100_000
"""How many pods the simulated cluster holds: a Job whose missing pods would take it past this
stops the simulation (``SimulationError``) before its first pod is created. Kubernetes has no such
limit; an in-memory simulation of millions of pods exhausts memory long before it finishes."""


@dataclass
class _Expectations:
    """``ControllerExpectations`` record: outstanding creations/deletions and when set."""

    add: int
    delete: int
    timestamp: SimTime


class JobController(FinalizerTracking):
    """The simulated ``job-controller``."""

    name = "job_controller"

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.client = rt.shared_client("job-controller")
        self.recorder = rt.recorder("job-controller")
        self.queue = rt.controller("job-controller", self._sync, backoff=API_BACKOFF, verb="sync")
        self.orphan_queue = rt.controller("job-controller/orphan-pods", self._reconcile_orphan)
        self._expectations: dict[Key, _Expectations] = {}
        self._rm_finalizers: dict[Key, set[str]] = {}
        self._backoff: dict[Key, BackoffRecord] = {}
        self._finished_jobs: set[str] = set()
        self._wired = False
        self._running = False

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self._running = True
        self.queue.start()
        self.orphan_queue.start()
        if not self._wired:
            self._wired = True
            self.jobs = self.rt.informer("jobs")
            self.pods = self.rt.informer("pods")
            self.pods.add_index(POD_INDEX, job_controller_uid, uses=("metadata.ownerReferences",))
            self.jobs.add_handler(self._on_job)
            self.pods.add_handler(self._on_pod)
        for job in self.jobs.list():
            self.queue.enqueue(pod_key(job))

    def stop(self) -> None:
        self._running = False
        self.queue.stop()
        self.orphan_queue.stop()

    # ------------------------------------------------------------------ event handlers
    def _on_job(self, event: str, job: dict[str, Any], old: dict[str, Any] | None) -> None:
        """``addJob`` / ``updateJob`` / ``deleteJob``."""
        if not self._running:
            return
        key = pod_key(job)
        if event == "DELETED":
            self.queue.enqueue(key)
            self._cleanup_pod_finalizers(job)
            self._finished_jobs.discard(meta_of(job).get("uid") or "")
            return
        if event == "ADDED" or old is None:
            self.queue.enqueue(key)
            return
        if meta_of(job).get("generation") == meta_of(old).get("generation"):
            self.queue.enqueue(key, SYNC_JOB_BATCH_PERIOD)
        else:
            self.queue.enqueue(key)
        if is_job_finished(job):
            self._cleanup_pod_finalizers(job)
        start = (job.get("status") or {}).get("startTime")
        ads, old_ads = spec_of(job).get("activeDeadlineSeconds"), spec_of(old).get("activeDeadlineSeconds")
        if start and ads is not None and ads != old_ads:
            passed = self.rt.now - parse_time(start)
            self.queue.enqueue(key, ads * SECOND - passed)

    def _resolve(self, namespace: str, ref: OwnerReference | None) -> dict[str, Any] | None:
        """``resolveControllerRef``: the cached Job named by ``ref`` if its UID matches."""
        if ref is None or ref.get("kind") != "Job" or ref.get("apiVersion") != "batch/v1":
            return None
        job = self.jobs.cache.get((namespace, ref.get("name") or ""))  # self.jobs.get(name, namespace)
        if job is None or (job.get("metadata") or {}).get("uid") != ref.get("uid"):
            return None
        return job

    def _on_pod(self, event: str, pod: dict[str, Any], old: dict[str, Any] | None) -> None:
        """``addPod`` / ``updatePod`` / ``deletePod``."""
        if not self._running:
            return
        meta = pod.get("metadata") or {}
        namespace = meta.get("namespace") or ""
        refs = meta.get("ownerReferences")
        ref: OwnerReference | None = None
        for owner in refs or ():  # controller_ref(pod), inlined: every pod event asks
            if owner.get("controller"):
                ref = owner
                break
        job = self._resolve(namespace, ref) if ref is not None else None
        if event == "DELETED":
            if job is not None:
                key = pod_key(job)
                self._deletion_observed(key)
                self._finalizer_removal_observed(key, meta.get("uid") or "")
                self.queue.enqueue(key, SYNC_JOB_BATCH_PERIOD)
            return
        # updatePod looks at the old controller only when the controllerRef changed (an unchanged
        # one resolves to the same Job as the current one, or to none).
        old_ref: OwnerReference | None = None
        ref_changed = False
        if event == "MODIFIED" and old is not None and (old.get("metadata") or {}).get("ownerReferences") is not refs:
            old_ref = controller_ref(old)
            ref_changed = old_ref is not None and old_ref != ref
        if job is None:
            if has_finalizer(pod):
                self.orphan_queue.enqueue(pod_key(pod))
            if ref_changed:
                old_job = self._resolve(namespace, old_ref)
                if old_job is not None:
                    self.queue.enqueue(pod_key(old_job), SYNC_JOB_BATCH_PERIOD)
            return
        key = pod_key(job)
        if event == "ADDED" or old is None:
            if meta.get("deletionTimestamp"):
                self._deletion_observed(key)
            else:
                self._creation_observed(key)
            self.queue.enqueue(key, SYNC_JOB_BATCH_PERIOD)
            return
        if key in self._rm_finalizers and TRACKING_FINALIZER not in (meta.get("finalizers") or ()):
            self._finalizer_removal_observed(key, meta.get("uid") or "")  # (not has_finalizer(pod), inlined)
        if meta.get("deletionTimestamp") and not (old.get("metadata") or {}).get("deletionTimestamp"):
            self._deletion_observed(key)
        if ref_changed:
            old_job = self._resolve(namespace, old_ref)
            if old_job is not None and meta_of(old_job).get("uid") != meta_of(job).get("uid"):
                self.queue.enqueue(pod_key(old_job), SYNC_JOB_BATCH_PERIOD)
        self.queue.enqueue(key, SYNC_JOB_BATCH_PERIOD)

    def _cleanup_pod_finalizers(self, job: dict[str, Any]) -> None:
        """``cleanupPodFinalizers``: queue this Job's pods that still carry the tracking finalizer."""
        for pod in self.pods.by_index(POD_INDEX, meta_of(job).get("uid") or ""):
            if has_finalizer(pod):
                self.orphan_queue.enqueue(pod_key(pod))

    # ------------------------------------------------------------------ expectations
    def _satisfied(self, key: Key) -> bool:
        rec = self._expectations.get(key)
        if rec is None:
            return True
        if rec.add <= 0 and rec.delete <= 0:
            return True
        return self.rt.now - rec.timestamp > EXPECTATIONS_TIMEOUT

    def _expect(self, key: Key, add: int, delete: int) -> None:
        self._expectations[key] = _Expectations(add, delete, self.rt.now)

    def _creation_observed(self, key: Key) -> None:
        rec = self._expectations.get(key)
        if rec is not None:
            rec.add -= 1

    def _deletion_observed(self, key: Key) -> None:
        rec = self._expectations.get(key)
        if rec is not None:
            rec.delete -= 1

    # ------------------------------------------------------------------ orphan pods
    def _reconcile_orphan(self, key: Key) -> Result | None:
        """``syncOrphanPod``: remove the tracking finalizer unless a live, unfinished Job owns the pod."""
        namespace, name = key
        pod = self.pods.get(name, namespace)
        if pod is None or not has_finalizer(pod):
            return None
        ref = controller_ref(pod)
        if ref is not None:
            if ref.get("kind") != "Job" or ref.get("apiVersion") != "batch/v1":
                return None
            job = self._resolve(namespace, ref)
            if job is not None:
                managed_by = spec_of(job).get("managedBy")
                if managed_by is not None and managed_by != JOB_CONTROLLER_NAME:
                    return None
                if not is_job_finished(job):
                    return None
        try:
            self._remove_finalizer(pod)
        except NotFound:
            return None
        return None

    # ------------------------------------------------------------------ sync
    def _sync(self, key: Key) -> None:
        """``syncJob``."""
        namespace, name = key
        cached = self.jobs.get(name, namespace)
        if cached is None:
            self._expectations.pop(key, None)
            self._rm_finalizers.pop(key, None)
            self._backoff.pop(key, None)
            return
        spec = spec_of(cached)
        managed_by = spec.get("managedBy")
        if managed_by is not None and managed_by != JOB_CONTROLLER_NAME:
            return
        uid = meta_of(cached).get("uid") or ""
        if is_job_finished(cached):
            self._finished_jobs.discard(uid)
            return
        if uid in self._finished_jobs:
            # finishedJobExpectations: this sync wrote the Job's terminal condition and the cache
            # has not shown it yet; a sync on the stale Job would recreate the pods it counted.
            return
        if spec.get("completionMode") not in ("NonIndexed", "Indexed"):
            self.recorder.event(cached, WARNING, "UnknownCompletionMode",
                                "Skipped Job sync because completion mode is unknown")
            return
        now = self.rt.now
        # syncJob works on a copy; only its status is ever changed, so metadata and spec stay
        # shared with the frozen cached Job.
        job = {**cached, "status": deep_copy(cached.get("status") or {})}
        status = job["status"]
        if status.get("uncountedTerminatedPods") is None:
            status["uncountedTerminatedPods"] = {}
        uncounted = status["uncountedTerminatedPods"]
        satisfied = self._satisfied(key)
        # SIMPLIFICATION: getPodsForJob's ClaimPods (adopting orphans that match the selector,
        # releasing pods that stopped matching) is not modelled: a Job's pods are those it controls.
        pods = self.pods.by_index(POD_INDEX, meta_of(job).get("uid") or "")
        expected_rm_finalizers = set(self._rm_finalizers.get(key, ()))
        # One pass sorts the pods for the whole sync: FilterActivePods (not terminal, not being
        # deleted), FilterTerminatingPods (pods.is_terminating) and the tracked pods (has_finalizer),
        # the last two inlined: this reads every pod.
        active_pods: list[dict[str, Any]] = []
        terminating_pods: list[dict[str, Any]] = []
        tracked: list[tuple[dict[str, Any], str]] = []
        ready = 0
        for pod in pods:
            meta = pod.get("metadata") or {}
            if (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed"):
                if not meta.get("deletionTimestamp"):
                    active_pods.append(pod)
                    ready += is_ready(pod)
                else:
                    terminating_pods.append(pod)
            if TRACKING_FINALIZER in (meta.get("finalizers") or ()) \
                    and (uid := meta.get("uid") or "") not in expected_rm_finalizers:
                tracked.append((pod, uid))
        ctx = SyncCtx(
            job=job, pods=pods, active_pods=active_pods, succeeded=0, failed=0,
            terminating=len(terminating_pods), ready=ready,
            uncounted_succeeded=set(uncounted.get("succeeded") or ()),
            uncounted_failed=set(uncounted.get("failed") or ()),
            tracked=tracked,
            backoff=BackoffRecord(),
        )
        active = len(active_pods)
        new_succeeded, new_failed = new_finished_pods(ctx)
        policy = spec.get("podFailurePolicy")
        counted_failed = sum(1 for p in new_failed if match_pod_failure_policy(policy, p)[1])
        ctx.succeeded = int(status.get("succeeded") or 0) + len(new_succeeded) + len(ctx.uncounted_succeeded)
        ctx.failed = int(status.get("failed") or 0) + counted_failed + len(ctx.uncounted_failed)

        if not status.get("startTime") and not is_suspended(job):
            status["startTime"] = format_time(now)
        ctx.backoff = new_backoff_record(self._backoff.get(key), new_succeeded, new_failed)

        # Finish detection, in upstream order.
        success = find_condition(status.get("conditions"), "SuccessCriteriaMet")
        target = find_condition(status.get("conditions"), "FailureTarget")
        if success is not None and success.get("status") == "True":
            ctx.finished_condition = new_condition("Complete", "True", success.get("reason") or "",
                                                   success.get("message") or "", now)
        elif target is not None and target.get("status") == "True":
            ctx.finished_condition = new_condition("Failed", "True", target.get("reason") or "",
                                                   target.get("message") or "", now)
        else:
            message = fail_job_message(job, pods)
            if message is not None:
                ctx.finished_condition = new_condition("FailureTarget", "True", "PodFailurePolicy", message, now)
        if ctx.finished_condition is None:
            if ctx.failed > int(spec.get("backoffLimit", 6)) or self._past_backoff_limit_on_failure(
                    job, active_pods + terminating_pods):
                ctx.finished_condition = new_condition("FailureTarget", "True", "BackoffLimitExceeded",
                                                       "Job has reached the specified backoff limit", now)
            elif self._past_active_deadline(job):
                ctx.finished_condition = new_condition("FailureTarget", "True", "DeadlineExceeded",
                                                       "Job was active longer than specified deadline", now)
            elif spec.get("activeDeadlineSeconds") is not None and not is_suspended(job):
                elapsed = now - parse_time(status["startTime"])
                self.queue.enqueue(key, int(spec["activeDeadlineSeconds"]) * SECOND - elapsed)
        if is_indexed(job):
            completions = int(spec.get("completions") or 0)
            ctx.prev_succeeded_indexes, ctx.succeeded_indexes = calculate_succeeded_indexes(job, pods)
            ctx.succeeded = ctx.succeeded_indexes.total()
            if per_index(job):
                ctx.delayed_deletion = pods_with_delayed_deletion(ctx)
                ctx.failed_indexes = calculate_failed_indexes(job, pods)
                if ctx.finished_condition is None:
                    max_failed = spec.get("maxFailedIndexes")
                    total_failed = ctx.failed_indexes.total()
                    if max_failed is not None and total_failed > int(max_failed):
                        ctx.finished_condition = new_condition(
                            "FailureTarget", "True", "MaxFailedIndexesExceeded",
                            "Job has exceeded the specified maximal number of failed indexes", now)
                    elif total_failed > 0 and total_failed + ctx.succeeded_indexes.total() >= completions:
                        ctx.finished_condition = new_condition("FailureTarget", "True", "FailedIndexes",
                                                               "Job has failed indexes", now)
            if ctx.finished_condition is None and not condition_true(status, "SuccessCriteriaMet"):
                message = match_success_policy(spec.get("successPolicy"), completions, ctx.succeeded_indexes)
                if message is not None:
                    ctx.finished_condition = new_condition("SuccessCriteriaMet", "True", "SuccessPolicy", message, now)

        suspend_changed = False
        manage_error: ApiError | None = None
        if ctx.finished_condition is not None:
            deleted_ready, deleted, manage_error = self._delete_active_pods(job, ctx.active_pods)
            if deleted != active or not satisfied:
                # Cannot be declared finished yet: pods may remain, or not be in the cache yet.
                ctx.finished_condition = None
            active -= deleted
            ctx.terminating += deleted
            ctx.ready -= deleted_ready
        else:
            manage_called = False
            if satisfied and not meta_of(job).get("deletionTimestamp"):
                active, manage_error = self._manage_job(key, job, ctx)
                manage_called = True
            completions_spec = spec.get("completions")
            if completions_spec is None:
                complete = ctx.succeeded > 0 and active == 0
            else:
                complete = ctx.succeeded >= int(completions_spec) and active == 0
            if complete:
                ctx.finished_condition = new_condition("SuccessCriteriaMet", "True", "CompletionsReached",
                                                       "Reached expected number of succeeded pods", now)
            elif manage_called:
                if is_suspended(job):
                    if ensure_condition(status, "Suspended", "True", "JobSuspended", "Job suspended", now):
                        suspend_changed = True
                        self.recorder.event(job, NORMAL, "Suspended", "Job suspended")
                elif ensure_condition(status, "Suspended", "False", "JobResumed", "Job resumed", now):
                    suspend_changed = True
                    self.recorder.event(job, NORMAL, "Resumed", "Job resumed")
                    status["startTime"] = format_time(now)

        needs_update = (suspend_changed or active != int(status.get("active") or 0)
                        or status.get("ready") != ctx.ready or status.get("terminating") != ctx.terminating)
        if active:
            status["active"] = active
        else:
            status.pop("active", None)
        status["ready"] = ctx.ready
        status["terminating"] = ctx.terminating
        self._track_status_and_remove_finalizers(key, ctx, needs_update)
        if manage_error is not None:
            raise manage_error

    # ------------------------------------------------------------------ sync helpers
    @staticmethod
    def _past_backoff_limit_on_failure(job: dict[str, Any], pods: list[dict[str, Any]]) -> bool:
        """``pastBackoffLimitOnFailure``: summed restarts of Pending/Running pods (OnFailure only);
        ``pods`` holds at least the Job's unfinished ones."""
        spec = spec_of(job)
        if ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy") != "OnFailure":
            return False
        total = 0
        for pod in pods:
            status = pod.get("status") or {}
            if status.get("phase") in ("Running", "Pending"):
                for statuses in (status.get("initContainerStatuses"), status.get("containerStatuses")):
                    for cs in statuses or ():
                        total += int(cs.get("restartCount") or 0)
        limit = int(spec.get("backoffLimit", 6))
        return total > 0 if limit == 0 else total >= limit

    def _past_active_deadline(self, job: dict[str, Any]) -> bool:
        """``pastActiveDeadline``."""
        ads = spec_of(job).get("activeDeadlineSeconds")
        start = (job.get("status") or {}).get("startTime")
        if ads is None or not start or is_suspended(job):
            return False
        return self.rt.now - parse_time(start) >= int(ads) * SECOND

    # ------------------------------------------------------------------ manageJob
    def _manage_job(self, key: Key, job: dict[str, Any], ctx: SyncCtx) -> tuple[int, ApiError | None]:
        """``manageJob``: the number of active pods after this sync, and the first API error."""
        spec = spec_of(job)
        active = len(ctx.active_pods)
        parallelism = int(spec.get("parallelism") or 0)
        if is_suspended(job):
            to_delete = self._active_pods_for_removal(job, ctx.active_pods, active)
            self._expect(key, 0, len(to_delete))
            removed_ready, removed, err = self._delete_job_pods(key, job, to_delete)
            ctx.terminating += removed
            ctx.ready -= removed_ready
            return active - removed, err
        completions = spec.get("completions")
        if completions is None:
            want = active if ctx.succeeded > 0 else parallelism
        else:
            want = max(0, min(int(completions) - ctx.succeeded, parallelism))
        to_delete = self._active_pods_for_removal(job, ctx.active_pods, max(0, active - want))
        to_delete = to_delete[:MAX_POD_CREATE_DELETE_PER_SYNC]
        if to_delete:
            self._expect(key, 0, len(to_delete))
            removed_ready, removed, err = self._delete_job_pods(key, job, to_delete)
            ctx.terminating += removed
            ctx.ready -= removed_ready
            return active - removed, err
        terminating = ctx.terminating if only_replace_failed_pods(job) else 0
        diff = want - terminating - active
        if diff <= 0:
            return active, None
        self._check_pod_budget(job, diff)
        if not per_index(job):
            remaining = remaining_backoff(self.rt.now, ctx.backoff.failures, ctx.backoff.last_failure)
            if remaining > 0:
                self.queue.enqueue(key, remaining)
                # DEVIATION(upstream): report the real active count (kubernetes#139457), not 0.
                return active, None
        diff = min(diff, MAX_POD_CREATE_DELETE_PER_SYNC)
        indexes: list[int] = []
        if is_indexed(job):
            indexes = first_pending_indexes(ctx, diff, int(completions or 0))
            if per_index(job):
                indexes, remaining = creation_info_per_index(indexes, ctx.delayed_deletion, self.rt.now)
                if remaining > 0:
                    self.queue.enqueue(key, remaining)
                    return active, None
            diff = len(indexes)
        if diff <= 0:
            return active, None
        self._expect(key, diff, 0)
        template = deep_copy(spec.get("template") or {})
        if is_indexed(job):
            add_completion_index_env(template)
        tmeta = template.setdefault("metadata", {})
        finalizers = list(tmeta.get("finalizers") or [])
        if TRACKING_FINALIZER not in finalizers:
            finalizers.append(TRACKING_FINALIZER)
        tmeta["finalizers"] = finalizers
        new_spec = copier(template.get("spec") or {})  # the template is not changed from here on
        active += diff
        first_error: ApiError | None = None
        batch = min(diff, SLOW_START_INITIAL_BATCH_SIZE)
        while diff > 0:
            failed_in_batch = 0
            for _ in range(batch):
                ix = indexes.pop(0) if indexes else UNKNOWN_INDEX
                pod = self._pod_from_template(job, template, new_spec(), ix, ctx)
                try:
                    # The pod was built for this call (fresh dicts) and only its name is read.
                    created = self.client.create(pod)
                except ApiError as err:
                    self._creation_observed(key)
                    active -= 1
                    failed_in_batch += 1
                    first_error = first_error or err
                    if not any(c.get("reason") == "NamespaceTerminating"
                               for c in (err.status.get("details") or {}).get("causes") or ()):
                        self.recorder.event(job, WARNING, "FailedCreate", f"Error creating: {err.message}")
                    continue
                self.recorder.event(job, NORMAL, "SuccessfulCreate", f"Created pod: {meta_of(created).get('name')}")
            skipped = diff - batch
            if failed_in_batch and skipped > 0:
                active -= skipped
                for _ in range(skipped):
                    self._creation_observed(key)
                break
            diff -= batch
            batch = min(2 * batch, diff)
        return active, first_error

    def _check_pod_budget(self, job: dict[str, Any], missing: int) -> None:
        """``SimulationError`` when the Job's ``missing`` pods would take the cluster past
        :data:`MAX_SIMULATED_PODS` (all of them counted, not only this sync's batch)."""
        # DEVIATION(upstream): no such budget upstream; an in-memory simulation needs one.
        held = len(self.pods)
        if held + missing > MAX_SIMULATED_PODS:
            meta = meta_of(job)
            raise SimulationError(
                f"the Job {meta.get('namespace')}/{meta.get('name')} would create {missing} more pods, {held + missing} "
                f"in all; the simulation's budget is {MAX_SIMULATED_PODS} pods "
                "(fakekube.components.job_controller.controller.MAX_SIMULATED_PODS), so it stops here, before creating them. "
                "Kubernetes admits such a Job; make it smaller to simulate it, or delete it to go on")

    def _pod_from_template(self, job: dict[str, Any], template: dict[str, Any], pod_spec: dict[str, Any],
                           ix: int, ctx: SyncCtx) -> dict[str, Any]:
        """``GetPodFromTemplate`` plus the Indexed additions of ``manageJob``; ``pod_spec`` is a
        fresh copy of the template's spec, the pod's own."""
        jmeta = meta_of(job)
        name = jmeta.get("name") or ""
        tmeta = template.get("metadata") or {}
        labels = dict(tmeta.get("labels") or {})
        annotations = dict(tmeta.get("annotations") or {})
        generate_name = f"{name}-"
        if ix != UNKNOWN_INDEX:
            annotations[COMPLETION_INDEX] = str(ix)
            labels[COMPLETION_INDEX] = str(ix)
            pod_spec["hostname"] = f"{name}-{ix}"
            generate_name = generate_name_with_index(name, ix)
            if per_index(job):
                counts = new_index_failure_counts(job, ctx.delayed_deletion.get(ix))
                annotations[INDEX_FAILURE_COUNT] = str(counts[0])
                if counts[1] > 0:
                    annotations[INDEX_IGNORED_FAILURE_COUNT] = str(counts[1])
        meta: dict[str, Any] = {"generateName": generate_name, "namespace": jmeta.get("namespace")}
        if labels:
            meta["labels"] = labels
        if annotations:
            meta["annotations"] = annotations
        meta["finalizers"] = list(tmeta.get("finalizers") or [])
        meta["ownerReferences"] = [{"apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": jmeta.get("uid"),
                                    "controller": True, "blockOwnerDeletion": True}]
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": pod_spec}

    @staticmethod
    def _active_pods_for_removal(job: dict[str, Any], pods: list[dict[str, Any]],
                                 at_least: int) -> list[dict[str, Any]]:
        """``activePodsForRemoval``: Indexed duplicates and out-of-range pods first, then by
        ``controller.ActivePods`` order."""
        remove: list[dict[str, Any]] = []
        left: list[dict[str, Any]] = pods
        if is_indexed(job):
            completions = int(spec_of(job).get("completions") or 0)
            by_index: dict[int, list[dict[str, Any]]] = {}
            for pod in pods:
                by_index.setdefault(completion_index(pod), []).append(pod)
            # With one pod per index, each in range (nearly every sync), none goes first and all are
            # left (in any order: ActivePods order, which ends with the name, decides alone).
            if len(by_index) < len(pods) or (pods and not UNKNOWN_INDEX < min(by_index) <= max(by_index) < completions):
                left = []
                for ix in sorted(by_index):
                    group = by_index[ix]
                    if ix == UNKNOWN_INDEX or ix >= completions:
                        remove.extend(group)
                    elif len(group) == 1:
                        left.append(group[0])
                    else:
                        group = sorted(group, key=active_pods_order)
                        remove.extend(group[:-1])
                        left.append(group[-1])
        if len(remove) < at_least:
            left = sorted(left, key=active_pods_order)
            remove.extend(left[: at_least - len(remove)])
        return remove

    def _delete_job_pods(self, key: Key, job: dict[str, Any],
                         pods: list[dict[str, Any]]) -> tuple[int, int, ApiError | None]:
        """``deleteJobPods``: remove the finalizer first (not counted), then delete."""
        removed_ready = 0
        removed = len(pods)
        first_error: ApiError | None = None
        for pod in pods:
            namespace, name = pod_key(pod)
            try:
                if has_finalizer(pod):
                    self._remove_finalizer(pod)
                self.client.delete("pods", name, namespace)
            except ApiError as err:
                self._deletion_observed(key)
                if isinstance(err, NotFound):
                    continue
                removed -= 1
                first_error = first_error or err
                self.recorder.event(job, WARNING, "FailedDelete", f"Error deleting: {err.message}")
                continue
            self.recorder.event(job, NORMAL, "SuccessfulDelete", f"Deleted pod: {name}")
            if is_ready(pod):
                removed_ready += 1
        return removed_ready, removed, first_error

    def _delete_active_pods(self, job: dict[str, Any],
                            pods: list[dict[str, Any]]) -> tuple[int, int, ApiError | None]:
        """``deleteActivePods``: delete keeping the finalizer (the pods will be counted)."""
        deleted_ready = 0
        deleted = len(pods)
        first_error: ApiError | None = None
        for pod in pods:
            namespace, name = pod_key(pod)
            try:
                self.client.delete("pods", name, namespace)
            except NotFound:
                pass
            except ApiError as err:
                deleted -= 1
                first_error = first_error or err
                self.recorder.event(job, WARNING, "FailedDelete", f"Error deleting: {err.message}")
                continue
            else:
                self.recorder.event(job, NORMAL, "SuccessfulDelete", f"Deleted pod: {name}")
            if is_ready(pod):
                deleted_ready += 1
        return deleted_ready, deleted, first_error
