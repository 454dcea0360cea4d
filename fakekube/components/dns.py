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

Cost: a pod event costs O(1) (the Services whose selector shares a label pair with the pod are
cached per pod until its labels or a Service change); a reconcile re-evaluates only the pods that
changed since the Service's last reconcile (or sit on a node whose zone changed) and re-reads only
the slices whose object changed, plus one pass over the Service's slices. A new Service, or a new
selector or ``publishNotReadyAddresses``, evaluates every pod in the informer once. The writes are
exactly those of a full rebuild (``tests/fakekube/test_dns_incremental.py`` checks this against
one on random workloads).

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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from fakekube._core.clock import format_time
from fakekube._core.multimap import discard
from fakekube.errors import Conflict, NotFound
from fakekube.machinery import selectors as sel
from fakekube.machinery.endpoints import (
    CLUSTER_DOMAIN,
    endpoint_address,
    endpoint_conditions,
    in_endpoints,
)
from fakekube.runtime.context import Runtime
from fakekube.runtime.controller import Result

__all__ = ["MANAGED_BY", "MAX_ENDPOINTS_PER_SLICE", "Dns"]

MANAGED_BY = "endpointslice-controller.k8s.io"
LABEL_SERVICE_NAME = "kubernetes.io/service-name"
LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
LABEL_HEADLESS = "service.kubernetes.io/headless"
ANNOTATION_TRIGGER_TIME = "endpoints.kubernetes.io/last-change-trigger-time"
LABEL_ZONE = "topology.kubernetes.io/zone"
MAX_ENDPOINTS_PER_SLICE = 100
NDOTS = 5

ServiceKey = tuple[str, str]
PodKey = tuple[str, str]


class _Record(NamedTuple):
    """An A record of an endpoint (a named tuple: a slice event makes one per address)."""

    ip: str
    ready: bool


@dataclass(slots=True)
class _Pod:
    """What the controller last saw of a pod: enough to know what to re-evaluate when it changes."""

    labels: dict[str, str]
    node: str
    services: tuple[ServiceKey, ...]  # the Services sharing a label pair with ``labels``
    epoch: tuple[int, int]  # when ``services`` was computed (Service changes invalidate it)


@dataclass(slots=True)
class _Endpoint:
    uid: str
    ep: dict[str, Any]


@dataclass(slots=True)
class _Slice:
    """An existing slice as last read: its object, the pod uids it holds, the desired endpoints it
    keeps (``None``: to recompute) and the ``(ports, labels)`` it was found up to date with."""

    obj: dict[str, Any]
    uids: list[str]
    kept: list[dict[str, Any]] | None = None
    verified: tuple[Any, dict[str, str]] | None = None


