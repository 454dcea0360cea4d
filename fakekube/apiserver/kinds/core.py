"""Namespaces, Nodes, Services, EndpointSlices, Events and PersistentVolumeClaims."""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.kinds.pods import port_number_errors
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Context, Strategy
from fakekube.errors import FieldError
from fakekube.machinery import validation as v
from fakekube.machinery.objects import dict_field

__all__ = ["install"]


FINALIZER_KUBERNETES = "kubernetes"
STANDARD_FINALIZERS = (FINALIZER_KUBERNETES, v.FINALIZER_ORPHAN_DEPENDENTS, v.FINALIZER_DELETE_DEPENDENTS)
LABEL_METADATA_NAME = "kubernetes.io/metadata.name"


def _finalizer_name_errors(name: Any, path: str) -> list[FieldError]:
    """``validateFinalizerName``: a qualified name, and a standard one unless it has a ``/``."""
    if not isinstance(name, str):
        return [FieldError.invalid(path, name, "must be a string")]
    errors = [FieldError.invalid(path, name, msg) for msg in v.is_qualified_name(name)]
    if "/" not in name and name not in STANDARD_FINALIZERS:
        errors.append(FieldError.invalid(path, name, "name is neither a standard finalizer name nor is it fully "
                                                     "qualified"))
    return errors


def _spec_finalizers(obj: dict[str, Any]) -> list[Any]:
    spec = obj.get("spec")
    finalizers = spec.get("finalizers") if isinstance(spec, dict) else None
    return finalizers if isinstance(finalizers, list) else []


class NamespaceStrategy(Strategy):
    """Namespaces (``pkg/registry/core/namespace``): created ``Active`` with the ``kubernetes``
    finalizer in ``spec.finalizers``, which only ``/finalize`` changes; the first DELETE marks the
    namespace ``Terminating``, and it goes once ``spec.finalizers`` (and ``metadata.finalizers``)
    are empty. Content removal is the namespace controller's (``fakekube.components``)."""

    name_rule = staticmethod(v.name_is_dns_label)
    tracks_generation = False
    return_deleted_object = True

    def default(self, obj: dict[str, Any]) -> None:
        """``SetDefaults_Namespace``: the ``kubernetes.io/metadata.name`` label."""
        meta = obj["metadata"]
        name = meta.get("name")
        labels = meta.get("labels") or {}
        if name and labels.get(LABEL_METADATA_NAME) != name:
            meta["labels"] = {**labels, LABEL_METADATA_NAME: name}

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        spec = dict_field(obj, "spec")
        finalizers = list(spec.get("finalizers") or [])
        if FINALIZER_KUBERNETES not in finalizers:
            finalizers.append(FINALIZER_KUBERNETES)
        obj["spec"] = {**spec, "finalizers": finalizers}
        obj["status"] = {"phase": "Active"}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """``ValidateNamespace`` beyond ObjectMeta: each of ``spec.finalizers`` (path not indexed)."""
        return [e for name in _spec_finalizers(obj) for e in _finalizer_name_errors(name, "spec.finalizers")]

    def prepare_for_update(self, new: dict[str, Any], old: dict[str, Any], ctx: Context) -> None:
        """Main resource: ``spec.finalizers`` keeps its value (status is kept by the server).
        ``/finalize``: the request's ``spec.finalizers``, stored without an empty list (omitempty)."""
        spec = dict_field(new, "spec")
        if ctx.subresource == "finalize":
            new["spec"] = {k: val for k, val in spec.items() if k != "finalizers" or val}
            return
        old_spec = old.get("spec") or {}
        rest = {k: val for k, val in spec.items() if k != "finalizers"}
        new["spec"] = {**rest, "finalizers": old_spec["finalizers"]} if "finalizers" in old_spec else rest

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """``ValidateNamespaceFinalizeUpdate``: each of ``spec.finalizers[i]`` (the main resource
        keeps the stored, valid ones)."""
        return [e for i, name in enumerate(_spec_finalizers(new))
                for e in _finalizer_name_errors(name, f"spec.finalizers[{i}]")]

    def prepare_for_status_update(self, new: dict[str, Any], old: dict[str, Any], ctx: Context) -> None:
        super().prepare_for_status_update(new, old, ctx)
        status = dict_field(new, "status")
        if not status.get("phase"):  # SetDefaults_NamespaceStatus
            new["status"] = {**status, "phase": "Active"}

    def validate_status_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        """``ValidateNamespaceStatusUpdate``: ``Active`` exactly while not being deleted."""
        phase = (new.get("status") or {}).get("phase")
        if new["metadata"].get("deletionTimestamp"):
            if phase != "Terminating":
                return [FieldError.invalid("status.Phase", phase,
                                           "may only be 'Terminating' if `deletionTimestamp` is not empty")]
        elif phase != "Active":
            return [FieldError.invalid("status.Phase", phase, "may only be 'Active' if `deletionTimestamp` is empty")]
        return []

    def prepare_for_delete(self, obj: dict[str, Any], ctx: Context) -> bool:
        """``REST.Delete`` on the first request: ``status.phase: Terminating``."""
        obj["status"] = {**(obj.get("status") or {}), "phase": "Terminating"}
        return True

    def finalizing(self, obj: dict[str, Any]) -> bool:
        return bool(_spec_finalizers(obj))


