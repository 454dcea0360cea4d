"""The remote server's resources, read from discovery (``/api/v1``, ``/apis``, ``/apis/<g>/<v>``)
into the same :class:`Registry` the in-process server uses, so kinds resolve by any name."""

from __future__ import annotations

from typing import Any, cast

from fakekube.apiserver.resources import Registry, ResourceType
from fakekube.apiserver.strategy import Strategy
from fakekube.errors import ApiError
from fakekube.remote.transport import Transport

__all__ = ["discover"]


def _add_list(registry: Registry, group: str, version: str, doc: dict[str, Any]) -> None:
    resources = [r for r in doc.get("resources") or [] if isinstance(r, dict)]
    subresources: dict[str, set[str]] = {}
    for r in resources:
        name = str(r.get("name", ""))
        if "/" in name:
            parent, _, sub = name.partition("/")
            subresources.setdefault(parent, set()).add(sub)
    for r in resources:
        name = str(r.get("name", ""))
        if "/" in name or not r.get("kind"):
            continue
        registry.add(ResourceType(
            group=group, version=version, kind=str(r["kind"]), plural=name, namespaced=bool(r.get("namespaced")),
            strategy=cast(Strategy, None), singular=str(r.get("singularName") or ""),
            short_names=tuple(r.get("shortNames") or ()), subresources=frozenset(subresources.get(name, ())),
            categories=tuple(r.get("categories") or ()), custom=group not in _BUILTIN_GROUPS))


_BUILTIN_GROUPS = frozenset({"", "apps", "batch", "policy", "events.k8s.io", "coordination.k8s.io",
                             "discovery.k8s.io", "networking.k8s.io", "rbac.authorization.k8s.io",
                             "apiextensions.k8s.io", "admissionregistration.k8s.io", "scheduling.k8s.io",
                             "storage.k8s.io", "autoscaling", "node.k8s.io", "certificates.k8s.io"})


def discover(transport: Transport) -> Registry:
    """A registry of every resource the server's preferred group versions serve."""
    registry = Registry()
    _add_list(registry, "", "v1", transport.request_object("GET", "/api/v1"))
    groups = transport.request_object("GET", "/apis")
    for group in groups.get("groups") or []:
        preferred = (group.get("preferredVersion") or {}).get("groupVersion")
        if not preferred:
            continue
        name, _, version = str(preferred).partition("/")
        try:
            doc = transport.request_object("GET", f"/apis/{preferred}")
        except ApiError:  # an aggregated API that is down (metrics-server): skip it, as kubectl does
            continue
        _add_list(registry, name, version, doc)
    return registry
