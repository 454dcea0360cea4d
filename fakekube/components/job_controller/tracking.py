"""Pod accounting and finalizer tracking: the ``batch.kubernetes.io/job-tracking`` finalizer keeps
a finished pod until the Job's status counts it. A sync records finished pods in
``uncountedTerminatedPods``, writes the status, removes their finalizers and then moves them to the
counters (``trackJobStatusAndRemoveFinalizers``, ``flushUncountedAndRemoveFinalizers``,
``cleanUncountedPodsWithoutFinalizers``, ``canRemoveFinalizer``, ``getValidPodsWithFilter`` of
``job_controller.go``; the expected finalizer removals of ``tracking_utils.go``); the terminal
condition is added only once nothing is left uncounted (:mod:`.conditions`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fakekube._core.jsonutil import deep_copy
from fakekube.apiserver.kinds.job_indexes import IndexSet
from fakekube.apiserver.kinds.job_status import condition_true
from fakekube.errors import ApiError, NotFound
from fakekube.machinery.objects import Condition, meta_of
from fakekube.runtime._shared_client import SharedClient
from fakekube.runtime.context import Runtime
from fakekube.runtime.events import EventRecorder

from .backoff import BackoffRecord
from .conditions import enact_job_finished, is_success_criteria, new_condition, record_job_finished
from .pod_failure_policy import match_pod_failure_policy
from .pods import (
    UNKNOWN_INDEX,
    Key,
    completion_index,
    is_indexed,
    is_pod_failed,
    per_index,
    phase_of,
    pod_key,
    spec_of,
)

TRACKING_FINALIZER = "batch.kubernetes.io/job-tracking"
MAX_UNCOUNTED_PODS = 500


def has_finalizer(pod: dict[str, Any]) -> bool:
    """``hasJobTrackingFinalizer``."""
    return TRACKING_FINALIZER in ((pod.get("metadata") or {}).get("finalizers") or ())


@dataclass
class SyncCtx:
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
    tracked: list[tuple[dict[str, Any], str]]
    """The pods (with their uids) that carry the tracking finalizer and whose removal is not
    already expected (``expectedRmFinalizers``), in pod order: what every
    ``getValidPodsWithFilter`` pass starts from."""
    backoff: BackoffRecord
    finished_condition: Condition | None = None
    prev_succeeded_indexes: IndexSet = field(default_factory=IndexSet)
    succeeded_indexes: IndexSet = field(default_factory=IndexSet)
    failed_indexes: IndexSet | None = None
    delayed_deletion: dict[int, dict[str, Any]] = field(default_factory=dict)


def valid_pods(ctx: SyncCtx, uncounted: set[str], keep: Any) -> list[dict[str, Any]]:
    """``getValidPodsWithFilter``: tracked, not yet counted, with a valid index (Indexed)."""
    out = []
    indexed = is_indexed(ctx.job)
    completions = int(spec_of(ctx.job).get("completions") or 0)
    for pod, uid in ctx.tracked:
        if uid in uncounted:
            continue
        if not keep(pod):
            continue
        if indexed and not _index_in_range(pod, completions):
            continue
        out.append(pod)
    return out


def _index_in_range(pod: dict[str, Any], completions: int) -> bool:
    """An Indexed Job's pod counts only with a completion index in ``[0, completions)``."""
    ix = completion_index(pod)
    return ix != UNKNOWN_INDEX and ix < completions


