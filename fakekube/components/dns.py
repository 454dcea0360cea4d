"""Service discovery: the EndpointSlice controller and a resolver answering as CoreDNS would.

**EndpointSlice controller** (``staging/src/k8s.io/endpointslice``, ``spec/kubernetes.md`` §5.2).
For every Service with a non-empty ``spec.selector`` it keeps ``discovery.k8s.io/v1``
EndpointSlices named ``<svc>-<5 random chars>`` (``generateName``), labelled
``kubernetes.io/service-name: <svc>``, ``endpointslice.kubernetes.io/managed-by:
endpointslice-controller.k8s.io`` (and ``service.kubernetes.io/headless: ""`` for headless
Services, plus the Service's own labels), annotated
``endpoints.kubernetes.io/last-change-trigger-time`` (RFC 3339, when the first change not yet
written was observed) and owned by the Service (``controller``, ``blockOwnerDeletion``).
``addressType: IPv4``; ``ports`` from the Service (``null`` when it has none; a named
``targetPort`` is looked up in the first endpoint pod's container ports). Members are the
selected pods in the Service's namespace that have an IP and are not terminal (``Never``:
Succeeded/Failed; ``OnFailure``: Succeeded); terminating pods stay in. Each endpoint:
``addresses: [podIP]``, ``conditions {ready, serving, terminating}`` with ``serving`` = pod
``Ready=True``, ``terminating`` = ``deletionTimestamp`` set, ``ready =
publishNotReadyAddresses or (serving and not terminating)``; ``hostname`` when the pod has
``spec.hostname`` and ``spec.subdomain`` equals the Service name; ``nodeName``; ``targetRef``;
``zone`` from the node's ``topology.kubernetes.io/zone`` label. At most 100 endpoints per slice:
an endpoint stays in the slice that holds it, new endpoints fill slices with room (in name
order), then new slices; emptied slices are deleted, except that a Service without endpoints
keeps one empty placeholder slice, as upstream does. Writes happen one reconcile later (same
virtual instant), so many pod changes at one instant give one write per slice.

**Resolver** ``resolve(name, namespace="default") -> list[str]`` (sorted IPs; ``[]`` for an
unknown name), from the Services and the EndpointSlices in the API (as CoreDNS reads them), via
indexes (no scans over pods):

- ``<svc>.<ns>.svc.cluster.local`` → the ClusterIP, or for a headless Service
  (``clusterIP: None``) the addresses of its endpoints with ``ready: true``;
- ``<hostname>.<svc>.<ns>.svc.cluster.local`` → the ready endpoints of headless ``<svc>`` whose
  ``hostname`` is ``<hostname>`` (so a pod needs ``hostname`` + ``subdomain`` + a same-named
  headless Service selecting it, and readiness unless ``publishNotReadyAddresses``);
- ``<a-b-c-d>.<ns>.pod.cluster.local`` → ``a.b.c.d``;
- relative names go through a pod's search path ``<ns>.svc.cluster.local svc.cluster.local
  cluster.local`` (``ndots:5``): ``pytorch-workers-0-0.pytorch``, ``<svc>``, ``<svc>.<ns>``,
  ``<svc>.<ns>.svc`` all resolve from namespace ``<ns>``. A trailing dot makes a name absolute.

Not modelled: SRV records, ExternalName, dual stack, the per-pod ``/etc/hosts`` entry, slices
written by other managers influencing the controller, upstream's exact slice packing heuristics
and its EndpointSlice mirroring of Endpoints.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any

from fakekube._core.clock import format_time
from fakekube.errors import Conflict, NotFound
from fakekube.machinery import selectors as sel
from fakekube.runtime.context import Runtime
from fakekube.runtime.controller import Result

__all__ = ["CLUSTER_DOMAIN", "MANAGED_BY", "MAX_ENDPOINTS_PER_SLICE", "Dns"]

CLUSTER_DOMAIN = "cluster.local"
MANAGED_BY = "endpointslice-controller.k8s.io"
LABEL_SERVICE_NAME = "kubernetes.io/service-name"
LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
LABEL_HEADLESS = "service.kubernetes.io/headless"
ANNOTATION_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time"
LABEL_ZONE = "topology.kubernetes.io/zone"
MAX_ENDPOINTS_PER_SLICE = 100
NDOTS = 5

ServiceKey = tuple[str, str]


@dataclass(frozen=True, slots=True)
class _Record:
    ip: str
    ready: bool


def _ip_key(ip: str) -> tuple[int, int | str]:
    try:
        return (0, int(ipaddress.ip_address(ip)))
    except ValueError:
        return (1, ip)


class Dns:
    """The EndpointSlice controller plus a CoreDNS-like resolver."""

    name = "dns"

    def __init__(self, rt: Runtime, *, cluster_domain: str = CLUSTER_DOMAIN) -> None:
        self.rt = rt
        self.client = rt.client("endpointslice-controller")
        self.domain = cluster_domain
        self.queue = rt.controller("endpointslice-controller", self._reconcile)
        self._pending_since: dict[ServiceKey, int] = {}
        # resolver indexes, fed by the EndpointSlice informer
        self._slice_records: dict[tuple[str, str], tuple[ServiceKey, list[tuple[str | None, _Record]]]] = {}
        self._by_service: dict[ServiceKey, dict[str, list[_Record]]] = {}
        self._by_host: dict[tuple[str, str, str], dict[str, list[_Record]]] = {}

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> None:
        self.queue.start()
        self._services = self.rt.informer("services")
        self._services.add_index("dns/selector", self._service_selector_keys)
        self._pods = self.rt.informer("pods")
        self._pods.add_index("dns/ns-label", lambda p: [f"{p['metadata'].get('namespace')}/{k}={v}"
                                                        for k, v in (p["metadata"].get("labels") or {}).items()])
        self._nodes = self.rt.informer("nodes")
        self._slices = self.rt.informer("endpointslices")
        self._slices.add_index("dns/service", lambda s: [
            f"{s['metadata'].get('namespace')}/{(s['metadata'].get('labels') or {}).get(LABEL_SERVICE_NAME)}"]
            if LABEL_SERVICE_NAME in (s["metadata"].get("labels") or {}) else [])
        self._services.add_handler(self._on_service)
        self._pods.add_handler(self._on_pod)
        self._slices.add_handler(self._on_slice)

    def stop(self) -> None:
        self.queue.stop()

    # ------------------------------------------------------------------ resolver
    def resolve(self, name: str, namespace: str = "default") -> list[str]:
        """The A records a pod in ``namespace`` gets for ``name`` (sorted; ``[]`` if none)."""
        name = name.strip().lower()
        if not name:
            return []
        if name.endswith("."):
            return self._resolve_fqdn(name[:-1])
        search = [f"{namespace}.svc.{self.domain}", f"svc.{self.domain}", self.domain]
        candidates = [f"{name}.{s}" for s in search]
        candidates = [name, *candidates] if name.count(".") >= NDOTS else [*candidates, name]
        for fqdn in candidates:
            found = self._resolve_fqdn(fqdn)
            if found:
                return found
        return []

    def _resolve_fqdn(self, fqdn: str) -> list[str]:
        suffix = "." + self.domain
        if not fqdn.endswith(suffix):
            return []
        parts = fqdn[: -len(suffix)].split(".")
        if len(parts) == 3 and parts[2] == "pod":
            octets = parts[0].split("-")
            if len(octets) == 4 and all(o.isdigit() and int(o) < 256 for o in octets):
                return [".".join(str(int(o)) for o in octets)]
            return []
        if len(parts) == 3 and parts[2] == "svc":
            svc_name, ns = parts[0], parts[1]
            svc = self._services.get(svc_name, ns)
            if svc is None:
                return []
            cluster_ip = (svc.get("spec") or {}).get("clusterIP")
            if cluster_ip and cluster_ip != "None":
                return [cluster_ip]
            if cluster_ip != "None":
                return []
            return self._ready((self._by_service.get((ns, svc_name)) or {}).values())
        if len(parts) == 4 and parts[3] == "svc":
            host, svc_name, ns = parts[0], parts[1], parts[2]
            svc = self._services.get(svc_name, ns)
            if svc is None or (svc.get("spec") or {}).get("clusterIP") != "None":
                return []
            return self._ready((self._by_host.get((ns, svc_name, host)) or {}).values())
        return []

    @staticmethod
    def _ready(groups: Any) -> list[str]:
        return sorted({r.ip for group in groups for r in group if r.ready}, key=_ip_key)

    def _on_slice(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        meta = obj["metadata"]
        slice_key = (meta.get("namespace") or "", meta["name"])
        previous = self._slice_records.pop(slice_key, None)
        if previous is not None:
            svc_key, records = previous
            self._by_service.get(svc_key, {}).pop(meta["name"], None)
            for host in {h for h, _ in records if h}:
                bucket = self._by_host.get((svc_key[0], svc_key[1], host))
                if bucket is not None:
                    bucket.pop(meta["name"], None)
                    if not bucket:
                        del self._by_host[(svc_key[0], svc_key[1], host)]
        service = (meta.get("labels") or {}).get(LABEL_SERVICE_NAME)
        if type_ == "DELETED" or not service:
            return
        svc_key = (slice_key[0], service)
        records: list[tuple[str | None, _Record]] = []
        for ep in obj.get("endpoints") or []:
            ready = (ep.get("conditions") or {}).get("ready")
            ready = True if ready is None else bool(ready)  # nil ready means ready
            for ip in ep.get("addresses") or []:
                records.append((ep.get("hostname"), _Record(ip, ready)))
        self._slice_records[slice_key] = (svc_key, records)
        self._by_service.setdefault(svc_key, {})[meta["name"]] = [r for _, r in records]
        for host in {h for h, _ in records if h}:
            self._by_host.setdefault((svc_key[0], svc_key[1], host), {})[meta["name"]] = \
                [r for h, r in records if h == host]

    # ------------------------------------------------------------------ controller triggers
    @staticmethod
    def _service_selector_keys(svc: dict[str, Any]) -> list[str]:
        ns = svc["metadata"].get("namespace")
        return [f"{ns}/{k}={v}" for k, v in ((svc.get("spec") or {}).get("selector") or {}).items()]

    def _touch(self, key: ServiceKey) -> None:
        self._pending_since.setdefault(key, self.rt.now)
        self.queue.enqueue(key)

    def _on_service(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        self._touch((obj["metadata"].get("namespace") or "", obj["metadata"]["name"]))

    def _on_pod(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        ns = obj["metadata"].get("namespace") or ""
        keys: dict[ServiceKey, None] = {}
        for pod in (obj, old):
            if pod is None:
                continue
            for k, v in (pod["metadata"].get("labels") or {}).items():
                for svc in self._services.by_index("dns/selector", f"{ns}/{k}={v}"):
                    keys[(ns, svc["metadata"]["name"])] = None
        for key in sorted(keys):
            self._touch(key)

    # ------------------------------------------------------------------ reconcile
    def _endpoint(self, svc: dict[str, Any], pod: dict[str, Any]) -> dict[str, Any]:
        spec, status, meta = pod.get("spec") or {}, pod.get("status") or {}, pod["metadata"]
        serving = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
        terminating = bool(meta.get("deletionTimestamp"))
        publish = bool((svc.get("spec") or {}).get("publishNotReadyAddresses"))
        ep: dict[str, Any] = {"addresses": [status.get("podIP") or (status.get("podIPs") or [{}])[0].get("ip")],
                              "conditions": {"ready": publish or (serving and not terminating),
                                             "serving": serving, "terminating": terminating}}
        if spec.get("hostname") and spec.get("subdomain") == svc["metadata"]["name"]:
            ep["hostname"] = spec["hostname"]
        if spec.get("nodeName"):
            ep["nodeName"] = spec["nodeName"]
        ep["targetRef"] = {"kind": "Pod", "namespace": meta.get("namespace"), "name": meta["name"],
                           "uid": meta.get("uid")}
        node = self._nodes.get(spec.get("nodeName") or "") if spec.get("nodeName") else None
        zone = ((node or {}).get("metadata", {}).get("labels") or {}).get(LABEL_ZONE)
        if zone:
            ep["zone"] = zone
        return ep

    @staticmethod
    def _in_endpoints(pod: dict[str, Any]) -> bool:
        """``ShouldPodBeInEndpoints(pod, includeTerminating=true)``."""
        status = pod.get("status") or {}
        if not status.get("podIP") and not status.get("podIPs"):
            return False
        policy = (pod.get("spec") or {}).get("restartPolicy") or "Always"
        phase = status.get("phase")
        if policy == "Never":
            return phase not in ("Failed", "Succeeded")
        if policy == "OnFailure":
            return phase != "Succeeded"
        return True

    def _ports(self, svc: dict[str, Any], pods: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        ports = (svc.get("spec") or {}).get("ports") or []
        if not ports:
            return None
        out = []
        for p in ports:
            target = p.get("targetPort", p.get("port"))
            if isinstance(target, str):
                found = None
                for pod in pods[:1]:
                    for c in (pod.get("spec") or {}).get("containers") or []:
                        for cp in c.get("ports") or []:
                            if cp.get("name") == target:
                                found = cp.get("containerPort")
                if found is None:
                    continue
                target = found
            port: dict[str, Any] = {"name": p.get("name", ""), "port": target, "protocol": p.get("protocol", "TCP")}
            if p.get("appProtocol"):
                port["appProtocol"] = p["appProtocol"]
            out.append(port)
        return out

    def _reconcile(self, key: ServiceKey) -> Result | None:
        ns, name = key
        svc = self._services.get(name, ns)
        selector = ((svc or {}).get("spec") or {}).get("selector")
        existing = [s for s in self._slices.by_index("dns/service", f"{ns}/{name}")
                    if (s["metadata"].get("labels") or {}).get(LABEL_MANAGED_BY) == MANAGED_BY]
        if svc is None or not selector:
            # The garbage collector removes slices of a deleted Service; a selector dropped from a
            # live Service leaves its slices to others, as upstream does.
            self._pending_since.pop(key, None)
            return None
        label_sel = sel.selector_from_set(selector)
        pair = min(selector.items(), key=lambda kv: self._pods.count_index("dns/ns-label", f"{ns}/{kv[0]}={kv[1]}"))
        pods = [p for p in self._pods.by_index("dns/ns-label", f"{ns}/{pair[0]}={pair[1]}")
                if label_sel.matches(p["metadata"].get("labels") or {}) and self._in_endpoints(p)]
        desired = {p["metadata"]["uid"]: self._endpoint(svc, p) for p in pods}
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
            try:
                self.client.update(new)
            except NotFound:
                self.queue.enqueue(key)
        for s in existing:
            if s["metadata"]["name"] not in keep_names:
                try:
                    self.client.delete("endpointslices", s["metadata"]["name"], ns,
                                       preconditions={"uid": s["metadata"]["uid"]})
                except (NotFound, Conflict):
                    pass
        return None
