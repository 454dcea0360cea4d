"""``GET .../pods/{name}/log``: the API server's checks (container named and known, pod bound to a
node), then the kubelet's (the container started), then the ``fakekube.io/log`` annotation."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest

from fakekube import FakeCluster
from fakekube.http.server import ClusterServer

PODS = "/api/v1/namespaces/default/pods"


@pytest.fixture
def cluster() -> FakeCluster:
    c = FakeCluster(seed=1)
    c.add_nodes(1)
    return c


@pytest.fixture
def server(cluster: FakeCluster) -> Iterator[ClusterServer]:
    with cluster.serve() as s:
        yield s


def pod(name: str, *containers: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "annotations": {"fakekube.io/log": "hello\nworld\n"}},
            "spec": {"containers": [{"name": c, "image": "busybox"} for c in containers]}}


def get_log(server: ClusterServer, path: str) -> tuple[int, Any]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    conn.request("GET", path)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    if (resp.getheader("Content-Type") or "").startswith("application/json"):
        return resp.status, json.loads(data)
    return resp.status, data.decode()


def test_the_log_follows_the_pod_from_unbound_to_started(cluster: FakeCluster, server: ClusterServer) -> None:
    cluster.create(pod("p", "main"))
    code, status = get_log(server, f"{PODS}/p/log")
    assert (code, status["reason"], status["message"]) == (400, "BadRequest", "pod p does not have a host assigned")
    cluster.run_until(lambda: bool(cluster.get("Pod", "p")["spec"].get("nodeName")), timeout=10)
    code, status = get_log(server, f"{PODS}/p/log")
    assert (code, status["message"]) == (400, 'container "main" in pod "p" is waiting to start: ContainerCreating')
    cluster.run_until(lambda: cluster.get("Pod", "p")["status"].get("phase") == "Running", timeout=60)
    assert get_log(server, f"{PODS}/p/log") == (200, "hello\nworld\n")
    assert get_log(server, f"{PODS}/p/log?container=main") == (200, "hello\nworld\n")


def test_a_pod_with_several_containers_needs_a_known_container_name(cluster: FakeCluster,
                                                                   server: ClusterServer) -> None:
    cluster.create(pod("two", "a", "b"))
    code, status = get_log(server, f"{PODS}/two/log")
    assert (code, status["message"]) == (400, "a container name must be specified for pod two, choose one of: [a b]")
    code, status = get_log(server, f"{PODS}/two/log?container=c")
    assert (code, status["message"]) == (400, "container c is not valid for pod two")
