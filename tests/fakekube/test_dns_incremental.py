"""The incremental EndpointSlice controller writes exactly what a straightforward one would.

``ReferenceDns`` is the plain algorithm (every reconcile rebuilds the Service's endpoints from its
pods and re-reads every slice); random workloads run once with each, and their traces (every write,
its content and its virtual time) must be identical, including under informer relists, delayed
watch events (so slices lag behind writes and endpoints get held twice), failed writes, slices
deleted by others, selector and zone changes.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from fakekube import Conflict, Reactor
from fakekube._core.clock import format_time
from fakekube.cluster import FakeCluster
from fakekube.components import dns as dns_module
from fakekube.components.dns import (
    ANNOTATION_TRIGGER_TIME,
    LABEL_HEADLESS,
    LABEL_MANAGED_BY,
    LABEL_SERVICE_NAME,
    MANAGED_BY,
    MAX_ENDPOINTS_PER_SLICE,
    Dns,
)
from fakekube.errors import NotFound
from fakekube.machinery import selectors as sel
from fakekube.machinery.endpoints import in_endpoints
from fakekube.runtime.controller import Result


class ReferenceDns(Dns):
    """Every pod event touches the Services sharing a label pair with it; every reconcile rebuilds."""

    def start(self) -> None:
        super().start()
        self._pods.add_index("test/ns-label", lambda p: [f"{p['metadata'].get('namespace')}/{k}={v}"
                                                         for k, v in (p["metadata"].get("labels") or {}).items()])

    def _on_pod(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        ns = obj["metadata"].get("namespace") or ""
        keys: dict[tuple[str, str], None] = {}
        for pod in (obj, old):
            for k, v in ((pod or {}).get("metadata", {}).get("labels") or {}).items():
                for svc in self._services.by_index("dns/selector", f"{ns}/{k}={v}"):
                    keys[(ns, svc["metadata"]["name"])] = None
        for key in sorted(keys):
            self._touch(key)

    def _reconcile(self, key: tuple[str, str]) -> Result | None:
        ns, name = key
        svc = self._services.get(name, ns)
        selector = ((svc or {}).get("spec") or {}).get("selector")
        existing = [s for s in self._slices.by_index("dns/service", f"{ns}/{name}")
                    if (s["metadata"].get("labels") or {}).get(LABEL_MANAGED_BY) == MANAGED_BY]
        if svc is None or not selector:
            self._pending_since.pop(key, None)
            return None
        label_sel = sel.selector_from_set(selector)
        pair = min(selector.items(), key=lambda kv: self._pods.count_index("test/ns-label", f"{ns}/{kv[0]}={kv[1]}"))
        pods = [p for p in self._pods.by_index("test/ns-label", f"{ns}/{pair[0]}={pair[1]}")
                if label_sel.matches(p["metadata"].get("labels") or {}) and in_endpoints(p)]
        publish = bool((svc.get("spec") or {}).get("publishNotReadyAddresses"))
        desired = {p["metadata"]["uid"]: self._endpoint(p, publish, name) for p in pods}
        ports = self._ports(svc, pods)
        # Keep endpoints in the slice that holds them; fill slices with room; then new slices.
        plan: list[tuple[dict[str, Any] | None, list[dict[str, Any]]]] = []
        placed: set[str] = set()
        for s in sorted(existing, key=lambda s: s["metadata"]["name"]):
            kept = []
            for ep in s.get("endpoints") or []:
                uid = (ep.get("targetRef") or {}).get("uid")
                if uid in desired and uid not in placed:
                    kept.append(desired[uid])
                    placed.add(uid)
            plan.append((s, kept))
        fresh = [desired[p["metadata"]["uid"]] for p in pods if p["metadata"]["uid"] not in placed]
        for i, (s, eps) in enumerate(plan):
            room = MAX_ENDPOINTS_PER_SLICE - len(eps)
            if room > 0 and fresh:
                plan[i] = (s, eps + fresh[:room])
                fresh = fresh[room:]
        while fresh:
            plan.append((None, fresh[:MAX_ENDPOINTS_PER_SLICE]))
            fresh = fresh[MAX_ENDPOINTS_PER_SLICE:]
        if desired:
            plan = [(s, eps) for s, eps in plan if eps]
        else:  # a placeholder slice without endpoints
            plan = [(plan[0][0], [])] if plan else [(None, [])]
        keep_names = {s["metadata"]["name"] for s, _ in plan if s is not None}
        trigger = format_time(self._pending_since.pop(key, self.rt.now))
        labels = {**(svc["metadata"].get("labels") or {}), LABEL_SERVICE_NAME: name, LABEL_MANAGED_BY: MANAGED_BY}
        if (svc.get("spec") or {}).get("clusterIP") == "None":
            labels[LABEL_HEADLESS] = ""
        owner = {"apiVersion": "v1", "kind": "Service", "name": name, "uid": svc["metadata"]["uid"],
                 "controller": True, "blockOwnerDeletion": True}
        for s, eps in plan:
            body: dict[str, Any] = {"addressType": "IPv4", "endpoints": eps, "ports": ports}
            if s is None:
                obj = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                       "metadata": {"generateName": f"{name}-", "namespace": ns, "labels": labels,
                                    "annotations": {ANNOTATION_TRIGGER_TIME: trigger},
                                    "ownerReferences": [owner]}, **body}
                self.client.create(obj)
                continue
            current = {k: s.get(k) for k in ("addressType", "endpoints", "ports")}
            current["endpoints"] = current["endpoints"] or []
            if current == body and (s["metadata"].get("labels") or {}) == labels:
                continue
            new = {**s, **body, "metadata": {**s["metadata"], "labels": labels,
                                              "annotations": {**(s["metadata"].get("annotations") or {}),
                                                              ANNOTATION_TRIGGER_TIME: trigger}}}
            self.client.update(new)
        for s in existing:
            if s["metadata"]["name"] not in keep_names:
                try:
                    self.client.delete("endpointslices", s["metadata"]["name"], ns,
                                       preconditions={"uid": s["metadata"]["uid"]})
                except (NotFound, Conflict):
                    pass
        return None


ZONES = ("us-a", "us-b", None)


def run_workload(seed: int, monkeypatch: pytest.MonkeyPatch, dns_class: type[Dns]) -> tuple[list[str], int]:
    """A random mix of everything that moves endpoints; returns the trace, then every slice written,
    and the number of EndpointSlice writes."""
    monkeypatch.setattr(dns_module, "Dns", dns_class)
    rng = random.Random(seed)
    cluster = FakeCluster(seed=seed, trace=True)
    assert type(cluster.dns) is dns_class
    cluster.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "other"}})
    for i in range(3):
        cluster.add_node(f"n{i}", labels={"topology.kubernetes.io/zone": "us-a"}, capacity={"pods": "500"})
    services = {
        "a": {"clusterIP": "10.96.0.10", "selector": {"app": "x"},
              "ports": [{"name": "http", "port": 80, "targetPort": "http"}]},
        "b": {"clusterIP": "None", "selector": {"app": "x", "tier": "t1"}},
        "c": {"clusterIP": "None", "selector": {"tier": "t2"}, "publishNotReadyAddresses": True},
    }

    def service(name: str, namespace: str = "default") -> dict[str, Any]:
        return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": namespace},
                "spec": dict(services[name])}

    for name in services:
        cluster.create(service(name))
    cluster.create(service("a", "other"))
    written = cluster.watch("endpointslices")
    serial = 0

    def create_pod(namespace: str = "default", labels: dict[str, str] | None = None) -> None:
        nonlocal serial
        serial += 1
        if labels is None:
            labels = {k: rng.choice(values) for k, values in (("app", ("x", "y")), ("tier", ("t1", "t2")))
                      if rng.random() < 0.8}
        subdomain = rng.choice(["b", "c", "a", None])
        annotations = {"fakekube.io/ready-after-seconds": str(rng.choice([0, 1, 3])),
                       "fakekube.io/termination-seconds": str(rng.choice([0, 2]))}
        if rng.random() < 0.3:
            annotations["fakekube.io/run-seconds"] = str(rng.choice([2, 5]))
        spec: dict[str, Any] = {"restartPolicy": rng.choice(["Never", "OnFailure", "Always"]),
                                "containers": [{"name": "main", "image": "img",
                                                "ports": [{"name": "http", "containerPort": 8000 + serial % 3}]}]}
        if subdomain:
            spec |= {"hostname": f"h{serial}", "subdomain": subdomain}
        cluster.client.create({"apiVersion": "v1", "kind": "Pod",
                               "metadata": {"name": f"p{serial:03d}", "namespace": namespace, "labels": labels,
                                            "annotations": annotations}, "spec": spec})

    def some(kind: str, namespace: str | None = "default") -> dict[str, Any] | None:
        objs = cluster.list(kind, namespace=namespace)
        return rng.choice(objs) if objs else None

    for _ in range(70):
        op = rng.randrange(16)
        if op <= 3:
            create_pod(rng.choice(["default", "default", "other"]))
        elif op == 4 and (pod := some("pods")):
            labels = {"app": rng.choice(["x", "y", None]), "tier": rng.choice(["t1", "t2", None])}
            cluster.patch("pods", pod["metadata"]["name"], {"metadata": {"labels": labels}})
        elif op == 5 and (pod := some("pods")):
            cluster.delete("pods", pod["metadata"]["name"])
        elif op == 6:
            for _ in range(rng.randrange(20, 110)):
                create_pod(labels={"app": "x", "tier": rng.choice(["t1", "t2"])})
        elif op == 7 and (node := some("nodes", None)):
            cluster.patch("nodes", node["metadata"]["name"],
                          {"metadata": {"labels": {"topology.kubernetes.io/zone": rng.choice(ZONES)}}}, None)
        elif op == 8:
            change = rng.choice([{"spec": {"selector": {"app": rng.choice(["x", "y"])}}},
                                 {"spec": {"publishNotReadyAddresses": rng.random() < 0.5}},
                                 {"metadata": {"labels": {"team": rng.choice(["ml", "infra"])}}}])
            cluster.patch("services", rng.choice(list(services)), change)
        elif op == 9 and cluster.exists("services", "b"):
            cluster.delete("services", "b")
            cluster.advance(0.5)
            cluster.create(service("b"))
        elif op == 10:
            cluster.runtime.restart_informers()
        elif op == 11:
            cluster.inject(Reactor(resource="endpointslices", delay_seconds=rng.choice([0.001, 0.5, 2]),
                                   times=rng.randrange(1, 6)))
        elif op == 12:
            cluster.inject(Reactor(verb="update", resource="endpointslices", times=1,
                                   error=Conflict("injected conflict")))
        elif op == 13 and (s := some("endpointslices")):
            cluster.delete("endpointslices", s["metadata"]["name"])
        elif op == 14 and (s := some("endpointslices")):  # another writer's copy: endpoints held twice
            meta = s["metadata"]
            cluster.create({**s, "metadata": {"generateName": meta["name"][:-5], "namespace": meta["namespace"],
                                              "labels": meta["labels"]}})
        elif op == 15:  # informers miss deletions (and a node), then relist
            pods, nodes = cluster.runtime.informer("pods"), cluster.runtime.informer("nodes")
            pods.intercept = nodes.intercept = lambda event: event.type == "DELETED"
            for _ in range(3):
                if pod := some("pods"):
                    cluster.delete("pods", pod["metadata"]["name"], grace_period_seconds=0)
            if (node := some("nodes", None)) and len(cluster.list("nodes")) > 1:
                cluster.delete("nodes", node["metadata"]["name"], None)
            cluster.advance(rng.choice([0, 1]))
            pods.intercept = nodes.intercept = None
            cluster.runtime.restart_informers()
        cluster.advance(rng.choice([0, 0.001, 0.5, 1, 4]))
    cluster.advance(30)
    contents = [f"{ev.type} {json.dumps(ev.object, sort_keys=True)}" for ev in written]
    slice_writes = sum(1 for r in cluster.trace.records if r.is_write and r.kind == "EndpointSlice")
    return [*cluster.trace.lines, *contents], slice_writes


@pytest.mark.parametrize("seed", range(8))
def test_incremental_controller_writes_what_a_full_rebuild_would(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    expected, slice_writes = run_workload(seed, monkeypatch, ReferenceDns)
    got, _ = run_workload(seed, monkeypatch, Dns)
    assert slice_writes > 50  # the workload does move endpoints
    for i, (want, have) in enumerate(zip(expected, got, strict=False)):
        assert have == want, f"trace line {i} differs; before it:\n" + "\n".join(expected[max(0, i - 8):i])
    assert len(got) == len(expected)


@pytest.mark.parametrize("dns_class", [ReferenceDns, Dns])
def test_a_controller_started_late_sees_the_pods_already_cached(dns_class: type[Dns]) -> None:
    cluster = FakeCluster(seed=0, simulate=False)
    cluster.add_node("n0", labels={"topology.kubernetes.io/zone": "us-a"})
    cluster.runtime.informer("pods")  # another component's shared informer, filled before DNS starts
    cluster.create({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc"},
                    "spec": {"clusterIP": "None", "selector": {"app": "x"}}})
    pod = cluster.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p0", "labels": {"app": "x"}},
                          "spec": {"nodeName": "n0", "containers": [{"name": "main", "image": "img"}]}})
    pod["status"] = {"phase": "Running", "podIP": "10.244.0.7"}
    cluster.update_status(pod)
    cluster.run_until_idle()
    dns = cluster.add_component(dns_class(cluster.runtime))
    cluster.run_until_idle()
    [s] = cluster.list("endpointslices")
    assert [(e["addresses"], e.get("zone")) for e in s["endpoints"]] == [(["10.244.0.7"], "us-a")]
    cluster.patch("nodes", "n0", {"metadata": {"labels": {"topology.kubernetes.io/zone": "us-b"}}}, None)
    cluster.create({**pod, "metadata": {"name": "p1", "labels": {"app": "x"}}})  # a reconcile, not about p0
    cluster.run_until_idle()
    [s] = cluster.list("endpointslices")
    assert [(e["addresses"], e.get("zone")) for e in s["endpoints"]] == [(["10.244.0.7"], "us-b")]
    assert dns.resolve("svc") == []  # not Ready
