"""fakekube.components.dns: EndpointSlices as the controller writes them, and CoreDNS-like answers (spec §5)."""

from __future__ import annotations

import re
from typing import Any

from fakekube.cluster import FakeCluster
from fakekube.components.dns import Dns
from fakekube.components.kubelet import Kubelet
from fakekube.components.scheduler import Scheduler


def make_cluster() -> tuple[FakeCluster, Dns, Kubelet]:
    cluster = FakeCluster(seed=0, simulate=False)
    cluster.add_component(Scheduler(cluster.runtime))
    kubelet = Kubelet(cluster.runtime)
    cluster.add_component(kubelet)
    dns = Dns(cluster.runtime)
    cluster.add_component(dns)
    cluster.add_node("n0", labels={"topology.kubernetes.io/zone": "us-a"})
    return cluster, dns, kubelet


def headless(name: str, selector: dict[str, str], *, publish: bool = False, namespace: str = "default",
             ports: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"clusterIP": "None", "selector": selector, "publishNotReadyAddresses": publish}
    if ports:
        spec["ports"] = ports
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": namespace,
                                                                 "labels": {"team": "ml"}}, "spec": spec}


def worker(name: str, hostname: str, subdomain: str, *, ready_after: str = "5", namespace: str = "default",
           labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": labels or {"js": "pytorch"},
                         "annotations": {"fakekube.io/ready-after-seconds": ready_after}},
            "spec": {"hostname": hostname, "subdomain": subdomain, "restartPolicy": "Never",
                     "containers": [{"name": "main", "image": "python:3.11",
                                     "ports": [{"name": "rdzv", "containerPort": 29500}]}]}}


def slices(cluster: FakeCluster, service: str) -> list[dict[str, Any]]:
    return cluster.list("endpointslices", label_selector=f"kubernetes.io/service-name={service}")


def test_per_pod_records_wait_for_readiness_without_publish_not_ready() -> None:
    cluster, dns, _ = make_cluster()
    cluster.apply(headless("pytorch", {"js": "pytorch"}))
    cluster.create(worker("pytorch-workers-0-0-abcde", "pytorch-workers-0-0", "pytorch"))
    assert dns.resolve("pytorch-workers-0-0.pytorch") == []
    cluster.advance(1.5)  # running at 1.01, ready at 6.01
    assert dns.resolve("pytorch-workers-0-0.pytorch") == []
    [s] = slices(cluster, "pytorch")
    assert s["endpoints"][0]["conditions"] == {"ready": False, "serving": False, "terminating": False}
    cluster.run_until(lambda: dns.resolve("pytorch-workers-0-0.pytorch") != [], timeout=10)
    assert cluster.elapsed == 6.010
    ip = ["10.244.0.1"]
    assert dns.resolve("pytorch-workers-0-0.pytorch") == ip
    assert dns.resolve("pytorch-workers-0-0.pytorch.default") == ip
    assert dns.resolve("pytorch-workers-0-0.pytorch.default.svc") == ip
    assert dns.resolve("pytorch-workers-0-0.pytorch.default.svc.cluster.local") == ip
    assert dns.resolve("pytorch-workers-0-0.pytorch.default.svc.cluster.local.") == ip
    assert dns.resolve("pytorch-workers-0-0.pytorch.default", namespace="other") == ip
    assert dns.resolve("pytorch-workers-0-0.pytorch", namespace="other") == []
    assert dns.resolve("pytorch") == ip and dns.resolve("pytorch.default.svc.cluster.local") == ip
    assert dns.resolve("10-244-0-1.default.pod.cluster.local") == ip
    for unknown in ("nobody.pytorch", "pytorch-workers-0-0.other", "example.com", "", "a.b.c.d.e.f.g"):
        assert dns.resolve(unknown) == []


