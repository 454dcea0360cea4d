"""Discovery documents, built from the API server's live :class:`~fakekube.apiserver.resources.Registry`.

What kube-apiserver serves so that clients learn which resources exist:

* ``/api`` → ``APIVersions``; ``/apis`` → ``APIGroupList``; ``/api/v1`` and ``/apis/{g}/{v}`` →
  ``APIResourceList`` (the *legacy* documents, which every Python client reads);
* ``/api`` and ``/apis`` again, as one ``APIGroupDiscoveryList`` each (*aggregated* discovery,
  ``apidiscovery.k8s.io/v2``, or ``v2beta1``), when the ``Accept`` header asks for it: kubectl then
  needs two requests instead of one per group-version;
* ``/version`` → ``version.Info``.

Resources, kinds, scopes, short names, categories and subresources come from the registry, so a
CustomResourceDefinition created at run time shows up on the next call; the verbs of each
resource and subresource are those kube-apiserver lists for them. Documents are cached per
registry and rebuilt when the set of served resources changes (the registry replaces a
``ResourceType`` whenever it changes one, so comparing their identities is enough).

Order follows kube-apiserver: groups by their ``APIService`` priority (the core group first,
CRD groups last, ties by name), versions GA before beta before alpha, resources by name.
"""

from __future__ import annotations

import base64
import hashlib
import re
import weakref
from collections.abc import Iterable
from typing import Any, Final

from fakekube._core.version import KUBERNETES_VERSION
from fakekube.apiserver.resources import Registry, ResourceType
from fakekube.errors import UsageError
from fakekube.http.accept import negotiate_as

__all__ = [
    "AGGREGATED_DISCOVERY_VERSIONS",
    "GIT_VERSION",
    "aggregated_discovery",
    "aggregated_discovery_media_type",
    "aggregated_discovery_version",
    "api_group_list",
    "api_resource_list",
    "api_versions",
    "storage_version_hash",
    "version_info",
]

#: What ``/version`` reports. kubectl v1.32 (and the gcloud dispatcher, which picks the kubectl
#: matching the server's minor) talks to it without skew warnings; kr8s parses the part before
#: ``+`` (it supports 1.28-1.35); ``+fakekube`` is SemVer build metadata, as k3s's ``+k3s1``.
GIT_VERSION: Final = KUBERNETES_VERSION

#: ``apidiscovery.k8s.io`` versions served, most preferred first.
AGGREGATED_DISCOVERY_VERSIONS: Final = ("v2", "v2beta1")

_AGGREGATED_MEDIA: Final = "application/json;g=apidiscovery.k8s.io;v={version};as=APIGroupDiscoveryList"

#: ``APIService`` group priorities of kube-apiserver (``GroupPriorityMinimum``); higher comes first.
#: CRD groups get 1000.
_GROUP_PRIORITY: Final[dict[str, int]] = {
    "": 18000, "apiregistration.k8s.io": 18000, "apps": 17800, "events.k8s.io": 17750,
    "authentication.k8s.io": 17700, "authorization.k8s.io": 17600, "autoscaling": 17500, "batch": 17400,
    "certificates.k8s.io": 17300, "networking.k8s.io": 17200, "policy": 17100,
    "rbac.authorization.k8s.io": 17000, "storage.k8s.io": 16800, "admissionregistration.k8s.io": 16700,
    "scheduling.k8s.io": 16600, "coordination.k8s.io": 16500, "apiextensions.k8s.io": 16400,
    "node.k8s.io": 16300, "discovery.k8s.io": 16200, "resource.k8s.io": 16150,
    "flowcontrol.apiserver.k8s.io": 16100,
}
_CUSTOM_GROUP_PRIORITY: Final = 1000

_ALL_VERBS: Final = ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
#: Custom resources list their verbs in the apiextensions-apiserver's order.
_CUSTOM_VERBS: Final = ("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch")
#: Resources whose verbs differ from the full set (``namespaces`` has no deletecollection).
_VERBS: Final[dict[str, tuple[str, ...]]] = {
    "namespaces": ("create", "delete", "get", "list", "patch", "update", "watch"),
}

