"""JobSet end to end on the full simulation: Job controller, scheduler, kubelet, garbage collector.

Times are exact virtual times; they follow from the simulators' documented delays (pods start
1 s after binding, the Job controller batches syncs, foreground deletion waits for the pods).
"""

from __future__ import annotations

import time
from typing import Any

from fakekube import FakeCluster
from fakekube.runtime.informer import Informer
from jobset_ref import install
from jobset_ref.api import constants as c
from jobset_ref.testing.builders import make_job_template, make_jobset, make_replicated_job


def status(cluster: FakeCluster, name: str) -> dict[str, Any]:
    return cluster.get("JobSet", name).get("status") or {}


def cond(cluster: FakeCluster, name: str, type_: str) -> dict[str, Any] | None:
    return next((x for x in status(cluster, name).get("conditions") or [] if x["type"] == type_), None)


def workers(run_seconds: int = 10, parallelism: int = 2) -> Any:
    return (make_job_template().completion_mode("Indexed").parallelism(parallelism).completions(parallelism)
            .backoff_limit(0).set_pod_annotations({"fakekube.io/run-seconds": str(run_seconds)}))


def test_jobset_runs_to_completion_with_pod_hostnames() -> None:
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(2)
    install(cluster)
    cluster.apply(make_jobset("pytorch").replicated_job(make_replicated_job("workers").replicas(2).job(workers())))
    pods = cluster.list("pods", "default")
    assert sorted(p["spec"]["hostname"] for p in pods) == [
        "pytorch-workers-0-0", "pytorch-workers-0-1", "pytorch-workers-1-0", "pytorch-workers-1-1"]
    assert {p["spec"]["subdomain"] for p in pods} == {"pytorch"}
    assert all(p["metadata"]["labels"][c.JOBSET_NAME_KEY] == "pytorch" for p in pods)
    # Pods start 1 s after binding and run 10 s; the Job controller's 1 s sync batching adds the rest.
    assert cluster.run_until(lambda: status(cluster, "pytorch").get("terminalState") == "Completed",
                             timeout=120) == 12.01
    assert cond(cluster, "pytorch", "Completed") == {
        "type": "Completed", "status": "True", "lastTransitionTime": "2030-01-01T00:00:12Z",
        "reason": "AllJobsCompleted", "message": "jobset completed successfully"}


def test_failed_pod_restarts_the_whole_jobset_then_completes() -> None:
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(4)
    install(cluster)
    cluster.apply(make_jobset("pytorch").failure_policy(max_restarts=1)
                  .replicated_job(make_replicated_job("workers").replicas(2).job(workers())))
    cluster.script_pods(f"{c.RESTARTS_KEY}=0,{c.JOB_INDEX_KEY}=1", duration=5, exit_code=1)
    restart_at = cluster.run_until(lambda: status(cluster, "pytorch").get("restarts") == 1, timeout=120)
    assert restart_at == 12.01
    restarting = cond(cluster, "pytorch", "RestartingJobSet")
    assert restarting is not None and restarting["message"] == (
        "applying RestartJobSet failure policy action (first failed job: pytorch-workers-1)")
    assert cluster.run_until(lambda: status(cluster, "pytorch").get("terminalState") is not None,
                             timeout=300) == 43.01
    final = status(cluster, "pytorch")
    assert final["terminalState"] == "Completed" and final["restarts"] == 1
    jobs = cluster.list("jobs.batch", "default")
    assert [(j["metadata"]["name"], j["metadata"]["labels"][c.RESTARTS_KEY]) for j in jobs] == [
        ("pytorch-workers-0", "1"), ("pytorch-workers-1", "1")]
    pods = cluster.list("pods", "default")
    assert {p["metadata"]["labels"][c.RESTARTS_KEY] for p in pods} == {"1"}


def test_max_restarts_reached_on_full_simulation() -> None:
    cluster = FakeCluster(seed=0)
    cluster.add_nodes(2)
    install(cluster)
    cluster.script_pods(f"{c.JOB_INDEX_KEY}=0", duration=3, exit_code=1)
    cluster.apply(make_jobset("js").failure_policy(max_restarts=2)
                  .replicated_job(make_replicated_job("w").replicas(1).job(workers(parallelism=1))))
    assert cluster.run_until(lambda: status(cluster, "js").get("terminalState") == "Failed",
                             timeout=600) == 36.03
    failed = cond(cluster, "js", "Failed")
    assert failed is not None and failed["reason"] == "ReachedMaxRestarts"
    assert failed["message"] == "jobset failed due to reaching max number of restarts (first failed job: js-w-0)"
    assert status(cluster, "js")["restarts"] == 2


def test_reconcile_uses_indexes_not_scans_and_scales_linearly() -> None:
    """A 200-replica, 64-pod-per-Job JobSet: the controller never lists all Jobs or Pods of the cluster."""
    cluster = FakeCluster(seed=0, simulate=False)
    installation = install(cluster)
    reconciler = installation.reconciler
    calls: list[str] = []
    original = Informer.list

    def spy(self: Informer, namespace: str | None = None) -> list[dict[str, Any]]:
        calls.append(self.kind)
        return original(self, namespace)

    Informer.list = spy  # type: ignore[method-assign]
    try:
        cluster.apply(make_jobset("other").replicated_job(make_replicated_job("w").replicas(50)
                                                          .job(workers(parallelism=64))))
        started = time.perf_counter()
        cluster.apply(make_jobset("big").failure_policy(max_restarts=1)
                      .replicated_job(make_replicated_job("w").replicas(200).job(workers(parallelism=64))))
        elapsed = time.perf_counter() - started
    finally:
        Informer.list = original  # type: ignore[method-assign]
    assert calls == []
    assert len(cluster.list("jobs.batch", "default", label_selector=f"{c.JOBSET_NAME_KEY}=big")) == 200
    assert status(cluster, "big")["replicatedJobsStatus"][0]["name"] == "w"
    assert reconciler.passes >= 2
    assert elapsed < 20  # generous: a quadratic controller would take minutes here
