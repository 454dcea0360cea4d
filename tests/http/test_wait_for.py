"""``ClusterServer.wait_for`` with a real client inside the predicate, under each clock: the
predicate runs without the cluster lock, so the server answers it and the clock goes on."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
from kubernetes import client, config

import jobset_ref
from fakekube import FakeCluster
from fakekube.http.server import ClusterServer

GROUP, VERSION, PLURAL = "jobset.x-k8s.io", "v1alpha2", "jobsets"
KUBECTL = shutil.which("kubectl")

#: A JobSet of two pods that run 60 virtual seconds.
SIXTY = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "JobSet", "metadata": {"name": "sixty"},
         "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {
             "parallelism": 2, "completions": 2, "backoffLimit": 0,
             "template": {"metadata": {"annotations": {"fakekube.io/run-seconds": "60"}},
                          "spec": {"restartPolicy": "Never",
                                   "containers": [{"name": "c", "image": "busybox"}]}}}}}]}}


@pytest.fixture
def cluster() -> FakeCluster:
    c = FakeCluster(seed=3)
    jobset_ref.install(c)
    c.add_nodes(2)
    return c


def _api(server: ClusterServer) -> client.CustomObjectsApi:
    return client.CustomObjectsApi(config.new_client_from_config(config_file=server.kubeconfig))


def _completed(api: client.CustomObjectsApi) -> bool:
    """Asked over HTTP; a blocked server fails the request within 2 wall seconds instead of hanging."""
    obj: dict[str, Any] = api.get_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "sixty",
                                                           _request_timeout=2)
    return any(c["type"] == "Completed" and c["status"] == "True"
               for c in (obj.get("status") or {}).get("conditions") or [])


@pytest.fixture
def served(cluster: FakeCluster, request: pytest.FixtureRequest) -> Iterator[ClusterServer]:
    with cluster.serve(**request.param) as server:
        cluster.create(SIXTY)
        yield server


@pytest.mark.parametrize("served", [{"clock": "realtime", "speed": 600}, {"clock": "quiescent", "quiet_ms": 20}],
                         indirect=True, ids=["realtime", "quiescent"])
def test_a_predicate_asking_with_the_kubernetes_client_lets_time_run(served: ClusterServer) -> None:
    """Under realtime at 600x, 60 virtual seconds take a tenth of a wall second: the JobSet is
    Completed well within 5 wall seconds, seen through the client the predicate uses."""
    api = _api(served)
    served.wait_for(lambda: _completed(api), timeout=5)
    assert served.cluster.elapsed >= 60


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH")
@pytest.mark.parametrize("served", [{"clock": "manual"}, {"clock": "realtime", "speed": 600},
                                    {"clock": "quiescent", "quiet_ms": 20}],
                         indirect=True, ids=["manual", "realtime", "quiescent"])
def test_a_predicate_running_kubectl_is_answered(served: ClusterServer, tmp_path: Any) -> None:
    env = {**os.environ, "KUBECONFIG": served.kubeconfig, "KUBECACHEDIR": str(tmp_path)}

    def pods() -> list[str]:
        out = subprocess.run([str(KUBECTL), "get", "pods", "-o", "name", "--request-timeout=3s"], env=env,
                             capture_output=True, text=True, timeout=10, check=False)
        return out.stdout.split() if out.returncode == 0 else []

    assert served.wait_for(lambda: len(pods()) == 2, timeout=8)
    if served.clock.name == "manual":
        served.cluster.advance(90)  # only the test moves a manual clock
    api = _api(served)
    served.wait_for(lambda: _completed(api), timeout=5)
