"""The Kueue manager: the shared cache and queues, and the watch handlers that keep them current.

Upstream's core controllers (``pkg/controller/core``: the workload, ClusterQueue, LocalQueue,
Cohort and ResourceFlavor reconcilers) update the scheduler cache and the queue manager from
their watch handlers, before (and apart from) their reconciles. This module is those handlers:

- a ResourceFlavor, Cohort or ClusterQueue event updates the cache's quota tree and the queue
  of the ClusterQueue, and queues the inadmissible workloads of the affected cohort tree;
- a LocalQueue event (re)binds the LocalQueue to its ClusterQueue queue (a stopped LocalQueue is
  unbound, as upstream deletes it from the manager);
- a Workload event moves the workload between the queues (pending) and the cache (holding
  quota), by ``workload.Status``; one that releases quota queues the inadmissible workloads of
  its cohort tree.

Each change notifies the listeners (the scheduler, the status controllers) through callbacks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fakekube._core.clock import format_time
from fakekube._core.jsonutil import deep_copy
from fakekube.errors import Conflict, NotFound
from fakekube.runtime.context import Runtime

from . import constants as c
from . import workload as wlutil
from .cache import Cache
from .config import KueueConfig
from .queue_manager import QueueManager

__all__ = ["Manager"]

Key = tuple[str, str]


def _key(obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (meta.get("namespace") or "", meta["name"])


class Manager:
    """What the Kueue components share: config, cache, queues, informers, one client."""

    def __init__(self, rt: Runtime, config: KueueConfig) -> None:
        self.rt = rt
        self.config = config
        wfpr = config.wait_for_pods_ready
        reclaimable = config.gate("ReclaimablePods")
        self.cache = Cache(reclaimable_pods=reclaimable)
        self.queues = QueueManager(wfpr.requeuing_timestamp if wfpr else "Eviction", self.now,
                                   reclaimable_pods=reclaimable)
        self.client = rt.shared_client(c.MANAGER)
        self.workloads = rt.informer(c.WORKLOADS)
        self.cluster_queues = rt.informer(c.CLUSTER_QUEUES)
        self.local_queues = rt.informer(c.LOCAL_QUEUES)
        self.cohorts = rt.informer(c.COHORTS)
        self.flavors = rt.informer(c.RESOURCE_FLAVORS)
        self.namespaces = rt.informer("namespaces")
        self.priority_classes = rt.informer(c.WORKLOAD_PRIORITY_CLASSES)
        self.workloads.add_index("queue", _queue_index, uses=("spec.queueName", "metadata.namespace"))
        self.workloads.add_index("clusterQueue", _cq_index, uses=("status.admission",))
        # Listeners: the scheduler's trigger; the status controllers' per-queue enqueues.
        self.on_queues_changed: list[Callable[[], None]] = []
        self.on_cluster_queue: list[Callable[[str], None]] = []
        self.on_local_queue: list[Callable[[Key], None]] = []
        self.on_workload: list[Callable[[Key], None]] = []
        self._recorders: dict[str, Any] = {}
        self.queues.on_change = self._queues_changed
        self.flavors.add_handler(self._on_flavor)
        self.cohorts.add_handler(self._on_cohort)
        self.cluster_queues.add_handler(self._on_cluster_queue)
        self.local_queues.add_handler(self._on_local_queue)
        self.workloads.add_handler(self._on_workload)

    # ------------------------------------------------------------------ helpers
    def now(self) -> str:
        return format_time(self.rt.loop.now)

    def gate(self, name: str) -> bool:
        return self.config.gate(name)

    def _queues_changed(self) -> None:
        for fn in self.on_queues_changed:
            fn()

    def _cq_changed(self, name: str) -> None:
        for fn in self.on_cluster_queue:
            fn(name)

    def _lq_changed(self, k: Key) -> None:
        for fn in self.on_local_queue:
            fn(k)

    def cohort_tree_cqs(self, cq_name: str) -> list[str]:
        """Every ClusterQueue in the cohort tree of ``cq_name`` (itself alone without a cohort)."""
        state = self.cache.cluster_queues.get(cq_name)
        if state is None:
            return [cq_name]
        root = state.node.root()
        if root is state.node:
            return [cq_name]
        out: list[str] = []
        stack = [root]
        while stack:
            node = stack.pop()
            out.extend(cq.name for cq in node.child_cqs)
            stack.extend(node.child_cohorts)
        return sorted(out)

    def queue_inadmissible_in_cohort(self, cq_name: str) -> None:
        self.queues.queue_inadmissible(self.cohort_tree_cqs(cq_name))

    def local_queues_of(self, cq_name: str) -> list[Key]:
        return [k for k, lq in sorted(self.local_queues.cache.items())
                if (lq.get("spec") or {}).get("clusterQueue") == cq_name]

    def update_workload_status(self, wl: dict[str, Any], mutate: Callable[[dict[str, Any]], bool],
                               user_agent: str) -> dict[str, Any] | None:
        """Apply ``mutate`` to a copy of ``wl`` and write its status if it changed; on a conflict,
        once more on the stored version. Returns the written object, or None (unchanged or gone)."""
        client = self.rt.shared_client(user_agent)
        current = wl
        for _ in range(3):
            body = deep_copy(current)
            if not mutate(body):
                return None
            try:
                return client.update_status(body)
            except NotFound:
                return None
            except Conflict:
                try:
                    current = client.get(c.WORKLOADS, current["metadata"]["name"],
                                         current["metadata"].get("namespace"))
                except NotFound:
                    return None
        return None

    def evict(self, wl: dict[str, Any], reason: str, message: str, user_agent: str, *, underlying_cause: str = "",
              prepare: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any] | None:
        """``evict.Evict``: the Evicted condition (and ``prepare``'s changes) in one status write,
        the eviction counted in ``schedulingStats``, and the ``EvictedDueTo<reason>`` event."""
        now = self.now()
        had_admission = (wl.get("status") or {}).get("admission") is not None
        event_reason = reason
        if reason == c.WORKLOAD_DEACTIVATED and underlying_cause:
            event_reason = f"{reason}DueTo{underlying_cause}"

        def mutate(body: dict[str, Any]) -> bool:
            if prepare is not None:
                prepare(body)
            wlutil.prepare_for_eviction(body, event_reason, message, now)
            wlutil.record_eviction(body, reason, underlying_cause)
            return True

        written = self.update_workload_status(wl, mutate, user_agent)
        if written is not None and had_admission:
            self.recorder(user_agent).event(written, "Normal", f"EvictedDueTo{event_reason}",
                                            wlutil.truncate_event_message(message), action=f"EvictedDueTo{event_reason}")
        return written

    def recorder(self, component: str) -> Any:
        found = self._recorders.get(component)
        if found is None:
            found = self._recorders[component] = self.rt.recorder(component, correlate=False)
        return found

    # ------------------------------------------------------------------ handlers
    def _on_flavor(self, event: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        name = obj["metadata"]["name"]
        self.cache.set_flavor(name, None if event == "DELETED" else obj)
        for cq_name in sorted(self.cache.cluster_queues):
            self._cq_changed(cq_name)
        self.queues.queue_inadmissible(list(self.cache.cluster_queues))
        self._queues_changed()

    def _on_cohort(self, event: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        name = obj["metadata"]["name"]
        self.cache.set_cohort(name, None if event == "DELETED" else obj)
        self.queues.queue_inadmissible(list(self.cache.cluster_queues))
        self._queues_changed()

    def _on_cluster_queue(self, event: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        name = obj["metadata"]["name"]
        if event == "MODIFIED" and old is not None and _same_spec(old, obj):
            return  # a status write (the counters): nothing the cache or the queues read
        if event == "DELETED":
            self.cache.delete_cluster_queue(name)
            self.queues.delete_cluster_queue(name)
        else:
            state = self.cache.set_cluster_queue(obj)
            if event == "ADDED":
                for wl in self.workloads.by_index("clusterQueue", name):
                    if wlutil.has_quota_reservation(wl) and not wlutil.is_finished(wl):
                        self.cache.add_or_update_workload(wl)
            self.queues.set_cluster_queue(name, state.queueing_strategy)
            self.queue_inadmissible_in_cohort(name)
        self._cq_changed(name)
        for k in self.local_queues_of(name):
            self._lq_changed(k)
        for wl in self.workloads.by_index("clusterQueue", name):
            self._workload_changed(_key(wl))
        for lq_key in self.local_queues_of(name):
            for wl in self.workloads.by_index("queue", f"{lq_key[0]}/{lq_key[1]}"):
                self._workload_changed(_key(wl))
        self._queues_changed()

    def _on_local_queue(self, event: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        k = _key(obj)
        if event == "MODIFIED" and old is not None and _same_spec(old, obj):
            return
        if event == "DELETED":
            self.queues.delete_local_queue(k)
        else:
            active = ((obj.get("spec") or {}).get("stopPolicy") or c.STOP_NONE) == c.STOP_NONE \
                and obj["metadata"].get("deletionTimestamp") is None
            if event == "ADDED" or not self.queues.local_queues.get(k):
                for wl in self.workloads.by_index("queue", f"{k[0]}/{k[1]}"):
                    self.queues.add_or_update_workload(wl)
            self.queues.set_local_queue(obj, active)
        self._lq_changed(k)
        cq = (obj.get("spec") or {}).get("clusterQueue") or ""
        if cq:
            self._cq_changed(cq)
        for wl in self.workloads.by_index("queue", f"{k[0]}/{k[1]}"):
            self._workload_changed(_key(wl))
        self._queues_changed()

    def _workload_changed(self, k: Key) -> None:
        for fn in self.on_workload:
            fn(k)

    def _on_workload(self, event: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        k = _key(obj)
        released = ""
        if event == "DELETED" or wlutil.is_finished(obj) or obj["metadata"].get("deletionTimestamp"):
            cq = self.cache.workload_cq.get(k)
            if cq is not None:
                released = cq
            self.cache.delete_workload(k)
            self.queues.delete_workload(k)
        elif wlutil.has_quota_reservation(obj):
            self.queues.delete_workload(k)
            before = self.cache.workload_cq.get(k)
            info_before = None
            if before is not None:
                info_before = self.cache.cluster_queues[before].workloads.get(k)
            self.cache.add_or_update_workload(obj)
            if info_before is not None and info_before.usage() != wlutil.Info.of(obj, reclaimable=self.cache.reclaimable_pods).usage():
                released = before or ""
        else:
            cq = self.cache.workload_cq.get(k)
            if cq is not None:
                released = cq
            self.cache.delete_workload(k)
            self.queues.add_or_update_workload(obj)
        if released:
            self.queue_inadmissible_in_cohort(released)
        # Status counters of the queues this workload touches (before and after).
        cqs: set[str] = set()
        lqs: set[Key] = set()
        for version in (old, obj):
            if version is None:
                continue
            admission = (version.get("status") or {}).get("admission") or {}
            if admission.get("clusterQueue"):
                cqs.add(admission["clusterQueue"])
            queue_name = (version.get("spec") or {}).get("queueName")
            if queue_name:
                lq_key = (version["metadata"].get("namespace") or "", queue_name)
                lqs.add(lq_key)
                lq = self.queues.local_queues.get(lq_key)
                if lq is not None:
                    cqs.add(lq.cluster_queue)
        for name in sorted(cqs):
            self._cq_changed(name)
        for lq_key in sorted(lqs):
            self._lq_changed(lq_key)
        if event != "DELETED":
            self._workload_changed(k)
        self._queues_changed()


def _same_spec(old: dict[str, Any], new: dict[str, Any]) -> bool:
    return old.get("spec") == new.get("spec") and \
        old["metadata"].get("deletionTimestamp") == new["metadata"].get("deletionTimestamp")


def _queue_index(obj: Any) -> list[str]:
    queue = (obj.get("spec") or {}).get("queueName")
    if not queue:
        return []
    return [f"{obj['metadata'].get('namespace') or ''}/{queue}"]


def _cq_index(obj: Any) -> list[str]:
    admission = (obj.get("status") or {}).get("admission")
    if not admission:
        return []
    return [admission.get("clusterQueue", "")]
