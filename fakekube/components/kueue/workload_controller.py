"""The Workload reconciler (``pkg/controller/core/workload_controller.go``, ``Reconcile``).

In upstream's order, for what the simulation covers:

- a finished workload is left alone;
- active: a ``DeactivationTarget`` condition turns ``spec.active`` off; a pending workload waits
  out ``status.requeueState.requeueAt`` and is then put back in its queue; a ``Requeued=False``
  condition becomes ``Reactivated`` or (after a PodsReady timeout, once the backoff is over)
  ``BackoffFinished``;
- inactive: the workload is evicted with reason ``Deactivated`` (``...DueTo<cause>`` when a
  DeactivationTarget said why) and its requeue state is dropped;
- a LocalQueue or ClusterQueue that is running again turns ``Requeued`` back on
  (``LocalQueueRestarted``, ``ClusterQueueRestarted``);
- a pending workload whose LocalQueue is missing or stopped, or whose ClusterQueue is missing or
  inactive, gets ``QuotaReserved=False`` reason ``Inadmissible`` with upstream's message;
- a workload holding quota is evicted when its LocalQueue or ClusterQueue is stopped with
  ``HoldAndDrain`` (``LocalQueueStopped``, ``ClusterQueueStopped``), loses its reservation when
  it was only reserving and the queue went away or stopped, and is evicted with
  ``PodsReadyTimeout`` when its pods are not all ready within ``waitForPodsReady.timeout`` of
  admission (or ``recoveryTimeout`` of losing readiness): its requeue count goes up and the
  backoff (``backoffBaseSeconds * 2^(count-1)``, capped, plus a tiny jitter) starts; past
  ``backoffLimitCount`` it is deactivated instead (``RequeuingLimitExceeded``).

Evicted workloads keep their quota until the job integration stops the job and clears the
reservation (upstream's jobframework), as upstream.
"""

from __future__ import annotations

from typing import Any

from fakekube._core.clock import SECOND, format_time, parse_time
from fakekube._core.jsonutil import deep_copy
from fakekube.errors import NotFound
from fakekube.runtime.controller import Result

from . import constants as c
from . import workload as wlutil
from .manager import Manager

__all__ = ["WorkloadController"]

Key = tuple[str, str]


