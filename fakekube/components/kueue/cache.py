"""The scheduler cache: ClusterQueues and cohorts as a quota tree, with usage (``pkg/cache/scheduler``).

Ports ``resource_node.go`` (quotas, ``SubtreeQuota``, usage stored in the parent beyond the
lending limit, ``available``/``potentialAvailable`` under borrowing limits, ``addUsage``/
``removeUsage``), ``clusterqueue.go`` (the Active status and its reasons), ``cohort.go`` and
``hierarchy`` (implicit cohorts for a ``cohortName`` without a Cohort object, ``parentName``
chains; a cycle leaves its members without a tree) and ``snapshot.go``: a :class:`Snapshot` is a
copy of the tree's usage for one scheduling cycle, on which preemption simulates removals.

Amounts are ints (cpu in millicores); ``None`` is an unset (unlimited) borrowing or lending limit.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from fakekube.machinery.selectors import LabelSelector, SelectorError, selector_from_label_selector_dict

from . import constants as c
from . import workload as wlutil
from .resources import FlavorResource, resource_value

__all__ = ["Cache", "ClusterQueueState", "Node", "Quota", "Snapshot"]


@dataclass(frozen=True, slots=True)
class Quota:
    nominal: int
    borrowing_limit: int | None
    lending_limit: int | None


@dataclass(frozen=True, slots=True)
class ResourceGroup:
    covered: tuple[str, ...]
    flavors: tuple[str, ...]


def _quotas(spec: dict[str, Any]) -> tuple[list[ResourceGroup], dict[FlavorResource, Quota]]:
    groups: list[ResourceGroup] = []
    quotas: dict[FlavorResource, Quota] = {}
    for rg in spec.get("resourceGroups") or []:
        flavors = []
        for fq in rg.get("flavors") or []:
            flavors.append(fq["name"])
            for rq in fq.get("resources") or []:
                name = rq["name"]
                bl, ll = rq.get("borrowingLimit"), rq.get("lendingLimit")
                quotas[(fq["name"], name)] = Quota(
                    resource_value(name, rq.get("nominalQuota", 0)),
                    None if bl is None else resource_value(name, bl),
                    None if ll is None else resource_value(name, ll))
        groups.append(ResourceGroup(tuple(rg.get("coveredResources") or ()), tuple(flavors)))
    return groups, quotas


class Node:
    """A ClusterQueue or cohort in the quota tree (``resourceNode`` plus the hierarchy links)."""

    __slots__ = ("child_cohorts", "child_cqs", "is_cq", "name", "parent", "quotas", "subtree_quota", "usage")

    def __init__(self, name: str, is_cq: bool, quotas: dict[FlavorResource, Quota]) -> None:
        self.name = name
        self.is_cq = is_cq
        self.quotas = quotas
        self.parent: Node | None = None
        self.child_cohorts: list[Node] = []
        self.child_cqs: list[Node] = []
        self.subtree_quota: dict[FlavorResource, int] = {}
        self.usage: dict[FlavorResource, int] = {}

    def has_parent(self) -> bool:
        return self.parent is not None

    def path_parent_to_root(self) -> Iterator[Node]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent

    def root(self) -> Node:
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    # -------------------------------------------------------------- resource_node.go
    def local_quota(self, fr: FlavorResource) -> int:
        q = self.quotas.get(fr)
        if q is not None and q.lending_limit is not None:
            return max(0, self.subtree_quota.get(fr, 0) - q.lending_limit)
        return 0

    def local_available(self, fr: FlavorResource) -> int:
        return max(0, self.local_quota(fr) - self.usage.get(fr, 0))

    def available(self, fr: FlavorResource) -> int:
        if self.parent is None:
            return self.subtree_quota.get(fr, 0) - self.usage.get(fr, 0)
        parent_available = self.parent.available(fr)
        q = self.quotas.get(fr)
        if q is not None and q.borrowing_limit is not None:
            lq = self.local_quota(fr)
            stored_in_parent = self.subtree_quota.get(fr, 0) - lq
            used_in_parent = max(0, self.usage.get(fr, 0) - lq)
            parent_available = min(stored_in_parent - used_in_parent + q.borrowing_limit, parent_available)
        return self.local_available(fr) + parent_available

    def potential_available(self, fr: FlavorResource) -> int:
        if self.parent is None:
            return self.subtree_quota.get(fr, 0)
        avail = self.local_quota(fr) + self.parent.potential_available(fr)
        q = self.quotas.get(fr)
        if q is not None and q.borrowing_limit is not None:
            avail = min(self.subtree_quota.get(fr, 0) + q.borrowing_limit, avail)
        return avail

    def add_usage(self, fr: FlavorResource, val: int) -> None:
        local_available = self.local_available(fr)
        self.usage[fr] = self.usage.get(fr, 0) + val
        if self.parent is not None and val > local_available:
            self.parent.add_usage(fr, val - local_available)

    def remove_usage(self, fr: FlavorResource, val: int) -> None:
        stored_in_parent = self.usage.get(fr, 0) - self.local_quota(fr)
        self.usage[fr] = self.usage.get(fr, 0) - val
        if stored_in_parent <= 0 or self.parent is None:
            return
        self.parent.remove_usage(fr, min(val, stored_in_parent))

    def borrowing_with(self, fr: FlavorResource, val: int) -> bool:
        """``BorrowingWith``: usage plus ``val`` would exceed this node's subtree quota."""
        return self.usage.get(fr, 0) + val > self.subtree_quota.get(fr, 0)

    def is_within_nominal_in(self, frs: set[FlavorResource]) -> bool:
        return all(self.usage.get(fr, 0) <= self.subtree_quota.get(fr, 0) for fr in frs)

    def quantities_fit_in_quota(self, requests: dict[FlavorResource, int]) -> tuple[bool, dict[FlavorResource, int]]:
        fits = True
        remaining: dict[FlavorResource, int] = {}
        for fr, v in requests.items():
            if self.subtree_quota.get(fr, 0) < self.usage.get(fr, 0) + v:
                fits = False
            remaining[fr] = max(0, v - self.local_available(fr))
        return fits, remaining

    def height(self) -> int:
        """``getNodeHeight`` of a cohort."""
        result = min(len(self.child_cohorts) + len(self.child_cqs), 1)
        for child in self.child_cohorts:
            result = max(result, child.height() + 1)
        return result