#: Verbs and response kind ``(group, version, kind)`` of each subresource; ``None`` for the
#: parent's kind.
_SUBRESOURCES: Final[dict[str, tuple[tuple[str, ...], tuple[str, str, str] | None]]] = {
    "status": (("get", "patch", "update"), None),
    "scale": (("get", "patch", "update"), ("autoscaling", "v1", "Scale")),
    "binding": (("create",), ("", "v1", "Binding")),
    "eviction": (("create",), ("policy", "v1", "Eviction")),
    "finalize": (("update",), None),
    "log": (("get",), None),
    "ephemeralcontainers": (("get", "patch", "update"), None),
    "resize": (("get", "patch", "update"), None),
}


# --------------------------------------------------------------------------- /version

def version_info() -> dict[str, str]:
    """``version.Info`` for ``/version``."""
    major, minor = GIT_VERSION[1:].split(".")[:2]
    return {
        "major": major,
        "minor": minor,
        "gitVersion": GIT_VERSION,
        "gitCommit": "0000000000000000000000000000000000000000",
        "gitTreeState": "clean",
        "buildDate": "2030-01-01T00:00:00Z",
        "goVersion": "go1.23.8",
        "compiler": "gc",
        "platform": "linux/amd64",
    }


# --------------------------------------------------------------------------- ordering helpers

_KUBE_VERSION = re.compile(r"^v(\d+)(?:(alpha|beta)(\d+))?$")


def _version_key(version: str) -> tuple[int, int, int, str]:
    """``version.CompareKubeAwareVersionStrings`` as a sort key: v1 > v1beta2 > v1beta1 > v1alpha1 >
    anything else (alphabetically)."""
    m = _KUBE_VERSION.match(version)
    if m is None:
        return (3, 0, 0, version)
    stage = {None: 0, "beta": 1, "alpha": 2}[m.group(2)]
    return (stage, -int(m.group(1)), -int(m.group(3) or 0), "")


def _group_key(group: str, custom: bool) -> tuple[int, str]:
    priority = _CUSTOM_GROUP_PRIORITY if custom else _GROUP_PRIORITY.get(group, _CUSTOM_GROUP_PRIORITY)
    return (-priority, group)


def storage_version_hash(rt: ResourceType) -> str:
    """``storageversionhash.StorageVersionHash``: 8 bytes of SHA-256 of ``group/version/kind``."""
    digest = hashlib.sha256(f"{rt.group}/{rt.version}/{rt.kind}".encode()).digest()
    return base64.b64encode(digest[:8]).decode()


def _verbs(rt: ResourceType) -> list[str]:
    return list(_CUSTOM_VERBS if rt.custom else _VERBS.get(rt.plural, _ALL_VERBS))


def _subresource_kind(rt: ResourceType, sub: str) -> tuple[tuple[str, ...], tuple[str, str, str]]:
    verbs, kind = _SUBRESOURCES.get(sub, (("get", "patch", "update"), None))
    return verbs, kind if kind is not None else (rt.group, rt.version, rt.kind)


# --------------------------------------------------------------------------- the documents


