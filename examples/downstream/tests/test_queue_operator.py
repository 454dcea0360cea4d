"""Tests of the queue operator, written the way a downstream project writes them.

Only the ``jobset_cluster`` fixture (the reference JobSet controller on a simulated cluster
with 4 nodes) and ``jobset_ref.testing.assertions`` are used; the operator under test is put
on the cluster with ``cluster.add_component``. Every time asserted is an exact virtual time,
derived from the simulators' documented delays: a pod binds 10 ms after it is created, starts
1 s later, runs ``fakekube.io/run-seconds``, and the Job controller's 1 s sync batching adds
one more second before the Job, then the JobSet, is Complete.
"""

from __future__ import annotations

from typing import Any

import pytest
from queue_operator import ADMITTED_ANNOTATION, QUEUE_LABEL, QueueOperator, demand_of

from jobset_ref.testing.assertions import (
    assert_jobset_jobs,
    condition,
    pods_of,
    wait_for_jobset_condition,
)

TPU = "google.com/tpu"


def jobset(name: str, *, run_seconds: int = 60, replicas: int = 2, queue: str | None = "team-a",
           suspend: bool = True, tpus: int = 0, exit_code: int = 0) -> dict[str, Any]:
    """A JobSet of ``replicas`` one-pod Jobs that run ``run_seconds`` of virtual time."""
    container: dict[str, Any] = {"name": "main", "image": "trainer:latest"}
    if tpus:
        container["resources"] = {"limits": {TPU: str(tpus)}}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": name, "labels": {QUEUE_LABEL: queue} if queue else {}},
        "spec": {"suspend": suspend, "replicatedJobs": [{"name": "workers", "replicas": replicas, "template": {
            "spec": {"backoffLimit": 0, "template": {
                "metadata": {"annotations": {"fakekube.io/run-seconds": str(run_seconds),
                                             "fakekube.io/exit-code": str(exit_code)}},
                "spec": {"restartPolicy": "Never", "containers": [container]}}}}}]},
    }


def queue(cluster: Any, name: str = "team-a", *, quota: str = "pods: 4", node_selector: str | None = None) -> None:
    data = {"quota": quota}
    if node_selector is not None:
        data["nodeSelector"] = node_selector
    cluster.apply({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data})


def admitted_at(cluster: Any, name: str, timeout: float = 3600) -> float:
    """When the JobSet controller resumed the JobSet (its Suspended condition turned False)."""
    return wait_for_jobset_condition(cluster, name, "Suspended", status="False", timeout=timeout)


def suspended(cluster: Any, name: str) -> bool:
    return bool(cluster.get("JobSet", name)["spec"].get("suspend"))


@pytest.fixture
def operator(jobset_cluster: Any) -> QueueOperator:
    return jobset_cluster.add_component(QueueOperator(jobset_cluster.runtime))


def test_admits_in_creation_order_while_the_quota_allows(jobset_cluster: Any, operator: QueueOperator) -> None:
    queue(jobset_cluster, quota="pods: 4")
    for name, seconds in [("zeta", 60), ("beta", 120), ("alpha", 30)]:  # creation order is not name order
        jobset_cluster.apply(jobset(name, run_seconds=seconds))

    assert [suspended(jobset_cluster, n) for n in ("zeta", "beta", "alpha")] == [False, False, True]
    assert admitted_at(jobset_cluster, "zeta") == 0.0
    assert admitted_at(jobset_cluster, "beta") == 0.0
    done = wait_for_jobset_condition(jobset_cluster, "zeta", "Completed", timeout=600)
    assert done == 62.01
    assert suspended(jobset_cluster, "alpha")  # the clock stopped at the moment zeta completed...
    assert admitted_at(jobset_cluster, "alpha") == done  # ...and alpha is admitted at that very instant
    assert wait_for_jobset_condition(jobset_cluster, "alpha", "Completed") == 94.02  # 62.01 + 32.01
    assert wait_for_jobset_condition(jobset_cluster, "beta", "Completed") == 122.01

    events = jobset_cluster.events(reason="Admitted")
    assert [(e["involvedObject"]["name"], e["message"]) for e in events] == [
        ("zeta", "Admitted by queue team-a; quota in use pods=2 of pods=4"),
        ("beta", "Admitted by queue team-a; quota in use pods=4 of pods=4"),
        ("alpha", "Admitted by queue team-a; quota in use pods=4 of pods=4"),
    ]


def test_strict_fifo_a_small_jobset_does_not_overtake_the_head(jobset_cluster: Any, operator: QueueOperator) -> None:
    queue(jobset_cluster, quota="pods: 4")
    jobset_cluster.apply(jobset("running", replicas=3, run_seconds=100))
    jobset_cluster.apply(jobset("big", replicas=2))    # needs 2 pods, only 1 is free
    jobset_cluster.apply(jobset("small", replicas=1))  # would fit, but waits behind "big"

    assert admitted_at(jobset_cluster, "big") == 102.01
    assert admitted_at(jobset_cluster, "small") == 102.01


