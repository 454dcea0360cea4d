"""Queues of pending workloads: LocalQueue -> ClusterQueue heaps (``pkg/cache/queue``).

Ports ``manager.go`` (``AddOrUpdateWorkload``, ``Heads``, ``RequeueWorkload``,
``QueueInadmissibleWorkloads``, LocalQueue and ClusterQueue add/update/delete) and
``cluster_queue.go`` (``PushOrUpdate``, ``Pop``, ``RequeueIfNotPresent``, the inadmissible
set, the requeue backoff check): a ClusterQueue orders its workloads by priority (higher first),
then by the queue-order timestamp (creation, or the PodsReady-timeout eviction), then by UID.

StrictFIFO puts a head that could not be admitted straight back in the heap, where it keeps
blocking the queue. BestEffortFIFO parks it among the inadmissible workloads until something that
may let it fit happens (quota freed in its cohort, a ClusterQueue, cohort or flavor change), or
if that already happened since it was popped.

Workloads whose LocalQueue is missing or stopped are remembered (so the LocalQueue's creation
queues them) but sit in no heap; those of a LocalQueue whose ClusterQueue is missing likewise.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from . import constants as c
from . import workload as wlutil

__all__ = ["ClusterQueueQueue", "QueueManager", "RequeueReason"]

Key = tuple[str, str]


class RequeueReason:
    GENERIC = ""
    FAILED_AFTER_NOMINATION = "FailedAfterNomination"
    NAMESPACE_MISMATCH = "NamespaceMismatch"
    NO_FIT = "NoFit"
    PREEMPTION_NO_CANDIDATES = "PreemptionNoCandidates"
    PENDING_PREEMPTION = "PendingPreemption"
    PREEMPTION_FAILED = "PreemptionFailed"


@dataclass(slots=True)
class ClusterQueueQueue:
    """One ClusterQueue's pending workloads: the heap and the inadmissible set."""

    name: str
    strategy: str
    requeuing_timestamp: str
    now: Callable[[], str]
    heap: list[tuple[tuple[int, str, str], int, Key]] = field(default_factory=list)
    entries: dict[Key, tuple[tuple[int, str, str], int, wlutil.Info]] = field(default_factory=dict)
    inadmissible: dict[Key, wlutil.Info] = field(default_factory=dict)
    inflight: Key | None = None
    pop_cycle: int = 0
    queue_inadmissible_cycle: int = -1
    seq: int = 0

    def _order(self, info: wlutil.Info) -> tuple[int, str, str]:
        obj = info.obj
        return (-wlutil.priority(obj), wlutil.queue_order_timestamp(obj, self.requeuing_timestamp),
                obj["metadata"].get("uid", ""))

    def _push_heap(self, info: wlutil.Info) -> None:
        order = self._order(info)
        self.seq += 1
        self.entries[info.key] = (order, self.seq, info)
        heapq.heappush(self.heap, (order, self.seq, info.key))

    def _backoff_expired(self, info: wlutil.Info) -> bool:
        obj = info.obj
        if wlutil.condition_false(obj, c.WORKLOAD_REQUEUED):
            return False
        requeue_at = ((obj.get("status") or {}).get("requeueState") or {}).get("requeueAt")
        return requeue_at is None or self.now() >= requeue_at

    def push_or_update(self, info: wlutil.Info) -> bool:
        """``PushOrUpdate``; True when the workload is (now) in the heap."""
        k = info.key
        if self.inflight == k:
            return False
        old = self.inadmissible.get(k)
        if old is not None:
            if not _meaningful_change(old.obj, info.obj):
                self.inadmissible[k] = info
                return False
            del self.inadmissible[k]
        if k not in self.entries and not self._backoff_expired(info):
            self.inadmissible[k] = info
            return False
        self._push_heap(info)
        return True

    def delete(self, k: Key) -> None:
        self.entries.pop(k, None)
        self.inadmissible.pop(k, None)
        if self.inflight == k:
            self.inflight = None

    def pop(self) -> wlutil.Info | None:
        self.pop_cycle += 1
        while self.heap:
            _, seq, k = heapq.heappop(self.heap)
            entry = self.entries.get(k)
            if entry is None or entry[1] != seq:
                continue
            del self.entries[k]
            self.inflight = k
            return entry[2]
        self.inflight = None
        return None

    def requeue_if_not_present(self, info: wlutil.Info, reason: str) -> bool:
        """``RequeueIfNotPresent``: back in the heap, or among the inadmissible."""
        if self.strategy == c.STRICT_FIFO:
            immediate = reason != RequeueReason.NAMESPACE_MISMATCH
        else:
            immediate = reason in (RequeueReason.FAILED_AFTER_NOMINATION, RequeueReason.PENDING_PREEMPTION,
                                   RequeueReason.PREEMPTION_FAILED)
        k = info.key
        if self.inflight == k:
            self.inflight = None
        if self._backoff_expired(info) and (immediate or self.queue_inadmissible_cycle >= self.pop_cycle):
            if k in self.inadmissible:
                self.inadmissible.pop(k)
                self._push_heap(info)
                return True
            if k in self.entries:
                return False
            self._push_heap(info)
            return True
        if k in self.inadmissible or k in self.entries:
            return False
        self.inadmissible[k] = info
        return True

    def queue_inadmissible(self) -> bool:
        """Move every inadmissible workload whose backoff is over back to the heap."""
        self.queue_inadmissible_cycle = self.pop_cycle
        moved = False
        for k in sorted(self.inadmissible):
            info = self.inadmissible[k]
            if self._backoff_expired(info):
                del self.inadmissible[k]
                self._push_heap(info)
                moved = True
        return moved

    def pending(self) -> int:
        return len(self.entries) + len(self.inadmissible)

    def pending_active(self) -> int:
        return len(self.entries)


