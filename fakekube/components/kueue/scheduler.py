"""The Kueue scheduler: one admission cycle at a time (``pkg/scheduler/scheduler.go``).

A cycle takes the head of every active ClusterQueue (``Heads``), a snapshot of the cache, and
nominates each head (inactive or missing ClusterQueue, namespace not selected: inadmissible;
else the flavor assigner's assignment and, when it needs preemption, the targets). The entries
are processed in order (no borrowing first, then priority, then queue order): a Fit reserves
quota in the snapshot and admits (``status.admission``, QuotaReserved then Admitted, the
``QuotaReserved`` and ``Admitted`` events); a Preempt evicts its targets
(``Evicted``/``Preempted`` conditions, ``Preempted`` events) and waits for them; anything that
no longer fits waits. The heads not admitted are requeued and their QuotaReserved=False
condition says why (reason ``Pending``, as UnadmittedWorkloadsObservability is off).

Upstream's loop runs whenever the queues are not empty, backing off 1-10 ms after a cycle that
admitted nothing. Here a cycle runs (in its own loop event) when something may have changed what
can be admitted: a workload entered a heap, quota was released, a queue or flavor changed. A
cycle that only requeues its own heads does not schedule another one (no busy loop on virtual
time; docs/deviations.md).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

from fakekube._core.clock import SECOND, parse_time
from fakekube._core.loop import Priority
from fakekube.errors import FieldError, aggregate_message

from . import constants as c
from . import workload as wlutil
from .cache import Snapshot, SnapshotCQ
from .flavor_assigner import FIT, MODE_NAMES, NO_FIT, PREEMPT, Assignment, FlavorAssigner
from .manager import Manager
from .preemption import Target, cq_path, get_targets, preemption_message, simulate_preemption
from .queue_manager import RequeueReason
from .resources import resource_value

__all__ = ["Scheduler"]

REQUESTS_MUST_NOT_EXCEED_LIMITS = "requests must not exceed its limits"


def _greater_keys(requests: dict[str, Any] | None, limits: dict[str, Any] | None) -> list[str]:
    """``Requests.GreaterKeysRL``: the resources whose request is above its limit (sorted)."""
    limits = limits or {}
    return sorted(name for name, q in (requests or {}).items()
                  if name in limits and resource_value(name, q) > resource_value(name, limits[name]))


def _validate_resources(wl: dict[str, Any]) -> list[FieldError]:
    """``workload.ValidateResources``: no container (nor the pod) requests more than its limits."""
    errors: list[FieldError] = []
    for i, ps in enumerate((wl.get("spec") or {}).get("podSets") or []):
        pod = (ps.get("template") or {}).get("spec") or {}
        path = f"spec.podSets[{i}].template.spec"
        for kind in ("initContainers", "containers"):
            for j, container in enumerate(pod.get(kind) or []):
                res = container.get("resources") or {}
                names = _greater_keys(res.get("requests"), res.get("limits"))
                if names:
                    errors.append(FieldError.invalid(f"{path}.{kind}[{j}]", names, REQUESTS_MUST_NOT_EXCEED_LIMITS))
        pod_resources = pod.get("resources")
        if pod_resources is not None:
            names = _greater_keys(pod_resources.get("requests"), pod_resources.get("limits"))
            if names:
                errors.append(FieldError.invalid(f"{path}.resources", names, REQUESTS_MUST_NOT_EXCEED_LIMITS))
    return errors

# entry status
_NOT_NOMINATED, _NOMINATED, _SKIPPED, _ASSUMED, _EVICTED = "", "nominated", "skipped", "assumed", "evicted"


@dataclass(slots=True)
class _Entry:
    info: wlutil.Info
    cq: SnapshotCQ | None
    assignment: Assignment = field(default_factory=Assignment)
    targets: list[Target] = field(default_factory=list)
    status: str = _NOT_NOMINATED
    inadmissible_msg: str = ""
    requeue_reason: str = RequeueReason.GENERIC
    quota_reserved_reason: str = ""


class Scheduler:
    """The admission cycle as a component."""

    name = "kueue-scheduler"

    def __init__(self, manager: Manager) -> None:
        self.m = manager
        self.rt = manager.rt
        self.client = self.rt.shared_client(c.SCHEDULER)
        self.recorder = manager.recorder(c.SCHEDULER)
        self.scheduling_cycle = 0
        self._pending = False
        self._running = False
        self._started = False
        self._again = False
        manager.on_queues_changed.append(self.trigger)

    def start(self) -> None:
        self._started = True
        self.trigger()

    def stop(self) -> None:
        self._started = False

    def trigger(self) -> None:
        """Something changed: run a cycle soon (once, however many changes)."""
        if not self._started:
            return
        if self._running:
            self._again = True
            return
        if self._pending:
            return
        self._pending = True
        self.rt.loop.call_soon(self._run, label="kueue-scheduler", priority=Priority.NORMAL)

    def _run(self) -> None:
        self._pending = False
        if not self._started:
            return
        self._running = True
        self._again = False
        try:
            admitted = self.schedule()
        finally:
            self._running = False
        if admitted or self._again:
            self.trigger()

    # ------------------------------------------------------------------ the cycle
    def schedule(self) -> bool:
        """One cycle; True when something was admitted or preempted (KeepGoing)."""
        heads = self.m.queues.heads(lambda name: self._cq_active(name))
        if not heads:
            return False
        self.scheduling_cycle += 1
        self.rt.trace.add(f"kueue-scheduler cycle {self.scheduling_cycle}: {len(heads)} head(s)")
        snapshot = self.m.cache.snapshot()
        entries, inadmissible = self._nominate(heads, snapshot)
        entries.sort(key=functools.cmp_to_key(self._entry_order))
        preempted: dict[tuple[str, str], wlutil.Info] = {}
        for entry in entries:
            self._process(entry, snapshot, preempted)
        success = False
        for entry in entries:
            if entry.status not in (_ASSUMED, _EVICTED):
                self._requeue_and_update(entry)
            else:
                success = True
        for entry in inadmissible:
            self._requeue_and_update(entry)
        return success

    def assignment_for(self, wl: dict[str, Any]) -> dict[str, Any] | None:
        """What the flavor assigner would decide now for the pending workload ``wl``, on a fresh
        snapshot: ``{"mode": "Fit" | "Preempt" | "NoFit", "podSets": [{"name", "count", "flavors":
        {resource: {"name", "mode"}}, "reasons": [...]}]}``; None without a ClusterQueue.
        Read-only: nothing is written or reserved (a diagnostic, e.g. to compare with a test's
        expected assignment)."""
        cq_name = self.m.queues.cluster_queue_for(wl)
        snapshot = self.m.cache.snapshot()
        cq = snapshot.cluster_queues.get(cq_name or "")
        if cq is None:
            return None
        assignment, _ = self._assignments(wlutil.Info.of(wl, cq.name, reclaimable=self.m.gate("ReclaimablePods")),
                                          cq, snapshot)
        return {"mode": MODE_NAMES[assignment.representative_mode()], "podSets": [
            {"name": ps.name, "count": ps.count, "reasons": sorted(ps.reasons) + ([ps.error] if ps.error else []),
             "flavors": {res: {"name": fa.name, "mode": MODE_NAMES[fa.mode]} for res, fa in sorted(ps.flavors.items())}}
            for ps in assignment.pod_sets]}

    def _cq_active(self, name: str) -> bool:
        state = self.m.cache.cluster_queues.get(name)
        return state is not None and state.active

    def _nominate(self, heads: list[wlutil.Info], snapshot: Snapshot) -> tuple[list[_Entry], list[_Entry]]:
        entries: list[_Entry] = []
        inadmissible: list[_Entry] = []
        for info in heads:
            cq = snapshot.cluster_queues.get(info.cluster_queue)
            entry = _Entry(info, cq)
            if self.m.cache.is_added(info.key):
                continue
            state = self.m.cache.cluster_queues.get(info.cluster_queue)
            if state is not None and not state.active:
                entry.inadmissible_msg = f"ClusterQueue {info.cluster_queue} is inactive"
                entry.quota_reserved_reason = c.REASON_SUSPENDED
            elif cq is None:
                entry.inadmissible_msg = f"ClusterQueue {info.cluster_queue} not found"
                entry.quota_reserved_reason = c.REASON_MISCONFIGURED
            else:
                problem = self._validate_admissibility(info, cq)
                if problem is None:
                    entry.assignment, entry.targets = self._assignments(info, cq, snapshot)
                    entry.inadmissible_msg = entry.assignment.message()
                    entries.append(entry)
                    continue
                entry.inadmissible_msg = problem
                entry.quota_reserved_reason = c.REASON_MISCONFIGURED
                if problem == _NAMESPACE_MISMATCH:
                    entry.requeue_reason = RequeueReason.NAMESPACE_MISMATCH
            inadmissible.append(entry)
        return entries, inadmissible

    def _validate_admissibility(self, info: wlutil.Info, cq: SnapshotCQ) -> str | None:
        namespace = info.obj["metadata"].get("namespace") or ""
        ns = self.m.namespaces.get(namespace)
        if ns is None:
            return f'workload namespace "{namespace}" does not exist: namespaces "{namespace}" not found'
        selector = cq.state.namespace_selector
        if selector is None or not selector.matches(ns["metadata"].get("labels") or {}):
            return _NAMESPACE_MISMATCH
        errors = _validate_resources(info.obj)
        if errors:
            return f"resources validation failed: {aggregate_message(errors)}"
        return None

    def _oracle(self, snapshot: Snapshot) -> Any:
        def oracle(cq: SnapshotCQ, info: wlutil.Info, fr: tuple[str, str], quantity: int) -> tuple[str, int]:
            return simulate_preemption(cq, info, snapshot, fr, quantity, self.m.queues.requeuing_timestamp,
                                       self.m.now())
        return oracle

    def _assignments(self, info: wlutil.Info, cq: SnapshotCQ, snapshot: Snapshot) -> tuple[Assignment, list[Target]]:
        """``getInitialAssignments`` (with partial admission: fewer pods, down to minCount)."""
        assigner = FlavorAssigner(info, cq, snapshot, self._oracle(snapshot),
                                  enable_fair_sharing=self.m.config.fair_sharing_enabled)
        full = assigner.assign()
        mode = full.representative_mode()
        if mode == FIT:
            return full, []
        if mode == PREEMPT:
            targets = self._targets(info, full, cq, snapshot)
            if targets:
                return full, targets
        if self.m.gate("PartialAdmission") and _can_be_partially_admitted(info.obj):
            counts = _partial_counts(info.obj)
            for trial in counts:
                assignment = assigner.assign(trial)
                trial_mode = assignment.representative_mode()
                if trial_mode == FIT:
                    return assignment, []
                if trial_mode == PREEMPT:
                    targets = self._targets(info, assignment, cq, snapshot)
                    if targets:
                        return assignment, targets
        return full, []

    def _targets(self, info: wlutil.Info, assignment: Assignment, cq: SnapshotCQ, snapshot: Snapshot) -> list[Target]:
        return get_targets(info, cq, snapshot, assignment.frs_need_preemption(), dict(assignment.usage),
                           self.m.queues.requeuing_timestamp, self.m.now())

    def _entry_order(self, a: _Entry, b: _Entry) -> int:
        ba, bb = a.assignment.borrows(), b.assignment.borrows()
        if ba != bb:
            return -1 if ba < bb else 1
        if self.m.gate("PrioritySortingWithinCohort"):
            pa, pb = wlutil.priority(a.info.obj), wlutil.priority(b.info.obj)
            if pa != pb:
                return -1 if pa > pb else 1
        ts = self.m.queues.requeuing_timestamp
        ta, tb = wlutil.queue_order_timestamp(a.info.obj, ts), wlutil.queue_order_timestamp(b.info.obj, ts)
        if ta != tb:
            return -1 if ta < tb else 1
        return 0

    def _process(self, entry: _Entry, snapshot: Snapshot, preempted: dict[tuple[str, str], wlutil.Info]) -> None:
        cq = entry.cq
        assert cq is not None
        mode = entry.assignment.representative_mode()
        if mode == NO_FIT:
            entry.requeue_reason = RequeueReason.NO_FIT
            entry.quota_reserved_reason = ""
            return
        if mode == PREEMPT and not entry.targets:
            entry.requeue_reason = RequeueReason.PREEMPTION_NO_CANDIDATES
            entry.quota_reserved_reason = c.REASON_WAITING_FOR_QUOTA
            self._reserve_capacity_for_unreclaimable_preempt(entry, cq, snapshot)
            return
        target_keys = {t.info.key for t in entry.targets}
        if target_keys & preempted.keys():
            entry.status = _SKIPPED
            entry.inadmissible_msg = "Workload has overlapping preemption targets with another workload"
            entry.quota_reserved_reason = c.REASON_WAITING_FOR_QUOTA
            return
        usage = dict(entry.assignment.usage)
        if not self._fits(cq, usage, [*preempted.values(), *(t.info for t in entry.targets)], snapshot):
            entry.status = _SKIPPED
            entry.inadmissible_msg = "Workload no longer fits after processing another workload"
            entry.quota_reserved_reason = c.REASON_WAITING_FOR_QUOTA
            return
        preempted.update((t.info.key, t.info) for t in entry.targets)
        snapshot.add_usage(cq.name, usage)
        if mode == PREEMPT:
            entry.quota_reserved_reason = c.REASON_WAITING_FOR_PREEMPTED_WORKLOADS
            self._issue_preemptions(entry)
            return
        if self._wait_for_pods_ready_blocks(entry):
            return
        entry.status = _NOMINATED
        self._admit(entry, cq)

    def _reserve_capacity_for_unreclaimable_preempt(self, entry: _Entry, cq: SnapshotCQ, snapshot: Snapshot) -> None:
        """``reserveCapacityForUnreclaimablePreempt``: a head that needs preemption but has no
        candidates, in a ClusterQueue that cannot always reclaim (``reclaimWithinCohort`` other
        than Any), keeps what it could use of its quota from the borrowers later in the cycle."""
        if (cq.state.preemption.get("reclaimWithinCohort") or c.PREEMPTION_NEVER) == "Any":
            return
        if wlutil.has_quota_reservation(entry.info.obj):
            return
        reserved: dict[tuple[str, str], int] = {}
        for fr, val in entry.assignment.usage.items():
            quota = cq.node.quotas.get(fr)
            nominal = quota.nominal if quota else 0
            used = cq.node.usage.get(fr, 0)
            if entry.assignment.borrowing > 0:
                if quota is None or quota.borrowing_limit is None:
                    reserved[fr] = val
                else:
                    reserved[fr] = min(val, nominal + quota.borrowing_limit - used)
            else:
                reserved[fr] = max(0, min(val, nominal - used))
        snapshot.add_usage(cq.name, reserved)

    def _fits(self, cq: SnapshotCQ, usage: dict[tuple[str, str], int], victims: list[wlutil.Info],
              snapshot: Snapshot) -> bool:
        """``fits``: does the usage still fit in this cycle's snapshot, with every workload this
        cycle preempts so far and the entry's own targets (not yet gone) removed."""
        for info in victims:
            snapshot.remove_workload(info)
        try:
            return all(v <= cq.node.available(fr) for fr, v in usage.items())
        finally:
            for info in victims:
                snapshot.add_workload(info)

    def _wait_for_pods_ready_blocks(self, entry: _Entry) -> bool:
        """``waitForPodsReadyIfNeeded`` with blockAdmission: hold admissions until every admitted
        workload has PodsReady (upstream blocks the cycle; here the head waits and is retried)."""
        wfpr = self.m.config.wait_for_pods_ready
        if wfpr is None or not wfpr.block_admission or self.m.cache.pods_ready_for_all_admitted():
            return False
        now = self.m.now()
        self.m.update_workload_status(entry.info.obj, lambda wl: wlutil.unset_quota_reservation_with_condition(
            wl, c.REASON_WAITING, "waiting for all admitted workloads to be in PodsReady condition", now),
            c.SCHEDULER)
        entry.status = _SKIPPED
        entry.requeue_reason = RequeueReason.GENERIC
        entry.quota_reserved_reason = c.REASON_WAITING
        entry.inadmissible_msg = "waiting for all admitted workloads to be in PodsReady condition"
        return True

    # ------------------------------------------------------------------ writes
    def _admit(self, entry: _Entry, cq: SnapshotCQ) -> None:
        admission = {"clusterQueue": cq.name, "podSetAssignments": entry.assignment.to_api()}
        now = self.m.now()
        original = entry.info.obj

        def prepare(wl: dict[str, Any]) -> bool:
            wlutil.set_quota_reservation(wl, admission, now)
            wlutil.sync_admitted_condition(wl, now)
            return True

        written = self.m.update_workload_status(original, prepare, c.SCHEDULER)
        if written is None:
            entry.inadmissible_msg = "Failed to admit workload: the workload was deleted"
            return
        entry.status = _ASSUMED
        self.m.cache.add_or_update_workload(written)
        self.m.queues.delete_workload(entry.info.key)
        wait = self._queued_wait_seconds(original)
        if not wlutil.has_quota_reservation(original):
            self.recorder.event(written, "Normal", "QuotaReserved", wlutil.truncate_event_message(
                f"Quota reserved in ClusterQueue {cq.name}, wait time since queued was {wait:.0f}s"),
                action="QuotaReserved")
        if wlutil.is_admitted(written):
            self.recorder.event(written, "Normal", "Admitted",
                                f"Admitted by ClusterQueue {cq.name}, wait time since reservation was 0s",
                                action="Admitted")
        self.rt.trace.add(f"kueue-scheduler admitted {entry.info.key[0]}/{entry.info.key[1]} "
                          f"in ClusterQueue {cq.name}")

    def _queued_wait_seconds(self, wl: dict[str, Any]) -> float:
        """``QueuedWaitTime``: since creation, or since the last Requeued transition."""
        since = wl["metadata"].get("creationTimestamp")
        cond = wlutil.find_condition(wl, c.WORKLOAD_REQUEUED)
        if cond is not None:
            since = cond.get("lastTransitionTime", since)
        if not since:
            return 0.0
        return (self.rt.loop.now - parse_time(since)) / SECOND

    def _issue_preemptions(self, entry: _Entry) -> None:
        preemptor = entry.info
        assert entry.cq is not None
        preemptor_path = cq_path(entry.cq)
        for target in entry.targets:
            wl = target.info.obj
            if wlutil.is_evicted(wl):
                continue
            message = preemption_message(preemptor.obj, target.reason, preemptor_path, cq_path(target.cq))
            now = self.m.now()

            def prepare(w: dict[str, Any], reason: str = target.reason, msg: str = message, at: str = now) -> None:
                wlutil.set_preempted_condition(w, reason, msg, at)

            written = self.m.evict(wl, c.EVICTED_BY_PREEMPTION, message, c.SCHEDULER, prepare=prepare)
            if written is None:
                continue
            pp, tp = wlutil.priority(preemptor.obj), wlutil.priority(wl)
            self.recorder.event(written, "Normal", "Preempted", wlutil.truncate_event_message(
                f"{message}; preemptor effective priority: {pp} (base: {pp}, boost: 0); "
                f"preemptee effective priority: {tp} (base: {tp}, boost: 0)"), action="Preempted")
            ns, name = target.info.key
            self.recorder.event(preemptor.obj, "Normal", "PreemptedWorkload", wlutil.truncate_event_message(
                f"Preempted workload {ns}/{name} (UID: {wl['metadata'].get('uid', '')}) in ClusterQueue "
                f"{target.info.cluster_queue}; preemptor effective priority: {pp} (base: {pp}, boost: 0); "
                f"preemptee effective priority: {tp} (base: {tp}, boost: 0)"), action="PreemptedWorkload")
            self.rt.trace.add(f"kueue-scheduler preempted {ns}/{name} ({target.reason}) for "
                              f"{preemptor.key[0]}/{preemptor.key[1]}")
        entry.inadmissible_msg += f". Pending the preemption of {len(entry.targets)} workload(s)"
        entry.requeue_reason = RequeueReason.PENDING_PREEMPTION

    def _requeue_and_update(self, entry: _Entry) -> None:
        if entry.status != _NOT_NOMINATED and entry.requeue_reason == RequeueReason.GENERIC:
            entry.requeue_reason = RequeueReason.FAILED_AFTER_NOMINATION
        k = entry.info.key
        latest = self.m.workloads.get(k[1], k[0])
        self.m.queues.requeue_workload(entry.info, latest, entry.requeue_reason)
        if entry.status in (_NOT_NOMINATED, _SKIPPED):
            self._update_pending(entry, latest)

    def _update_pending(self, entry: _Entry, latest: dict[str, Any] | None) -> None:
        if latest is None:
            return
        reason = c.REASON_PENDING
        message = entry.inadmissible_msg
        now = self.m.now()
        info = entry.info

        def mutate(wl: dict[str, Any]) -> bool:
            changed = wlutil.unset_quota_reservation_with_condition(wl, reason, message, now)
            return wlutil.propagate_resource_requests(wl, info) or changed

        self.m.update_workload_status(latest, mutate, c.SCHEDULER)
        self.recorder.event(latest, "Warning", reason, wlutil.truncate_event_message(message), action=reason)


_NAMESPACE_MISMATCH = "workload namespace doesn't match ClusterQueue selector"


def _can_be_partially_admitted(wl: dict[str, Any]) -> bool:
    return any(ps.get("minCount") is not None and ps.get("minCount") < ps.get("count", 1)
               for ps in wl["spec"].get("podSets") or [])


def _partial_counts(wl: dict[str, Any]) -> list[list[int]]:
    """The pod counts partial admission tries, largest first (``podset_reducer``: a binary search
    upstream; here every step down by one until each reducible pod set is at its minCount)."""
    pod_sets = wl["spec"].get("podSets") or []
    counts = [ps.get("count", 1) for ps in pod_sets]
    mins = [ps.get("minCount", ps.get("count", 1)) for ps in pod_sets]
    out = []
    current = list(counts)
    while True:
        changed = False
        for i in range(len(current)):
            if current[i] > mins[i]:
                current[i] -= 1
                changed = True
        if not changed:
            break
        out.append(list(current))
    return out
