"""Upstream's batch/v1 Job integration tests (``test/integration/singlecluster/controller/jobs/job``
and ``pkg/controller/jobs/job`` unit tests, v0.19.2), ported; the test plays Kueue's core."""

from __future__ import annotations

from typing import Any

import pytest

import fakekube
import fakekube.kueue
from fakekube import ApiError, FakeCluster, UsageError
from tests.kueue.helpers import condition, events, flavor, set_condition, set_quota_reservation, workload_name


def job(name: str = "test-job", *, queue: str | None = "main", parallelism: int = 2,
        annotations: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if queue:
        meta["labels"] = {"kueue.x-k8s.io/queue-name": queue}
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": {
        "parallelism": parallelism, "completions": parallelism, "template": {"spec": {
            "restartPolicy": "Never", "containers": [{"name": "c", "image": "pause",
                                                      "resources": {"requests": {"cpu": "1"}}}]}}}}


@pytest.fixture
def cluster() -> FakeCluster:
    cluster = FakeCluster(seed=0)
    fakekube.kueue.install(cluster, core=False)
    cluster.apply(flavor("on-demand", {"instance-type": "on-demand"},
                        [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}]))
    return cluster


def test_workload_names_are_upstreams() -> None:
    """``TestGenerateWorkloadNameWithExtra``: the SHA-1 suffix over kind, group, name, UID (and extra)."""
    assert fakekube.kueue.workload_name_for_owner("name", "uid", "batch/v1", "Job") == "job-name-ef3a1"
    assert fakekube.kueue.workload_name_for_owner("name", "uid", "batch/v1", "Job", "1") == "job-name-2514c"


def test_should_reconcile_workload_if_queue_name_is_set(cluster: FakeCluster) -> None:
    cluster.apply(job())
    cluster.run_until_idle()
    created = cluster.get("Job", "test-job")
    assert created["spec"]["suspend"] is True
    name = workload_name(cluster, "Job", "test-job")
    wl = cluster.get("Workload", name)
    assert wl["metadata"]["labels"] == {"kueue.x-k8s.io/job-uid": created["metadata"]["uid"]}
    assert wl["metadata"]["finalizers"] == ["kueue.x-k8s.io/resource-in-use"]
    assert wl["spec"]["queueName"] == "main"
    podset = wl["spec"]["podSets"][0]
    assert (podset["name"], podset["count"]) == ("main", 2)
    assert podset["topologyRequest"] == {"podIndexLabel": "batch.kubernetes.io/job-completion-index"}
    assert ("CreatedWorkload", f"Created Workload: default/{name}") in events(cluster, "test-job")
    assert condition(wl, "PodsReady")["reason"] == "WaitForStart"


def test_job_is_started_with_the_flavors_and_stopped_with_its_templates_restored(cluster: FakeCluster) -> None:
    cluster.apply(job())
    cluster.run_until_idle()
    name = workload_name(cluster, "Job", "test-job")
    set_quota_reservation(cluster, name, "cluster-queue", ["on-demand"])
    started = cluster.get("Job", "test-job")
    spec = started["spec"]["template"]["spec"]
    assert started["spec"]["suspend"] is False
    assert spec["nodeSelector"] == {"instance-type": "on-demand"}
    assert spec["tolerations"] == [{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}]
    assert started["spec"]["template"]["metadata"]["labels"]["kueue.x-k8s.io/cluster-queue-name"] == "cluster-queue"
    set_condition(cluster, name, "Evicted", "True", "Preempted", "Preempted to accommodate a higher priority Workload")
    stopped = cluster.get("Job", "test-job")
    assert stopped["spec"]["suspend"] is True
    assert "kueue.x-k8s.io/stopping" not in (stopped["metadata"].get("annotations") or {})
    assert "startTime" not in stopped.get("status", {})
    assert "nodeSelector" not in stopped["spec"]["template"]["spec"]
    assert "tolerations" not in stopped["spec"]["template"]["spec"]
    assert ("Stopped", "Preempted to accommodate a higher priority Workload") in events(cluster, "test-job")
    wl = cluster.get("Workload", name)
    assert condition(wl, "Requeued")["status"] == "True"
    assert condition(wl, "QuotaReserved")["reason"] == "Pending"


def test_should_not_manage_a_job_without_queue_name(cluster: FakeCluster) -> None:
    cluster.apply(job(queue=None))
    cluster.run_until_idle()
    assert not cluster.get("Job", "test-job")["spec"].get("suspend")
    assert cluster.list("Workload") == []


def test_default_local_queue_catches_an_unlabelled_job(cluster: FakeCluster) -> None:
    cluster.apply({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
                   "metadata": {"name": "default"}, "spec": {"clusterQueue": "cq"}})
    cluster.apply(job(queue=None))
    cluster.run_until_idle()
    created = cluster.get("Job", "test-job")
    assert created["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "default"
    assert created["spec"]["suspend"] is True


def test_invalid_queue_name_and_min_parallelism_are_denied(cluster: FakeCluster) -> None:
    with pytest.raises(ApiError) as err:
        cluster.apply(job(queue="Bad_Queue", annotations={"kueue.x-k8s.io/job-min-parallelism": "5"}))
    assert err.value.code == 403
    assert err.value.message == (
        'admission webhook "vjob.kb.io" denied the request: [metadata.labels[kueue.x-k8s.io/queue-name]: '
        'Invalid value: "Bad_Queue": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric '
        "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
        "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), "
        "metadata.annotations[kueue.x-k8s.io/job-min-parallelism]: Invalid value: 5: should be between 0 and 1]")


def test_finished_job_finishes_its_workload_and_deleting_it_releases_the_finalizer(cluster: FakeCluster) -> None:
    cluster.add_nodes(2, labels={"instance-type": "on-demand"})
    manifest = job()
    manifest["spec"]["template"]["metadata"] = {"annotations": {"fakekube.io/run-seconds": "10"}}
    manifest["spec"]["template"]["spec"]["tolerations"] = [{"key": "spot", "operator": "Exists",
                                                             "effect": "NoSchedule"}]
    cluster.apply(manifest)
    cluster.run_until_idle()
    name = workload_name(cluster, "Job", "test-job")
    set_quota_reservation(cluster, name, "cluster-queue", ["on-demand"])
    cluster.run_until(lambda: condition(cluster.get("Job", "test-job"), "Complete") is not None, timeout=300)
    cluster.run_until_idle()
    wl = cluster.get("Workload", name)
    assert (condition(wl, "Finished")["reason"], condition(wl, "PodsReady")["reason"]) == ("Succeeded", "Started")
    cluster.delete("Job", "test-job", propagation_policy="Background")
    cluster.run_until_idle()
    assert cluster.list("Workload") == []


def test_install_rejects_unknown_frameworks() -> None:
    with pytest.raises(UsageError, match=r"integrations\.frameworks names 'kubeflow\.org/mpijob'"):
        fakekube.kueue.install(FakeCluster(), {"integrations": {"frameworks": ["kubeflow.org/mpijob"]}}, core=False)