class _ServiceState:
    """One Service's desired endpoints and existing slices, kept up to date incrementally, so that a
    reconcile costs what changed (plus a pass over its slices), not a rebuild of the whole Service."""

    def __init__(self, selector: dict[str, str], publish: bool) -> None:
        self.selector = selector
        self.publish = publish
        self.label_sel = sel.selector_from_set(selector)
        self.dirty: dict[PodKey, None] = {}  # pods to re-evaluate
        self.endpoints: dict[PodKey, _Endpoint] = {}  # the desired endpoints
        self._first: PodKey | None = None  # the least key of ``endpoints``, when ``_first_known``
        self._first_known = True
        self.by_uid: dict[str, PodKey] = {}
        self.slices: dict[str, _Slice] = {}
        self.count: dict[str, int] = {}  # uid -> how often the existing slices hold it
        self.holder: dict[str, str] = {}  # uid -> the slice holding it, for uids held once
        self.dups = 0  # uids held more than once
        self.unplaced: dict[str, None] = {}  # desired uids no slice holds

    def first_pod(self) -> PodKey | None:
        """The least pod key with an endpoint (None: no endpoints)."""
        if not self._first_known:
            self._first = min(self.endpoints) if self.endpoints else None
            self._first_known = True
        return self._first

    def add_endpoint(self, pod_key: PodKey, endpoint: _Endpoint) -> None:
        self.endpoints[pod_key] = endpoint
        if self._first_known and (self._first is None or pod_key < self._first):
            self._first = pod_key
        self.by_uid[endpoint.uid] = pod_key
        if endpoint.uid not in self.count:
            self.unplaced[endpoint.uid] = None

    def remove_endpoint(self, pod_key: PodKey) -> None:
        uid = self.endpoints.pop(pod_key).uid
        if pod_key == self._first:
            self._first_known = False  # found again when asked
        del self.by_uid[uid]
        self.unplaced.pop(uid, None)

    def register(self, name: str, seen: _Slice) -> None:
        self.slices[name] = seen
        for uid in seen.uids:
            n = self.count[uid] = self.count.get(uid, 0) + 1
            if n == 1:
                self.holder[uid] = name
                self.unplaced.pop(uid, None)
            elif n == 2:
                self.dups += 1
                self.holder.pop(uid, None)

    def unregister(self, name: str) -> list[str]:
        """Forget a slice; returns the uids now held once, whose holder is to be found."""
        lost = []
        for uid in self.slices.pop(name).uids:
            n = self.count[uid] = self.count[uid] - 1
            if n == 0:
                del self.count[uid]
                self.holder.pop(uid, None)
                if uid in self.by_uid:
                    self.unplaced[uid] = None
            elif n == 1:
                self.dups -= 1
                lost.append(uid)
        return lost

    def find_holders(self, uids: list[str]) -> None:
        wanted = {uid for uid in uids if self.count.get(uid) == 1}
        if wanted:
            for name, seen in self.slices.items():
                for uid in seen.uids:
                    if uid in wanted:
                        self.holder[uid] = name


