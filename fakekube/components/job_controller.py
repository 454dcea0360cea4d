"""The batch/v1 Job controller (``kube-controller-manager``'s ``job-controller``) on virtual time.

Mirrors ``kubernetes/kubernetes`` ``pkg/controller/job`` as of 1.33/1.34 with default feature
gates (JobManagedBy, JobPodReplacementPolicy, JobSuccessPolicy, JobBackoffLimitPerIndex,
PodIndexLabel on), function by function:

- ``job_controller.go``: ``addJob``/``updateJob``/``deleteJob``, ``addPod``/``updatePod``/
  ``deletePod`` (batched syncs, ``syncJobBatchPeriod`` = 1 s), ``syncJob``, ``manageJob``,
  ``deleteActivePods``, ``deleteJobPods``, ``trackJobStatusAndRemoveFinalizers``,
  ``flushUncountedAndRemoveFinalizers``, ``cleanUncountedPodsWithoutFinalizers``,
  ``canRemoveFinalizer``, ``enactJobFinished``, ``recordJobFinished``, ``getNewFinishedPods``,
  ``getValidPodsWithFilter``, ``isPodFailed``, ``onlyReplaceFailedPods``,
  ``pastBackoffLimitOnFailure``, ``pastActiveDeadline``, ``getFailJobMessage``,
  ``ensureJobConditionStatus``, ``newCondition``, ``activePodsForRemoval``,
  ``syncOrphanPod``/``cleanupPodFinalizers``;
- ``indexed_job_utils.go``: ``calculateSucceededIndexes``, ``calculateFailedIndexes``,
  ``isIndexFailed``, ``firstPendingIndexes``, ``appendDuplicatedIndexPodsForRemoval``,
  ``getPodsWithDelayedDeletionPerIndex``, ``addIndexFailureCountAnnotation``,
  ``podGenerateNameWithIndex``, ``addCompletionIndexEnvVariables``;
- ``pod_failure_policy.go``: ``matchPodFailurePolicy``, ``matchOnExitCodes``,
  ``matchOnPodConditions``;
- ``success_policy.go``: ``matchSuccessPolicy``;
- ``backoff_utils.go``: ``newBackoffRecord``, ``getRemainingTimeForFailuresCount``,
  ``getFinishedTime``, ``getRemainingTimePerIndex``;
- ``pkg/controller/controller_utils.go``: ``ControllerExpectations`` (5 min TTL),
  ``ActivePods`` ordering, ``FilterActivePods``, ``CreatePodsWithGenerateName``
  (``GetPodFromTemplate``), slow-start batches.

The controller reads Jobs and Pods from the shared informers (pods indexed by the UID of their
controlling Job, so a sync is O(pods of that Job)) and writes only through the client, so every
create, patch, delete and status update appears in the trace. Failed syncs (API errors) are
retried with the Job controller's own backoff (1 s doubling to 1 min).

Known upstream bug deliberately *not* reproduced: during the recreation-backoff early return,
``manageJob`` reports the real number of active pods (the fixed behaviour of
kubernetes/kubernetes#139457), not 0.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from fakekube._core.clock import SECOND, SimTime, format_time, parse_time
from fakekube._core.jsonutil import deep_copy
from fakekube.apiserver.kinds.jobs import JOB_CONTROLLER_NAME, IndexSet, condition_true, is_job_finished
from fakekube.errors import ApiError, NotFound
from fakekube.runtime.context import Runtime
from fakekube.runtime.controller import Backoff, Result
from fakekube.runtime.events import NORMAL, WARNING

__all__ = ["JobController"]

Key = tuple[str, str]

TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"
INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count"
INDEX_IGNORED_FAILURE_COUNT = "batch.kubernetes.io/job-index-ignored-failure-count"
COMPLETION_INDEX_ENV = "JOB_COMPLETION_INDEX"
POD_INDEX = "job-controller/controller-uid"

SYNC_JOB_BATCH_PERIOD: SimTime = 1 * SECOND
DEFAULT_POD_FAILURE_BACKOFF: SimTime = 10 * SECOND
MAX_POD_FAILURE_BACKOFF: SimTime = 600 * SECOND
API_BACKOFF = Backoff(1 * SECOND, 60 * SECOND)  # DefaultJobApiBackOff, MaxJobApiBackOff
EXPECTATIONS_TIMEOUT: SimTime = 300 * SECOND
MAX_UNCOUNTED_PODS = 500
MAX_POD_CREATE_DELETE_PER_SYNC = 500
SLOW_START_INITIAL_BATCH_SIZE = 1
MAX_GENERATED_NAME_LENGTH = 58
UNKNOWN_INDEX = -1

_PHASE_ORDINAL = {"Pending": 0, "Unknown": 1, "Running": 2}


# =========================================================================== pod helpers


def _meta(obj: dict[str, Any]) -> dict[str, Any]:
    return obj.get("metadata") or {}


def _phase(pod: dict[str, Any]) -> str:
    return (pod.get("status") or {}).get("phase") or ""


def _has_finalizer(pod: dict[str, Any]) -> bool:
    return TRACKING_FINALIZER in (_meta(pod).get("finalizers") or ())


def _is_active(pod: dict[str, Any]) -> bool:
    """``FilterActivePods``: not terminal and not being deleted."""
    return _phase(pod) not in ("Succeeded", "Failed") and not _meta(pod).get("deletionTimestamp")


def _is_terminating(pod: dict[str, Any]) -> bool:
    """``FilterTerminatingPods``: being deleted and not yet terminal."""
    return bool(_meta(pod).get("deletionTimestamp")) and _phase(pod) not in ("Succeeded", "Failed")


def _pod_condition(pod: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    for cond in (pod.get("status") or {}).get("conditions") or ():
        if cond.get("type") == ctype:
            return cond
    return None


def _is_ready(pod: dict[str, Any]) -> bool:
    cond = _pod_condition(pod, "Ready")
    return cond is not None and cond.get("status") == "True"


def _controller_ref(obj: dict[str, Any]) -> dict[str, Any] | None:
    for ref in _meta(obj).get("ownerReferences") or ():
        if ref.get("controller"):
            return ref
    return None


def _job_controller_uid(pod: dict[str, Any]) -> list[str]:
    """The pods informer index: the UID of the controlling batch/v1 Job, if any."""
    ref = _controller_ref(pod)
    if ref is not None and ref.get("kind") == "Job" and ref.get("apiVersion") == "batch/v1" and ref.get("uid"):
        return [ref["uid"]]
    return []


def _completion_index(pod: dict[str, Any]) -> int:
    """``getCompletionIndex``: from the annotation; -1 when absent or malformed."""
    text = (_meta(pod).get("annotations") or {}).get(COMPLETION_INDEX)
    if text is None or not text.isdigit():
        return UNKNOWN_INDEX
    return int(text)


def _annotation_int(pod: dict[str, Any], key: str) -> int:
    text = (_meta(pod).get("annotations") or {}).get(key)
    if text is None:
        return 0
    try:
        value = int(text)
    except ValueError:
        return 0
    return max(value, 0)


def _index_failure_count(pod: dict[str, Any]) -> int:
    return _annotation_int(pod, INDEX_FAILURE_COUNT)


def _index_absolute_failure_count(pod: dict[str, Any]) -> int:
    """``getIndexAbsoluteFailureCount``: counted plus ignored failures of the index so far."""
    return _annotation_int(pod, INDEX_FAILURE_COUNT) + _annotation_int(pod, INDEX_IGNORED_FAILURE_COUNT)


def _time(text: str | None) -> SimTime | None:
    return parse_time(text) if text else None


def _finished_time(pod: dict[str, Any]) -> SimTime:
    """``getFinishedTime``: latest container finishedAt, else Ready=False transition, else
    deletionTimestamp - grace, else creation time."""
    # SIMPLIFICATION: restartable init containers (sidecars) are not considered for the finish time.
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    latest: SimTime | None = None
    for cs in statuses:
        terminated = (cs.get("state") or {}).get("terminated")
        finished = _time((terminated or {}).get("finishedAt"))
        if terminated is None or finished is None:
            latest = None
            break
        latest = finished if latest is None else max(latest, finished)
    if latest is not None:
        return latest
    ready = _pod_condition(pod, "Ready")
    if ready is not None and ready.get("status") == "False" and ready.get("lastTransitionTime"):
        return parse_time(ready["lastTransitionTime"])
    meta = _meta(pod)
    if meta.get("deletionTimestamp"):
        return parse_time(meta["deletionTimestamp"]) - int(meta.get("deletionGracePeriodSeconds") or 0) * SECOND
    return _time(meta.get("creationTimestamp")) or 0


def _active_pods_order(pod: dict[str, Any]) -> tuple[Any, ...]:
    """``controller.ActivePods`` as a sort key: pods to delete first sort first."""
    spec, meta = pod.get("spec") or {}, _meta(pod)
    ready = _is_ready(pod)
    ready_since = 0
    if ready:
        cond = _pod_condition(pod, "Ready") or {}
        ready_since = _time(cond.get("lastTransitionTime")) or 0
    restarts = max((int(cs.get("restartCount") or 0)
                    for cs in (pod.get("status") or {}).get("containerStatuses") or ()), default=0)
    created = _time(meta.get("creationTimestamp")) or 0
    return (1 if spec.get("nodeName") else 0, _PHASE_ORDINAL.get(_phase(pod), 0), 1 if ready else 0,
            -ready_since, -restarts, -created, meta.get("name") or "")


def _condition(ctype: str, status: str, reason: str, message: str, now: SimTime) -> dict[str, Any]:
    """``newCondition``: both times set to now."""
    stamp = format_time(now)
    return {"type": ctype, "status": status, "lastProbeTime": stamp, "lastTransitionTime": stamp,
            "reason": reason, "message": message}


def _find_condition(status: dict[str, Any], ctype: str) -> dict[str, Any] | None:
    for cond in status.get("conditions") or ():
        if cond.get("type") == ctype:
            return cond
    return None


def _ensure_condition(status: dict[str, Any], ctype: str, cstatus: str, reason: str, message: str,
                      now: SimTime) -> bool:
    """``ensureJobConditionStatus``: update in place, append only non-False conditions."""
    conditions = status.setdefault("conditions", [])
    for i, cond in enumerate(conditions):
        if cond.get("type") == ctype:
            if cond.get("status") != cstatus or cond.get("reason") != reason or cond.get("message") != message:
                conditions[i] = _condition(ctype, cstatus, reason, message, now)
                return True
            return False
    if cstatus != "False":
        conditions.append(_condition(ctype, cstatus, reason, message, now))
        return True
    if not conditions:
        status.pop("conditions", None)
    return False


# =========================================================================== policies


def _match_on_exit_codes(pod: dict[str, Any], req: dict[str, Any]) -> dict[str, Any] | None:
    """``matchOnExitCodes``: containers first, then init containers; non-zero exits only."""
    status = pod.get("status") or {}
    for statuses in (status.get("containerStatuses") or [], status.get("initContainerStatuses") or []):
        for cs in statuses:
            terminated = (cs.get("state") or {}).get("terminated")
            if terminated is None:
                continue
            name = req.get("containerName")
            if name is not None and name != cs.get("name"):
                continue
            code = int(terminated.get("exitCode") or 0)
            if code == 0:
                continue
            values = req.get("values") or []
            matched = code in values if req.get("operator") == "In" else code not in values
            if matched:
                return cs
    return None


def _match_on_pod_conditions(pod: dict[str, Any], patterns: list[dict[str, Any]]) -> dict[str, Any] | None:
    for cond in (pod.get("status") or {}).get("conditions") or ():
        for pattern in patterns:
            if cond.get("type") == pattern.get("type") and cond.get("status") == (pattern.get("status") or "True"):
                return cond
    return None


def _match_pod_failure_policy(policy: dict[str, Any] | None,
                              pod: dict[str, Any]) -> tuple[str | None, bool, str | None]:
    """``matchPodFailurePolicy``: (FailJob message, count the failure?, matched action)."""
    if policy is None:
        return None, True, None
    meta = _meta(pod)
    for index, rule in enumerate(policy.get("rules") or []):
        action = rule.get("action")
        if rule.get("onExitCodes") is not None:
            cs = _match_on_exit_codes(pod, rule["onExitCodes"])
            if cs is None:
                continue
            if action == "FailJob":
                code = ((cs.get("state") or {}).get("terminated") or {}).get("exitCode")
                return (f"Container {cs.get('name')} for pod {meta.get('namespace')}/{meta.get('name')} failed with "
                        f"exit code {code} matching FailJob rule at index {index}"), True, action
        elif rule.get("onPodConditions") is not None:
            cond = _match_on_pod_conditions(pod, rule["onPodConditions"])
            if cond is None:
                continue
            if action == "FailJob":
                return (f"Pod {meta.get('namespace')}/{meta.get('name')} has condition {cond.get('type')} "
                        f"matching FailJob rule at index {index}"), True, action
        else:
            continue
        if action == "Ignore":
            return None, False, action
        if action in ("FailIndex", "Count"):
            return None, True, action
    return None, True, None


def _match_success_policy(policy: dict[str, Any] | None, completions: int,
                          succeeded: IndexSet) -> str | None:
    """``matchSuccessPolicy``: the ``Matched rules at index <i>`` message, or None."""
    if policy is None or not succeeded.intervals:
        return None
    total = succeeded.total()
    for index, rule in enumerate(policy.get("rules") or []):
        indexes, count = rule.get("succeededIndexes"), rule.get("succeededCount")
        if indexes is not None:
            wanted = IndexSet.parse(indexes, completions)
            hits = sum(1 for ix in wanted if succeeded.has(ix))
            if (count is None and hits == wanted.total()) or (count is not None and hits >= count):
                return f"Matched rules at index {index}"
        elif count is not None and total >= count:
            return f"Matched rules at index {index}"
    return None


def _remaining_backoff(now: SimTime, failures: int, last_failure: SimTime | None) -> SimTime:
    """``getRemainingTimeForFailuresCount``: 10 s doubling, capped at 10 min, from the last failure."""
    if failures == 0 or last_failure is None:
        return 0
    delay = DEFAULT_POD_FAILURE_BACKOFF
    for _ in range(1, failures):
        delay *= 2
        if delay >= MAX_POD_FAILURE_BACKOFF:
            delay = MAX_POD_FAILURE_BACKOFF
            break
    elapsed = now - last_failure
    return 0 if delay < elapsed else delay - elapsed


# =========================================================================== per-Job state


@dataclass
class _Expectations:
    """``ControllerExpectations`` record: outstanding creations/deletions and when set."""

    add: int
    delete: int
    timestamp: SimTime


@dataclass
class _BackoffRecord:
    failures: int = 0
    last_failure: SimTime | None = None


@dataclass
class _SyncCtx:
    """``syncJobCtx``."""

    job: dict[str, Any]
    pods: list[dict[str, Any]]
    active_pods: list[dict[str, Any]]
    succeeded: int
    failed: int
    terminating: int
    ready: int
    uncounted_succeeded: set[str]
    uncounted_failed: set[str]
    expected_rm_finalizers: set[str]
    backoff: _BackoffRecord
    finished_condition: dict[str, Any] | None = None
    prev_succeeded_indexes: IndexSet = field(default_factory=IndexSet)
    succeeded_indexes: IndexSet = field(default_factory=IndexSet)
    failed_indexes: IndexSet | None = None
    delayed_deletion: dict[int, dict[str, Any]] = field(default_factory=dict)


def _spec(job: dict[str, Any]) -> dict[str, Any]:
    return job.get("spec") or {}


def _is_indexed(job: dict[str, Any]) -> bool:
    return _spec(job).get("completionMode") == "Indexed"


def _suspended(job: dict[str, Any]) -> bool:
    return bool(_spec(job).get("suspend"))


def _per_index(job: dict[str, Any]) -> bool:
    return _is_indexed(job) and _spec(job).get("backoffLimitPerIndex") is not None


def _only_replace_failed_pods(job: dict[str, Any]) -> bool:
    """``onlyReplaceFailedPods``: podReplacementPolicy Failed, or any podFailurePolicy."""
    spec = _spec(job)
    return spec.get("podReplacementPolicy") == "Failed" or spec.get("podFailurePolicy") is not None


def _is_pod_failed(pod: dict[str, Any], job: dict[str, Any]) -> bool:
    """``isPodFailed``: Failed phase, or (TerminatingOrFailed) being deleted and not Succeeded."""
    phase = _phase(pod)
    if phase == "Failed":
        return True
    if phase == "Succeeded" or not _meta(pod).get("deletionTimestamp"):
        return False
    return not _only_replace_failed_pods(job)


def _is_success_criteria(cond: dict[str, Any] | None) -> bool:
    return cond is not None and cond.get("type") == "SuccessCriteriaMet"


def _pod_key(pod: dict[str, Any]) -> Key:
    meta = _meta(pod)
    return meta.get("namespace") or "", meta.get("name") or ""


# =========================================================================== the controller


class JobController:
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
        self._backoff: dict[Key, _BackoffRecord] = {}
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
            self.pods.add_index(POD_INDEX, _job_controller_uid, uses=("metadata.ownerReferences",))
            self.jobs.add_handler(self._on_job)
            self.pods.add_handler(self._on_pod)
        for job in self.jobs.list():
            self.queue.enqueue(_pod_key(job))

    def stop(self) -> None:
        self._running = False
        self.queue.stop()
        self.orphan_queue.stop()

    # ------------------------------------------------------------------ event handlers
    def _on_job(self, event: str, job: dict[str, Any], old: dict[str, Any] | None) -> None:
        """``addJob`` / ``updateJob`` / ``deleteJob``."""
        if not self._running:
            return
        key = _pod_key(job)
        if event == "DELETED":
            self.queue.enqueue(key)
            self._cleanup_pod_finalizers(job)
            return
        if event == "ADDED" or old is None:
            self.queue.enqueue(key)
            return
        if _meta(job).get("generation") == _meta(old).get("generation"):
            self.queue.enqueue(key, SYNC_JOB_BATCH_PERIOD)
        else:
            self.queue.enqueue(key)
        if is_job_finished(job):
            self._cleanup_pod_finalizers(job)
        start = (job.get("status") or {}).get("startTime")
        ads, old_ads = _spec(job).get("activeDeadlineSeconds"), _spec(old).get("activeDeadlineSeconds")
        if start and ads is not None and ads != old_ads:
            passed = self.rt.now - parse_time(start)
            self.queue.enqueue(key, ads * SECOND - passed)

    def _resolve(self, namespace: str, ref: dict[str, Any] | None) -> dict[str, Any] | None:
        """``resolveControllerRef``: the cached Job named by ``ref`` if its UID matches."""
        if ref is None or ref.get("kind") != "Job" or ref.get("apiVersion") != "batch/v1":
            return None
        job = self.jobs.get(ref.get("name") or "", namespace)
        if job is None or _meta(job).get("uid") != ref.get("uid"):
            return None
        return job

    def _on_pod(self, event: str, pod: dict[str, Any], old: dict[str, Any] | None) -> None:
        """``addPod`` / ``updatePod`` / ``deletePod``."""
        if not self._running:
            return
        meta = _meta(pod)
        namespace = meta.get("namespace") or ""
        refs = meta.get("ownerReferences")
        ref = _controller_ref(pod) if refs else None
        job = self._resolve(namespace, ref)
        if event == "DELETED":
            if job is not None:
                key = _pod_key(job)
                self._deletion_observed(key)
                self._finalizer_removal_observed(key, meta.get("uid") or "")
                self.queue.enqueue(key, SYNC_JOB_BATCH_PERIOD)
            return
        # updatePod looks at the old controller only when the controllerRef changed (an unchanged
        # one resolves to the same Job as the current one, or to none).
        old_ref: dict[str, Any] | None = None
        ref_changed = False
        if event == "MODIFIED" and old is not None and _meta(old).get("ownerReferences") is not refs:
            old_ref = _controller_ref(old)
            ref_changed = old_ref is not None and old_ref != ref
        if job is None:
            if _has_finalizer(pod):
                self.orphan_queue.enqueue(_pod_key(pod))
            if ref_changed:
                old_job = self._resolve(namespace, old_ref)
                if old_job is not None:
                    self.queue.enqueue(_pod_key(old_job), SYNC_JOB_BATCH_PERIOD)
            return
        key = _pod_key(job)
        if event == "ADDED" or old is None:
            if meta.get("deletionTimestamp"):
                self._deletion_observed(key)
            else:
                self._creation_observed(key)
            self.queue.enqueue(key, SYNC_JOB_BATCH_PERIOD)
            return
        if not _has_finalizer(pod):
            self._finalizer_removal_observed(key, meta.get("uid") or "")
        if meta.get("deletionTimestamp") and not _meta(old).get("deletionTimestamp"):
            self._deletion_observed(key)
        if ref_changed:
            old_job = self._resolve(namespace, old_ref)
            if old_job is not None and _meta(old_job).get("uid") != _meta(job).get("uid"):
                self.queue.enqueue(_pod_key(old_job), SYNC_JOB_BATCH_PERIOD)
        self.queue.enqueue(key, SYNC_JOB_BATCH_PERIOD)

    def _cleanup_pod_finalizers(self, job: dict[str, Any]) -> None:
        """``cleanupPodFinalizers``: queue this Job's pods that still carry the tracking finalizer."""
        for pod in self.pods.by_index(POD_INDEX, _meta(job).get("uid") or ""):
            if _has_finalizer(pod):
                self.orphan_queue.enqueue(_pod_key(pod))

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

    def _finalizer_removal_observed(self, key: Key, uid: str) -> None:
        uids = self._rm_finalizers.get(key)
        if uids is not None:
            uids.discard(uid)
            if not uids:
                del self._rm_finalizers[key]

    # ------------------------------------------------------------------ orphan pods
    def _reconcile_orphan(self, key: Key) -> Result | None:
        """``syncOrphanPod``: remove the tracking finalizer unless a live, unfinished Job owns the pod."""
        namespace, name = key
        pod = self.pods.get(name, namespace)
        if pod is None or not _has_finalizer(pod):
            return None
        ref = _controller_ref(pod)
        if ref is not None:
            if ref.get("kind") != "Job" or ref.get("apiVersion") != "batch/v1":
                return None
            job = self._resolve(namespace, ref)
            if job is not None:
                managed_by = _spec(job).get("managedBy")
                if managed_by is not None and managed_by != JOB_CONTROLLER_NAME:
                    return None
                if not is_job_finished(job):
                    return None
        try:
            self._remove_finalizer(pod)
        except NotFound:
            return None
        return None

    def _remove_finalizer(self, pod: dict[str, Any]) -> None:
        """``removeTrackingFinalizerPatch``: a strategic merge patch deleting the finalizer."""
        namespace, name = _pod_key(pod)
        self.client.patch("pods", name, {"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}},
                          namespace, patch_type="strategic")

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
        spec = _spec(cached)
        managed_by = spec.get("managedBy")
        if managed_by is not None and managed_by != JOB_CONTROLLER_NAME:
            return
        if is_job_finished(cached):
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
        pods = self.pods.by_index(POD_INDEX, _meta(job).get("uid") or "")
        active_pods: list[dict[str, Any]] = []
        terminating = ready = 0
        for pod in pods:
            if _is_active(pod):
                active_pods.append(pod)
                ready += _is_ready(pod)
            elif _is_terminating(pod):
                terminating += 1
        ctx = _SyncCtx(
            job=job, pods=pods, active_pods=active_pods, succeeded=0, failed=0,
            terminating=terminating, ready=ready,
            uncounted_succeeded=set(uncounted.get("succeeded") or ()),
            uncounted_failed=set(uncounted.get("failed") or ()),
            expected_rm_finalizers=set(self._rm_finalizers.get(key, ())),
            backoff=_BackoffRecord(),
        )
        active = len(active_pods)
        new_succeeded = self._valid_pods(ctx, ctx.uncounted_succeeded, lambda p: _phase(p) == "Succeeded")
        new_failed = self._valid_pods(ctx, ctx.uncounted_failed, lambda p: _is_pod_failed(p, job))
        policy = spec.get("podFailurePolicy")
        counted_failed = sum(1 for p in new_failed if _match_pod_failure_policy(policy, p)[1])
        ctx.succeeded = int(status.get("succeeded") or 0) + len(new_succeeded) + len(ctx.uncounted_succeeded)
        ctx.failed = int(status.get("failed") or 0) + counted_failed + len(ctx.uncounted_failed)

        if not status.get("startTime") and not _suspended(job):
            status["startTime"] = format_time(now)
        ctx.backoff = self._new_backoff_record(key, new_succeeded, new_failed)

        # Finish detection, in upstream order.
        success = _find_condition(status, "SuccessCriteriaMet")
        target = _find_condition(status, "FailureTarget")
        if success is not None and success.get("status") == "True":
            ctx.finished_condition = _condition("Complete", "True", success.get("reason") or "",
                                                success.get("message") or "", now)
        elif target is not None and target.get("status") == "True":
            ctx.finished_condition = _condition("Failed", "True", target.get("reason") or "",
                                                target.get("message") or "", now)
        else:
            message = self._fail_job_message(job, pods)
            if message is not None:
                ctx.finished_condition = _condition("FailureTarget", "True", "PodFailurePolicy", message, now)
        if ctx.finished_condition is None:
            if ctx.failed > int(spec.get("backoffLimit", 6)) or self._past_backoff_limit_on_failure(job, pods):
                ctx.finished_condition = _condition("FailureTarget", "True", "BackoffLimitExceeded",
                                                    "Job has reached the specified backoff limit", now)
            elif self._past_active_deadline(job):
                ctx.finished_condition = _condition("FailureTarget", "True", "DeadlineExceeded",
                                                    "Job was active longer than specified deadline", now)
            elif spec.get("activeDeadlineSeconds") is not None and not _suspended(job):
                elapsed = now - parse_time(status["startTime"])
                self.queue.enqueue(key, int(spec["activeDeadlineSeconds"]) * SECOND - elapsed)
        if _is_indexed(job):
            completions = int(spec.get("completions") or 0)
            ctx.prev_succeeded_indexes, ctx.succeeded_indexes = self._succeeded_indexes(job, pods)
            ctx.succeeded = ctx.succeeded_indexes.total()
            if _per_index(job):
                ctx.delayed_deletion = self._pods_with_delayed_deletion(ctx)
                ctx.failed_indexes = self._failed_indexes(job, pods)
                if ctx.finished_condition is None:
                    max_failed = spec.get("maxFailedIndexes")
                    total_failed = ctx.failed_indexes.total()
                    if max_failed is not None and total_failed > int(max_failed):
                        ctx.finished_condition = _condition(
                            "FailureTarget", "True", "MaxFailedIndexesExceeded",
                            "Job has exceeded the specified maximal number of failed indexes", now)
                    elif total_failed > 0 and total_failed + ctx.succeeded_indexes.total() >= completions:
                        ctx.finished_condition = _condition("FailureTarget", "True", "FailedIndexes",
                                                            "Job has failed indexes", now)
            if ctx.finished_condition is None and not condition_true(status, "SuccessCriteriaMet"):
                message = _match_success_policy(spec.get("successPolicy"), completions, ctx.succeeded_indexes)
                if message is not None:
                    ctx.finished_condition = _condition("SuccessCriteriaMet", "True", "SuccessPolicy", message, now)

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
            if satisfied and not _meta(job).get("deletionTimestamp"):
                active, manage_error = self._manage_job(key, job, ctx)
                manage_called = True
            completions_spec = spec.get("completions")
            if completions_spec is None:
                complete = ctx.succeeded > 0 and active == 0
            else:
                complete = ctx.succeeded >= int(completions_spec) and active == 0
            if complete:
                ctx.finished_condition = _condition("SuccessCriteriaMet", "True", "CompletionsReached",
                                                    "Reached expected number of succeeded pods", now)
            elif manage_called:
                if _suspended(job):
                    if _ensure_condition(status, "Suspended", "True", "JobSuspended", "Job suspended", now):
                        suspend_changed = True
                        self.recorder.event(job, NORMAL, "Suspended", "Job suspended")
                elif _ensure_condition(status, "Suspended", "False", "JobResumed", "Job resumed", now):
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
    def _valid_pods(ctx: _SyncCtx, uncounted: set[str], keep: Any) -> list[dict[str, Any]]:
        """``getValidPodsWithFilter``: tracked, not yet counted, with a valid index (Indexed)."""
        out = []
        indexed = _is_indexed(ctx.job)
        completions = int(_spec(ctx.job).get("completions") or 0)
        expected_rm_finalizers = ctx.expected_rm_finalizers
        for pod in ctx.pods:
            if not _has_finalizer(pod):
                continue
            uid = _meta(pod).get("uid") or ""
            if uid in uncounted or uid in expected_rm_finalizers:
                continue
            if not keep(pod):
                continue
            if indexed:
                ix = _completion_index(pod)
                if ix == UNKNOWN_INDEX or ix >= completions:
                    continue
            out.append(pod)
        return out

    def _new_backoff_record(self, key: Key, succeeded: list[dict[str, Any]],
                            failed: list[dict[str, Any]]) -> _BackoffRecord:
        """``newBackoffRecord``."""
        old = self._backoff.get(key) or _BackoffRecord()
        record = _BackoffRecord(old.failures, old.last_failure)
        failed_times = sorted(_finished_time(p) for p in failed)
        if not succeeded:
            if not failed_times:
                return record
            record.failures += len(failed_times)
            record.last_failure = failed_times[-1]
            return record
        record.failures, record.last_failure = 0, None
        last_success = max(_finished_time(p) for p in succeeded)
        for t in reversed(failed_times):
            if t <= last_success:
                break
            if record.last_failure is None:
                record.last_failure = t
            record.failures += 1
        return record

    @staticmethod
    def _fail_job_message(job: dict[str, Any], pods: list[dict[str, Any]]) -> str | None:
        """``getFailJobMessage``."""
        policy = _spec(job).get("podFailurePolicy")
        if policy is None:
            return None
        for pod in pods:
            if _is_pod_failed(pod, job):
                message, _, _ = _match_pod_failure_policy(policy, pod)
                if message is not None:
                    return message
        return None

    @staticmethod
    def _past_backoff_limit_on_failure(job: dict[str, Any], pods: list[dict[str, Any]]) -> bool:
        """``pastBackoffLimitOnFailure``: summed restarts of Pending/Running pods (OnFailure only)."""
        spec = _spec(job)
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
        ads = _spec(job).get("activeDeadlineSeconds")
        start = (job.get("status") or {}).get("startTime")
        if ads is None or not start or _suspended(job):
            return False
        return self.rt.now - parse_time(start) >= int(ads) * SECOND

    @staticmethod
    def _succeeded_indexes(job: dict[str, Any], pods: list[dict[str, Any]]) -> tuple[IndexSet, IndexSet]:
        """``calculateSucceededIndexes``."""
        completions = int(_spec(job).get("completions") or 0)
        prev = IndexSet.parse((job.get("status") or {}).get("completedIndexes"), completions)
        new = [ix for p in pods
               if _phase(p) == "Succeeded" and _has_finalizer(p)
               and UNKNOWN_INDEX < (ix := _completion_index(p)) < completions]
        return prev, prev.with_indexes(new)

    @staticmethod
    def _is_index_failed(job: dict[str, Any], pod: dict[str, Any]) -> bool:
        """``isIndexFailed``."""
        counted = False
        if _is_pod_failed(pod, job):
            policy = _spec(job).get("podFailurePolicy")
            if policy is not None:
                _, count, action = _match_pod_failure_policy(policy, pod)
                if action == "FailIndex":
                    return True
                counted = count
            else:
                counted = True
        return counted and _index_failure_count(pod) >= int(_spec(job).get("backoffLimitPerIndex") or 0)

    def _failed_indexes(self, job: dict[str, Any], pods: list[dict[str, Any]]) -> IndexSet:
        """``calculateFailedIndexes``."""
        completions = int(_spec(job).get("completions") or 0)
        text = (job.get("status") or {}).get("failedIndexes")
        prev = IndexSet.parse(text, completions) if text is not None else IndexSet()
        new = [ix for p in pods
               if _has_finalizer(p) and UNKNOWN_INDEX < (ix := _completion_index(p)) < completions
               and self._is_index_failed(job, p)]
        return prev.with_indexes(new)

    def _pods_with_delayed_deletion(self, ctx: _SyncCtx) -> dict[int, dict[str, Any]]:
        """``getPodsWithDelayedDeletionPerIndex``: per index, the last failed pod still to be replaced."""
        active_indexes = {_completion_index(p) for p in ctx.active_pods}
        out: dict[int, dict[str, Any]] = {}
        completions = int(_spec(ctx.job).get("completions") or 0)
        for pod in self._valid_pods(ctx, set(), lambda p: _is_pod_failed(p, ctx.job)):
            ix = _completion_index(pod)
            if ix == UNKNOWN_INDEX or ix >= completions:
                continue
            if ctx.succeeded_indexes.has(ix) or ix in active_indexes or (
                    ctx.failed_indexes is not None and ctx.failed_indexes.has(ix)):
                continue
            last = out.get(ix)
            if last is None or (_index_absolute_failure_count(last) <= _index_absolute_failure_count(pod)
                                and _finished_time(pod) >= _finished_time(last)):
                out[ix] = pod
        return out

    # ------------------------------------------------------------------ manageJob
    def _manage_job(self, key: Key, job: dict[str, Any], ctx: _SyncCtx) -> tuple[int, ApiError | None]:
        """``manageJob``: the number of active pods after this sync, and the first API error."""
        spec = _spec(job)
        active = len(ctx.active_pods)
        parallelism = int(spec.get("parallelism") or 0)
        if _suspended(job):
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
        terminating = ctx.terminating if _only_replace_failed_pods(job) else 0
        diff = want - terminating - active
        if diff <= 0:
            return active, None
        if not _per_index(job):
            remaining = _remaining_backoff(self.rt.now, ctx.backoff.failures, ctx.backoff.last_failure)
            if remaining > 0:
                self.queue.enqueue(key, remaining)
                # DEVIATION(upstream): report the real active count (kubernetes#139457), not 0.
                return active, None
        diff = min(diff, MAX_POD_CREATE_DELETE_PER_SYNC)
        indexes: list[int] = []
        if _is_indexed(job):
            indexes = self._first_pending_indexes(ctx, diff, int(completions or 0))
            if _per_index(job):
                indexes, remaining = self._creation_info_per_index(indexes, ctx.delayed_deletion)
                if remaining > 0:
                    self.queue.enqueue(key, remaining)
                    return active, None
            diff = len(indexes)
        if diff <= 0:
            return active, None
        self._expect(key, diff, 0)
        template = deep_copy(spec.get("template") or {})
        if _is_indexed(job):
            _add_completion_index_env(template)
        tmeta = template.setdefault("metadata", {})
        finalizers = list(tmeta.get("finalizers") or [])
        if TRACKING_FINALIZER not in finalizers:
            finalizers.append(TRACKING_FINALIZER)
        tmeta["finalizers"] = finalizers
        active += diff
        first_error: ApiError | None = None
        batch = min(diff, SLOW_START_INITIAL_BATCH_SIZE)
        while diff > 0:
            failed_in_batch = 0
            for _ in range(batch):
                ix = indexes.pop(0) if indexes else UNKNOWN_INDEX
                pod = self._pod_from_template(job, template, ix, ctx)
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
                self.recorder.event(job, NORMAL, "SuccessfulCreate", f"Created pod: {_meta(created).get('name')}")
            skipped = diff - batch
            if failed_in_batch and skipped > 0:
                active -= skipped
                for _ in range(skipped):
                    self._creation_observed(key)
                break
            diff -= batch
            batch = min(2 * batch, diff)
        return active, first_error

    def _pod_from_template(self, job: dict[str, Any], template: dict[str, Any], ix: int,
                           ctx: _SyncCtx) -> dict[str, Any]:
        """``GetPodFromTemplate`` plus the Indexed additions of ``manageJob``."""
        jmeta = _meta(job)
        name = jmeta.get("name") or ""
        tmeta = template.get("metadata") or {}
        labels = dict(tmeta.get("labels") or {})
        annotations = dict(tmeta.get("annotations") or {})
        pod_spec = deep_copy(template.get("spec") or {})
        generate_name = f"{name}-"
        if ix != UNKNOWN_INDEX:
            annotations[COMPLETION_INDEX] = str(ix)
            labels[COMPLETION_INDEX] = str(ix)
            pod_spec["hostname"] = f"{name}-{ix}"
            generate_name = _generate_name_with_index(name, ix)
            if _per_index(job):
                counts = self._new_index_failure_counts(job, ctx.delayed_deletion.get(ix))
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
    def _new_index_failure_counts(job: dict[str, Any], replaced: dict[str, Any] | None) -> tuple[int, int]:
        """``getNewIndexFailureCounts``."""
        if replaced is None:
            return 0, 0
        counted, ignored = _index_failure_count(replaced), _annotation_int(replaced, INDEX_IGNORED_FAILURE_COUNT)
        policy = _spec(job).get("podFailurePolicy")
        if policy is not None and not _match_pod_failure_policy(policy, replaced)[1]:
            ignored += 1
        else:
            counted += 1
        return counted, ignored

    def _creation_info_per_index(self, indexes: list[int],
                                 delayed: dict[int, dict[str, Any]]) -> tuple[list[int], SimTime]:
        """``getPodCreationInfoForIndependentIndexes``."""
        now_indexes: list[int] = []
        minimum: SimTime | None = None
        for ix in indexes:
            last = delayed.get(ix)
            remaining = 0 if last is None else _remaining_backoff(
                self.rt.now, _index_absolute_failure_count(last) + 1, _finished_time(last))
            if remaining == 0:
                now_indexes.append(ix)
            elif minimum is None or remaining < minimum:
                minimum = remaining
        if now_indexes:
            return now_indexes, 0
        return now_indexes, minimum or 0

    @staticmethod
    def _first_pending_indexes(ctx: _SyncCtx, count: int, completions: int) -> list[int]:
        """``firstPendingIndexes``: the lowest indexes neither succeeded, failed, active nor
        (policy Failed) terminating."""
        if count == 0:
            return []
        busy = {_completion_index(p) for p in ctx.active_pods}
        non_pending = ctx.succeeded_indexes.with_indexes(ix for ix in busy if ix != UNKNOWN_INDEX)
        if _only_replace_failed_pods(ctx.job):
            non_pending = non_pending.with_indexes(
                ix for p in ctx.pods if _is_terminating(p) and (ix := _completion_index(p)) != UNKNOWN_INDEX)
        if ctx.failed_indexes is not None:
            non_pending = non_pending.merge(ctx.failed_indexes)
        out: list[int] = []
        candidate = 0
        for first, last in non_pending.intervals:
            while candidate < completions and len(out) < count and candidate < first:
                out.append(candidate)
                candidate += 1
            candidate = max(candidate, last + 1)
        while candidate < completions and len(out) < count:
            out.append(candidate)
            candidate += 1
        return out

    @staticmethod
    def _active_pods_for_removal(job: dict[str, Any], pods: list[dict[str, Any]],
                                 at_least: int) -> list[dict[str, Any]]:
        """``activePodsForRemoval``: Indexed duplicates and out-of-range pods first, then by
        ``controller.ActivePods`` order."""
        remove: list[dict[str, Any]] = []
        left: list[dict[str, Any]] = pods
        if _is_indexed(job):
            completions = int(_spec(job).get("completions") or 0)
            left = []
            by_index: dict[int, list[dict[str, Any]]] = {}
            for pod in pods:
                by_index.setdefault(_completion_index(pod), []).append(pod)
            for ix in sorted(by_index):
                group = by_index[ix]
                if ix == UNKNOWN_INDEX or ix >= completions:
                    remove.extend(group)
                elif len(group) == 1:
                    left.append(group[0])
                else:
                    group = sorted(group, key=_active_pods_order)
                    remove.extend(group[:-1])
                    left.append(group[-1])
        if len(remove) < at_least:
            left = sorted(left, key=_active_pods_order)
            remove.extend(left[: at_least - len(remove)])
        return remove

    def _delete_job_pods(self, key: Key, job: dict[str, Any],
                         pods: list[dict[str, Any]]) -> tuple[int, int, ApiError | None]:
        """``deleteJobPods``: remove the finalizer first (not counted), then delete."""
        removed_ready = 0
        removed = len(pods)
        first_error: ApiError | None = None
        for pod in pods:
            namespace, name = _pod_key(pod)
            try:
                if _has_finalizer(pod):
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
            if _is_ready(pod):
                removed_ready += 1
        return removed_ready, removed, first_error

    def _delete_active_pods(self, job: dict[str, Any],
                            pods: list[dict[str, Any]]) -> tuple[int, int, ApiError | None]:
        """``deleteActivePods``: delete keeping the finalizer (the pods will be counted)."""
        deleted_ready = 0
        deleted = len(pods)
        first_error: ApiError | None = None
        for pod in pods:
            namespace, name = _pod_key(pod)
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
            if _is_ready(pod):
                deleted_ready += 1
        return deleted_ready, deleted, first_error

    # ------------------------------------------------------------------ status tracking
    def _can_remove_finalizer(self, ctx: _SyncCtx, pod: dict[str, Any], considered_failed: bool) -> bool:
        """``canRemoveFinalizer``."""
        if _meta(ctx.job).get("deletionTimestamp") or ctx.finished_condition is not None \
                or _phase(pod) == "Succeeded":
            return True
        if not considered_failed:
            return False
        if _per_index(ctx.job):
            ix = _completion_index(pod)
            delayed = ctx.delayed_deletion.get(ix)
            if ix != UNKNOWN_INDEX and delayed is not None and _meta(delayed).get("uid") == _meta(pod).get("uid"):
                return False
        return True

    def _track_status_and_remove_finalizers(self, key: Key, ctx: _SyncCtx, needs_flush: bool) -> None:
        """``trackJobStatusAndRemoveFinalizers``: record finished pods as uncounted, write status,
        remove finalizers, move them to the counters, then (when allowed) the terminal condition."""
        job = ctx.job
        status = job["status"]
        spec = _spec(job)
        indexed = _is_indexed(job)
        completions = int(spec.get("completions") or 0)
        policy = spec.get("podFailurePolicy")
        pods = ctx.pods
        expected_rm_finalizers = ctx.expected_rm_finalizers
        # The pods still carrying the finalizer whose removal is not already under way, in
        # (index, namespace, name) order for Indexed Jobs (ctx.pods is in (namespace, name) order).
        tracked = [(p, uid) for p in pods
                   if _has_finalizer(p) and (uid := _meta(p).get("uid") or "") not in expected_rm_finalizers]
        with_finalizer: set[str] = {uid for _, uid in tracked}
        if _clean_uncounted(status, with_finalizer):
            needs_flush = True
        # Of those, the ones whose finalizer can go now (canRemoveFinalizer reads nothing this loop
        # changes, so filtering before ordering by index is the upstream loop's order).
        removable = [(p, uid, failed) for p, uid in tracked
                     if self._can_remove_finalizer(ctx, p, failed := _is_pod_failed(p, job))]
        if indexed and len(removable) > 1:
            removable.sort(key=lambda item: _completion_index(item[0]))
        uncounted = status["uncountedTerminatedPods"]
        to_remove: list[dict[str, Any]] = []
        new_succeeded_indexes: list[int] = []
        reached_max = False
        for pod, uid, considered_failed in removable:
            to_remove.append(pod)
            if _phase(pod) == "Succeeded" and uid not in ctx.uncounted_failed:
                if indexed:
                    ix = _completion_index(pod)
                    if ix != UNKNOWN_INDEX and ix < completions and not ctx.prev_succeeded_indexes.has(ix):
                        new_succeeded_indexes.append(ix)
                        needs_flush = True
                elif uid not in ctx.uncounted_succeeded:
                    needs_flush = True
                    uncounted.setdefault("succeeded", []).append(uid)
                    ctx.uncounted_succeeded.add(uid)
            elif considered_failed or (ctx.finished_condition is not None
                                       and not _is_success_criteria(ctx.finished_condition)):
                ix = _completion_index(pod)
                if uid not in ctx.uncounted_failed and (not indexed or (ix != UNKNOWN_INDEX and ix < completions)):
                    if _match_pod_failure_policy(policy, pod)[1]:
                        needs_flush = True
                        uncounted.setdefault("failed", []).append(uid)
                        ctx.uncounted_failed.add(uid)
            if len(new_succeeded_indexes) + len(uncounted.get("succeeded") or ()) \
                    + len(uncounted.get("failed") or ()) >= MAX_UNCOUNTED_PODS:
                reached_max = True
                break
        if indexed:
            ctx.succeeded_indexes = ctx.succeeded_indexes.with_indexes(new_succeeded_indexes)
            text = str(ctx.succeeded_indexes)
            if text != (status.get("completedIndexes") or ""):
                needs_flush = True
            status["succeeded"] = ctx.succeeded_indexes.total()
            if text:
                status["completedIndexes"] = text
            else:
                status.pop("completedIndexes", None)
            failed_text = str(ctx.failed_indexes) if ctx.failed_indexes is not None else None
            if failed_text != status.get("failedIndexes"):
                needs_flush = True
                if failed_text is None:
                    status.pop("failedIndexes", None)
                else:
                    status["failedIndexes"] = failed_text
            if not status.get("succeeded"):
                status.pop("succeeded", None)
        now = self.rt.now
        finished = ctx.finished_condition
        if finished is not None and finished["type"] == "FailureTarget":
            status.setdefault("conditions", []).append(finished)
            needs_flush = True
            ctx.finished_condition = _condition("Failed", "True", finished["reason"], finished["message"], now)
        if _is_success_criteria(ctx.finished_condition):
            assert ctx.finished_condition is not None
            if not condition_true(status, "SuccessCriteriaMet"):
                status.setdefault("conditions", []).append(ctx.finished_condition)
                needs_flush = True
            ctx.finished_condition = _condition("Complete", "True", ctx.finished_condition["reason"],
                                                ctx.finished_condition["message"], now)
        needs_flush = self._flush_and_remove_finalizers(key, ctx, to_remove, with_finalizer, needs_flush)
        job_finished = not reached_max and self._enact_job_finished(ctx)
        if job_finished:
            needs_flush = True
        if needs_flush:
            ctx.job = self._update_status(ctx.job)
            if job_finished:
                self._record_job_finished(ctx.job, ctx.finished_condition)

    def _update_status(self, job: dict[str, Any]) -> dict[str, Any]:
        """``updateStatusHandler``: write the status; the result's status (only) is the sync's to change."""
        stored = self.client.update_status(deep_copy(job))  # job's metadata is the stored one's
        return {**stored, "status": deep_copy(stored.get("status") or {})}

    def _flush_and_remove_finalizers(self, key: Key, ctx: _SyncCtx, to_remove: list[dict[str, Any]],
                                     with_finalizer: set[str], needs_flush: bool) -> bool:
        """``flushUncountedAndRemoveFinalizers``."""
        if needs_flush:
            ctx.job = self._update_status(ctx.job)
            self._backoff[key] = ctx.backoff
            needs_flush = False
        status = ctx.job.setdefault("status", {})
        status.setdefault("uncountedTerminatedPods", {})
        first_error: ApiError | None = None
        if to_remove:
            expected = self._rm_finalizers.setdefault(key, set())
            for pod in to_remove:
                uid = _meta(pod).get("uid") or ""
                expected.add(uid)
                try:
                    self._remove_finalizer(pod)
                except NotFound:
                    with_finalizer.discard(uid)
                    self._finalizer_removal_observed(key, uid)
                    continue
                except ApiError as err:
                    self._finalizer_removal_observed(key, uid)
                    first_error = first_error or err
                    continue
                with_finalizer.discard(uid)
        if _clean_uncounted(status, with_finalizer):
            needs_flush = True
        if first_error is not None:
            if needs_flush:
                ctx.job = self._update_status(ctx.job)
            raise first_error
        return needs_flush

    def _enact_job_finished(self, ctx: _SyncCtx) -> bool:
        """``enactJobFinished``: add the terminal condition once nothing is uncounted or terminating."""
        finished = ctx.finished_condition
        if finished is None:
            return False
        status = ctx.job.setdefault("status", {})
        uncounted = status.get("uncountedTerminatedPods") or {}
        if uncounted.get("succeeded") or uncounted.get("failed"):
            return False
        if ctx.terminating > 0:
            return False
        _ensure_condition(status, finished["type"], finished["status"], finished["reason"], finished["message"],
                          self.rt.now)
        if finished["type"] == "Complete":
            status["completionTime"] = finished["lastTransitionTime"]
        return True

    def _record_job_finished(self, job: dict[str, Any], finished: dict[str, Any] | None) -> None:
        """``recordJobFinished``: the Completed / failure-reason event."""
        if finished is None:
            return
        if finished["type"] == "Complete":
            completions = _spec(job).get("completions")
            if completions is not None and int((job.get("status") or {}).get("succeeded") or 0) > int(completions):
                self.recorder.event(job, WARNING, "TooManySucceededPods",
                                    "Too many succeeded pods running after completion count reached")
            self.recorder.event(job, NORMAL, "Completed", "Job completed")
        else:
            self.recorder.event(job, WARNING, finished["reason"], finished["message"])


def _clean_uncounted(status: dict[str, Any], with_finalizer: set[str]) -> bool:
    """``cleanUncountedPodsWithoutFinalizers``: UIDs whose finalizer is gone move to the counters."""
    uncounted = status.setdefault("uncountedTerminatedPods", {})
    updated = False
    for kind in ("succeeded", "failed"):
        uids = uncounted.get(kind) or []
        keep = [u for u in uids if u in with_finalizer]
        if len(keep) != len(uids):
            updated = True
            status[kind] = int(status.get(kind) or 0) + len(uids) - len(keep)
            if keep:
                uncounted[kind] = keep
            else:
                uncounted.pop(kind, None)
    return updated


def _generate_name_with_index(job_name: str, index: int) -> str:
    """``podGenerateNameWithIndex``: cut the Job name so ``-<index>-`` survives the 58-char limit."""
    suffix = f"-{index}-"
    prefix = job_name + suffix
    if len(prefix) > MAX_GENERATED_NAME_LENGTH:
        prefix = job_name[: MAX_GENERATED_NAME_LENGTH - len(suffix)] + suffix
    return prefix


def _add_completion_index_env(template: dict[str, Any]) -> None:
    """``addCompletionIndexEnvVariables`` (PodIndexLabel on: the label is the field path)."""
    spec = template.get("spec") or {}
    containers: Iterable[dict[str, Any]] = (spec.get("initContainers") or []) + (spec.get("containers") or [])
    for container in containers:
        env = container.setdefault("env", [])
        if any(e.get("name") == COMPLETION_INDEX_ENV for e in env):
            continue
        # apiVersion "v1" is what the API server's SetDefaults_ObjectFieldSelector stores.
        env.append({"name": COMPLETION_INDEX_ENV, "valueFrom": {"fieldRef": {
            "apiVersion": "v1", "fieldPath": f"metadata.labels['{COMPLETION_INDEX}']"}}})