TAINT_EFFECTS = ("NoExecute", "NoSchedule", "PreferNoSchedule")


class NodeStrategy(Strategy):
    tracks_generation = False

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """``validateNodeTaints``: each taint's key a label name, its value a label value, its
        effect one of the three."""
        spec = dict_field(obj, "spec")
        errors: list[FieldError] = []
        for i, taint in enumerate(spec.get("taints") or []):
            if not isinstance(taint, dict):
                continue
            where = f"spec.taints[{i}]"
            errors += v.validate_label_name(str(taint.get("key", "")), f"{where}.key")
            value = taint.get("value", "")
            if isinstance(value, str) and v.is_valid_label_value(value):
                errors.append(FieldError.invalid(f"{where}.value", value, ";".join(v.is_valid_label_value(value))))
            effect = taint.get("effect", "")
            if not effect:
                errors.append(FieldError.required(f"{where}.effect"))
            elif effect not in TAINT_EFFECTS:
                errors.append(FieldError.not_supported(f"{where}.effect", effect, TAINT_EFFECTS))
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.validate(new)

    def default(self, obj: dict[str, Any]) -> None:
        status = obj.setdefault("status", {})
        if "capacity" in status and "allocatable" not in status:
            status["allocatable"] = dict(status["capacity"])


class ServiceStrategy(Strategy):
    """Services; ClusterIPs come from 10.96.0.0/12 in allocation order (10.96.0.1 is reserved
    for the ``kubernetes`` Service, as on a real cluster)."""

    name_rule = staticmethod(v.name_is_dns1035_label)
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
            if "port" in port:
                port.setdefault("targetPort", port["port"])
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
        for i, port in enumerate(spec.get("ports") or []):
            if isinstance(port, dict):  # validateServicePort
                errors += port_number_errors(port.get("port", 0), f"spec.ports[{i}].port")
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        old_ip, new_ip = (old.get("spec") or {}).get("clusterIP"), (new.get("spec") or {}).get("clusterIP")
        if old_ip and new_ip != old_ip:
            errors.append(FieldError.invalid("spec.clusterIPs[0]", new_ip, "may not change once set"))
        return errors


class PlainStrategy(Strategy):
    tracks_generation = False


#: ``core.MaxSecretSize``: the most bytes a ConfigMap's (or Secret's) keys and values may hold.
MAX_CONFIG_MAP_BYTES = 1024 * 1024


class ConfigMapStrategy(PlainStrategy):
    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        """``ValidateConfigMap``'s size rule: the keys and values of ``data`` and ``binaryData``
        (decoded) together at most :data:`MAX_CONFIG_MAP_BYTES`; the error names the whole object."""
        total = 0
        for key in ("data", "binaryData"):
            entries = obj.get(key)
            if isinstance(entries, dict):
                for k, val in entries.items():
                    size = len(val.encode()) if isinstance(val, str) else 0
                    total += len(k.encode()) + (size * 3 // 4 if key == "binaryData" else size)
        if total > MAX_CONFIG_MAP_BYTES:
            return [FieldError.too_long("", "", MAX_CONFIG_MAP_BYTES)]
        return []

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        return self.validate(new)


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
    add(ResourceType("", "v1", "ConfigMap", "configmaps", namespaced=True, strategy=ConfigMapStrategy(),
                     short_names=("cm",)))
    add(ResourceType("", "v1", "ServiceAccount", "serviceaccounts", namespaced=True, strategy=PlainStrategy(),
                     short_names=("sa",)))
