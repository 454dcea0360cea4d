"""ClusterQueue and LocalQueue status (``clusterqueue_controller.go``, ``localqueue_controller.go``).

A ClusterQueue's status holds its ``Active`` condition (``Ready`` / ``Stopped`` /
``FlavorNotFound`` ...), ``pendingWorkloads`` (heap plus inadmissible), ``reservingWorkloads``
and ``admittedWorkloads`` (from the cache), and ``flavorsReservation``/``flavorsUsage``: for each
flavor and covered resource of its resource groups, the total reserved (or admitted) and what
is borrowed beyond the nominal quota when it is in a cohort. A LocalQueue's holds its ``Active``
condition (``Ready``, ``Stopped``, ``ClusterQueueDoesNotExist``, ``ClusterQueueIsInactive``), its
pending/reserving/admitted counts and its share of the flavors' usage.

Each status is written only when it changed.
"""

from __future__ import annotations

from typing import Any

from fakekube._core.jsonutil import deep_copy
from fakekube.errors import Conflict, NotFound
from fakekube.runtime.controller import Result

from . import constants as c
from . import workload as wlutil
from .manager import Manager
from .resources import FlavorResource, format_amount

__all__ = ["ClusterQueueStatusController", "LocalQueueStatusController"]

Key = tuple[str, str]


def _set_active(status: dict[str, Any], generation: int, ok: bool, reason: str, message: str, now: str) -> None:
    holder = {"metadata": {"generation": generation}, "status": status}
    wlutil.set_condition(holder, {"type": c.QUEUE_ACTIVE, "status": "True" if ok else "False", "reason": reason,
                                  "message": message, "observedGeneration": generation}, now)


class ClusterQueueStatusController:
    name = "kueue-clusterqueue-controller"

    def __init__(self, manager: Manager) -> None:
        self.m = manager
        self.rt = manager.rt
        self.client = self.rt.shared_client(c.QUEUE_STATUS_CONTROLLER)
        self.queue = self.rt.controller(self.name, self._reconcile)
        manager.on_cluster_queue.append(lambda name: self.queue.enqueue(("", name)))

    def start(self) -> None:
        self.queue.start()

    def stop(self) -> None:
        self.queue.stop()

    def _usage(self, cq_name: str, *, admitted_only: bool) -> list[dict[str, Any]]:
        state = self.m.cache.cluster_queues[cq_name]
        used = self.m.cache.usage_of(cq_name, admitted_only=admitted_only)
        in_cohort = state.node.parent is not None
        out = []
        for rg in state.groups:
            for flavor in rg.flavors:
                resources = []
                for res in sorted(rg.covered):
                    fr: FlavorResource = (flavor, res)
                    total = used.get(fr, 0)
                    entry: dict[str, Any] = {"name": res, "total": format_amount(res, total)}
                    quota = state.node.quotas.get(fr)
                    borrowed = total - (quota.nominal if quota else 0)
                    if in_cohort and borrowed > 0:
                        entry["borrowed"] = format_amount(res, borrowed)
                    else:
                        entry["borrowed"] = "0"
                    resources.append(entry)
                out.append({"name": flavor, "resources": resources})
        return out

    def _reconcile(self, key: Key) -> Result | None:
        name = key[1]
        obj = self.m.cluster_queues.get(name)
        state = self.m.cache.cluster_queues.get(name)
        if obj is None or state is None:
            return None
        status = deep_copy(obj.get("status") or {})
        reason, message = state.inactive_reason()
        status["flavorsReservation"] = self._usage(name, admitted_only=False)
        status["flavorsUsage"] = self._usage(name, admitted_only=True)
        status["pendingWorkloads"] = self.m.queues.pending_in_cluster_queue(name)
        status["reservingWorkloads"] = len(state.workloads)
        status["admittedWorkloads"] = len(state.admitted)
        _set_active(status, obj["metadata"].get("generation", 0), reason == c.CQ_REASON_READY, reason, message,
                    self.m.now())
        return _write_status(self.client, obj, status)