def _accumulate(parent: Node, child: Node) -> None:
    for fr, quota in child.subtree_quota.items():
        parent.subtree_quota[fr] = parent.subtree_quota.get(fr, 0) + quota - child.local_quota(fr)
    for fr, used in child.usage.items():
        parent.usage[fr] = parent.usage.get(fr, 0) + max(0, used - child.local_quota(fr))


def _update_cohort(node: Node) -> None:
    """``updateCohortResourceNode``: subtree quota and usage recomputed from the children."""
    node.subtree_quota = {fr: q.nominal for fr, q in node.quotas.items()}
    node.usage = {}
    for child in node.child_cohorts:
        _update_cohort(child)
        _accumulate(node, child)
    for cq in node.child_cqs:
        cq.subtree_quota = {fr: q.nominal for fr, q in cq.quotas.items()}
        _accumulate(node, cq)


@dataclass(slots=True)
class ClusterQueueState:
    """A ClusterQueue as the cache holds it (``clusterQueue``)."""

    name: str
    spec: dict[str, Any]
    groups: list[ResourceGroup]
    node: Node
    namespace_selector: LabelSelector | None
    selector_error: str = ""
    workloads: dict[tuple[str, str], wlutil.Info] = field(default_factory=dict)
    admitted: set[tuple[str, str]] = field(default_factory=set)
    missing_flavors: list[str] = field(default_factory=list)
    terminating: bool = False

    @property
    def stopped(self) -> bool:
        return (self.spec.get("stopPolicy") or c.STOP_NONE) != c.STOP_NONE

    @property
    def active(self) -> bool:
        return not self.terminating and not self.stopped and not self.missing_flavors

    def inactive_reason(self) -> tuple[str, str]:
        """``clusterQueue.inactiveReason``: the Active condition's reason and message."""
        if self.terminating:
            return c.CQ_REASON_TERMINATING, "Can't admit new workloads; clusterQueue is terminating"
        reasons: list[str] = []
        messages: list[str] = []
        if self.stopped:
            reasons.append(c.CQ_REASON_STOPPED)
            messages.append("is stopped")
        if self.missing_flavors:
            reasons.append(c.CQ_REASON_FLAVOR_NOT_FOUND)
            messages.append(f"references missing ResourceFlavor(s): {','.join(self.missing_flavors)}")
        if not reasons:
            return c.CQ_REASON_READY, "Can admit new workloads"
        return reasons[0], f"Can't admit new workloads: {', '.join(messages)}."

    def rg_by_resource(self, resource: str) -> ResourceGroup | None:
        for rg in self.groups:
            if resource in rg.covered:
                return rg
        return None

    @property
    def queueing_strategy(self) -> str:
        return self.spec.get("queueingStrategy") or c.BEST_EFFORT_FIFO

    @property
    def preemption(self) -> dict[str, Any]:
        return self.spec.get("preemption") or {}

    @property
    def flavor_fungibility(self) -> dict[str, Any]:
        return self.spec.get("flavorFungibility") or {}

    @property
    def cohort_name(self) -> str:
        return self.spec.get("cohortName") or ""


