"""Builders for the Kueue core tests (``test_core_*``): flavors, queues, bare Workloads, and the
job framework's part played by the test (upstream's scheduler tests use bare Workloads the same
way: ``util.FinishEvictionForWorkloads``, ``SetPodsReady``)."""

from __future__ import annotations

from typing import Any

from fakekube import FakeCluster
from fakekube.components.kueue import KueueCore, install_core
from fakekube.components.kueue import workload as wlutil

API = "kueue.x-k8s.io/v1beta2"


def cluster(config: dict[str, Any] | None = None, *, seed: int = 0) -> tuple[FakeCluster, KueueCore]:
    fc = FakeCluster(seed=seed)
    return fc, install_core(fc, config)


def flavor(name: str, labels: dict[str, str] | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = dict(spec)
    if labels:
        body["nodeLabels"] = labels
    return {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": body}


def cluster_queue(name: str, flavors: list[tuple[str, dict[str, Any]]], *, resources: tuple[str, ...] = ("cpu",),
                  cohort: str = "", selector: dict[str, Any] | None = None, **spec: Any) -> dict[str, Any]:
    """``flavors``: (flavor, {resource: nominal | {nominalQuota, borrowingLimit, lendingLimit}})."""
    fqs = []
    for fname, quotas in flavors:
        rqs = []
        for res in resources:
            q = quotas.get(res, "0")
            rqs.append({"name": res, **q} if isinstance(q, dict) else {"name": res, "nominalQuota": q})
        fqs.append({"name": fname, "resources": rqs})
    body: dict[str, Any] = {"namespaceSelector": {} if selector is None else selector,
                            "resourceGroups": [{"coveredResources": list(resources), "flavors": fqs}], **spec}
    if cohort:
        body["cohortName"] = cohort
    return {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": body}


def local_queue(name: str, cq: str, namespace: str = "default", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": name, "namespace": namespace},
            "spec": {"clusterQueue": cq, **spec}}


def workload(name: str, queue: str, cpu: str = "1", *, count: int = 1, priority: int | None = None,
             namespace: str = "default", min_count: int | None = None, **pod_spec: Any) -> dict[str, Any]:
    ps: dict[str, Any] = {"name": "main", "count": count, "template": {"spec": {
        "restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox",
                                                   "resources": {"requests": {"cpu": cpu}}}], **pod_spec}}}
    if min_count is not None:
        ps["minCount"] = min_count
    spec: dict[str, Any] = {"queueName": queue, "podSets": [ps]}
    if priority is not None:
        spec["priority"] = priority
    return {"apiVersion": API, "kind": "Workload", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def wl(fc: FakeCluster, name: str, namespace: str = "default") -> dict[str, Any]:
    return fc.get("Workload", name, namespace)


def cond(obj: dict[str, Any], type_: str) -> dict[str, Any] | None:
    return wlutil.find_condition(obj, type_)


def admitted(fc: FakeCluster, name: str, namespace: str = "default") -> bool:
    return wlutil.is_admitted(wl(fc, name, namespace))


def finish(fc: FakeCluster, name: str, namespace: str = "default") -> None:
    """The job finished: the framework sets Finished=True (quota released)."""
    obj = wl(fc, name, namespace)
    now = fc.now.strftime("%Y-%m-%dT%H:%M:%SZ")
    wlutil.set_condition(obj, {"type": "Finished", "status": "True", "reason": "Succeeded",
                               "message": "Job finished successfully"}, now)
    fc.update_status(obj)
    fc.run_until_idle()


def finish_eviction(fc: FakeCluster, name: str, namespace: str = "default") -> None:
    """``util.FinishEvictionForWorkloads``: the job stopped; the framework clears the reservation
    and sets Requeued (as jobframework does after an eviction)."""
    obj = wl(fc, name, namespace)
    now = fc.now.strftime("%Y-%m-%dT%H:%M:%SZ")
    evicted = cond(obj, "Evicted") or {}
    wlutil.unset_quota_reservation_with_condition(obj, "Pending", evicted.get("message", ""), now)
    requeued = evicted.get("reason") in ("Preempted",)
    wlutil.set_requeued_condition(obj, evicted.get("reason", ""), evicted.get("message", ""), requeued, now)
    fc.update_status(obj)
    fc.run_until_idle()


def set_pods_ready(fc: FakeCluster, name: str, ready: bool = True, namespace: str = "default") -> None:
    obj = wl(fc, name, namespace)
    now = fc.now.strftime("%Y-%m-%dT%H:%M:%SZ")
    wlutil.set_condition(obj, {"type": "PodsReady", "status": "True" if ready else "False",
                               "reason": "PodsReady" if ready else "WaitForStart",
                               "message": "All pods reached readiness and the workload is running" if ready
                               else "Not all pods are ready or succeeded"}, now)
    fc.update_status(obj)
    fc.run_until_idle()


def events(fc: FakeCluster, name: str, namespace: str = "default") -> list[tuple[str, str, str]]:
    out = []
    for ev in fc.list("Event", namespace):
        if ev["involvedObject"].get("name") == name and ev["involvedObject"].get("kind") == "Workload":
            out.append((ev["type"], ev["reason"], ev["message"]))
    return out
