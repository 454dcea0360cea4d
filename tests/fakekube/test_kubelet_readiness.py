"""fakekube.components.kubelet: readiness gates, probes on virtual time, init containers (spec §3.2)."""

from __future__ import annotations

from typing import Any

from fakekube._core.jsonutil import deep_copy
from fakekube.cluster import FakeCluster
from fakekube.components.dns import Dns
from fakekube.components.kubelet import Kubelet
from fakekube.components.scheduler import Scheduler

GATE = "example.com/lb-registered"


def make_cluster() -> tuple[FakeCluster, Kubelet]:
    cluster = FakeCluster(seed=0, simulate=False)
    cluster.add_component(Scheduler(cluster.runtime))
    kubelet = Kubelet(cluster.runtime)
    cluster.add_component(kubelet)
    cluster.add_node("n0")
    return cluster, kubelet


def pod(name: str, *, annotations: dict[str, str] | None = None, containers: list[dict[str, Any]] | None = None,
        restart: str = "Never", **spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "labels": {"app": "x"}, "annotations": annotations or {}},
            "spec": {"restartPolicy": restart, "hostname": name, "subdomain": "svc",
                     "containers": containers or [{"name": "main", "image": "busybox"}], **spec}}


def status(cluster: FakeCluster, name: str) -> dict[str, Any]:
    return cluster.get("pods", name)["status"]


def condition(cluster: FakeCluster, name: str, ctype: str) -> dict[str, Any]:
    return next(c for c in status(cluster, name)["conditions"] if c["type"] == ctype)


def brief(cluster: FakeCluster, name: str, ctype: str) -> tuple[str, str | None, str | None]:
    c = condition(cluster, name, ctype)
    return c["status"], c.get("reason"), c.get("message")


def set_condition(cluster: FakeCluster, name: str, ctype: str, value: str) -> None:
    """What a load-balancer controller does: write its own condition through pods/status."""
    p = deep_copy(cluster.get("pods", name))
    conds = [c for c in p["status"]["conditions"] if c["type"] != ctype]
    conds.append({"type": ctype, "status": value, "lastProbeTime": None,
                  "lastTransitionTime": "2030-01-01T00:00:00Z", "reason": "LBSynced"})
    p["status"]["conditions"] = conds
    cluster.update_status(p)


# ---------------------------------------------------------------------------- readiness gates
def test_ready_waits_for_every_readiness_gate_while_containers_ready_follows_the_containers() -> None:
    cluster, _ = make_cluster()
    cluster.create(pod("p", readinessGates=[{"conditionType": GATE}, {"conditionType": "example.com/two"}]))
    cluster.advance(1.5)
    assert brief(cluster, "p", "ContainersReady") == ("True", None, None)
    assert brief(cluster, "p", "Ready") == (
        "False", "ReadinessGatesNotReady",
        'corresponding condition of pod readiness gate "example.com/lb-registered" does not exist., '
        'corresponding condition of pod readiness gate "example.com/two" does not exist.')
    set_condition(cluster, "p", GATE, "False")
    cluster.advance(0.1)
    assert brief(cluster, "p", "Ready") == (
        "False", "ReadinessGatesNotReady",
        'the status of pod readiness gate "example.com/lb-registered" is not "True", but False, '
        'corresponding condition of pod readiness gate "example.com/two" does not exist.')
    cluster.advance(2)
    set_condition(cluster, "p", GATE, "True")
    set_condition(cluster, "p", "example.com/two", "True")
    cluster.advance(0.1)
    ready = condition(cluster, "p", "Ready")
    assert (ready["status"], ready.get("reason"), ready["lastTransitionTime"]) == ("True", None,
                                                                                   "2030-01-01T00:00:03Z")
    # The gate conditions are the client's: the kubelet keeps them as written.
    gate = condition(cluster, "p", GATE)
    assert (gate["status"], gate["reason"]) == ("True", "LBSynced")


def test_unready_containers_win_over_gates_and_the_kubelet_keeps_foreign_conditions() -> None:
    cluster, kubelet = make_cluster()
    cluster.create(pod("p", restart="Always", readinessGates=[{"conditionType": GATE}]))
    cluster.advance(1.5)
    set_condition(cluster, "p", GATE, "True")
    cluster.advance(0.1)
    assert brief(cluster, "p", "Ready") == ("True", None, None)
    kubelet.fail_pod("p", "default")  # restart in place: containers unready during the back-off
    cluster.advance(0.1)
    assert brief(cluster, "p", "Ready") == ("False", "ContainersNotReady", "containers with unready status: [main]")
    assert brief(cluster, "p", "ContainersReady") == ("False", "ContainersNotReady",
                                                      "containers with unready status: [main]")
    assert brief(cluster, "p", GATE) == ("True", "LBSynced", None)
    cluster.advance(10)
    assert brief(cluster, "p", "Ready") == ("True", None, None)


def test_endpoints_and_dns_follow_ready_not_containers_ready() -> None:
    cluster, _ = make_cluster()
    dns = Dns(cluster.runtime)
    cluster.add_component(dns)
    cluster.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
                   "spec": {"clusterIP": "None", "selector": {"app": "x"}}})
    cluster.create(pod("p", readinessGates=[{"conditionType": GATE}]))
    cluster.advance(5)
    assert dns.resolve("p.svc") == []
    set_condition(cluster, "p", GATE, "True")
    cluster.advance(1)
    assert dns.resolve("p.svc") == ["10.244.0.1"]