class Cache:
    """Flavors, ClusterQueues, cohorts and the workloads holding quota (``Cache``)."""

    def __init__(self, *, reclaimable_pods: bool = True) -> None:
        self.reclaimable_pods = reclaimable_pods
        self.flavors: dict[str, dict[str, Any]] = {}
        self.cluster_queues: dict[str, ClusterQueueState] = {}
        self.cohort_specs: dict[str, dict[str, Any]] = {}
        self.cohorts: dict[str, Node] = {}
        self.workload_cq: dict[tuple[str, str], str] = {}
        self.generation = 0

    # -------------------------------------------------------------- structure
    def _rebuild(self) -> None:
        """Relink the tree after a ClusterQueue, cohort or flavor change (rare; O(tree))."""
        self.generation += 1
        names: set[str] = set(self.cohort_specs)
        for cq in self.cluster_queues.values():
            if cq.cohort_name:
                names.add(cq.cohort_name)
        for spec in self.cohort_specs.values():
            if spec.get("parentName"):
                names.add(spec["parentName"])
        cohorts: dict[str, Node] = {}
        for name in sorted(names):
            _, quotas = _quotas(self.cohort_specs.get(name) or {})
            cohorts[name] = Node(name, False, quotas)
        for name in sorted(self.cohort_specs):
            parent = self.cohort_specs[name].get("parentName")
            if parent:
                cohorts[name].parent = cohorts[parent]
        # A cycle of parentName links leaves every cohort on it (and below) without a root:
        # upstream refuses to compute the tree (ErrCohortHasCycle); here they are cut loose.
        for node in cohorts.values():
            seen: set[str] = set()
            walk: Node | None = node
            while walk is not None and walk.name not in seen:
                seen.add(walk.name)
                walk = walk.parent
            if walk is not None:
                node.parent = None
        for name in sorted(cohorts):
            node = cohorts[name]
            if node.parent is not None:
                node.parent.child_cohorts.append(node)
        for name in sorted(self.cluster_queues):
            cq = self.cluster_queues[name]
            cq.node.parent = None
            cq.missing_flavors = sorted({f for rg in cq.groups for f in rg.flavors if f not in self.flavors})
            if cq.cohort_name:
                cq.node.parent = cohorts[cq.cohort_name]
                cohorts[cq.cohort_name].child_cqs.append(cq.node)
        self.cohorts = cohorts
        for cq in self.cluster_queues.values():
            cq.node.subtree_quota = {fr: q.nominal for fr, q in cq.node.quotas.items()}
        for node in cohorts.values():
            if node.parent is None:
                _update_cohort(node)

    def set_flavor(self, name: str, obj: dict[str, Any] | None) -> None:
        if obj is None:
            self.flavors.pop(name, None)
        else:
            self.flavors[name] = obj
        self._rebuild()

    def set_cohort(self, name: str, obj: dict[str, Any] | None) -> None:
        if obj is None:
            self.cohort_specs.pop(name, None)
        else:
            self.cohort_specs[name] = obj.get("spec") or {}
        self._rebuild()

    def set_cluster_queue(self, obj: dict[str, Any]) -> ClusterQueueState:
        name = obj["metadata"]["name"]
        spec = obj.get("spec") or {}
        groups, quotas = _quotas(spec)
        selector: LabelSelector | None
        error = ""
        try:
            selector = selector_from_label_selector_dict(spec.get("namespaceSelector"))
        except SelectorError as err:
            selector, error = None, str(err)
        old = self.cluster_queues.get(name)
        state = ClusterQueueState(name, spec, groups, Node(name, True, quotas), selector, error)
        state.terminating = obj["metadata"].get("deletionTimestamp") is not None
        if old is not None:
            state.workloads = old.workloads
            state.admitted = old.admitted
            for info in old.workloads.values():
                for fr, v in info.usage().items():
                    state.node.usage[fr] = state.node.usage.get(fr, 0) + v
        self.cluster_queues[name] = state
        self._rebuild()
        return state

    def delete_cluster_queue(self, name: str) -> None:
        state = self.cluster_queues.pop(name, None)
        if state is not None:
            for key in state.workloads:
                self.workload_cq.pop(key, None)
        self._rebuild()

    # -------------------------------------------------------------- workloads
    def add_or_update_workload(self, wl: dict[str, Any]) -> bool:
        """Account a workload holding quota (``AddOrUpdateWorkload``); False if its
        ClusterQueue is unknown."""
        k = wlutil.key(wl)
        self.delete_workload(k)
        admission = (wl.get("status") or {}).get("admission") or {}
        cq = self.cluster_queues.get(admission.get("clusterQueue", ""))
        if cq is None:
            return False
        info = wlutil.Info.of(wl, reclaimable=self.reclaimable_pods)
        cq.workloads[k] = info
        if wlutil.is_admitted(wl):
            cq.admitted.add(k)
        self.workload_cq[k] = cq.name
        for fr, v in info.usage().items():
            cq.node.add_usage(fr, v)
        return True

    def delete_workload(self, k: tuple[str, str]) -> None:
        name = self.workload_cq.pop(k, None)
        if name is None:
            return
        cq = self.cluster_queues.get(name)
        if cq is None:
            return
        info = cq.workloads.pop(k, None)
        cq.admitted.discard(k)
        if info is not None:
            for fr, v in info.usage().items():
                cq.node.remove_usage(fr, v)

    def is_added(self, k: tuple[str, str]) -> bool:
        return k in self.workload_cq

    def pods_ready_for_all_admitted(self) -> bool:
        for cq in self.cluster_queues.values():
            for info in cq.workloads.values():
                if wlutil.is_admitted(info.obj) and not wlutil.condition_true(info.obj, c.WORKLOAD_PODS_READY):
                    return False
        return True

    # -------------------------------------------------------------- status
    def usage_of(self, cq_name: str, *, admitted_only: bool) -> dict[FlavorResource, int]:
        cq = self.cluster_queues[cq_name]
        out: dict[FlavorResource, int] = {}
        for k, info in cq.workloads.items():
            if admitted_only and k not in cq.admitted:
                continue
            for fr, v in info.usage().items():
                out[fr] = out.get(fr, 0) + v
        return out

    def snapshot(self) -> Snapshot:
        return Snapshot(self)