def _by_hostname(records: list[tuple[str | None, _Record]]) -> dict[str, list[_Record]]:
    """A slice's records grouped by endpoint hostname (those without one left out), in slice order."""
    groups: dict[str, list[_Record]] = {}
    for host, record in records:
        if host:
            groups.setdefault(host, []).append(record)
    return groups


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
        self.client = rt.shared_client("endpointslice-controller")
        self.domain = cluster_domain
        self.queue = rt.controller("endpointslice-controller", self._reconcile)
        self._pending_since: dict[ServiceKey, int] = {}
        self._states: dict[ServiceKey, _ServiceState] = {}
        self._pod_info: dict[PodKey, _Pod] = {}
        self._by_node: dict[str, dict[PodKey, None]] = {}
        self._node_zone: dict[str, str | None] = {}
        self._selector_version = 0
        # The Services selecting each ``<ns>/<key>=<value>`` pair looked up, while the epoch (see
        # _services_for) is ``_pairs_epoch``: the pods of a Job share most of their label pairs.
        self._pairs: dict[str, list[ServiceKey]] = {}
        self._pairs_epoch: tuple[int, int] | None = None
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
        self._nodes = self.rt.informer("nodes")
        self._slices = self.rt.informer("endpointslices")
        self._slices.add_index("dns/service", lambda s: [
            f"{s['metadata'].get('namespace')}/{(s['metadata'].get('labels') or {}).get(LABEL_SERVICE_NAME)}"]
            if LABEL_SERVICE_NAME in (s["metadata"].get("labels") or {}) else [])
        for key, pod in self._pods.cache.items():  # objects cached before these handlers were added
            epoch = self._epoch()
            self._remember_pod(key, pod["metadata"].get("labels") or {}, (pod.get("spec") or {}).get("nodeName") or "",
                               self._services_for(key[0], pod["metadata"].get("labels") or {}, None, epoch),
                               self._pod_info.get(key), epoch)
        for node in self._nodes.cache.values():
            self._node_zone[node["metadata"]["name"]] = (node["metadata"].get("labels") or {}).get(LABEL_ZONE)
        self._services.add_handler(self._on_service)
        self._pods.add_handler(self._on_pod)
        self._nodes.add_handler(self._on_node)
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
        name = meta["name"]
        slice_key = (meta.get("namespace") or "", name)
        service = (meta.get("labels") or {}).get(LABEL_SERVICE_NAME)
        svc_key = (slice_key[0], service) if type_ != "DELETED" and service else None
        records: list[tuple[str | None, _Record]] = []
        if svc_key is not None:
            for ep in obj.get("endpoints") or []:
                ready = (ep.get("conditions") or {}).get("ready")
                ready = True if ready is None else bool(ready)  # nil ready means ready
                for ip in ep.get("addresses") or []:
                    records.append((ep.get("hostname"), _Record(ip, ready)))
        groups = _by_hostname(records)
        # Forget what the slice no longer says; what it still says (same Service, same hostname)
        # is overwritten below.
        previous = self._slice_records.pop(slice_key, None)
        if previous is not None:
            old_svc_key, old_records = previous
            if old_svc_key != svc_key:
                self._by_service.get(old_svc_key, {}).pop(name, None)
            for host in {h for h, _ in old_records if h}:
                if old_svc_key != svc_key or host not in groups:
                    discard(self._by_host, (old_svc_key[0], old_svc_key[1], host), name)
        if svc_key is None:
            return
        self._slice_records[slice_key] = (svc_key, records)
        self._by_service.setdefault(svc_key, {})[name] = [r for _, r in records]
        for host, host_records in groups.items():
            self._by_host.setdefault((svc_key[0], svc_key[1], host), {})[name] = host_records

    # ------------------------------------------------------------------ controller triggers
    @staticmethod
    def _service_selector_keys(svc: Mapping[str, Any]) -> list[str]:
        ns = svc["metadata"].get("namespace")
        return [f"{ns}/{k}={v}" for k, v in ((svc.get("spec") or {}).get("selector") or {}).items()]

    def _touch(self, key: ServiceKey) -> None:
        self._pending_since.setdefault(key, self.rt.now)
        self.queue.enqueue(key)

    def _on_service(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        self._selector_version += 1  # the pods' cached Service lists are stale
        self._touch((obj["metadata"].get("namespace") or "", obj["metadata"]["name"]))

    def _epoch(self) -> tuple[int, int]:
        """What a pod's cached Service list is valid for: the Services' selectors as of now (a
        relist drops Services silently, hence their number)."""
        return self._selector_version, len(self._services.cache)

    def _services_for(self, ns: str, labels: dict[str, str], pod: _Pod | None,
                      epoch: tuple[int, int] | None = None) -> tuple[ServiceKey, ...]:
        """The Services of ``ns`` whose selector shares a ``key=value`` pair with ``labels`` (sorted);
        a pod's cached list while its labels and the Services' selectors (``epoch``: :meth:`_epoch`,
        given by a caller that has it already) are unchanged."""
        if epoch is None:
            epoch = self._epoch()
        if pod is not None and pod.epoch == epoch and (pod.labels is labels or pod.labels == labels):
            return pod.services
        if self._pairs_epoch != epoch:
            self._pairs.clear()
            self._pairs_epoch = epoch
        keys: set[ServiceKey] = set()
        for k, v in labels.items():
            pair = f"{ns}/{k}={v}"
            found = self._pairs.get(pair)
            if found is None:
                found = self._pairs[pair] = [(ns, svc["metadata"]["name"])
                                             for svc in self._services.by_index("dns/selector", pair)]
            keys.update(found)
        return tuple(sorted(keys))

    def _on_pod(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        meta = obj["metadata"]
        key = (meta.get("namespace") or "", meta["name"])
        labels = meta.get("labels") or {}
        seen = self._pod_info.get(key)
        epoch = self._epoch()
        touched = services = self._services_for(key[0], labels, seen, epoch)
        if old is not None:
            old_labels = old["metadata"].get("labels") or {}
            if old_labels is not labels and old_labels != labels:
                touched = tuple(sorted({*services, *self._services_for(key[0], old_labels, seen, epoch)}))
        for svc_key in touched:
            self._mark(svc_key, key)
        if seen is not None and seen.services is not services:  # e.g. ``old`` is None after a relist
            for svc_key in seen.services:
                self._mark(svc_key, key)
        if type_ == "DELETED":
            self._forget_pod(key)
        else:
            self._remember_pod(key, labels, (obj.get("spec") or {}).get("nodeName") or "", services, seen, epoch)
        for svc_key in touched:
            self._touch(svc_key)

    def _on_node(self, type_: str, obj: dict[str, Any], old: dict[str, Any] | None) -> None:
        name = obj["metadata"]["name"]
        before = self._node_zone.pop(name, None)
        zone = None
        if type_ != "DELETED":
            zone = self._node_zone[name] = (obj["metadata"].get("labels") or {}).get(LABEL_ZONE)
        if zone != before:
            self._mark_node(name)

    # ------------------------------------------------------------------ what the controller has seen
    def _remember_pod(self, key: PodKey, labels: dict[str, str], node: str, services: tuple[ServiceKey, ...],
                      seen: _Pod | None, epoch: tuple[int, int]) -> None:
        """Record what the controller saw of a pod; ``seen``: its record so far (None: new);
        ``services``: its Services as of ``epoch``."""
        if seen is None:
            self._pod_info[key] = _Pod(labels, node, services, epoch)
            self._by_node.setdefault(node, {})[key] = None
            return
        if seen.node != node:
            self._unindex_node(key, seen.node)
            self._by_node.setdefault(node, {})[key] = None
            seen.node = node
        seen.labels, seen.services, seen.epoch = labels, services, epoch

    def _forget_pod(self, key: PodKey) -> None:
        seen = self._pod_info.pop(key, None)
        if seen is not None:
            self._unindex_node(key, seen.node)

    def _unindex_node(self, key: PodKey, node: str) -> None:
        discard(self._by_node, node, key)

    def _mark(self, svc_key: ServiceKey, pod_key: PodKey) -> None:
        """Re-evaluate ``pod_key`` at the next reconcile of ``svc_key``."""
        state = self._states.get(svc_key)
        if state is not None:
            state.dirty[pod_key] = None

    def _mark_node(self, node: str) -> None:
        """A node's zone changed: re-evaluate its pods (their endpoints carry the zone)."""
        for pod_key in self._by_node.get(node) or {}:
            seen = self._pod_info[pod_key]
            for svc_key in self._services_for(pod_key[0], seen.labels, seen):
                self._mark(svc_key, pod_key)

    def _catch_up(self) -> None:
        """Informers drop their cache silently when they relist; forget pods and nodes that vanished."""
        if len(self._pod_info) != len(self._pods):
            for key in [k for k in self._pod_info if self._pods.get(k[1], k[0]) is None]:
                for svc_key in self._services_for(key[0], self._pod_info[key].labels, self._pod_info[key]):
                    self._mark(svc_key, key)
                self._forget_pod(key)
        if len(self._node_zone) != len(self._nodes):
            for name in [n for n in self._node_zone if self._nodes.get(n) is None]:
                if self._node_zone.pop(name) is not None:
                    self._mark_node(name)

    # ------------------------------------------------------------------ reconcile
    def _endpoint(self, pod: dict[str, Any], publish: bool, svc_name: str) -> dict[str, Any]:
        """The endpoint of ``pod`` in the slices of Service ``svc_name`` (``publish``: its
        ``publishNotReadyAddresses``)."""
        spec, meta = pod.get("spec") or {}, pod["metadata"]
        ep: dict[str, Any] = {"addresses": [endpoint_address(pod)], "conditions": endpoint_conditions(pod, publish)}
        if spec.get("hostname") and spec.get("subdomain") == svc_name:
            ep["hostname"] = spec["hostname"]
        node_name = spec.get("nodeName")
        if node_name:
            ep["nodeName"] = node_name
        ep["targetRef"] = {"kind": "Pod", "namespace": meta.get("namespace"), "name": meta["name"],
                           "uid": meta.get("uid")}
        node = self._nodes.get(node_name) if node_name else None
        if node is not None:
            zone = (node.get("metadata", {}).get("labels") or {}).get(LABEL_ZONE)
            if zone:
                ep["zone"] = zone
        return ep

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

    def _state(self, key: ServiceKey, svc: dict[str, Any], selector: dict[str, str]) -> _ServiceState:
        """The Service's reconcile state; a new one (every matching pod to evaluate) when its selector
        or ``publishNotReadyAddresses`` changed."""
        publish = bool((svc.get("spec") or {}).get("publishNotReadyAddresses"))
        state = self._states.get(key)
        if state is None or state.selector != selector or state.publish != publish:
            state = self._states[key] = _ServiceState(selector, publish)
            for pod_key, pod in self._pods.cache.items():
                if pod_key[0] == key[0] and state.label_sel.matches(pod["metadata"].get("labels") or {}):
                    state.dirty[pod_key] = None
        return state

    def _sync_slices(self, state: _ServiceState, existing: list[dict[str, Any]]) -> None:
        """Note which pod uids each existing slice holds (only slices whose object changed are read)."""
        names = {s["metadata"]["name"] for s in existing}
        lost: list[str] = []
        for name in [n for n in state.slices if n not in names]:
            lost += state.unregister(name)
        for s in existing:
            name = s["metadata"]["name"]
            seen = state.slices.get(name)
            if seen is None or seen.obj is not s:
                if seen is not None:
                    lost += state.unregister(name)
                uids = [uid for ep in s.get("endpoints") or [] if (uid := (ep.get("targetRef") or {}).get("uid"))]
                state.register(name, _Slice(s, uids))
        state.find_holders(lost)

    def _sync_endpoints(self, state: _ServiceState, svc: dict[str, Any]) -> None:
        """Re-evaluate the pods marked since the last reconcile."""
        changed: list[str] = []
        pods = self._pods.cache
        svc_name = svc["metadata"]["name"]
        matches = state.label_sel.matches
        for pod_key in state.dirty:
            pod = pods.get(pod_key)
            ep = uid = None
            if pod is not None and in_endpoints(pod) and matches(pod["metadata"].get("labels") or {}):
                ep, uid = self._endpoint(pod, state.publish, svc_name), pod["metadata"]["uid"]
            current = state.endpoints.get(pod_key)
            if current is not None and current.uid == uid and ep is not None:
                if current.ep != ep:  # (an unchanged endpoint keeps its object: slices holding it stay verified)
                    current.ep = ep
                    changed.append(uid)
                continue
            if current is not None:
                state.remove_endpoint(pod_key)
                changed.append(current.uid)
            if ep is not None and uid is not None:
                state.add_endpoint(pod_key, _Endpoint(uid, ep))
                changed.append(uid)
        state.dirty.clear()
        for uid in changed:
            holder = state.holder.get(uid)
            if holder is not None:
                state.slices[holder].kept = None

    def _plan(self, state: _ServiceState, existing: list[dict[str, Any]]
              ) -> list[tuple[_Slice | None, list[dict[str, Any]]]]:
        """Keep endpoints in the slice that holds them; fill slices with room (in name order); then new
        slices; drop emptied slices, but keep one (empty) slice when there are no endpoints."""
        plan: list[tuple[_Slice | None, list[dict[str, Any]]]] = []
        if state.dups:  # an endpoint held twice (a lagging informer): only its first holder keeps it
            placed: set[str] = set()
            for s in existing:
                seen = state.slices[s["metadata"]["name"]]
                seen.kept = seen.verified = None
                kept = []
                for uid in seen.uids:
                    if uid in state.by_uid and uid not in placed:
                        kept.append(state.endpoints[state.by_uid[uid]].ep)
                        placed.add(uid)
                plan.append((seen, kept))
        else:
            for s in existing:
                seen = state.slices[s["metadata"]["name"]]
                if seen.kept is None:
                    seen.kept = [state.endpoints[state.by_uid[uid]].ep for uid in seen.uids if uid in state.by_uid]
                    seen.verified = None
                plan.append((seen, seen.kept))
        fresh = [state.endpoints[k].ep for k in sorted(state.by_uid[uid] for uid in state.unplaced)]
        for i, (holder, eps) in enumerate(plan):
            room = MAX_ENDPOINTS_PER_SLICE - len(eps)
            if room > 0 and fresh:
                plan[i] = (holder, eps + fresh[:room])
                fresh = fresh[room:]
        while fresh:
            plan.append((None, fresh[:MAX_ENDPOINTS_PER_SLICE]))
            fresh = fresh[MAX_ENDPOINTS_PER_SLICE:]
        if state.endpoints:
            return [(seen, eps) for seen, eps in plan if eps]
        return [(plan[0][0], [])] if plan else [(None, [])]

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
            self._states.pop(key, None)
            return None
        self._catch_up()
        state = self._state(key, svc, selector)
        self._sync_slices(state, existing)
        self._sync_endpoints(state, svc)
        first = state.first_pod()
        first_pod = self._pods.get(first[1], first[0]) if first else None
        ports = self._ports(svc, [first_pod] if first_pod else [])
        plan = self._plan(state, existing)
        keep_names = {seen.obj["metadata"]["name"] for seen, _ in plan if seen is not None}
        trigger = format_time(self._pending_since.pop(key, self.rt.now))
        labels = {**(svc["metadata"].get("labels") or {}), LABEL_SERVICE_NAME: name, LABEL_MANAGED_BY: MANAGED_BY}
        if (svc.get("spec") or {}).get("clusterIP") == "None":
            labels[LABEL_HEADLESS] = ""
        owner = {"apiVersion": "v1", "kind": "Service", "name": name, "uid": svc["metadata"]["uid"],
                 "controller": True, "blockOwnerDeletion": True}
        for seen, eps in plan:
            body: dict[str, Any] = {"addressType": "IPv4", "endpoints": eps, "ports": ports}
            if seen is None:
                obj = {"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                       "metadata": {"generateName": f"{name}-", "namespace": ns, "labels": labels,
                                    "annotations": {ANNOTATION_TRIGGER_TIME: trigger},
                                    "ownerReferences": [owner]}, **body}
                # No copy: as for the update below, what ``obj`` shares (labels, ports, the endpoint
                # dicts) nothing here edits in place, and the rest of it is fresh.
                self.client.create(obj)
                continue
            if eps is seen.kept and seen.verified == (ports, labels):
                continue  # nothing it holds changed since it was found up to date
            s = seen.obj
            current = {k: s.get(k) for k in ("addressType", "endpoints", "ports")}
            current["endpoints"] = current["endpoints"] or []
            if current == body and (s["metadata"].get("labels") or {}) == labels:
                if eps is seen.kept:
                    seen.verified = (ports, labels)
                continue
            new = {**s, **body, "metadata": {**s["metadata"], "labels": labels,
                                              "annotations": {**(s["metadata"].get("annotations") or {}),
                                                              ANNOTATION_TRIGGER_TIME: trigger}}}
            # NotFound (a stale cache) is requeued with the work queue's backoff, not at once (a livelock).
            # No copy: ``new`` is fresh down to its metadata, and what it shares (labels, ports, the
            # endpoint lists and dicts, parts of the frozen stored slice) nothing here edits in place.
            self.client.update(new)
        for s in existing:
            if s["metadata"]["name"] not in keep_names:
                try:
                    self.client.delete("endpointslices", s["metadata"]["name"], ns,
                                       preconditions={"uid": s["metadata"]["uid"]})
                except (NotFound, Conflict):
                    pass
        return None
