"""Tests of the queue operator, written the way a downstream project writes them.

The operator runs unchanged (kopf's ``KopfRunner`` in a thread, the ``kubernetes`` client for
its reads and writes) against the ``fake_apiserver`` fixture: the reference JobSet controller on
a simulated cluster with 4 nodes, served over HTTP, with ``KUBECONFIG`` pointing at it.

The clock is manual: virtual time stands still while the operator reacts (we wait for it in wall
seconds with ``server.wait_for``) and moves only when the test runs the simulation. So every
virtual time below is exact: a pod binds 10 ms after it is created, starts 1 s later, runs
``fakekube.io/run-seconds``, and the Job controller's 1 s sync batching adds one more second
before the Job, then the JobSet, is Complete.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import kopf
import pytest
from kopf.testing import KopfRunner
from queue_operator import ADMITTED_ANNOTATION, QUEUE_LABEL, demand_of, register

from jobset_ref.testing.assertions import pods_of, wait_for_jobset_condition

TPU = "google.com/tpu"
WALL_TIMEOUT = 20.0  # wall seconds the operator gets to react


def jobset(name: str, *, run_seconds: int = 60, replicas: int = 2, queue: str | None = "team-a",
           tpus: int = 0, exit_code: int = 0) -> dict[str, Any]:
    """A suspended JobSet of ``replicas`` one-pod Jobs that run ``run_seconds`` of virtual time."""
    container: dict[str, Any] = {"name": "main", "image": "trainer:latest"}
    if tpus:
        container["resources"] = {"limits": {TPU: str(tpus)}}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
        "metadata": {"name": name, "labels": {QUEUE_LABEL: queue} if queue else {}},
        "spec": {"suspend": True, "replicatedJobs": [{"name": "workers", "replicas": replicas, "template": {
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


def suspended(cluster: Any, name: str) -> bool:
    return bool(cluster.get("JobSet", name)["spec"].get("suspend"))


def wait_admitted(server: Any, *names: str) -> None:
    """Wall-wait until the operator admitted ``names``; virtual time does not move meanwhile."""
    server.wait_for(lambda: not any(suspended(server.cluster, n) for n in names), timeout=WALL_TIMEOUT)


def admitted_events(cluster: Any) -> list[tuple[str, str]]:
    return [(e["involvedObject"]["name"], e["message"]) for e in cluster.events(reason="Admitted")]


@pytest.fixture
def operator(fake_apiserver: Any) -> Iterator[KopfRunner]:
    """The operator, started the way ``kopf run -A --standalone`` starts it, on $KUBECONFIG."""
    settings = kopf.OperatorSettings()
    settings.posting.enabled = False  # its own Events are written by the operator code itself
    with KopfRunner(["run", "-A", "--standalone"], registry=register(kopf.OperatorRegistry()),
                    settings=settings, timeout=30) as runner:
        yield runner
    assert runner.exit_code == 0, runner.output


def test_admits_in_creation_order_while_the_quota_allows(fake_apiserver: Any, operator: KopfRunner) -> None:
    cluster = fake_apiserver.cluster
    queue(cluster, quota="pods: 4")
    cluster.apply(jobset("zeta", run_seconds=60))  # creation order is not name order
    wait_admitted(fake_apiserver, "zeta")
    cluster.advance(1)
    cluster.apply(jobset("beta", run_seconds=120))
    wait_admitted(fake_apiserver, "beta")
    cluster.advance(1)
    cluster.apply(jobset("alpha", run_seconds=30))
    assert suspended(cluster, "alpha")
    assert wait_for_jobset_condition(cluster, "zeta", "Completed", timeout=600) == 62.01
    wait_admitted(fake_apiserver, "alpha")  # zeta gave its pods back: alpha is admitted at that instant
    assert cluster.elapsed == 62.01
    assert wait_for_jobset_condition(cluster, "alpha", "Completed") == 94.02  # 62.01 + 32.01
    assert wait_for_jobset_condition(cluster, "beta", "Completed") == 123.01  # created at t=1
    # The operator writes each Event after its patch: wait (in wall time) for the third one.
    fake_apiserver.wait_for(lambda: len(admitted_events(cluster)) == 3, timeout=WALL_TIMEOUT)
    assert admitted_events(cluster) == [
        ("zeta", "Admitted by queue team-a; quota in use pods=2 of pods=4"),
        ("beta", "Admitted by queue team-a; quota in use pods=4 of pods=4"),
        ("alpha", "Admitted by queue team-a; quota in use pods=4 of pods=4"),
    ]


def test_tpu_quota_and_the_queues_node_selector(fake_apiserver: Any, operator: KopfRunner) -> None:
    cluster = fake_apiserver.cluster
    cluster.add_nodes(2, name_prefix="tpu", labels={"pool": "tpu"}, capacity={TPU: "4"})
    queue(cluster, "tpu-queue", quota=f"{TPU}: 8", node_selector="pool: tpu")
    cluster.apply(jobset("first", queue="tpu-queue", tpus=4))
    wait_admitted(fake_apiserver, "first")
    cluster.advance(1)
    cluster.apply(jobset("second", queue="tpu-queue", tpus=4))
    assert demand_of(cluster.get("JobSet", "first")) == {"pods": 2, TPU: 8}
    first = cluster.get("JobSet", "first")
    assert first["metadata"]["annotations"][ADMITTED_ANNOTATION] == "true"
    assert first["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["nodeSelector"] == {
        "pool": "tpu"}
    pods = pods_of(cluster, "first")
    assert sorted(p["spec"]["nodeName"] for p in pods) == ["tpu-0", "tpu-1"]  # never the 4 CPU-only nodes
    assert suspended(cluster, "second")
    assert wait_for_jobset_condition(cluster, "first", "Completed") == 62.01
    wait_admitted(fake_apiserver, "second")
    assert cluster.elapsed == 62.01


def test_a_failed_jobset_gives_its_quota_back(fake_apiserver: Any, operator: KopfRunner) -> None:
    cluster = fake_apiserver.cluster
    queue(cluster, quota="pods: 2")
    cluster.apply(jobset("broken", run_seconds=10, exit_code=1))
    wait_admitted(fake_apiserver, "broken")
    cluster.advance(1)
    cluster.apply(jobset("next"))
    assert wait_for_jobset_condition(cluster, "broken", "Failed", timeout=600) == 12.01
    wait_admitted(fake_apiserver, "next")
    assert cluster.elapsed == 12.01


def test_a_jobset_that_can_never_fit_is_skipped_with_a_warning(fake_apiserver: Any, operator: KopfRunner) -> None:
    cluster = fake_apiserver.cluster
    queue(cluster, quota="pods: 2")
    cluster.apply(jobset("huge", replicas=3))
    cluster.advance(1)
    cluster.apply(jobset("fits", replicas=2))
    wait_admitted(fake_apiserver, "fits")
    assert suspended(cluster, "huge")
    [warning] = fake_apiserver.wait_for(lambda: cluster.events(reason="Inadmissible"), timeout=WALL_TIMEOUT)
    assert (warning["type"], warning["involvedObject"]["name"], warning["message"]) == (
        "Warning", "huge", "needs pods=3, more than queue team-a ever has (pods=2)")