class Snapshot:
    """One scheduling cycle's copy of the tree's usage (``Snapshot``); workloads removed or added
    here (preemption simulations, the cycle's own admissions) never touch the cache."""

    def __init__(self, cache: Cache) -> None:
        self.cache = cache
        self.flavors = cache.flavors
        self.cluster_queues: dict[str, SnapshotCQ] = {}
        mapping: dict[int, Node] = {}

        def copy(node: Node) -> Node:
            found = mapping.get(id(node))
            if found is not None:
                return found
            clone = Node(node.name, node.is_cq, node.quotas)
            mapping[id(node)] = clone
            clone.subtree_quota = node.subtree_quota
            clone.usage = dict(node.usage)
            if node.parent is not None:
                clone.parent = copy(node.parent)
            return clone

        for cohort in cache.cohorts.values():
            copy(cohort)
        for node in cache.cohorts.values():
            clone = mapping[id(node)]
            clone.child_cohorts = [mapping[id(child)] for child in node.child_cohorts]
            clone.child_cqs = []
        for name, cq in cache.cluster_queues.items():
            node = copy(cq.node)
            if node.parent is not None:
                node.parent.child_cqs.append(node)
            self.cluster_queues[name] = SnapshotCQ(cq, node, dict(cq.workloads))
        self.node_cq = {id(s.node): s for s in self.cluster_queues.values()}

    def cq_of_node(self, node: Node) -> SnapshotCQ:
        return self.node_cq[id(node)]

    def remove_workload(self, info: wlutil.Info) -> None:
        cq = self.cluster_queues[info.cluster_queue]
        if cq.workloads.pop(info.key, None) is None:
            return
        for fr, v in info.usage().items():
            cq.node.remove_usage(fr, v)

    def add_workload(self, info: wlutil.Info) -> None:
        cq = self.cluster_queues[info.cluster_queue]
        if info.key in cq.workloads:
            return
        cq.workloads[info.key] = info
        for fr, v in info.usage().items():
            cq.node.add_usage(fr, v)

    def add_usage(self, cq_name: str, usage: dict[FlavorResource, int]) -> None:
        node = self.cluster_queues[cq_name].node
        for fr, v in usage.items():
            node.add_usage(fr, v)


@dataclass(slots=True)
class SnapshotCQ:
    """A ClusterQueue in a :class:`Snapshot`: its cached state, its node copy, its workloads."""

    state: ClusterQueueState
    node: Node
    workloads: dict[tuple[str, str], wlutil.Info]

    @property
    def name(self) -> str:
        return self.state.name
