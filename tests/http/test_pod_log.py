"""``GET .../pods/{name}/log``: the API server's checks (container named and known, pod bound to a
node), then the kubelet's (the container started), then the ``fakekube.io/log`` annotation, cut by
``tailLines``/``limitBytes``: over HTTP, then ``read_log`` on its own."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from fakekube import FakeCluster
from fakekube.errors import BadRequest, Invalid
from fakekube.http.pod_logs import read_log
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
    conn = server.connect(timeout=10)
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


# ---------------------------------------------------------------------- read_log on its own

def unit_pod(*containers: str, log: str = "one\ntwo\nthree\n", running: bool = True,
        init: tuple[str, ...] = ()) -> dict[str, Any]:
    state = {"running": {"startedAt": "2030-01-01T00:00:01Z"}} if running else \
        {"waiting": {"reason": "ContainerCreating"}}
    return {"metadata": {"name": "p", "annotations": {"fakekube.io/log": log}},
            "spec": {"nodeName": "node-0", "containers": [{"name": c} for c in containers],
                     **({"initContainers": [{"name": c} for c in init]} if init else {})},
            "status": {"containerStatuses": [{"name": c, "state": state} for c in containers]}}


def test_the_whole_log_or_its_tail_or_its_first_bytes() -> None:
    assert read_log(unit_pod("c")) == "one\ntwo\nthree\n"
    assert read_log(unit_pod("c"), tail=2) == "two\nthree\n"
    assert read_log(unit_pod("c"), tail=10) == "one\ntwo\nthree\n"
    assert read_log(unit_pod("c"), tail=0) == ""
    assert read_log(unit_pod("c"), limit=5) == "one\nt"
    assert read_log(unit_pod("c"), tail=1, limit=3) == "thr"  # the tail first, then the byte limit
    assert read_log(unit_pod("c", log="last line without newline"), tail=1) == "last line without newline"


def test_negative_options_are_invalid_pod_log_options() -> None:
    with pytest.raises(Invalid) as caught:
        read_log(unit_pod("c"), tail=-1, limit=0)
    assert caught.value.status["message"] == (
        'PodLogOptions "p" is invalid: [tailLines: Invalid value: -1: must be greater than or equal to 0, '
        "limitBytes: Invalid value: 0: must be greater than 0]")


def test_the_container_is_named_when_the_pod_has_several() -> None:
    assert read_log(unit_pod("a", "b"), container="b") == "one\ntwo\nthree\n"
    with pytest.raises(BadRequest, match=r"^a container name must be specified for pod p, choose one of: \[a b\]$"):
        read_log(unit_pod("a", "b"))
    with pytest.raises(BadRequest, match=r"choose one of: \[a b\] or one of the init containers: \[setup\]$"):
        read_log(unit_pod("a", "b", init=("setup",)))
    with pytest.raises(BadRequest, match=r"^container zz is not valid for pod p$"):
        read_log(unit_pod("a"), container="zz")


def test_a_container_that_has_not_started_has_no_log() -> None:
    with pytest.raises(BadRequest, match=r'^container "c" in pod "p" is waiting to start: ContainerCreating$'):
        read_log(unit_pod("c", running=False))
