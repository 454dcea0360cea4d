"""``default-scheduler`` as a component: informers, the scheduling queue, binding and failing.

Queue: pods with ``spec.schedulingGates`` are never queued (the API server already wrote
``PodScheduled=False/SchedulingGated``); removing the last gate queues the pod. Pods are taken
highest ``spec.priority`` first, then in the order they became schedulable. A pod that becomes
schedulable is attempted ``SCHEDULING_DELAY`` (10 ms of virtual time) later; all pods due at the
same instant are scheduled in one cycle, each seeing the previous ones' placements.

Binding: ``POST pods/<pod>/binding``, then a ``Normal Scheduled`` event ``Successfully assigned
<ns>/<pod> to <node>`` from ``default-scheduler``. A pod that fits nowhere gets
``PodScheduled=False/Unschedulable`` and a ``Warning FailedScheduling`` event with the text of
:mod:`.filters`. Unschedulable pods are retried only when something that could help happens
(a node is added or changes; a bound pod is deleted or finishes; a pod is bound, for pods with
required pod affinity; the pod itself changes), no earlier than upstream's per-pod backoff
(1 s doubling to 10 s after the last attempt).

Preemption (:mod:`.preemption`): a pod that fits nowhere may evict lower-priority pods; the
scheduler then writes their ``DisruptionTarget`` condition, deletes them, records ``Preempted``
events and sets the preemptor's ``status.nominatedNodeName`` with its ``FailedScheduling``.

Which node a pod gets is :mod:`.indexes`' answer (:meth:`.indexes.Indexes._find_node`).
"""

from __future__ import annotations

import heapq
import itertools
from typing import Any

from fakekube._core.clock import MILLISECOND, SECOND, SimTime, format_time
from fakekube._core.jsonutil import deep_copy
from fakekube.apiserver.kinds.pods import set_condition
from fakekube.errors import Conflict, Forbidden, NotFound
from fakekube.runtime.context import Runtime
from fakekube.runtime.events import NORMAL, WARNING

from .filters import (
    TERMINAL_PHASES,
    Attempt,
    NodeInfo,
    PodInfo,
    PodKey,
    is_terminal,
    pod_affinity_terms,
    quantity,
)
from .preemption import Preemption

DEFAULT_SCHEDULER_NAME = "default-scheduler"
SCHEDULING_DELAY: SimTime = 10 * MILLISECOND
INITIAL_BACKOFF: SimTime = 1 * SECOND
MAX_BACKOFF: SimTime = 10 * SECOND


