"""A JobSet past the simulation's budget fails at admission, fast and with a clear error."""

from __future__ import annotations

import pytest

import jobset_ref
from fakekube import FakeCluster, SimulationError

JOB_SPEC = {"parallelism": 1, "completions": 1,
            "template": {"spec": {"containers": [{"name": "c", "image": "b"}], "restartPolicy": "Never"}}}


def test_a_million_replicas_is_a_simulation_error_at_admission() -> None:
    cluster = FakeCluster(seed=0)
    jobset_ref.install(cluster)
    rv = cluster.api.store.rv
    with pytest.raises(SimulationError) as err:
        cluster.create({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
                        "spec": {"replicatedJobs": [{"name": "w", "replicas": 1_000_000,
                                                     "template": {"spec": JOB_SPEC}}]}})
    assert str(err.value) == (
        "this JobSet asks for 1000000 Jobs running up to 1000000 pods at once; the simulation's budget is 10000 "
        "Jobs and 100000 pods per JobSet (jobset_ref.api.validation.MAX_SIMULATED_JOBS / MAX_SIMULATED_PODS): "
        "make it smaller")
    assert cluster.api.store.rv == rv


def test_over_http_the_budget_is_a_status_that_says_so() -> None:
    """kubectl (any client) gets a 500 Status naming the budget, not a generic internal error,
    and the server records no failure of its own."""
    import json

    cluster = FakeCluster(seed=0)
    jobset_ref.install(cluster)
    body = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"},
            "spec": {"replicatedJobs": [{"name": "w", "replicas": 20_000, "template": {"spec": JOB_SPEC}}]}}
    with cluster.serve() as server:
        conn = server.connect(timeout=10)
        conn.request("POST", "/apis/jobset.x-k8s.io/v1alpha2/namespaces/default/jobsets", body=json.dumps(body),
                     headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        status = json.loads(resp.read())
        conn.close()
        assert server.errors == []
    assert resp.status == 500
    assert status["reason"] == "InternalError"
    assert status["message"].startswith("Internal error occurred: this JobSet asks for 20000 Jobs running up to "
                                        "20000 pods at once; the simulation's budget is 10000 Jobs")
