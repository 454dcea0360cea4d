"""Shared helpers of the Kueue integration tests: a cluster where the test plays Kueue's core
(``fakekube.kueue.install(core=False)``) by writing Workload status, as upstream's envtest suites
for the job integrations do (``util.SetQuotaReservation``, ``SyncAdmittedConditionForWorkloads``)."""

from __future__ import annotations

from typing import Any

import fakekube
import fakekube.kueue
import jobset_ref
import jobset_ref.kueue
from fakekube import FakeCluster

NOW = "2030-01-01T00:00:00Z"
BOTH = ("batch/job", jobset_ref.kueue.FRAMEWORK_NAME)


def cluster_without_core(config: dict[str, Any] | None = None, *, jobset_controller: bool = False,
                         seed: int = 0) -> FakeCluster:
    """The JobSet CRD (its webhooks and controller only if asked: upstream's envtest has neither) and
    Kueue's job framework, no Kueue core."""
    cluster = FakeCluster(seed=seed)
    jobset_ref.install(cluster, controller=jobset_controller, webhooks=jobset_controller)
    fakekube.kueue.install(cluster, config, frameworks=BOTH, core=False)
    return cluster


def flavor(name: str, node_labels: dict[str, str], tolerations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"nodeLabels": node_labels}
    if tolerations:
        spec["tolerations"] = tolerations
    return {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": name},
            "spec": spec}


def set_quota_reservation(cluster: FakeCluster, name: str, cluster_queue: str,
                          flavors: list[str], counts: list[int] | None = None, namespace: str = "default") -> None:
    """``util.SetQuotaReservation`` + ``SyncAdmittedConditionForWorkloads``: QuotaReserved and
    Admitted True, one assignment per pod set (cpu on the given flavor)."""
    wl = cluster.get("Workload", name, namespace)
    podsets = wl["spec"]["podSets"]
    assignments = []
    for i, podset in enumerate(podsets):
        assignment: dict[str, Any] = {"name": podset["name"], "flavors": {"cpu": flavors[i]}}
        if counts is not None:
            assignment["count"] = counts[i]
        assignments.append(assignment)
    status = wl.get("status") or {}
    conditions = [c for c in status.get("conditions") or [] if c["type"] not in ("QuotaReserved", "Admitted")]
    now = cluster.now.strftime("%Y-%m-%dT%H:%M:%SZ")
    conditions += [
        {"type": "QuotaReserved", "status": "True", "lastTransitionTime": now, "reason": "QuotaReserved",
         "message": f"Quota reserved in ClusterQueue {cluster_queue}"},
        {"type": "Admitted", "status": "True", "lastTransitionTime": now, "reason": "Admitted",
         "message": "The workload is admitted"}]
    wl["status"] = {**status, "conditions": conditions,
                    "admission": {"clusterQueue": cluster_queue, "podSetAssignments": assignments}}
    cluster.update_status(wl)
    cluster.run_until_idle()


def set_condition(cluster: FakeCluster, name: str, type_: str, status: str, reason: str, message: str,
                  namespace: str = "default") -> None:
    """``workload.SetConditionAndUpdate`` by the test."""
    wl = cluster.get("Workload", name, namespace)
    now = cluster.now.strftime("%Y-%m-%dT%H:%M:%SZ")
    conditions = [c for c in (wl.get("status") or {}).get("conditions") or [] if c["type"] != type_]
    conditions.append({"type": type_, "status": status, "lastTransitionTime": now, "reason": reason,
                       "message": message})
    wl["status"] = {**(wl.get("status") or {}), "conditions": conditions}
    cluster.update_status(wl)
    cluster.run_until_idle()


def condition(obj: dict[str, Any], type_: str) -> dict[str, Any] | None:
    return next((c for c in (obj.get("status") or {}).get("conditions") or [] if c["type"] == type_), None)


def events(cluster: FakeCluster, obj_name: str) -> list[tuple[str, str]]:
    return [(e.get("reason", ""), e.get("note") or e.get("message") or "") for e in cluster.events()
            if (e.get("regarding") or e.get("involvedObject") or {}).get("name") == obj_name]


def jobset(name: str, replicated: list[tuple[str, int, int, int]], *, queue: str | None = None,
           suspend: bool = False, priority_class: str | None = None, namespace: str = "default") -> dict[str, Any]:
    """``testingjobset.MakeJobSet(...).ReplicatedJobs(...)``: (name, replicas, parallelism, completions)."""
    rjobs = []
    for rname, replicas, parallelism, completions in replicated:
        pod_spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [
            {"name": "c", "image": "pause", "resources": {"requests": {"cpu": "1"}}}]}
        if priority_class:
            pod_spec["priorityClassName"] = priority_class
        rjobs.append({"name": rname, "replicas": replicas, "template": {"spec": {
            "parallelism": parallelism, "completions": completions, "template": {"spec": pod_spec}}}})
    meta: dict[str, Any] = {"name": name, "namespace": namespace}
    if queue:
        meta["labels"] = {"kueue.x-k8s.io/queue-name": queue}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta,
            "spec": {"suspend": suspend, "replicatedJobs": rjobs}}


def workload_name(cluster: FakeCluster, kind: str, name: str, namespace: str = "default") -> str:
    obj = cluster.get(kind, name, namespace)
    return fakekube.kueue.workload_name_for_owner(name, obj["metadata"]["uid"], obj["apiVersion"], obj["kind"])
