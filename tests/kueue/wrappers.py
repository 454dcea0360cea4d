"""Test object builders named after upstream's ``pkg/util/testing/v1beta2`` wrappers, so that a
ported table case reads like its Go original. Each builds the wire dict the API stores
(``.obj()`` returns a deep copy)."""

from __future__ import annotations

import copy
from typing import Any

API = "kueue.x-k8s.io/v1beta2"
NOW = "2026-01-01T00:00:00Z"

Obj = dict[str, Any]


class FlavorQuotas:
    """``MakeFlavorQuotas(name).Resource(name, nominal, borrowingLimit, lendingLimit)``."""

    def __init__(self, name: str) -> None:
        self.body: Obj = {"name": name, "resources": []}

    def resource(self, name: str, nominal: str | None = None, borrowing: str = "", lending: str = "") -> FlavorQuotas:
        rq: Obj = {"name": name, "nominalQuota": nominal if nominal is not None else "0"}
        if borrowing:
            rq["borrowingLimit"] = borrowing
        if lending:
            rq["lendingLimit"] = lending
        self.body["resources"].append(rq)
        return self

    def obj(self) -> Obj:
        return copy.deepcopy(self.body)


def resource_group(*flavors: FlavorQuotas | Obj) -> Obj:
    """``ResourceGroup(flavors...)``: coveredResources are the resources in order of appearance."""
    fqs = [f.obj() if isinstance(f, FlavorQuotas) else copy.deepcopy(f) for f in flavors]
    covered: list[str] = []
    for fq in fqs:
        for rq in fq["resources"]:
            if rq["name"] not in covered:
                covered.append(rq["name"])
    return {"coveredResources": covered, "flavors": fqs}


class _Spec:
    kind = ""

    def __init__(self, name: str, spec: Obj, namespace: str | None = None) -> None:
        meta: Obj = {"name": name}
        if namespace is not None:
            meta["namespace"] = namespace
        self.body: Obj = {"apiVersion": API, "kind": self.kind, "metadata": meta, "spec": spec}

    def obj(self) -> Obj:
        return copy.deepcopy(self.body)


class ClusterQueue(_Spec):
    """``MakeClusterQueue(name)``: an empty namespaceSelector, BestEffortFIFO, the default fungibility."""

    kind = "ClusterQueue"

    def __init__(self, name: str) -> None:
        super().__init__(name, {"namespaceSelector": {}, "queueingStrategy": "BestEffortFIFO",
                                "flavorFungibility": {"whenCanBorrow": "MayStopSearch",
                                                      "whenCanPreempt": "TryNextFlavor"}})

    def resource_group(self, *flavors: FlavorQuotas | Obj) -> ClusterQueue:
        self.body["spec"].setdefault("resourceGroups", []).append(resource_group(*flavors))
        return self

    def cohort(self, name: str) -> ClusterQueue:
        self.body["spec"]["cohortName"] = name
        return self

    def queueing_strategy(self, strategy: str) -> ClusterQueue:
        self.body["spec"]["queueingStrategy"] = strategy
        return self

    def namespace_selector(self, selector: Obj | None) -> ClusterQueue:
        self.body["spec"]["namespaceSelector"] = selector
        return self

    def preemption(self, **policy: Any) -> ClusterQueue:
        self.body["spec"]["preemption"] = policy
        return self

    def flavor_fungibility(self, **fungibility: Any) -> ClusterQueue:
        self.body["spec"]["flavorFungibility"] = fungibility
        return self

    def admission_checks(self, *names: str) -> ClusterQueue:
        self.body["spec"]["admissionChecksStrategy"] = {"admissionChecks": [{"name": n} for n in names]}
        return self

    def admission_check_strategy(self, *rules: tuple[str, list[str]]) -> ClusterQueue:
        self.body["spec"]["admissionChecksStrategy"] = {
            "admissionChecks": [{"name": n, "onFlavors": list(f)} for n, f in rules]}
        return self

    def concurrent_admission_policy(self, mode: str) -> ClusterQueue:
        migration = self.body["spec"].setdefault("concurrentAdmissionPolicy", {}).setdefault("migration", {})
        migration["mode"] = mode
        return self

    def last_acceptable_flavor_name(self, name: str) -> ClusterQueue:
        migration = self.body["spec"].setdefault("concurrentAdmissionPolicy", {}).setdefault("migration", {})
        migration.setdefault("mode", "")
        migration["constraints"] = {"lastAcceptableFlavorName": name}
        return self

    def stop_policy(self, policy: str) -> ClusterQueue:
        self.body["spec"]["stopPolicy"] = policy
        return self


class Cohort(_Spec):
    kind = "Cohort"

    def __init__(self, name: str) -> None:
        super().__init__(name, {})

    def resource_group(self, *flavors: FlavorQuotas | Obj) -> Cohort:
        self.body["spec"].setdefault("resourceGroups", []).append(resource_group(*flavors))
        return self

    def parent(self, name: str) -> Cohort:
        self.body["spec"]["parentName"] = name
        return self


class ResourceFlavor(_Spec):
    kind = "ResourceFlavor"

    def __init__(self, name: str) -> None:
        super().__init__(name, {})

    def node_label(self, key: str, value: str) -> ResourceFlavor:
        self.body["spec"].setdefault("nodeLabels", {})[key] = value
        return self

    def taint(self, **taint: Any) -> ResourceFlavor:
        self.body["spec"].setdefault("nodeTaints", []).append(taint)
        return self

    def toleration(self, **toleration: Any) -> ResourceFlavor:
        self.body["spec"].setdefault("tolerations", []).append(toleration)
        return self