class _Snapshot:
    """Every discovery document of one set of served resources (built once, then shared)."""

    def __init__(self, resources: tuple[ResourceType, ...]) -> None:
        self.resources = resources
        by_group: dict[str, dict[str, list[ResourceType]]] = {}
        custom: dict[str, bool] = {}
        for rt in resources:
            by_group.setdefault(rt.group, {}).setdefault(rt.version, []).append(rt)
            custom[rt.group] = custom.get(rt.group, True) and rt.custom
        self.groups: list[tuple[str, list[tuple[str, list[ResourceType]]]]] = []
        for group in sorted(by_group, key=lambda g: _group_key(g, custom[g])):
            versions = sorted(by_group[group], key=_version_key)
            self.groups.append((group, [(v, sorted(by_group[group][v], key=lambda r: r.plural))
                                        for v in versions]))
        self._resource_lists: dict[str, dict[str, Any]] = {}
        self._aggregated: dict[tuple[bool, str], dict[str, Any]] = {}

    def group_versions(self) -> Iterable[tuple[str, str, list[ResourceType]]]:
        for group, versions in self.groups:
            for version, rts in versions:
                yield group, version, rts

    def api_group_list(self) -> dict[str, Any]:
        groups = []
        for group, versions in self.groups:
            if not group:
                continue
            entries = [{"groupVersion": f"{group}/{v}", "version": v} for v, _ in versions]
            groups.append({"name": group, "versions": entries, "preferredVersion": entries[0]})
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}

    def api_resource_list(self, group_version: str) -> dict[str, Any] | None:
        doc = self._resource_lists.get(group_version)
        if doc is not None:
            return doc
        for group, version, rts in self.group_versions():
            if (f"{group}/{version}" if group else version) == group_version:
                doc = {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version,
                       "resources": _resource_entries(rts)}
                self._resource_lists[group_version] = doc
                return doc
        return None

    def aggregated(self, *, core: bool, version: str) -> dict[str, Any]:
        doc = self._aggregated.get((core, version))
        if doc is None:
            items = [_discovery_group(group, versions) for group, versions in self.groups
                     if (group == "") == core]
            doc = {"kind": "APIGroupDiscoveryList", "apiVersion": f"apidiscovery.k8s.io/{version}",
                   "metadata": {}, "items": items}
            self._aggregated[(core, version)] = doc
        return doc


