"""Namespaces, Nodes, Services, EndpointSlices, Events and PersistentVolumeClaims."""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Context, Strategy
from fakekube.errors import FieldError
from fakekube.machinery import validation as v

__all__ = ["install"]


class NamespaceStrategy(Strategy):
    name_rule = staticmethod(v.name_is_dns_label)  # type: ignore[assignment]
    tracks_generation = False

    def default(self, obj: dict[str, Any]) -> None:
        obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
        labels = obj["metadata"].setdefault("labels", {})
        if obj["metadata"].get("name"):
            labels["kubernetes.io/metadata.name"] = obj["metadata"]["name"]

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        obj["status"] = {"phase": "Active"}


class NodeStrategy(Strategy):
    tracks_generation = False

    def default(self, obj: dict[str, Any]) -> None:
        status = obj.setdefault("status", {})
        if "capacity" in status and "allocatable" not in status:
            status["allocatable"] = dict(status["capacity"])


class ServiceStrategy(Strategy):
    """Services; ClusterIPs come from 10.96.0.0/12 in allocation order (10.96.0.1 is reserved
    for the ``kubernetes`` Service, as on a real cluster)."""

    name_rule = staticmethod(v.name_is_dns1035_label)  # type: ignore[assignment]
    tracks_generation = False

    def __init__(self) -> None:
        self._next_ip = 10

    def _allocate_ip(self) -> str:
        n = self._next_ip
        self._next_ip += 1
        return f"10.{96 + n // 65536}.{n // 256 % 256}.{n % 256}"

    def default(self, obj: dict[str, Any]) -> None:
        spec = obj.setdefault("spec", {})
        spec.setdefault("type", "ClusterIP")
        spec.setdefault("sessionAffinity", "None")
        for port in spec.get("ports") or []:
            port.setdefault("protocol", "TCP")
            port.setdefault("targetPort", port.get("port"))
        spec.setdefault("ipFamilyPolicy", "SingleStack")
        spec.setdefault("internalTrafficPolicy", "Cluster")

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        obj["status"] = {"loadBalancer": {}}
        spec = obj["spec"]
        if spec.get("type") != "ExternalName":
            if not spec.get("clusterIP"):
                spec["clusterIP"] = self._allocate_ip()
            spec["clusterIPs"] = [spec["clusterIP"]]
            spec.setdefault("ipFamilies", ["IPv4"])

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = obj.get("spec") or {}
        errors: list[FieldError] = []
        if spec.get("type") not in ("ClusterIP", "NodePort", "LoadBalancer", "ExternalName"):
            errors.append(FieldError.not_supported("spec.type", spec.get("type"),
                                                   ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]))
        if spec.get("selector"):
            errors += v.validate_labels(spec["selector"], "spec.selector")
        if spec.get("clusterIP") != "None" and not spec.get("ports") and spec.get("type") != "ExternalName":
            errors.append(FieldError.required("spec.ports", ""))
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        old_ip, new_ip = (old.get("spec") or {}).get("clusterIP"), (new.get("spec") or {}).get("clusterIP")
        if old_ip and new_ip != old_ip:
            errors.append(FieldError.invalid("spec.clusterIPs[0]", new_ip, "may not change once set"))
        return errors


class PlainStrategy(Strategy):
    tracks_generation = False


class EndpointSliceStrategy(Strategy):
    tracks_generation = True


class PvcStrategy(Strategy):
    tracks_generation = False

    def default(self, obj: dict[str, Any]) -> None:
        obj.setdefault("spec", {}).setdefault("volumeMode", "Filesystem")

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        obj["status"] = {"phase": "Pending"}


def install(server: ApiServer) -> None:
    add = server.registry.add
    add(ResourceType("", "v1", "Namespace", "namespaces", namespaced=False, strategy=NamespaceStrategy(),
                     short_names=("ns",), subresources=frozenset({"status", "finalize"})))
    add(ResourceType("", "v1", "Node", "nodes", namespaced=False, strategy=NodeStrategy(),
                     short_names=("no",), subresources=frozenset({"status"})))
    add(ResourceType("", "v1", "Service", "services", namespaced=True, strategy=ServiceStrategy(),
                     short_names=("svc",), subresources=frozenset({"status"}), categories=("all",)))
    add(ResourceType("discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", namespaced=True,
                     strategy=EndpointSliceStrategy()))
    add(ResourceType("", "v1", "Event", "events", namespaced=True, strategy=PlainStrategy(),
                     short_names=("ev",)))
    add(ResourceType("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", namespaced=True,
                     strategy=PvcStrategy(), short_names=("pvc",), subresources=frozenset({"status"})))
    add(ResourceType("", "v1", "ConfigMap", "configmaps", namespaced=True, strategy=PlainStrategy(),
                     short_names=("cm",)))
    add(ResourceType("", "v1", "ServiceAccount", "serviceaccounts", namespaced=True, strategy=PlainStrategy(),
                     short_names=("sa",)))
