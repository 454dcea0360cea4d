"""Priority and preemption end to end: a high-priority JobSet preempts a low-priority one that fills the
cluster; the preempted pods fail with DisruptionTarget, which the low JobSet's Job podFailurePolicy
and JobSet failurePolicy see, as on a real cluster (upstream's workload-aware-scheduling/preemption
example, without gang scheduling)."""

from __future__ import annotations

from typing import Any

import jobset_ref
from fakekube import FakeCluster


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value}


def jobset(name: str, priority_class_name: str, *, fail_on_disruption: bool = False) -> dict[str, Any]:
    pod_spec = {"priorityClassName": priority_class_name, "terminationGracePeriodSeconds": 0, "restartPolicy": "Never",
                "containers": [{"name": "w", "image": "busybox", "command": ["sleep", "infinity"],
                                "resources": {"requests": {"cpu": "2"}}}]}
    job: dict[str, Any] = {"parallelism": 2, "completions": 2, "backoffLimit": 10, "template": {"spec": pod_spec}}
    spec: dict[str, Any] = {"replicatedJobs": [{"name": "rj", "replicas": 2, "template": {"spec": job}}]}
    if fail_on_disruption:
        job["podFailurePolicy"] = {"rules": [{"action": "FailJob", "onPodConditions": [{"type": "DisruptionTarget"}]}]}
        spec["failurePolicy"] = {"maxRestarts": 0, "rules": [{"name": "preempted", "action": "FailJobSet",
                                                              "onJobFailureReasons": ["PodFailurePolicy"]}]}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def pods_of(cluster: FakeCluster, jobset_name: str) -> list[dict[str, Any]]:
    return [p for p in cluster.list("pods", "default")
            if (p["metadata"].get("labels") or {}).get("jobset.sigs.k8s.io/jobset-name") == jobset_name]


def test_a_high_priority_jobset_preempts_a_low_priority_one() -> None:
    cluster = FakeCluster(seed=0)
    jobset_ref.install(cluster)
    cluster.add_node("n0", capacity={"cpu": "4"})
    cluster.add_node("n1", capacity={"cpu": "4"})
    cluster.create(priority_class("low", 1))
    cluster.create(priority_class("high", 100000))
    cluster.create(jobset("lp", "low", fail_on_disruption=True))
    cluster.advance(5)
    low = pods_of(cluster, "lp")
    assert len(low) == 4 and all(p["spec"].get("nodeName") for p in low)
    assert {p["spec"]["priority"] for p in low} == {1}

    cluster.create(jobset("hp", "high"))
    cluster.advance(30)
    high = pods_of(cluster, "hp")
    assert len(high) == 4
    assert all(p["status"]["phase"] == "Running" and p["spec"]["priority"] == 100000 for p in high)
    assert all(p["status"]["nominatedNodeName"] == p["spec"]["nodeName"] for p in high)
    assert sorted(p["spec"]["nodeName"] for p in high) == ["n0", "n0", "n1", "n1"]
    preempted = cluster.events(reason="Preempted")
    assert preempted and {e["involvedObject"]["name"].startswith("lp-") for e in preempted} == {True}
    status = cluster.get("jobsets", "lp")["status"]
    assert status["terminalState"] == "Failed"
    [failed] = [c for c in status["conditions"] if c["type"] == "Failed"]
    assert failed["reason"] == "FailJobSetFailurePolicyAction"
    assert not pods_of(cluster, "lp")  # the failed JobSet's Jobs are deleted with their pods