def test_publish_not_ready_addresses_resolves_as_soon_as_the_pod_has_an_ip() -> None:
    cluster, dns, _ = make_cluster()
    cluster.apply(headless("pytorch", {"js": "pytorch"}, publish=True))
    cluster.create(worker("w0", "pytorch-workers-0-0", "pytorch", ready_after="100"))
    cluster.run_until(lambda: dns.resolve("pytorch-workers-0-0.pytorch") != [], timeout=10)
    assert cluster.elapsed == 0.010  # the IP comes with the sandbox, at bind time
    [s] = slices(cluster, "pytorch")
    assert s["endpoints"][0]["conditions"] == {"ready": True, "serving": False, "terminating": False}


def test_endpoint_slice_contents() -> None:
    cluster, _, _ = make_cluster()
    cluster.apply(headless("pytorch", {"js": "pytorch"},
                           ports=[{"name": "rdzv", "port": 29500, "targetPort": "rdzv"}]))
    [placeholder] = slices(cluster, "pytorch")
    assert placeholder["endpoints"] == []
    cluster.create(worker("w0", "pytorch-workers-0-0", "pytorch", ready_after="0"))
    cluster.create(worker("w1", "w1-host", "elsewhere", ready_after="0"))  # subdomain differs: no hostname
    cluster.create(worker("unrelated", "x", "pytorch", labels={"js": "other"}))
    cluster.advance(2)
    [s] = slices(cluster, "pytorch")
    svc = cluster.get("services", "pytorch")
    assert s["metadata"]["name"] == placeholder["metadata"]["name"]
    assert re.fullmatch(r"pytorch-[bcdfghjklmnpqrstvwxz2456789]{5}", s["metadata"]["name"])
    assert s["metadata"]["labels"] == {"team": "ml", "kubernetes.io/service-name": "pytorch",
                                       "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
                                       "service.kubernetes.io/headless": ""}
    assert s["metadata"]["ownerReferences"] == [{"apiVersion": "v1", "kind": "Service", "name": "pytorch",
                                                 "uid": svc["metadata"]["uid"], "controller": True,
                                                 "blockOwnerDeletion": True}]
    assert "endpoints.kubernetes.io/last-change-trigger-time" in s["metadata"]["annotations"]
    assert (s["addressType"], s["ports"]) == ("IPv4", [{"name": "rdzv", "port": 29500, "protocol": "TCP"}])
    pods = {p["metadata"]["name"]: p for p in cluster.list("pods")}
    assert s["endpoints"] == [
        {"addresses": ["10.244.0.1"], "conditions": {"ready": True, "serving": True, "terminating": False},
         "hostname": "pytorch-workers-0-0", "nodeName": "n0", "zone": "us-a",
         "targetRef": {"kind": "Pod", "namespace": "default", "name": "w0", "uid": pods["w0"]["metadata"]["uid"]}},
        {"addresses": ["10.244.0.2"], "conditions": {"ready": True, "serving": True, "terminating": False},
         "nodeName": "n0", "zone": "us-a",
         "targetRef": {"kind": "Pod", "namespace": "default", "name": "w1", "uid": pods["w1"]["metadata"]["uid"]}},
    ]


def test_terminating_and_finished_pods() -> None:
    cluster, dns, kubelet = make_cluster()
    cluster.apply(headless("svc", {"js": "pytorch"}))
    grace_pod = worker("slow", "slow", "svc", ready_after="0")
    grace_pod["metadata"]["annotations"]["fakekube.io/termination-seconds"] = "10"
    cluster.create(grace_pod)
    cluster.create(worker("done", "done", "svc", ready_after="0"))
    cluster.advance(2)
    assert dns.resolve("svc") == ["10.244.0.1", "10.244.0.2"]
    kubelet.complete_pod("done", "default")
    cluster.delete("pods", "slow")
    [s] = slices(cluster, "svc")
    assert [e["targetRef"]["name"] for e in s["endpoints"]] == ["slow"]
    assert s["endpoints"][0]["conditions"] == {"ready": False, "serving": True, "terminating": True}
    assert dns.resolve("svc") == [] and dns.resolve("slow.svc") == []
    cluster.advance(10)
    [s] = slices(cluster, "svc")
    assert s["endpoints"] == []