class LocalQueueStatusController:
    name = "kueue-localqueue-controller"

    def __init__(self, manager: Manager) -> None:
        self.m = manager
        self.rt = manager.rt
        self.client = self.rt.shared_client(c.QUEUE_STATUS_CONTROLLER)
        self.queue = self.rt.controller(self.name, self._reconcile)
        manager.on_local_queue.append(self.queue.enqueue)
        manager.on_cluster_queue.append(self._cq_changed)

    def start(self) -> None:
        self.queue.start()

    def stop(self) -> None:
        self.queue.stop()

    def _cq_changed(self, name: str) -> None:
        for k in self.m.local_queues_of(name):
            self.queue.enqueue(k)

    def _usage(self, lq_key: Key, cq_name: str) -> tuple[int, int, list[dict[str, Any]], list[dict[str, Any]]]:
        state = self.m.cache.cluster_queues.get(cq_name)
        if state is None:
            return 0, 0, [], []
        reserved: dict[FlavorResource, int] = {}
        admitted: dict[FlavorResource, int] = {}
        reserving = admitted_count = 0
        for k, info in state.workloads.items():
            wl = info.obj
            if (k[0], (wl.get("spec") or {}).get("queueName") or "") != lq_key:
                continue
            reserving += 1
            is_admitted = k in state.admitted
            admitted_count += is_admitted
            for fr, v in info.usage().items():
                reserved[fr] = reserved.get(fr, 0) + v
                if is_admitted:
                    admitted[fr] = admitted.get(fr, 0) + v

        def render(used: dict[FlavorResource, int]) -> list[dict[str, Any]]:
            out = []
            for rg in state.groups:
                for flavor in rg.flavors:
                    out.append({"name": flavor, "resources": [
                        {"name": res, "total": format_amount(res, used.get((flavor, res), 0))}
                        for res in sorted(rg.covered)]})
            return out

        return reserving, admitted_count, render(reserved), render(admitted)

    def _reconcile(self, key: Key) -> Result | None:
        obj = self.m.local_queues.get(key[1], key[0])
        if obj is None:
            return None
        spec = obj.get("spec") or {}
        status = deep_copy(obj.get("status") or {})
        generation = obj["metadata"].get("generation", 0)
        now = self.m.now()
        cq_name = spec.get("clusterQueue") or ""
        if (spec.get("stopPolicy") or c.STOP_NONE) != c.STOP_NONE:
            _set_active(status, generation, False, "Stopped", "LocalQueue is stopped", now)
            status.setdefault("pendingWorkloads", 0)
            status.setdefault("reservingWorkloads", 0)
            status.setdefault("admittedWorkloads", 0)
        elif self.m.cluster_queues.get(cq_name) is None:
            _set_active(status, generation, False, "ClusterQueueDoesNotExist",
                        "Can't submit new workloads to clusterQueue", now)
            status["pendingWorkloads"] = status["reservingWorkloads"] = status["admittedWorkloads"] = 0
            status.pop("flavorsReservation", None)
            status.pop("flavorsUsage", None)
        else:
            state = self.m.cache.cluster_queues.get(cq_name)
            if state is not None and state.active:
                _set_active(status, generation, True, "Ready", "Can submit new workloads to localQueue", now)
            else:
                _set_active(status, generation, False, "ClusterQueueIsInactive",
                            "Can't submit new workloads to clusterQueue", now)
            reserving, admitted, reservation, usage = self._usage(key, cq_name)
            status["pendingWorkloads"] = self.m.queues.pending_in_local_queue(key)
            status["reservingWorkloads"] = reserving
            status["admittedWorkloads"] = admitted
            status["flavorsReservation"] = reservation
            status["flavorsUsage"] = usage
        return _write_status(self.client, obj, status)


def _write_status(client: Any, obj: dict[str, Any], status: dict[str, Any]) -> Result | None:
    """Write ``status`` if it differs from the stored one; a Conflict retries, a deleted queue is done."""
    if status == (obj.get("status") or {}):
        return None
    try:
        client.update_status({**obj, "metadata": dict(obj["metadata"]), "status": status})
    except NotFound:
        return None
    except Conflict:
        return Result(requeue_after=1)
    return None
