"""The ``kueue.x-k8s.io/resource-in-use`` finalizer of ClusterQueues and ResourceFlavors.

The defaulting webhooks put it on at creation (:mod:`.webhooks`). On deletion, upstream's
reconcilers take it off only when nothing uses the object any more:

- a ClusterQueue (``clusterqueue_controller.go``): once no workload reserves quota in it
  (``cache.ClusterQueueEmpty``); until then it stays, Terminating, its Active condition
  ``Terminating``;
- a ResourceFlavor (``resourceflavor_controller.go``): once no ClusterQueue names it in its
  resource groups (``cache.ClusterQueuesUsingFlavor``; a terminating ClusterQueue still counts).
"""

from __future__ import annotations

from typing import Any

from fakekube.errors import Conflict, NotFound
from fakekube.runtime.controller import Result

from . import constants as c
from .manager import Manager

__all__ = ["FinalizerController"]

Key = tuple[str, str]
CQ = "ClusterQueue"
RF = "ResourceFlavor"


def _terminating_with_finalizer(obj: dict[str, Any] | None) -> bool:
    if obj is None:
        return False
    meta = obj["metadata"]
    return meta.get("deletionTimestamp") is not None and c.RESOURCE_IN_USE_FINALIZER in (meta.get("finalizers") or [])


class FinalizerController:
    name = "kueue-resource-in-use-finalizers"

    def __init__(self, manager: Manager) -> None:
        self.m = manager
        self.client = manager.rt.shared_client(c.MANAGER)
        self.queue = manager.rt.controller(self.name, self._reconcile)
        manager.on_cluster_queue.append(self._cq_changed)
        manager.flavors.add_handler(self._on_flavor)

    def start(self) -> None:
        self.queue.start()

    def stop(self) -> None:
        self.queue.stop()

    def _cq_changed(self, name: str) -> None:
        if _terminating_with_finalizer(self.m.cluster_queues.get(name)):
            self.queue.enqueue((CQ, name))
        # A ClusterQueue that changes (or goes) may release a flavor being deleted.
        for _, flavor in sorted(self.m.flavors.cache.items()):
            if _terminating_with_finalizer(flavor):
                self.queue.enqueue((RF, flavor["metadata"]["name"]))

    def _on_flavor(self, event: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        if event != "DELETED" and _terminating_with_finalizer(obj):
            self.queue.enqueue((RF, obj["metadata"]["name"]))

    def _flavor_in_use(self, name: str) -> bool:
        for cq in self.m.cluster_queues.cache.values():
            for rg in (cq.get("spec") or {}).get("resourceGroups") or []:
                if any(fq.get("name") == name for fq in rg.get("flavors") or []):
                    return True
        return False

    def _reconcile(self, key: Key) -> Result | None:
        kind, name = key
        if kind == CQ:
            obj = self.m.cluster_queues.get(name)
            state = self.m.cache.cluster_queues.get(name)
            if not _terminating_with_finalizer(obj) or (state is not None and state.workloads):
                return None
        else:
            obj = self.m.flavors.get(name)
            if not _terminating_with_finalizer(obj) or self._flavor_in_use(name):
                return None
        assert obj is not None
        meta = dict(obj["metadata"])
        meta["finalizers"] = [f for f in meta.get("finalizers") or [] if f != c.RESOURCE_IN_USE_FINALIZER]
        try:
            self.client.update({**obj, "metadata": meta})
        except NotFound:
            return None
        except Conflict:
            return Result(requeue_after=1)
        return None