class LocalQueue(_Spec):
    kind = "LocalQueue"

    def __init__(self, name: str, namespace: str, cluster_queue: str = "") -> None:
        super().__init__(name, {"clusterQueue": cluster_queue} if cluster_queue else {}, namespace)


class PodSet:
    """``MakePodSet(name, count)``: one container ``c`` with empty requests, restartPolicy Never."""

    def __init__(self, name: str = "main", count: int = 1) -> None:
        self.body: Obj = {"name": name, "count": count, "template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "c", "resources": {"requests": {}}}]}}}

    @property
    def _pod(self) -> Obj:
        pod: Obj = self.body["template"]["spec"]
        return pod

    def request(self, resource: str, quantity: str) -> PodSet:
        self._pod["containers"][0]["resources"]["requests"][resource] = quantity
        return self

    def limit(self, resource: str, quantity: str) -> PodSet:
        self._pod["containers"][0]["resources"].setdefault("limits", {})[resource] = quantity
        return self

    def containers(self, *containers: Obj) -> PodSet:
        self._pod["containers"] = list(containers)
        return self

    def init_containers(self, *containers: Obj) -> PodSet:
        self._pod["initContainers"] = list(containers)
        return self

    def pod_level(self, kind: str, resource: str, quantity: str) -> PodSet:
        self._pod.setdefault("resources", {}).setdefault(kind, {})[resource] = quantity
        return self

    def min_count(self, count: int) -> PodSet:
        self.body["minCount"] = count
        return self

    def topology_request(self, **request: Any) -> PodSet:
        self.body.setdefault("topologyRequest", {}).update(request)
        return self

    def metadata(self, **meta: Any) -> PodSet:
        self.body["template"]["metadata"] = meta
        return self

    def node_selector(self, key: str, value: str) -> PodSet:
        self._pod.setdefault("nodeSelector", {})[key] = value
        return self

    def toleration(self, **toleration: Any) -> PodSet:
        self._pod.setdefault("tolerations", []).append(toleration)
        return self

    def obj(self) -> Obj:
        return copy.deepcopy(self.body)


def container_for_request(**requests: str) -> Obj:
    """``SingleContainerForRequest``."""
    return {"name": "c", "resources": {"requests": {k.replace("_", "-"): v for k, v in requests.items()}}}


def admission(cluster_queue: str, *assignments: Obj) -> Obj:
    """``MakeAdmission(cq).PodSets(...)``; without assignments, one for ``main``."""
    return {"clusterQueue": cluster_queue,
            "podSetAssignments": [copy.deepcopy(a) for a in assignments] or [{"name": "main"}]}


def assignment(name: str, *, flavors: dict[str, str] | None = None, usage: dict[str, str] | None = None,
               count: int | None = None) -> Obj:
    """``MakePodSetAssignment(name).Assignment(resource, flavor, usage).Count(n)``."""
    out: Obj = {"name": name}
    if flavors is not None:
        out["flavors"] = dict(flavors)
    if usage is not None:
        out["resourceUsage"] = dict(usage)
    if count is not None:
        out["count"] = count
    return out


class Workload(_Spec):
    """``MakeWorkload(name, ns)``: one pod set ``main`` of one pod."""

    kind = "Workload"

    def __init__(self, name: str, namespace: str = "default") -> None:
        super().__init__(name, {"podSets": [PodSet().obj()]}, namespace)

    def pod_sets(self, *pod_sets: PodSet | Obj) -> Workload:
        self.body["spec"]["podSets"] = [p.obj() if isinstance(p, PodSet) else copy.deepcopy(p) for p in pod_sets]
        return self

    def request(self, resource: str, quantity: str) -> Workload:
        self.body["spec"]["podSets"][0]["template"]["spec"]["containers"][0]["resources"]["requests"][resource] = \
            quantity
        return self

    def queue(self, name: str) -> Workload:
        self.body["spec"]["queueName"] = name
        return self

    def priority(self, value: int) -> Workload:
        self.body["spec"]["priority"] = value
        return self

    def annotation(self, key: str, value: str) -> Workload:
        self.body["metadata"].setdefault("annotations", {})[key] = value
        return self

    def finalizers(self, *names: str) -> Workload:
        self.body["metadata"]["finalizers"] = list(names)
        return self

    def _status(self) -> Obj:
        status: Obj = self.body.setdefault("status", {})
        return status

    def reserve_quota(self, adm: Obj, now: str = NOW) -> Workload:
        """``ReserveQuotaAt``."""
        self._status()["admission"] = copy.deepcopy(adm)
        self._status()["conditions"] = [{"type": "QuotaReserved", "status": "True", "lastTransitionTime": now,
                                         "reason": "AdmittedByTest",
                                         "message": f"Admitted by ClusterQueue {adm['clusterQueue']}"}]
        return self

    def quota_reserved_without_admission(self, now: str = NOW) -> Workload:
        self._status()["conditions"] = [{"type": "QuotaReserved", "status": "True", "lastTransitionTime": now,
                                         "reason": "AdmittedByTest", "message": "admitted"}]
        return self

    def reclaimable_pods(self, *pods: tuple[str, int]) -> Workload:
        self._status()["reclaimablePods"] = [{"name": n, "count": k} for n, k in pods]
        return self

    def admission_checks(self, *checks: Obj) -> Workload:
        self._status()["admissionChecks"] = [copy.deepcopy(ch) for ch in checks]
        return self

    def cluster_name(self, name: str) -> Workload:
        self._status()["clusterName"] = name
        return self