def _resource_entries(rts: list[ResourceType]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    for rt in rts:
        entry: dict[str, Any] = {"name": rt.plural, "singularName": rt.singular, "namespaced": rt.namespaced,
                                 "kind": rt.kind, "verbs": _verbs(rt)}
        if rt.short_names:
            entry["shortNames"] = list(rt.short_names)
        if rt.categories:
            entry["categories"] = list(rt.categories)
        entry["storageVersionHash"] = storage_version_hash(rt)
        entries.append(entry)
        for sub in sorted(rt.subresources):
            verbs, (group, version, kind) = _subresource_kind(rt, sub)
            sub_entry: dict[str, Any] = {"name": f"{rt.plural}/{sub}", "singularName": "",
                                         "namespaced": rt.namespaced}
            if (group, version) != (rt.group, rt.version):
                sub_entry["group"], sub_entry["version"] = group, version
            sub_entry["kind"] = kind
            sub_entry["verbs"] = list(verbs)
            entries.append(sub_entry)
    return entries


def _response_kind(rt: ResourceType, group: str, version: str, kind: str) -> dict[str, str]:
    """Built-in resources leave group and version empty when they are the resource's own (as
    kube-apiserver does); custom resources always name them."""
    if not rt.custom and (group, version) == (rt.group, rt.version):
        group = version = ""
    return {"group": group, "version": version, "kind": kind}


def _discovery_group(group: str, versions: list[tuple[str, list[ResourceType]]]) -> dict[str, Any]:
    out_versions = []
    for version, rts in versions:
        resources = []
        for rt in rts:
            entry: dict[str, Any] = {
                "resource": rt.plural,
                "responseKind": _response_kind(rt, rt.group, rt.version, rt.kind),
                "scope": "Namespaced" if rt.namespaced else "Cluster",
                "singularResource": rt.singular,
                "verbs": _verbs(rt),
            }
            if rt.short_names:
                entry["shortNames"] = list(rt.short_names)
            if rt.categories:
                entry["categories"] = list(rt.categories)
            subs = []
            for sub in sorted(rt.subresources):
                verbs, (g, v, kind) = _subresource_kind(rt, sub)
                subs.append({"subresource": sub, "responseKind": _response_kind(rt, g, v, kind),
                             "verbs": list(verbs)})
            if subs:
                entry["subresources"] = subs
            resources.append(entry)
        out_versions.append({"version": version, "resources": resources, "freshness": "Current"})
    metadata: dict[str, Any] = {"name": group} if group else {}
    metadata["creationTimestamp"] = None
    return {"metadata": metadata, "versions": out_versions}


_SNAPSHOTS: weakref.WeakKeyDictionary[Registry, _Snapshot] = weakref.WeakKeyDictionary()


_VIEWS: weakref.WeakKeyDictionary[ResourceType, ResourceType] = weakref.WeakKeyDictionary()


def _events_v1(core: ResourceType) -> ResourceType:
    """``events.k8s.io/v1`` Events, served over the core ``events`` resource (see
    :mod:`fakekube.http.events_v1`): listed in discovery beside it, never in the registry."""
    view = _VIEWS.get(core)
    if view is None:
        view = _VIEWS[core] = ResourceType("events.k8s.io", "v1", "Event", "events", namespaced=True,
                                           strategy=core.strategy, short_names=core.short_names)
    return view


def _snapshot(registry: Registry) -> _Snapshot:
    """The documents of the registry's current resources (rebuilt only when they changed)."""
    resources = tuple(registry.all())
    core_events = registry.by_key("events")
    if core_events is not None:
        resources += (_events_v1(core_events),)
    snap = _SNAPSHOTS.get(registry)
    if snap is None or snap.resources != resources:
        snap = _SNAPSHOTS[registry] = _Snapshot(resources)
    return snap


def api_versions(server_address: str) -> dict[str, Any]:
    """``/api``: the legacy ``APIVersions`` document (the core group has one version).

    ``server_address`` (``host:port``) is the one address every client CIDR is told to use, as
    kube-apiserver's default discovery addresses do; typed clients require the field.
    """
    return {"kind": "APIVersions", "versions": ["v1"],
            "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}]}


def api_group_list(registry: Registry) -> dict[str, Any]:
    """``/apis``: the legacy ``APIGroupList`` (every named group and its versions)."""
    return _snapshot(registry).api_group_list()


def api_resource_list(registry: Registry, group_version: str) -> dict[str, Any] | None:
    """``/api/v1`` (``group_version="v1"``) or ``/apis/{g}/{v}``: the ``APIResourceList``, with
    subresources as ``pods/status`` entries. ``None`` when the group-version is not served (a 404).

    The returned document is shared between calls: serialize it, do not modify it.
    """
    return _snapshot(registry).api_resource_list(group_version)


def aggregated_discovery(registry: Registry, *, core: bool, version: str = "v2") -> dict[str, Any]:
    """The ``APIGroupDiscoveryList`` of ``/api`` (``core=True``: one item, the core group, with no
    name) or of ``/apis`` (``core=False``: every named group). ``version`` is ``v2`` or ``v2beta1``.

    The returned document is shared between calls: serialize it, do not modify it.
    """
    if version not in AGGREGATED_DISCOVERY_VERSIONS:
        raise UsageError(f"aggregated discovery version must be one of {AGGREGATED_DISCOVERY_VERSIONS}, "
                         f"got {version!r}")
    return _snapshot(registry).aggregated(core=core, version=version)


def aggregated_discovery_version(accept: str | None) -> str | None:
    """The ``apidiscovery.k8s.io`` version an ``Accept`` header asks for (``v2`` or ``v2beta1``,
    its first acceptable entry), or ``None`` for the legacy documents.

    kubectl sends ``application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,
    application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json``;
    the Python clients send ``application/json`` or ``*/*`` and get the legacy documents.
    """
    return negotiate_as(accept, group="apidiscovery.k8s.io", kind="APIGroupDiscoveryList",
                        versions=AGGREGATED_DISCOVERY_VERSIONS)


def aggregated_discovery_media_type(version: str) -> str:
    """The ``Content-Type`` of an aggregated discovery answer (clients check it)."""
    return _AGGREGATED_MEDIA.format(version=version)
