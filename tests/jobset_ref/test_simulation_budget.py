"""The simulation's budget (issue 25, item 10). Admission answers as upstream: a JobSet whose
replicas * parallelism reach int32's maximum is valid. The budget stops the simulation only when
the Jobs or pods would be created, with an error naming the object, and pods are never counted
where nothing simulates them (``simulate=False``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import jobset_ref
from fakekube import FakeCluster, SimulationError
from jobset_ref.api.defaulting import apply_schema_defaults, default_jobset
from jobset_ref.api.validation import validate_create

MAX_INT32 = 2**31 - 1
# NonIndexed: an Indexed Job may not have more than 100000 completions and parallelism.
JOB_SPEC = {"completionMode": "NonIndexed",
            "template": {"spec": {"containers": [{"name": "c", "image": "b"}], "restartPolicy": "Never"}}}


def jobset(replicas: int, parallelism: int = 1, name: str = "js") -> dict[str, Any]:
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": name},
            "spec": {"replicatedJobs": [{"name": "w", "replicas": replicas,
                                         "template": {"spec": {**copy.deepcopy(JOB_SPEC), "parallelism": parallelism,
                                                               "completions": parallelism}}}]}}


def cluster_with(*, simulate: bool, controller: bool = True) -> FakeCluster:
    cluster = FakeCluster(seed=0, simulate=simulate)
    jobset_ref.install(cluster, controller=controller)
    return cluster


@pytest.mark.parametrize(("replicas", "parallelism"), [(1, MAX_INT32), (MAX_INT32, 1), (3, MAX_INT32 // 3)])
def test_admission_accepts_a_jobset_at_int32_max_as_upstream(replicas: int, parallelism: int) -> None:
    admitted = apply_schema_defaults(default_jobset(apply_schema_defaults(jobset(replicas, parallelism))))
    assert validate_create(admitted) == []
    for simulate in (False, True):
        cluster = cluster_with(simulate=simulate, controller=False)  # nothing would create its Jobs
        stored = cluster.create(jobset(replicas, parallelism))
        assert stored["spec"]["replicatedJobs"][0]["replicas"] == replicas
        cluster.advance(60)
        assert cluster.list("jobs", "default") == []
    # One past the maximum is upstream's own validation error, not the budget.
    with pytest.raises(Exception, match="the product of replicas and parallelism must not exceed 2147483647"):
        cluster_with(simulate=False, controller=False).create(jobset(2, MAX_INT32 // 2 + 1))


def test_a_dry_run_create_is_admitted_whatever_its_size() -> None:
    cluster = cluster_with(simulate=True)
    cluster.client.create(jobset(MAX_INT32), dry_run=True)
    assert cluster.list("jobsets.jobset.x-k8s.io", "default") == []


def test_without_simulated_pods_a_job_of_int32_max_pods_is_just_stored() -> None:
    """API-only mode: the reference controller creates the one Job; nothing creates its pods, so no
    pod budget applies."""
    cluster = cluster_with(simulate=False)
    cluster.create(jobset(1, MAX_INT32))
    [job] = cluster.list("jobs", "default")
    assert job["spec"]["parallelism"] == MAX_INT32
    cluster.advance(600)
    assert cluster.list("pods", "default") == []


def test_the_job_budget_stops_the_simulation_before_the_jobs_are_created() -> None:
    for simulate in (True, False):
        cluster = cluster_with(simulate=simulate)
        with pytest.raises(SimulationError) as err:
            cluster.create(jobset(20_000))
        assert str(err.value) == (
            "the JobSet default/js asks for 20000 Jobs; the simulation's budget is 10000 Jobs per JobSet "
            "(jobset_ref.controller.budget.MAX_SIMULATED_JOBS), so it stops here, before creating them. Kubernetes "
            "admits such a JobSet; make it smaller to simulate it, or delete it to go on")
        assert cluster.get("JobSet", "js")["metadata"]["name"] == "js"  # admitted, as upstream
        assert cluster.list("jobs", "default") == []
        assert any("jobset-controller reconcile default/js stopped the simulation: the JobSet default/js asks for "
                   "20000 Jobs" in line for line in cluster.trace.lines)
        # Deleting it lets the simulation go on.
        cluster.delete("JobSet", "js")
        cluster.apply(jobset(2, name="small"))
        cluster.advance(5)
        assert len(cluster.list("jobs", "default")) == 2


def test_the_pod_budget_stops_the_simulation_before_the_pods_are_created() -> None:
    cluster = cluster_with(simulate=True)
    cluster.add_nodes(1)
    with pytest.raises(SimulationError) as err:
        cluster.create(jobset(1, MAX_INT32))
    assert str(err.value) == (
        f"the Job default/js-w-0 would create {MAX_INT32} more pods, {MAX_INT32} in all; the simulation's budget is "
        "100000 pods (fakekube.components.job_controller.controller.MAX_SIMULATED_PODS), so it stops here, before "
        "creating them. Kubernetes admits such a Job; make it smaller to simulate it, or delete it to go on")
    assert [j["metadata"]["name"] for j in cluster.list("jobs", "default")] == ["js-w-0"]
    assert cluster.list("pods", "default") == []


def test_the_pod_budget_counts_the_pods_the_cluster_already_holds(monkeypatch: pytest.MonkeyPatch) -> None:
    from fakekube.components.job_controller import controller

    monkeypatch.setattr(controller, "MAX_SIMULATED_PODS", 5)
    cluster = cluster_with(simulate=True)
    cluster.add_nodes(1)
    cluster.apply(jobset(1, 3, name="first"))
    assert len(cluster.list("pods", "default")) == 3
    with pytest.raises(SimulationError, match=r"^the Job default/second-w-0 would create 3 more pods, 6 in all; "):
        cluster.apply(jobset(1, 3, name="second"))
    assert len(cluster.list("pods", "default")) == 3


def test_over_http_the_jobset_is_admitted_and_the_budget_is_said() -> None:
    """A client's create is admitted (as upstream); the budget the simulation then hits is not hidden:
    the request that ran it gets a 500 Status naming the JobSet, and the server records no crash."""
    import json

    cluster = cluster_with(simulate=True)
    with cluster.serve() as server:
        conn = server.connect(timeout=10)
        conn.request("POST", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets",
                     body=json.dumps(jobset(20_000)), headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        status = json.loads(resp.read())
        conn.close()
        assert server.errors == []
    assert (resp.status, status["reason"]) == (500, "InternalError")
    assert status["message"].startswith("Internal error occurred: the JobSet default/js asks for 20000 Jobs; the "
                                        "simulation's budget is 10000 Jobs per JobSet")
    assert cluster.get("JobSet", "js")["spec"]["replicatedJobs"][0]["replicas"] == 20_000


def test_over_http_a_budget_time_runs_into_is_said_and_time_goes_on() -> None:
    """The JobSet is reconciled by the served clock's thread, not a request: the budget is recorded in
    ``simulation_errors`` (``jobset-ref serve`` prints it), the thread lives on, and a JobSet within the
    budget, created after the big one is deleted, runs."""
    cluster = cluster_with(simulate=True)
    cluster.add_nodes(1)
    with cluster.serve(clock="quiescent", quiet_ms=20) as server:
        with cluster.lock:
            cluster.client.create(jobset(20_000))  # reconciled when the clock next runs the loop
        server.wait_for(lambda: server.simulation_errors, timeout=20)
        assert server.simulation_errors == [
            "the JobSet default/js asks for 20000 Jobs; the simulation's budget is 10000 Jobs per JobSet "
            "(jobset_ref.controller.budget.MAX_SIMULATED_JOBS), so it stops here, before creating them. Kubernetes "
            "admits such a JobSet; make it smaller to simulate it, or delete it to go on"]
        with pytest.raises(TimeoutError, match=r"; the simulation could not take: the JobSet default/js asks for "
                                               r"20000 Jobs; "):  # where a test waiting for it looks
            server.wait_for(lambda: cluster.list("jobs", "default"), timeout=0.2)
        with cluster.lock:
            cluster.client.delete("jobsets", "js")
            cluster.client.create(jobset(2, name="small"))
        server.wait_for(lambda: len(cluster.list("pods", "default")) == 2, timeout=20)
        assert server.errors == []
