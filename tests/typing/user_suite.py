"""What an operator author writes with the public API, annotated as a user would.

tests/test_type_check.py runs ``mypy --strict`` on this file alone, finding ``fakekube`` and
``jobset_ref`` as installed packages (through their ``py.typed``): it must be clean. The file is
type-checked, never run (pytest collects only ``test_*.py``), so it may name a manifest that
does not exist.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

import jobset_ref
from fakekube import ApiError, Conflict, FakeCluster, NotFound, Reactor, UsageError, WatchEvent
from fakekube.faults import (
    BreakWatch,
    DelayDelivery,
    FailNode,
    FailPod,
    Fault,
    Inject,
    PodTarget,
    parse_fault,
)
from fakekube.http.server import ClusterServer
from jobset_ref.testing.assertions import (
    assert_jobset_jobs,
    jobs_of,
    pods_of,
    resolve_pod,
    wait_for_jobset_condition,
)
from jobset_ref.testing.builders import (
    complete_job_status,
    make_job_template,
    make_jobset,
    make_replicated_job,
    update_job_status,
)


def trainer(name: str, workers: int, *, max_restarts: int = 0) -> dict[str, Any]:
    """A JobSet of one ReplicatedJob of ``workers`` pods, built with the upstream-style builders."""
    template = make_job_template().parallelism(workers).completions(workers).backoff_limit(0)
    workers_job = make_replicated_job("workers").replicas(1).job(template)
    return make_jobset(name).replicated_job(workers_job).failure_policy(max_restarts=max_restarts).obj()


@pytest.fixture
def cluster() -> Iterator[FakeCluster]:
    """A cluster made by hand rather than by the plugin's fixtures."""
    made = FakeCluster(seed=7, field_validation="Strict")
    jobset_ref.install(made, feature_gates={"RestartJob": True})
    made.add_nodes(4, labels={"pool": "a"})
    yield made


def phases(cluster: FakeCluster, jobset: str) -> list[str]:
    return [str(pod["status"].get("phase")) for pod in pods_of(cluster, jobset)]


def test_a_trainer_completes(jobset_cluster: FakeCluster) -> None:
    created: dict[str, Any] = jobset_cluster.create(trainer("trainer", 2))
    assert created["metadata"]["name"] == "trainer"
    jobset_cluster.advance(5)
    assert phases(jobset_cluster, "trainer") == ["Running", "Running"]
    assert resolve_pod(jobset_cluster, "trainer-workers-0-0.trainer")
    at: float = wait_for_jobset_condition(jobset_cluster, "trainer", "Completed", timeout=600)
    assert at > 0
    assert_jobset_jobs(jobset_cluster, "trainer", ["trainer-workers-0"])
    assert [job["status"]["succeeded"] for job in jobs_of(jobset_cluster, "trainer")] == [2]


@pytest.mark.fakekube(nodes=8, seed=3, feature_gates={"RestartJob": True})
def test_faults_restart_the_jobset(jobset_cluster: FakeCluster) -> None:
    jobset_cluster.apply(trainer("js", 2, max_restarts=1))
    jobset_cluster.advance(5)
    pod_name: str = pods_of(jobset_cluster, "js")[0]["metadata"]["name"]
    jobset_cluster.fail_pod(pod_name, exit_code=137, reason="OOMKilled")
    faults: list[Fault] = [
        FailPod(PodTarget(hostname="js-workers-0-1"), exit_code=1),
        FailNode(pod=PodTarget(selector="jobset.sigs.k8s.io/jobset-name=js", pick=1)),
        BreakWatch("jobs.batch", nth=2),
        DelayDelivery("pods", seconds=1.5),
        Inject(Reactor(verb="update", resource="jobs.batch", nth=1, error=Conflict("try again"))),
        parse_fault("failPod", {"hostname": "js-workers-0-0", "exitCode": 137}),
    ]
    described: list[str] = [fault.apply(jobset_cluster) for fault in faults]
    assert all(described)
    jobset_cluster.clear_faults()
    wait_for_jobset_condition(jobset_cluster, "js", "Failed", timeout=3600)


def test_injected_errors_and_watches(cluster: FakeCluster) -> None:
    reactor: Reactor = cluster.inject(Reactor(verb="create", resource="jobsets.jobset.x-k8s.io", nth=1,
                                              error=Conflict("the object has been modified")))
    watch = cluster.watch("JobSet", "default")
    with pytest.raises(ApiError) as failed:
        cluster.create(trainer("first", 1))
    assert failed.value.code == 409 and reactor.fired == 1
    cluster.create(trainer("first", 1))
    events: list[WatchEvent] = list(watch)
    assert [event.type for event in events] == ["ADDED"]
    watch.stop()
    with pytest.raises(NotFound):
        cluster.get("JobSet", "absent")
    with pytest.raises(UsageError):
        cluster.add_nodes(-1)
    assert cluster.exists("JobSet", "first")
    cluster.patch("JobSet", "first", {"metadata": {"labels": {"team": "ml"}}})
    cluster.delete("JobSet", "first", propagation_policy="Foreground")


def test_job_status_by_hand(cluster: FakeCluster) -> None:
    """envtest style: no simulated Job controller pods, the test writes Job status itself."""
    cluster.apply(trainer("js", 1))
    job = cluster.get("jobs.batch", "js-workers-0")
    update_job_status(cluster, "js-workers-0", "default", complete_job_status(job, "2024-01-01T00:00:00Z"))
    at: float = cluster.run_until(lambda: bool(cluster.list("jobs.batch", "default")), timeout=60)
    cluster.advance_to(at + 60)
    assert cluster.elapsed >= 60


@pytest.mark.fakekube(clock="quiescent")
def test_served_to_a_real_client(fake_apiserver: ClusterServer[FakeCluster]) -> None:
    # ClusterServer is generic in the cluster it serves: FakeCluster.serve() returns a
    # ClusterServer[FakeCluster], so .cluster keeps its type. (Not exported by ``fakekube``: its
    # module pulls in the TLS stack, which ``import fakekube`` does not need.)
    served: FakeCluster = fake_apiserver.cluster
    served.apply("examples/pytorch.yaml")
    fake_apiserver.wait_for(lambda: served.exists("JobSet", "pytorch"), timeout=10)
    assert fake_apiserver.kubeconfig.endswith(".yaml") or fake_apiserver.kubeconfig


def test_a_bare_cluster(fake_cluster: FakeCluster) -> None:
    fake_cluster.add_node("n1", capacity={"cpu": "4"})
    fake_cluster.run_until_idle()
    assert [node["metadata"]["name"] for node in fake_cluster.list("nodes")] == ["n1"]