def _meaningful_change(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """What takes a workload out of the inadmissible set in ``PushOrUpdate``."""
    if old.get("spec") != new.get("spec"):
        return True
    old_status, new_status = old.get("status") or {}, new.get("status") or {}
    if old_status.get("reclaimablePods") != new_status.get("reclaimablePods"):
        return True
    for type_ in (c.WORKLOAD_EVICTED, c.WORKLOAD_REQUEUED):
        if wlutil.find_condition(old, type_) != wlutil.find_condition(new, type_):
            return True
    return False


@dataclass(slots=True)
class _LocalQueue:
    key: Key
    cluster_queue: str


class QueueManager:
    """``queue.Manager``: LocalQueues (active ones), ClusterQueue queues, pending workloads."""

    def __init__(self, requeuing_timestamp: str, now: Callable[[], str], *, reclaimable_pods: bool = True) -> None:
        self.reclaimable_pods = reclaimable_pods
        self.requeuing_timestamp = requeuing_timestamp
        self.now = now
        self.local_queues: dict[Key, _LocalQueue] = {}
        self.cluster_queues: dict[str, ClusterQueueQueue] = {}
        self.workloads: dict[Key, tuple[Key, wlutil.Info]] = {}  # admissible workloads -> their LocalQueue
        self.by_local_queue: dict[Key, dict[Key, None]] = {}
        self.on_change: Callable[[], None] = lambda: None

    # -------------------------------------------------------------- lookups
    def cluster_queue_for(self, wl: dict[str, Any]) -> str | None:
        lq = self.local_queues.get(_lq_key(wl))
        return None if lq is None else lq.cluster_queue

    def _cq_of(self, lq_key: Key) -> ClusterQueueQueue | None:
        lq = self.local_queues.get(lq_key)
        return None if lq is None else self.cluster_queues.get(lq.cluster_queue)

    # -------------------------------------------------------------- workloads
    def add_or_update_workload(self, wl: dict[str, Any]) -> bool:
        """``AddOrUpdateWorkload``; True when it sits in a ClusterQueue queue."""
        k = wlutil.key(wl)
        if not wlutil.is_admissible(wl) or not (wl.get("spec") or {}).get("queueName"):
            self.delete_workload(k)
            return False
        lq_key = _lq_key(wl)
        previous = self.workloads.get(k)
        if previous is not None and previous[0] != lq_key:
            self.delete_workload(k)
        cq = self._cq_of(lq_key)
        info = wlutil.Info.of(wl, "" if cq is None else cq.name, reclaimable=self.reclaimable_pods)
        self.workloads[k] = (lq_key, info)
        self.by_local_queue.setdefault(lq_key, {})[k] = None
        if cq is None:
            return False
        if cq.push_or_update(info):
            self.on_change()
        return True

    def delete_workload(self, k: Key) -> None:
        entry = self.workloads.pop(k, None)
        if entry is None:
            return
        lq_key = entry[0]
        bucket = self.by_local_queue.get(lq_key)
        if bucket is not None:
            bucket.pop(k, None)
            if not bucket:
                del self.by_local_queue[lq_key]
        for cq in self.cluster_queues.values():
            if cq.name == entry[1].cluster_queue or k in cq.entries or k in cq.inadmissible:
                cq.delete(k)

    def requeue_workload(self, info: wlutil.Info, latest: dict[str, Any] | None, reason: str) -> bool:
        """``RequeueWorkload``: put a head back, from the newest copy of the workload."""
        if latest is None or not wlutil.is_admissible(latest):
            return False
        k = info.key
        entry = self.workloads.get(k)
        if entry is None:
            return False
        cq = self._cq_of(entry[0])
        if cq is None:
            return False
        fresh = wlutil.Info.of(latest, cq.name, reclaimable=self.reclaimable_pods)
        fresh.last_assignment = info.last_assignment
        self.workloads[k] = (entry[0], fresh)
        added = cq.requeue_if_not_present(fresh, reason)
        return added

    def heads(self, is_active: Callable[[str], bool]) -> list[wlutil.Info]:
        """``Heads``: the first workload of each active ClusterQueue, taken out of its queue."""
        heads = []
        for name in sorted(self.cluster_queues):
            if not is_active(name):
                continue
            info = self.cluster_queues[name].pop()
            if info is not None:
                info.cluster_queue = name
                heads.append(info)
        return heads

    def queue_inadmissible(self, cq_names: Iterable[str]) -> None:
        moved = False
        for name in sorted(set(cq_names)):
            cq = self.cluster_queues.get(name)
            if cq is not None and cq.queue_inadmissible():
                moved = True
        if moved:
            self.on_change()

    # -------------------------------------------------------------- queues
    def set_local_queue(self, obj: dict[str, Any], active: bool) -> None:
        """A LocalQueue was created or changed; ``active`` is False when it is stopped."""
        meta = obj["metadata"]
        k = (meta.get("namespace") or "", meta["name"])
        cq_name = (obj.get("spec") or {}).get("clusterQueue") or ""
        old = self.local_queues.get(k)
        if not active:
            if old is not None:
                self._unqueue_local_queue(k)
                del self.local_queues[k]
            return
        if old is not None and old.cluster_queue == cq_name:
            return
        if old is not None:
            self._unqueue_local_queue(k)
        self.local_queues[k] = _LocalQueue(k, cq_name)
        self._queue_local_queue(k)

    def delete_local_queue(self, k: Key) -> None:
        if k in self.local_queues:
            self._unqueue_local_queue(k)
            del self.local_queues[k]

    def _unqueue_local_queue(self, lq_key: Key) -> None:
        cq = self._cq_of(lq_key)
        for k in self.by_local_queue.get(lq_key, {}):
            if cq is not None:
                cq.delete(k)

    def _queue_local_queue(self, lq_key: Key) -> None:
        cq = self._cq_of(lq_key)
        if cq is None:
            return
        changed = False
        for k in sorted(self.by_local_queue.get(lq_key, {})):
            _, info = self.workloads[k]
            info.cluster_queue = cq.name
            changed = cq.push_or_update(info) or changed
        if changed:
            self.on_change()

    def set_cluster_queue(self, name: str, strategy: str) -> None:
        cq = self.cluster_queues.get(name)
        if cq is not None:
            cq.strategy = strategy
            if cq.queue_inadmissible():
                self.on_change()
            return
        self.cluster_queues[name] = ClusterQueueQueue(name, strategy, self.requeuing_timestamp, self.now)
        for lq_key in sorted(k for k, lq in self.local_queues.items() if lq.cluster_queue == name):
            self._queue_local_queue(lq_key)
        self.on_change()

    def delete_cluster_queue(self, name: str) -> None:
        self.cluster_queues.pop(name, None)

    # -------------------------------------------------------------- counters
    def pending_in_cluster_queue(self, name: str) -> int:
        cq = self.cluster_queues.get(name)
        return 0 if cq is None else cq.pending()

    def pending_in_local_queue(self, lq_key: Key) -> int:
        cq = self._cq_of(lq_key)
        if cq is None:
            return 0
        bucket = self.by_local_queue.get(lq_key, {})
        return len(bucket) - (1 if cq.inflight is not None and cq.inflight in bucket else 0)


def _lq_key(wl: dict[str, Any]) -> Key:
    return (wl["metadata"].get("namespace") or "", (wl.get("spec") or {}).get("queueName") or "")