def new_finished_pods(ctx: SyncCtx) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``getNewFinishedPods``: the tracked, not yet counted pods that Succeeded and those that failed
    (``isPodFailed``), each with a valid index (Indexed), in pod order: upstream's two
    ``getValidPodsWithFilter`` passes (:func:`valid_pods`) in one."""
    succeeded: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    job = ctx.job
    indexed = is_indexed(job)
    completions = int(spec_of(job).get("completions") or 0)
    uncounted_succeeded, uncounted_failed = ctx.uncounted_succeeded, ctx.uncounted_failed
    for pod, uid in ctx.tracked:
        if phase_of(pod) == "Succeeded":
            if uid in uncounted_succeeded:
                continue
            out = succeeded
        elif is_pod_failed(pod, job):
            if uid in uncounted_failed:
                continue
            out = failed
        else:
            continue
        if indexed and not _index_in_range(pod, completions):
            continue
        out.append(pod)
    return succeeded, failed


def can_remove_finalizer(ctx: SyncCtx, pod: dict[str, Any], considered_failed: bool) -> bool:
    """``canRemoveFinalizer``."""
    if meta_of(ctx.job).get("deletionTimestamp") or ctx.finished_condition is not None \
            or phase_of(pod) == "Succeeded":
        return True
    if not considered_failed:
        return False
    if per_index(ctx.job):
        ix = completion_index(pod)
        delayed = ctx.delayed_deletion.get(ix)
        if ix != UNKNOWN_INDEX and delayed is not None and meta_of(delayed).get("uid") == meta_of(pod).get("uid"):
            return False
    return True


def clean_uncounted(status: dict[str, Any], with_finalizer: set[str]) -> bool:
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


class FinalizerTracking:
    """The Job controller's status writes and finalizer removals (mixed into
    :class:`.controller.JobController`, which sets these attributes)."""

    rt: Runtime
    client: SharedClient
    recorder: EventRecorder
    _rm_finalizers: dict[Key, set[str]]
    _backoff: dict[Key, BackoffRecord]
    _finished_jobs: set[str]

    def _finalizer_removal_observed(self, key: Key, uid: str) -> None:
        uids = self._rm_finalizers.get(key)
        if uids is not None:
            uids.discard(uid)
            if not uids:
                del self._rm_finalizers[key]

    def _remove_finalizer(self, pod: dict[str, Any]) -> None:
        """``removeTrackingFinalizerPatch``: a strategic merge patch deleting the finalizer."""
        namespace, name = pod_key(pod)
        self.client.patch("pods", name, {"metadata": {"$deleteFromPrimitiveList/finalizers": [TRACKING_FINALIZER]}},
                          namespace, patch_type="strategic")

    def _track_status_and_remove_finalizers(self, key: Key, ctx: SyncCtx, needs_flush: bool) -> None:
        """``trackJobStatusAndRemoveFinalizers``: record finished pods as uncounted, write status,
        remove finalizers, move them to the counters, then (when allowed) the terminal condition."""
        job = ctx.job
        status = job["status"]
        spec = spec_of(job)
        indexed = is_indexed(job)
        completions = int(spec.get("completions") or 0)
        policy = spec.get("podFailurePolicy")
        # The pods still carrying the finalizer whose removal is not already under way, in
        # (index, namespace, name) order for Indexed Jobs (ctx.pods is in (namespace, name) order).
        tracked = ctx.tracked
        with_finalizer: set[str] = {uid for _, uid in tracked}
        if clean_uncounted(status, with_finalizer):
            needs_flush = True
        # Of those, the ones whose finalizer can go now (canRemoveFinalizer reads nothing this loop
        # changes, so filtering before ordering by index is the upstream loop's order).
        removable = [(p, uid, failed) for p, uid in tracked
                     if can_remove_finalizer(ctx, p, failed := is_pod_failed(p, job))]
        if indexed and len(removable) > 1:
            removable.sort(key=lambda item: completion_index(item[0]))
        uncounted = status["uncountedTerminatedPods"]
        to_remove: list[dict[str, Any]] = []
        new_succeeded_indexes: list[int] = []
        reached_max = False
        for pod, uid, considered_failed in removable:
            to_remove.append(pod)
            if phase_of(pod) == "Succeeded" and uid not in ctx.uncounted_failed:
                if indexed:
                    ix = completion_index(pod)
                    if ix != UNKNOWN_INDEX and ix < completions and not ctx.prev_succeeded_indexes.has(ix):
                        new_succeeded_indexes.append(ix)
                        needs_flush = True
                elif uid not in ctx.uncounted_succeeded:
                    needs_flush = True
                    uncounted.setdefault("succeeded", []).append(uid)
                    ctx.uncounted_succeeded.add(uid)
            elif considered_failed or (ctx.finished_condition is not None
                                       and not is_success_criteria(ctx.finished_condition)):
                ix = completion_index(pod)
                if uid not in ctx.uncounted_failed and (not indexed or (ix != UNKNOWN_INDEX and ix < completions)):
                    if match_pod_failure_policy(policy, pod)[1]:
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
            ctx.finished_condition = new_condition("Failed", "True", finished["reason"], finished["message"], now)
        if is_success_criteria(ctx.finished_condition):
            assert ctx.finished_condition is not None
            if not condition_true(status, "SuccessCriteriaMet"):
                status.setdefault("conditions", []).append(ctx.finished_condition)
                needs_flush = True
            ctx.finished_condition = new_condition("Complete", "True", ctx.finished_condition["reason"],
                                                   ctx.finished_condition["message"], now)
        needs_flush = self._flush_and_remove_finalizers(key, ctx, to_remove, with_finalizer, needs_flush)
        job_finished = not reached_max and enact_job_finished(ctx.job, ctx.finished_condition, ctx.terminating,
                                                              self.rt.now)
        if job_finished:
            needs_flush = True
        if needs_flush:
            ctx.job = self._update_status(ctx.job)
            if job_finished:
                self._finished_jobs.add(meta_of(ctx.job).get("uid") or "")
                record_job_finished(self.recorder, ctx.job, ctx.finished_condition)

    def _update_status(self, job: dict[str, Any]) -> dict[str, Any]:
        """``updateStatusHandler``: write the status; the result's status (only) is the sync's to change.

        ``job`` shares its metadata and spec with the stored Job. The body keeps sharing the spec,
        as a patch's result does (the server only reads it, and puts the stored spec back for a
        status write), and gets a metadata dict of its own for the server to set fields on (its
        values stay shared, as in a patch) and a copy of the status, which the sync may go on editing."""
        body = {**job, "metadata": dict(job["metadata"])}
        if "status" in job:
            body["status"] = deep_copy(job["status"])
        stored = self.client.update_status(body)
        return {**stored, "status": deep_copy(stored.get("status") or {})}

    def _flush_and_remove_finalizers(self, key: Key, ctx: SyncCtx, to_remove: list[dict[str, Any]],
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
                uid = meta_of(pod).get("uid") or ""
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
        if clean_uncounted(status, with_finalizer):
            needs_flush = True
        if first_error is not None:
            if needs_flush:
                ctx.job = self._update_status(ctx.job)
            raise first_error
        return needs_flush