class WorkloadController:
    name = "kueue-workload-controller"

    def __init__(self, manager: Manager) -> None:
        self.m = manager
        self.rt = manager.rt
        self.queue = self.rt.controller(self.name, self._reconcile)
        self.jitter = self.rt.stream("kueue-requeue-backoff")
        manager.on_workload.append(self._enqueue)

    def start(self) -> None:
        self.queue.start()
        for k in sorted(self.m.workloads.cache):
            self.queue.enqueue(k)

    def stop(self) -> None:
        self.queue.stop()

    def _enqueue(self, k: Key) -> None:
        self.queue.enqueue(k)

    # ------------------------------------------------------------------ reconcile
    def _reconcile(self, k: Key) -> Result | None:
        wl = self.m.workloads.get(k[1], k[0])
        if wl is None or wl["metadata"].get("deletionTimestamp"):
            return None
        if wlutil.is_finished(wl):
            return None
        now_ns = self.rt.loop.now
        now = format_time(now_ns)
        status = wl.get("status") or {}
        if wlutil.is_active(wl):
            if wlutil.condition_true(wl, c.WORKLOAD_DEACTIVATION_TARGET):
                body = deep_copy(wl)
                body["spec"]["active"] = False
                try:
                    self.rt.shared_client(c.WORKLOAD_CONTROLLER).update(body)
                except NotFound:
                    pass
                return None
            requeue_at = (status.get("requeueState") or {}).get("requeueAt")
            if requeue_at:
                wait = parse_time(requeue_at) - now_ns
                if wait > 0:
                    return Result(requeue_after=wait)
                if not wlutil.has_quota_reservation(wl):
                    written = self.m.update_workload_status(wl, _clear_requeue_at, c.WORKLOAD_CONTROLLER)
                    if written is not None:
                        self.m.queues.add_or_update_workload(written)
                    return None
            requeued = wlutil.find_condition(wl, c.WORKLOAD_REQUEUED)
            if requeued is not None and requeued.get("status") == "False":
                reason = requeued.get("reason")
                if reason == c.WORKLOAD_DEACTIVATED:
                    self.m.update_workload_status(wl, lambda w: wlutil.set_requeued_condition(
                        w, c.WORKLOAD_REACTIVATED, "The workload was reactivated", True, now), c.WORKLOAD_CONTROLLER)
                    return None
                if reason in (c.EVICTED_BY_PODS_READY_TIMEOUT, c.EVICTED_BY_ADMISSION_CHECK):
                    def finish_backoff(w: dict[str, Any]) -> bool:
                        state = (w.get("status") or {}).get("requeueState")
                        if state is not None:
                            w["status"]["requeueState"] = {k2: v for k2, v in state.items() if k2 != "requeueAt"}
                        wlutil.set_requeued_condition(w, c.WORKLOAD_BACKOFF_FINISHED,
                                                      "The workload backoff was finished", True, now)
                        return True
                    self.m.update_workload_status(wl, finish_backoff, c.WORKLOAD_CONTROLLER)
                    return None
        else:
            dt = wlutil.find_condition(wl, c.WORKLOAD_DEACTIVATION_TARGET)
            if not wlutil.is_evicted(wl):
                message = "The workload is deactivated"
                cause = ""
                if dt is not None:
                    cause = dt.get("reason", "")
                    message = f"{message} due to {dt.get('message', '')}"

                def prepare(w: dict[str, Any]) -> None:
                    wlutil.remove_condition(w, c.WORKLOAD_DEACTIVATION_TARGET)
                    w.setdefault("status", {}).pop("requeueState", None)

                self.m.evict(wl, c.WORKLOAD_DEACTIVATED, message, c.WORKLOAD_CONTROLLER, underlying_cause=cause,
                             prepare=prepare)
                return None
            if status.get("requeueState") is not None:
                def drop(w: dict[str, Any]) -> bool:
                    wlutil.remove_condition(w, c.WORKLOAD_DEACTIVATION_TARGET)
                    w["status"].pop("requeueState", None)
                    return True
                self.m.update_workload_status(wl, drop, c.WORKLOAD_CONTROLLER)
                return None

        queue_name = (wl.get("spec") or {}).get("queueName") or ""
        lq = self.m.local_queues.get(queue_name, k[0]) if queue_name else None
        lq_exists = lq is not None
        lq_policy = ((lq or {}).get("spec") or {}).get("stopPolicy") or c.STOP_NONE
        lq_active = lq_policy == c.STOP_NONE
        if lq_exists and lq_active and _requeued_disabled_by(wl, c.EVICTED_BY_LOCAL_QUEUE_STOPPED):
            self.m.update_workload_status(wl, lambda w: wlutil.set_requeued_condition(
                w, c.WORKLOAD_LOCAL_QUEUE_RESTARTED, "The LocalQueue was restarted after being stopped", True, now),
                c.WORKLOAD_CONTROLLER)
            return None
        cq_name = self.m.queues.cluster_queue_for(wl)
        if cq_name is None and lq is not None:
            cq_name = (lq.get("spec") or {}).get("clusterQueue")
        cq_obj = self.m.cluster_queues.get(cq_name) if cq_name else None
        if cq_obj is not None and _requeued_disabled_by(wl, c.EVICTED_BY_CLUSTER_QUEUE_STOPPED) and \
                ((cq_obj.get("spec") or {}).get("stopPolicy") or c.STOP_NONE) == c.STOP_NONE:
            self.m.update_workload_status(wl, lambda w: wlutil.set_requeued_condition(
                w, c.WORKLOAD_CLUSTER_QUEUE_RESTARTED, "The ClusterQueue was restarted after being stopped", True, now),
                c.WORKLOAD_CONTROLLER)
            return None

        if not wlutil.is_admitted(wl):
            def sync(w: dict[str, Any]) -> bool:
                changed = False
                if not wlutil.has_quota_reservation(w):
                    message = self._queue_blocker(w, lq_exists, lq_active, cq_name, cq_obj)
                    if message:
                        changed = wlutil.set_condition(w, {
                            "type": c.WORKLOAD_QUOTA_RESERVED, "status": "False", "reason": c.REASON_INADMISSIBLE,
                            "message": wlutil.truncate_condition_message(message), "lastTransitionTime": now,
                            "observedGeneration": w["metadata"].get("generation", 0)}, now)
                return wlutil.sync_admitted_condition(w, now) or changed
            # Upstream goes on with the object its patch wrote (Admitted=True when quota is
            # reserved), not with the informer's copy, which has not seen that write yet.
            written = self.m.update_workload_status(wl, sync, c.WORKLOAD_CONTROLLER)
            if written is not None:
                wl = written

        if wlutil.has_quota_reservation(wl):
            if self._on_local_queue_state(wl, lq_exists, lq_policy, now):
                return None
            if cq_name and self._on_cluster_queue_state(wl, cq_name, cq_obj, now):
                return None
            recheck = self._not_ready_timeout(wl)
            if recheck:
                return Result(requeue_after=recheck)
        return None

    def _queue_blocker(self, wl: dict[str, Any], lq_exists: bool, lq_active: bool, cq_name: str | None,
                       cq_obj: dict[str, Any] | None) -> str:
        """``getQueueBlocker``'s message ("" when nothing blocks)."""
        queue_name = (wl.get("spec") or {}).get("queueName") or ""
        if not lq_exists:
            return f"LocalQueue {queue_name} doesn't exist"
        if not lq_active:
            return f"LocalQueue {queue_name} is inactive"
        if cq_obj is None:
            return f"ClusterQueue {cq_name or ''} doesn't exist"
        state = self.m.cache.cluster_queues.get(cq_name or "")
        if state is None or not state.active:
            return f"ClusterQueue {cq_name} is inactive"
        return ""

    def _on_local_queue_state(self, wl: dict[str, Any], lq_exists: bool, policy: str, now: str) -> bool:
        queue_name = (wl.get("spec") or {}).get("queueName") or ""
        if wlutil.is_admitted(wl):
            if policy != c.STOP_HOLD_AND_DRAIN or wlutil.is_evicted(wl):
                return False
            self.m.evict(wl, c.EVICTED_BY_LOCAL_QUEUE_STOPPED, "The LocalQueue is stopped", c.WORKLOAD_CONTROLLER)
            return True
        if not lq_exists:
            self.m.update_workload_status(wl, lambda w: wlutil.unset_quota_reservation_with_condition(
                w, c.REASON_INADMISSIBLE, f"LocalQueue {queue_name} is terminating or missing", now),
                c.WORKLOAD_CONTROLLER)
            return True
        if policy != c.STOP_NONE:
            self.m.update_workload_status(wl, lambda w: wlutil.unset_quota_reservation_with_condition(
                w, c.REASON_INADMISSIBLE, f"LocalQueue {queue_name} is stopped", now), c.WORKLOAD_CONTROLLER)
            return True
        return False

    def _on_cluster_queue_state(self, wl: dict[str, Any], cq_name: str, cq_obj: dict[str, Any] | None,
                                now: str) -> bool:
        admission_cq = ((wl.get("status") or {}).get("admission") or {}).get("clusterQueue") or cq_name
        cq_obj = self.m.cluster_queues.get(admission_cq)
        policy = ((cq_obj or {}).get("spec") or {}).get("stopPolicy") or c.STOP_NONE
        if wlutil.is_admitted(wl):
            if policy != c.STOP_HOLD_AND_DRAIN or wlutil.is_evicted(wl):
                return False
            self.m.evict(wl, c.EVICTED_BY_CLUSTER_QUEUE_STOPPED, "The ClusterQueue is stopped", c.WORKLOAD_CONTROLLER)
            return True
        if cq_obj is None or cq_obj["metadata"].get("deletionTimestamp"):
            self.m.update_workload_status(wl, lambda w: wlutil.unset_quota_reservation_with_condition(
                w, c.REASON_INADMISSIBLE, f"ClusterQueue {admission_cq} is terminating or missing", now),
                c.WORKLOAD_CONTROLLER)
            return True
        if policy != c.STOP_NONE:
            self.m.update_workload_status(wl, lambda w: wlutil.unset_quota_reservation_with_condition(
                w, c.REASON_INADMISSIBLE, f"ClusterQueue {admission_cq} is stopped", now), c.WORKLOAD_CONTROLLER)
            return True
        return False

    # ------------------------------------------------------------------ waitForPodsReady
    def _not_ready_timeout(self, wl: dict[str, Any]) -> int:
        """``reconcileNotReadyTimeout``: evict after the timeout, or say when to look again."""
        wfpr = self.m.config.wait_for_pods_ready
        if wfpr is None or not wlutil.is_active(wl) or wlutil.is_evicted(wl) or not wlutil.is_admitted(wl):
            return 0
        ready = wlutil.find_condition(wl, c.WORKLOAD_PODS_READY)
        if ready is not None and ready.get("status") == "True":
            return 0
        now = self.rt.loop.now
        if ready is None or ready.get("reason") in (c.WORKLOAD_WAIT_FOR_START, "PodsReady"):
            admitted = wlutil.find_condition(wl, c.WORKLOAD_ADMITTED) or {}
            elapsed = now - parse_time(admitted.get("lastTransitionTime") or format_time(now))
            cause, remaining = c.WORKLOAD_WAIT_FOR_START, max(wfpr.timeout - elapsed, 0)
        elif ready.get("reason") == c.WORKLOAD_WAIT_FOR_RECOVERY and wfpr.recovery_timeout is not None:
            elapsed = now - parse_time(ready.get("lastTransitionTime") or format_time(now))
            cause, remaining = c.WORKLOAD_WAIT_FOR_RECOVERY, max(wfpr.recovery_timeout - elapsed, 0)
        else:
            return 0
        if remaining > 0:
            return remaining
        count = ((wl.get("status") or {}).get("requeueState") or {}).get("count", 0)
        if wfpr.backoff_limit_count is not None and count + 1 > wfpr.backoff_limit_count:
            text = format_time(now)
            self.m.update_workload_status(wl, lambda w: wlutil.set_deactivation_target(
                w, c.WORKLOAD_REQUEUING_LIMIT_EXCEEDED, "exceeding the maximum number of re-queuing retries", text),
                c.WORKLOAD_CONTROLLER)
            return 0
        ns, name = wlutil.key(wl)
        message = f"Exceeded the PodsReady timeout {ns}/{name}"

        def requeue_state(w: dict[str, Any]) -> None:
            self._update_requeue_state(w, wfpr.backoff_base_seconds, wfpr.backoff_max_seconds)

        self.m.evict(wl, c.EVICTED_BY_PODS_READY_TIMEOUT, message, c.WORKLOAD_CONTROLLER, underlying_cause=cause,
                     prepare=requeue_state)
        return 0

    def _update_requeue_state(self, wl: dict[str, Any], base_seconds: int, max_seconds: int) -> None:
        """``workload.UpdateRequeueState``: count + 1, and requeueAt after ``base * 2^(count-1)``
        seconds (capped at ``max``) with wait.Backoff's 0.0001 jitter."""
        status = wl.setdefault("status", {})
        state = dict(status.get("requeueState") or {})
        count = state.get("count", 0) + 1
        duration = base_seconds * SECOND
        cap = max_seconds * SECOND
        wait = 0
        for _ in range(count):
            wait = duration
            duration = min(duration * 2, cap) if cap else duration * 2
            if wait == cap:
                break
        wait += int(self.jitter.random() * 0.0001 * wait)
        requeue_at = format_time(self.rt.loop.now + wait)
        current = state.get("requeueAt")
        if current is None or current < requeue_at:
            state["requeueAt"] = requeue_at
        state["count"] = count
        status["requeueState"] = state


def _clear_requeue_at(wl: dict[str, Any]) -> bool:
    state = (wl.get("status") or {}).get("requeueState")
    if state is None or "requeueAt" not in state:
        return False
    wl["status"]["requeueState"] = {k: v for k, v in state.items() if k != "requeueAt"}
    return True


def _requeued_disabled_by(wl: dict[str, Any], reason: str) -> bool:
    cond = wlutil.find_condition(wl, c.WORKLOAD_REQUEUED)
    return cond is not None and cond.get("status") == "False" and cond.get("reason") == reason