def test_tpu_quota_and_the_queues_node_selector(jobset_cluster: Any, operator: QueueOperator) -> None:
    jobset_cluster.add_nodes(2, name_prefix="tpu", labels={"pool": "tpu"}, capacity={TPU: "4"})
    queue(jobset_cluster, "tpu-queue", quota=f"{TPU}: 8", node_selector="pool: tpu")
    for name in ("first", "second"):
        jobset_cluster.apply(jobset(name, queue="tpu-queue", replicas=2, tpus=4))
    assert demand_of(jobset_cluster.get("JobSet", "first")) == {"pods": 2, TPU: 8}

    assert admitted_at(jobset_cluster, "first") == 0.0
    first = jobset_cluster.get("JobSet", "first")
    assert first["metadata"]["annotations"][ADMITTED_ANNOTATION] == "true"
    assert first["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["nodeSelector"] == {
        "pool": "tpu"}
    assert_jobset_jobs(jobset_cluster, "first", ["first-workers-0", "first-workers-1"])
    jobset_cluster.advance(1)  # the scheduler binds 10 ms after the pods are created
    pods = pods_of(jobset_cluster, "first")
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["tpu-0", "tpu-1"]  # never the 4 CPU-only nodes
    assert all(p["spec"]["nodeSelector"] == {"pool": "tpu"} for p in pods)

    assert suspended(jobset_cluster, "second")
    assert admitted_at(jobset_cluster, "second") == 62.01
    assert wait_for_jobset_condition(jobset_cluster, "second", "Completed") == 124.02


def test_a_failed_jobset_gives_its_quota_back(jobset_cluster: Any, operator: QueueOperator) -> None:
    queue(jobset_cluster, quota="pods: 2")
    jobset_cluster.apply(jobset("broken", run_seconds=10, exit_code=1))
    jobset_cluster.apply(jobset("next"))

    failed = wait_for_jobset_condition(jobset_cluster, "broken", "Failed", timeout=600)
    assert failed == 12.01
    assert admitted_at(jobset_cluster, "next") == failed


def test_deleting_an_admitted_jobset_gives_its_quota_back(jobset_cluster: Any, operator: QueueOperator) -> None:
    queue(jobset_cluster, quota="pods: 2")
    jobset_cluster.apply(jobset("first"))
    jobset_cluster.apply(jobset("second"))
    jobset_cluster.advance(30)
    assert suspended(jobset_cluster, "second")

    jobset_cluster.delete("JobSet", "first")
    assert admitted_at(jobset_cluster, "second", timeout=0) == 30.0


def test_raising_the_quota_admits_waiting_jobsets_at_once(jobset_cluster: Any, operator: QueueOperator) -> None:
    queue(jobset_cluster, quota="pods: 2")
    jobset_cluster.apply(jobset("first"))
    jobset_cluster.apply(jobset("second"))
    jobset_cluster.advance(10)
    assert suspended(jobset_cluster, "second")

    queue(jobset_cluster, quota="pods: 4")
    assert admitted_at(jobset_cluster, "second", timeout=0) == 10.0


def test_a_jobset_that_can_never_fit_is_skipped_with_a_warning(jobset_cluster: Any,
                                                               operator: QueueOperator) -> None:
    queue(jobset_cluster, quota="pods: 2")
    jobset_cluster.apply(jobset("huge", replicas=3))
    jobset_cluster.apply(jobset("fits", replicas=2))

    assert admitted_at(jobset_cluster, "fits", timeout=0) == 0.0
    assert suspended(jobset_cluster, "huge")
    [warning] = jobset_cluster.events(reason="Inadmissible")
    assert (warning["type"], warning["involvedObject"]["name"], warning["message"]) == (
        "Warning", "huge", "needs pods=3, more than queue team-a ever has (pods=2)")


def test_jobsets_outside_any_queue_are_left_alone(jobset_cluster: Any, operator: QueueOperator) -> None:
    queue(jobset_cluster, quota="pods: 2")
    jobset_cluster.apply(jobset("no-queue", queue=None))                  # suspended, no label: not ours
    jobset_cluster.apply(jobset("unknown-queue", queue="nobody"))         # no ConfigMap for that queue
    jobset_cluster.apply(jobset("not-suspended", suspend=False, replicas=2))  # runs without admission

    jobset_cluster.advance(30)
    assert suspended(jobset_cluster, "no-queue") and suspended(jobset_cluster, "unknown-queue")
    assert jobset_cluster.events(reason="Admitted") == []
    assert condition(jobset_cluster.get("JobSet", "not-suspended"), "Suspended") is None
    # Unadmitted JobSets do not count against the quota: a queued JobSet is admitted at once.
    jobset_cluster.apply(jobset("queued"))
    assert admitted_at(jobset_cluster, "queued", timeout=0) == 30.0


@pytest.mark.fakekube(nodes=0)
def test_admitted_jobsets_hold_quota_while_their_pods_wait_for_nodes(jobset_cluster: Any,
                                                                     operator: QueueOperator) -> None:
    """Quota is about admission, not scheduling: the marker starts this cluster with no nodes."""
    queue(jobset_cluster, quota="pods: 2")
    jobset_cluster.apply(jobset("first"))
    jobset_cluster.apply(jobset("second"))
    assert admitted_at(jobset_cluster, "first", timeout=0) == 0.0
    jobset_cluster.advance(20)
    assert {p["status"]["phase"] for p in pods_of(jobset_cluster, "first")} == {"Pending"}
    assert suspended(jobset_cluster, "second")

    jobset_cluster.add_nodes(1)
    assert wait_for_jobset_condition(jobset_cluster, "first", "Completed") == 82.01  # the pods bind when the node arrives at t=20
    assert admitted_at(jobset_cluster, "second", timeout=0) == 82.01  # the pods bind when the node arrives at t=20
