"""The DNS invariant: the headless Service a JobSet's network asks for, and what every pod
hostname resolves to (or that nothing resolves when DNS hostnames are off)."""

from __future__ import annotations

from fakekube import FakeCluster
from fakekube.machinery.endpoints import CLUSTER_DOMAIN, endpoint_address, endpoint_ready, in_endpoints
from jobset_ref.api import constants as c
from jobset_ref.testing.invariants.snapshot import Snapshot, Violation, _labels

__all__ = ["check_dns"]

def check_dns(cluster: FakeCluster, snap: Snapshot) -> list[Violation]:
    """*Settled*: with DNS hostnames on, the headless Service ``<subdomain>`` exists as upstream
    builds it, and every pod FQDN ``<host>.<subdomain>.<ns>.svc.cluster.local`` and its short form
    ``<host>.<subdomain>`` resolve to exactly the IPs of the pods with that hostname that are in
    the endpoints and ready (or any, with publishNotReadyAddresses). With DNS hostnames off the
    controller creates no Service and no pod name resolves."""
    js = snap.jobset
    out: list[Violation] = []
    if js is None or not snap.managed_here or not cluster.simulate:
        return out
    svc = snap.services.get(snap.subdomain)
    hosts: list[str] = sorted({host for p in snap.pods if (host := (p.get("spec") or {}).get("hostname"))})
    if not snap.dns_enabled:
        owned = svc is not None and any(o.get("uid") == js["metadata"]["uid"]
                                        for o in svc["metadata"].get("ownerReferences") or [])
        if owned:
            out.append(Violation("dns", f"Service {snap.subdomain}", "created although enableDNSHostnames is off"))
        for host in hosts:
            got = cluster.dns.resolve(f"{host}.{snap.subdomain}", namespace=snap.namespace)
            if got and not owned and svc is None:
                out.append(Violation("dns", f"host {host}", f"resolves to {got} although DNS hostnames are off"))
        return out
    if svc is None:
        if snap.status:  # reconciled at least once
            out.append(Violation("dns", f"JobSet {snap.name}", f"headless Service {snap.subdomain!r} missing"))
        return out
    sspec = svc.get("spec") or {}
    pnra_want = (snap.spec.get("network") or {}).get("publishNotReadyAddresses")
    pnra_want = True if pnra_want is None else pnra_want
    owned = any(o.get("uid") == js["metadata"]["uid"] and o.get("controller")
                for o in svc["metadata"].get("ownerReferences") or [])
    if owned:
        if sspec.get("clusterIP") != "None":
            out.append(Violation("dns", f"Service {snap.subdomain}", f"clusterIP {sspec.get('clusterIP')!r}, not None"))
        if sspec.get("selector") != {c.JOBSET_NAME_KEY: snap.name}:
            out.append(Violation("dns", f"Service {snap.subdomain}", f"selector {sspec.get('selector')}"))
        if bool(sspec.get("publishNotReadyAddresses")) != pnra_want:
            out.append(Violation("dns", f"Service {snap.subdomain}",
                                 f"publishNotReadyAddresses {sspec.get('publishNotReadyAddresses')}, want {pnra_want}"))
    pnra = bool(sspec.get("publishNotReadyAddresses"))
    selector = dict(sspec.get("selector") or {})
    for host in hosts:
        expected = sorted({
            str(endpoint_address(p)) for p in snap.pods
            if (p.get("spec") or {}).get("hostname") == host and (p.get("spec") or {}).get("subdomain") == snap.subdomain
            and all(_labels(p).get(k) == v for k, v in selector.items()) and in_endpoints(p)
            and endpoint_ready(p, pnra)})
        for query in (f"{host}.{snap.subdomain}.{snap.namespace}.svc.{CLUSTER_DOMAIN}", f"{host}.{snap.subdomain}"):
            got = sorted(cluster.dns.resolve(query, namespace=snap.namespace))
            if got != expected:
                out.append(Violation("dns", query, f"resolves to {got}, expected {expected} "
                                                   f"(publishNotReadyAddresses={pnra})"))
    return out