class Scheduler(Preemption):
    """``default-scheduler``: binds pending pods to nodes through the API."""

    name = "scheduler"

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.client = rt.shared_client(DEFAULT_SCHEDULER_NAME)
        self.recorder = rt.recorder(DEFAULT_SCHEDULER_NAME, correlate=False)  # events.k8s.io upstream
        super().__init__()
        # queue
        self._seq = itertools.count()
        # ready time -> (seq, pod) in enqueue order, and the distinct ready times as a heap
        self._waiting: dict[SimTime, list[tuple[int, PodKey]]] = {}
        self._wake_times: list[SimTime] = []
        self._queued: dict[PodKey, int] = {}
        self._unschedulable: dict[PodKey, bool] = {}  # -> has required pod affinity terms
        self._attempts: dict[PodKey, int] = {}
        self._last_attempt: dict[PodKey, SimTime] = {}
        self._cycle_at: SimTime | None = None
        self._running = False
        self.scheduled = 0
        self.failed_attempts = 0

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self._running = True
        self._ns_informer = self.rt.informer("namespaces")
        self._ns_informer.add_handler(self._on_namespace)
        self._node_informer = self.rt.informer("nodes")
        self._node_informer.add_handler(self._on_node)
        self._pod_informer = self.rt.informer("pods")
        self._pod_informer.add_handler(self._on_pod)

    def stop(self) -> None:
        self._running = False

    # ------------------------------------------------------------------ informer handlers
    def _on_namespace(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        name = obj["metadata"]["name"]
        if type_ == "DELETED":
            self._ns_labels.pop(name, None)
        else:
            self._ns_labels[name] = dict(obj["metadata"].get("labels") or {})

    def _on_node(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        name = obj["metadata"]["name"]
        current = self._nodes.get(name)
        if current is not None:
            self._remove_node(current)
        if type_ == "DELETED":
            return
        spec, status = obj.get("spec") or {}, obj.get("status") or {}
        alloc_raw = status.get("allocatable") or status.get("capacity") or {}
        info = NodeInfo(name=name, labels=dict(obj["metadata"].get("labels") or {}),
                        taints=[t for t in spec.get("taints") or []
                                if t.get("effect") in ("NoSchedule", "NoExecute")],
                        unschedulable=bool(spec.get("unschedulable")),
                        allocatable={k: quantity(k, v) for k, v in alloc_raw.items()})
        self._add_node(info)
        if current is None or (current.labels, current.taints, current.unschedulable, current.allocatable) != \
                (info.labels, info.taints, info.unschedulable, info.allocatable):
            self._move_unschedulable(all_pods=True)

    def _on_pod(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        meta, spec = obj["metadata"], obj.get("spec") or {}
        key = (meta.get("namespace") or "", meta["name"])
        if type_ == "DELETED":
            self._dequeue(key)
            self._clear_nomination(key)
            self._terminating_victims.pop(key, None)
            if self._forget(key, meta.get("uid")):
                self._move_unschedulable(all_pods=True)
            return
        node = spec.get("nodeName")
        if node:
            if key in self._queued or key in self._unschedulable or key in self._attempts:
                self._dequeue(key)
            if self._nomination_of:
                self._clear_nomination(key)
            if (obj.get("status") or {}).get("phase") in TERMINAL_PHASES:
                self._terminating_victims.pop(key, None)
                if self._forget(key, meta.get("uid")):
                    self._move_unschedulable(all_pods=True)
                return
            known = self._bound.get(key)
            labels = meta.get("labels") or {}
            # A bound pod's labels are the pod's own (frozen) map: a status write shares it.
            if known is None or known.uid != meta.get("uid") or (known.labels is not labels
                                                                 and known.labels != labels):
                if known is not None:
                    self._forget(key, known.uid)
                self._assume(self._pod_info(obj, node))
                if known is None or known.uid != meta.get("uid"):
                    self._move_unschedulable(all_pods=False)
            return
        if is_terminal(obj) or meta.get("deletionTimestamp") or spec.get("schedulingGates") \
                or (spec.get("schedulerName") or DEFAULT_SCHEDULER_NAME) != DEFAULT_SCHEDULER_NAME:
            self._dequeue(key)
            self._clear_nomination(key)
            return
        if key in self._queued:
            return
        if key in self._unschedulable:
            if old is not None and old.get("spec") == obj.get("spec") and \
                    (old["metadata"].get("labels") or {}) == (meta.get("labels") or {}):
                return  # our own status write, or nothing that could help
            self._requeue(key)
            return
        self._enqueue(key, self.rt.now + SCHEDULING_DELAY)

    # ------------------------------------------------------------------ queue
    def _enqueue(self, key: PodKey, ready_at: SimTime) -> None:
        seq = next(self._seq)
        self._queued[key] = seq
        self._unschedulable.pop(key, None)
        bucket = self._waiting.get(ready_at)
        if bucket is None:
            bucket = self._waiting[ready_at] = []
            heapq.heappush(self._wake_times, ready_at)
        bucket.append((seq, key))
        if self._cycle_at is None or ready_at < self._cycle_at:
            self._cycle_at = ready_at
            self.rt.loop.call_at(ready_at, self._cycle, label="scheduler cycle")

    def _dequeue(self, key: PodKey) -> None:
        # _attempts and _last_attempt always hold the same keys (set and dropped together).
        self._queued.pop(key, None)
        self._unschedulable.pop(key, None)
        self._attempts.pop(key, None)
        self._last_attempt.pop(key, None)

    def _requeue(self, key: PodKey) -> None:
        attempts = self._attempts.get(key, 1)
        backoff = min(INITIAL_BACKOFF * 2 ** max(0, attempts - 1), MAX_BACKOFF)
        ready = max(self.rt.now + SCHEDULING_DELAY, self._last_attempt.get(key, 0) + backoff)
        self._enqueue(key, ready)

    def _move_unschedulable(self, *, all_pods: bool) -> None:
        if not self._unschedulable:
            return
        for key, affine in list(self._unschedulable.items()):
            if all_pods or affine:
                self._requeue(key)

    def _cycle(self) -> None:
        now = self.rt.now
        if self._cycle_at is not None and self._cycle_at <= now:
            self._cycle_at = None
        if not self._running:
            return
        ready: list[tuple[int, int, PodKey]] = []
        while self._wake_times and self._wake_times[0] <= now:
            for seq, key in self._waiting.pop(heapq.heappop(self._wake_times)):
                if self._queued.get(key) != seq:
                    continue  # superseded or dequeued
                pod = self._pod_informer.get(key[1], key[0])
                priority = int(((pod or {}).get("spec") or {}).get("priority") or 0)
                ready.append((-priority, seq, key))
        ready.sort()  # highest priority first, then in the order they became schedulable
        for _, seq, key in ready:
            if self._queued.get(key) != seq:
                continue
            del self._queued[key]
            self._schedule_one(key)
        if self._wake_times and self._cycle_at is None:
            nxt = self._wake_times[0]
            self._cycle_at = nxt
            self.rt.loop.call_at(nxt, self._cycle, label="scheduler cycle")

    # ------------------------------------------------------------------ one pod
    def _schedule_one(self, key: PodKey) -> None:
        pod = self._pod_informer.get(key[1], key[0])
        if pod is None:
            return
        spec, meta = pod.get("spec") or {}, pod["metadata"]
        if spec.get("nodeName") or meta.get("deletionTimestamp") or spec.get("schedulingGates") \
                or is_terminal(pod) or key in self._bound:
            return
        self._attempts[key] = self._attempts.get(key, 0) + 1
        self._last_attempt[key] = self.rt.now
        attempt = self._attempt(pod)
        nominated = self._nodes.get(self._nomination_of.get(key, ""))
        if nominated is not None and self._filter(nominated, attempt) is None:
            node: str | None = nominated.name  # a nominated pod tries its node first
        else:
            node = self._find_node(attempt)
        if node is not None:
            self._clear_nomination(key)
            self._bind(pod, node, attempt)
            return
        outcome = self._preempt(attempt)
        if isinstance(outcome, tuple):
            node, victims = outcome
            self._evict_victims(pod, attempt, node, victims)
            self._nominate(attempt, node)
            self._fail(pod, self._fit_error(attempt, ""), nominated=node)
            return
        self._fail(pod, self._fit_error(attempt, outcome))

    def _evict_victims(self, pod: dict[str, Any], at: Attempt, node: str, victims: list[PodInfo]) -> None:
        """``prepareCandidate``: each victim gets ``DisruptionTarget`` and is deleted gracefully, with
        a ``Preempted`` event; pods of lower priority nominated to ``node`` lose the nomination."""
        meta = pod["metadata"]
        scheduler_name = (pod.get("spec") or {}).get("schedulerName") or DEFAULT_SCHEDULER_NAME
        for victim in sorted(victims, key=lambda v: v.key):
            ns, name = victim.key
            self.rt.trace.add(f"scheduler preempts {ns}/{name} on {node} for {at.namespace}/{meta['name']}")
            try:
                live = deep_copy(self.client.get("pods", name, ns))
                if live["metadata"].get("uid") != victim.uid:
                    continue
                status = live.setdefault("status", {})
                set_condition(status, {"type": "DisruptionTarget", "status": "True",
                                       "reason": "PreemptionByScheduler",
                                       "message": f"{scheduler_name}: preempting to accommodate a higher priority pod"},
                              format_time(self.rt.now))
                self.client.update_status(live)
                self.client.delete("pods", name, ns)
            except (NotFound, Conflict):
                continue
            self._terminating_victims[victim.key] = None
            self.recorder.event(live, NORMAL, "Preempted", f"Preempted by pod {meta.get('uid', '')} on node {node}",
                                action="Preempting")
        for key in self._lower_nominees(node, at.priority):
            self._clear_nomination(key)
            try:
                live = deep_copy(self.client.get("pods", key[1], key[0]))
            except NotFound:
                continue
            if (live.get("status") or {}).pop("nominatedNodeName", None) is not None:
                try:
                    self.client.update_status(live)
                except (NotFound, Conflict):
                    pass

    # ------------------------------------------------------------------ outcomes
    def _bind(self, pod: dict[str, Any], node: str, at: Attempt) -> None:
        meta = pod["metadata"]
        ns, name = meta.get("namespace") or "default", meta["name"]
        info = self._pod_info(pod, node, at)
        self._assume(info)
        try:
            self.client.bind(name, node, ns)
        except (Conflict, NotFound, Forbidden) as err:  # Forbidden: a terminating namespace
            self._forget(info.key, info.uid)
            self.rt.trace.add(f"scheduler bind {ns}/{name} to {node} failed: {err.message}")
            return
        self.scheduled += 1
        self._attempts.pop(info.key, None)
        self._last_attempt.pop(info.key, None)
        self.rt.trace.add(f"scheduler assigned {ns}/{name} to {node}")
        self._move_unschedulable(all_pods=False)
        self.recorder.event(pod, NORMAL, "Scheduled", f"Successfully assigned {ns}/{name} to {node}",
                            action="Binding")

    def _fail(self, pod: dict[str, Any], message: str, nominated: str | None = None) -> None:
        meta = pod["metadata"]
        ns, name = meta.get("namespace") or "default", meta["name"]
        key = (ns, name)
        self.failed_attempts += 1
        self._unschedulable[key] = bool(pod_affinity_terms(pod, "podAffinity"))
        self.rt.trace.add(f"scheduler cannot place {ns}/{name}: {message}")
        try:
            live = deep_copy(self.client.get("pods", name, ns))
        except NotFound:
            self._dequeue(key)
            return
        if live["metadata"].get("uid") != meta.get("uid") or (live.get("spec") or {}).get("nodeName"):
            return
        status = live.setdefault("status", {})
        set_condition(status, {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                               "message": message}, format_time(self.rt.now))
        if nominated is not None:
            status["nominatedNodeName"] = nominated
        try:
            self.client.update_status(live)
        except (NotFound, Conflict):
            return
        self.recorder.event(pod, WARNING, "FailedScheduling", message, action="Scheduling")

    # ------------------------------------------------------------------ introspection
    def pending(self) -> list[PodKey]:
        """Pods waiting for a scheduling attempt or retry, in key order."""
        return sorted(set(self._queued) | set(self._unschedulable))

    def node_usage(self, node: str) -> dict[str, int]:
        """Requests accounted on ``node`` (cpu in millicores) plus ``pods``."""
        info = self._nodes.get(node)
        if info is None:
            return {}
        return {**{k: v for k, v in sorted(info.requested.items()) if v}, "pods": info.pod_count}