def test_cluster_ip_service_and_many_endpoints_split_into_slices() -> None:
    cluster, dns, _ = make_cluster()
    cluster.apply({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "api"},
                   "spec": {"clusterIP": "10.96.0.10", "selector": {"js": "pytorch"},
                            "ports": [{"port": 80, "targetPort": 8080}]}})
    for i in range(105):
        cluster.client.create(worker(f"w{i:03d}", f"w{i:03d}", "api", ready_after="0"))
    cluster.advance(2)
    got = sorted(len(s["endpoints"]) for s in slices(cluster, "api"))
    assert got == [5, 100]
    assert dns.resolve("api") == ["10.96.0.10"]
    assert dns.resolve("w000.api") == []  # per-pod records exist only for headless Services


def _pod(status: dict[str, Any], *, restart_policy: str = "Never", deleting: bool = False) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": "p", "namespace": "default"}
    if deleting:
        meta["deletionTimestamp"] = "2030-01-01T00:00:01Z"
    return {"metadata": meta, "spec": {"restartPolicy": restart_policy}, "status": status}


def test_endpoint_rules_are_pure_functions_shared_with_the_invariants() -> None:
    """The rules the invariants reuse: a pod reporting only ``podIPs`` is an endpoint at its first IP."""
    from fakekube.machinery.endpoints import endpoint_address, endpoint_ready, in_endpoints

    ready = [{"type": "Ready", "status": "True"}]
    only_ips = _pod({"phase": "Running", "podIPs": [{"ip": "10.244.0.9"}], "conditions": ready})
    assert in_endpoints(only_ips) and endpoint_address(only_ips) == "10.244.0.9"
    assert endpoint_ready(only_ips, False)
    assert not in_endpoints(_pod({"phase": "Running"}))                       # no IP yet
    assert not in_endpoints(_pod({"phase": "Failed", "podIP": "10.244.0.1"}))  # Never: terminal pods leave
    assert in_endpoints(_pod({"phase": "Failed", "podIP": "10.244.0.1"}, restart_policy="OnFailure"))
    terminating = _pod({"phase": "Running", "podIP": "10.244.0.1", "conditions": ready}, deleting=True)
    assert not endpoint_ready(terminating, False) and endpoint_ready(terminating, True)


def test_resolver_follows_a_slice_through_updates_relabels_and_deletion() -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    dns = Dns(cluster.runtime)
    cluster.add_component(dns)
    for name in ("a", "b"):  # headless, without a selector: the slices are the user's own
        cluster.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": name},
                        "spec": {"clusterIP": "None", "ports": [{"port": 80}]}})

    def write(service: str, endpoints: list[tuple[str, str, bool]]) -> None:
        body = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"name": "s", "labels": {"kubernetes.io/service-name": service}},
                "addressType": "IPv4",
                "endpoints": [{"addresses": [ip], "hostname": host, "conditions": {"ready": ready}}
                              for host, ip, ready in endpoints]}
        current = cluster.api.store.get("endpointslices.discovery.k8s.io", "default", "s")
        if current is None:
            cluster.create(body)
        else:
            body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"]
            cluster.update(body)
        cluster.run_until_idle()

    write("a", [("h0", "10.0.0.1", True), ("h1", "10.0.0.2", True)])
    assert (dns.resolve("h0.a"), dns.resolve("h1.a"), dns.resolve("a")) == \
        (["10.0.0.1"], ["10.0.0.2"], ["10.0.0.1", "10.0.0.2"])
    write("a", [("h1", "10.0.0.3", True), ("h2", "10.0.0.4", False)])  # h0 leaves, h1 moves, h2 not ready
    assert (dns.resolve("h0.a"), dns.resolve("h1.a"), dns.resolve("h2.a"), dns.resolve("a")) == \
        ([], ["10.0.0.3"], [], ["10.0.0.3"])
    write("b", [("h1", "10.0.0.5", True)])  # the slice now belongs to another Service
    assert (dns.resolve("h1.a"), dns.resolve("a"), dns.resolve("h1.b"), dns.resolve("b")) == \
        ([], [], ["10.0.0.5"], ["10.0.0.5"])
    cluster.delete("endpointslices", "s")
    cluster.run_until_idle()
    assert (dns.resolve("h1.b"), dns.resolve("b")) == ([], [])
