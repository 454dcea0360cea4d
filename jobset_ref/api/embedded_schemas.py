"""The schemas of the Kubernetes objects a JobSet embeds, as the upstream CRD carries them.

Upstream's CRD (controller-gen v0.17.2 with ``generateEmbeddedObjectMeta``) inlines the whole
OpenAPI schema of the ``batch/v1`` JobTemplateSpec at ``spec.replicatedJobs[].template`` and of
the ``core/v1`` PersistentVolumeClaim at ``spec.volumeClaimPolicies[].templates[]``. So the API
server prunes unknown fields there, fills the defaults the Kubernetes types declare
(``ports[].protocol: TCP``, ``configMapKeyRef.name: ""`` ...) and checks types, required fields,
list keys and quantities before any webhook sees the JobSet.

This module rebuilds those two schemas from the definitions fakekube serves for its built-in kinds
(:func:`fakekube.generated.builtin_definitions`, generated from the Kubernetes Python client's
models) and adds what controller-gen derives from the Go markers of the Kubernetes types, which
the client models do not carry:

* ``$ref`` inlined; descriptions and strategic-merge-patch markers dropped;
* every ``metadata`` as ``generateEmbeddedObjectMeta`` renders ObjectMeta: ``annotations``,
  ``finalizers``, ``labels``, ``name`` and ``namespace`` only (the rest is pruned);
* integer formats: ``int32``, or ``int64`` for the fields in :data:`INT64_FIELDS`;
* list types: ``atomic``, or a set (:data:`LIST_SETS`), or a map with keys (:data:`LIST_MAPS`);
* ``x-kubernetes-map-type``: the ``+structType=atomic`` structs (:data:`ATOMIC_STRUCTS`) and the
  maps in :data:`MAP_TYPES`;
* the ``+default`` values (:data:`DEFAULTS`);
* quantities (:data:`QUANTITY_FIELDS`): int-or-string with the ``resource.Quantity`` pattern;
* fields the client models know but the upstream CRD has not (newer Kubernetes API) are left out
  (:data:`NOT_IN_UPSTREAM`), so they are pruned as upstream prunes them.

Tables are keyed ``"<Go type>.<json field>"``; an entry that matches nothing is an error, so a
stale entry cannot linger. Generation time only: :mod:`jobset_ref.api.crd` calls
:func:`job_template_schema` and :func:`persistent_volume_claim_schema` when it rebuilds
``jobset_crd.json``; serving the CRD reads the committed file. At run time only
:func:`holding_struct` reads the definitions, to name a Go struct in a decoding error.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Final

__all__ = [
    "ATOMIC_STRUCTS",
    "DEFAULTS",
    "INT64_FIELDS",
    "LIST_MAPS",
    "LIST_SETS",
    "MAP_TYPES",
    "NOT_IN_UPSTREAM",
    "QUANTITY_FIELDS",
    "definition_ref",
    "holding_struct",
    "job_template_schema",
    "persistent_volume_claim_schema",
]

_OBJECT_META: Final = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_JOB_SPEC: Final = "io.k8s.api.batch.v1.JobSpec"
_PVC: Final = "io.k8s.api.core.v1.PersistentVolumeClaim"

#: The ObjectMeta fields ``generateEmbeddedObjectMeta`` keeps in an embedded object's metadata.
EMBEDDED_META_FIELDS: Final = ("annotations", "finalizers", "labels", "name", "namespace")

#: ``int64`` integers (every other integer of these types is an ``int32``).
INT64_FIELDS: Final = frozenset({
    "JobSpec.activeDeadlineSeconds",
    "PodSecurityContext.fsGroup", "PodSecurityContext.runAsGroup", "PodSecurityContext.runAsUser",
    "PodSecurityContext.supplementalGroups",
    "PodSpec.activeDeadlineSeconds", "PodSpec.terminationGracePeriodSeconds",
    "Probe.terminationGracePeriodSeconds",
    "SecurityContext.runAsGroup", "SecurityContext.runAsUser",
    "ServiceAccountTokenProjection.expirationSeconds",
    "SleepAction.seconds",
    "Toleration.tolerationSeconds",
})

#: ``+listType=map`` lists and their ``+listMapKey`` keys (every other list is ``atomic`` or a set).
LIST_MAPS: Final[Mapping[str, tuple[str, ...]]] = {
    "Container.env": ("name",),
    "Container.ports": ("containerPort", "protocol"),
    "Container.volumeDevices": ("devicePath",),
    "Container.volumeMounts": ("mountPath",),
    "EphemeralContainer.env": ("name",),
    "EphemeralContainer.ports": ("containerPort", "protocol"),
    "EphemeralContainer.volumeDevices": ("devicePath",),
    "EphemeralContainer.volumeMounts": ("mountPath",),
    "PersistentVolumeClaimStatus.conditions": ("type",),
    "PodSpec.containers": ("name",),
    "PodSpec.ephemeralContainers": ("name",),
    "PodSpec.hostAliases": ("ip",),
    "PodSpec.imagePullSecrets": ("name",),
    "PodSpec.initContainers": ("name",),
    "PodSpec.resourceClaims": ("name",),
    "PodSpec.schedulingGates": ("name",),
    "PodSpec.topologySpreadConstraints": ("topologyKey", "whenUnsatisfiable"),
    "PodSpec.volumes": ("name",),
    "ResourceRequirements.claims": ("name",),
}

#: ``+listType=set`` lists.
LIST_SETS: Final = frozenset({"ContainerRestartRuleOnExitCodes.values", "PodFailurePolicyOnExitCodesRequirement.values"})

#: ``+structType=atomic`` types: ``x-kubernetes-map-type: atomic`` wherever they appear.
ATOMIC_STRUCTS: Final = frozenset({
    "ConfigMapEnvSource", "ConfigMapKeySelector", "ConfigMapProjection", "ConfigMapVolumeSource",
    "FileKeySelector", "LabelSelector", "LocalObjectReference", "NodeSelector", "NodeSelectorTerm",
    "ObjectFieldSelector", "ResourceFieldSelector", "SecretEnvSource", "SecretKeySelector",
    "SecretProjection", "TypedLocalObjectReference",
})

#: ``+mapType`` of plain maps.
MAP_TYPES: Final[Mapping[str, str]] = {
    "PersistentVolumeClaimStatus.allocatedResourceStatuses": "granular",
    "PodSpec.nodeSelector": "atomic",
}

#: ``+default`` values.
DEFAULTS: Final[Mapping[str, Any]] = {
    "AzureDiskVolumeSource.fsType": "ext4",
    "AzureDiskVolumeSource.readOnly": False,
    "ConfigMapEnvSource.name": "",
    "ConfigMapKeySelector.name": "",
    "ConfigMapProjection.name": "",
    "ConfigMapVolumeSource.name": "",
    "ContainerPort.protocol": "TCP",
    "FileKeySelector.optional": False,
    "GRPCAction.service": "",
    "ISCSIVolumeSource.iscsiInterface": "default",
    "LocalObjectReference.name": "",
    "RBDVolumeSource.keyring": "/etc/ceph/keyring",
    "RBDVolumeSource.pool": "rbd",
    "RBDVolumeSource.user": "admin",
    "ScaleIOVolumeSource.fsType": "xfs",
    "ScaleIOVolumeSource.storageMode": "ThinProvisioned",
    "SecretEnvSource.name": "",
    "SecretKeySelector.name": "",
    "SecretProjection.name": "",
}

#: ``resource.Quantity`` fields (a map's values for maps).
QUANTITY_FIELDS: Final = frozenset({
    "EmptyDirVolumeSource.sizeLimit",
    "PersistentVolumeClaimStatus.allocatedResources", "PersistentVolumeClaimStatus.capacity",
    "PodSpec.overhead",
    "ResourceFieldSelector.divisor",
    "ResourceRequirements.limits", "ResourceRequirements.requests",
    "VolumeResourceRequirements.limits", "VolumeResourceRequirements.requests",
})

#: Fields of the client models that the upstream CRD does not have.
NOT_IN_UPSTREAM: Final = frozenset({
    "ClusterTrustBundleProjection.user",
    "ConfigMapVolumeSource.defaultUser",
    "DownwardAPIVolumeFile.user",
    "DownwardAPIVolumeSource.defaultUser",
    "EmptyDirVolumeSource.mode",
    "GRPCAction.mode",
    "HTTPGetAction.protocol",
    "JobSpec.scheduling",
    "KeyToPath.user",
    "PersistentVolumeClaimStatus.healthStatus",
    "PodCertificateProjection.user",
    "PodSpec.evictionResponders",
    "ProjectedVolumeSource.defaultUser",
    "SecretVolumeSource.defaultUser",
    "ServiceAccountTokenProjection.user",
    "VolumeMount.bindMountOptions",
})

#: The OpenAPI schema of ``resource.Quantity`` (apimachinery's ``Quantity.OpenAPISchemaType``
#: as controller-gen renders it).
QUANTITY_SCHEMA: Final[Mapping[str, Any]] = {
    "anyOf": [{"type": "integer"}, {"type": "string"}],
    "pattern": r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$",
    "x-kubernetes-int-or-string": True,
}

# Keywords of the client-derived definitions that a CRD schema does not carry.
_DROPPED: Final = frozenset({"description", "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key",
                             "x-kubernetes-group-version-kind"})
# Keywords copied as they are.
_KEPT: Final = ("type", "format", "anyOf", "x-kubernetes-int-or-string", "x-kubernetes-preserve-unknown-fields")


def job_template_schema() -> dict[str, Any]:
    """The ``batch/v1`` JobTemplateSpec schema of ``spec.replicatedJobs[].template`` (a fresh copy)."""
    return copy.deepcopy(_build()[0])


def persistent_volume_claim_schema() -> dict[str, Any]:
    """The ``core/v1`` PersistentVolumeClaim schema of ``spec.volumeClaimPolicies[].templates[]``
    (a fresh copy)."""
    return copy.deepcopy(_build()[1])


def holding_struct(kind: str, path: Sequence[str]) -> str:
    """The Go struct that holds the last field of ``path`` in an embedded ``kind`` (``JobTemplateSpec``
    or ``PersistentVolumeClaim``): ``("spec", "template", "spec", "containers", "ports", "containerPort")``
    of a JobTemplateSpec is held by ``ContainerPort``. List items are not in the path (Go's field paths)."""
    from fakekube.generated import builtin_definitions

    if kind == "JobTemplateSpec":
        if len(path) == 1:
            return kind
        name, path = {"metadata": _OBJECT_META, "spec": _JOB_SPEC}[path[0]], path[1:]
    elif kind == "PersistentVolumeClaim":
        name = _PVC
    else:
        raise ValueError(f"no embedded kind {kind!r}")
    definitions = builtin_definitions()
    for key in path[:-1]:
        prop = definitions[name]["properties"][key]
        ref = definition_ref(prop.get("items", prop))
        if ref is None:
            raise ValueError(f"{key!r} of {name} is not a struct or a list of structs")
        name = ref
    return name.rsplit(".", 1)[1]


@functools.cache
def _build() -> tuple[dict[str, Any], dict[str, Any]]:
    builder = _Builder()
    job_template = {"properties": {"metadata": builder.embedded_meta(), "spec": builder.definition(_JOB_SPEC)},
                    "type": "object"}
    pvc = builder.definition(_PVC)
    tables: tuple[Collection[str], ...] = (INT64_FIELDS, LIST_MAPS, LIST_SETS, ATOMIC_STRUCTS, MAP_TYPES, DEFAULTS,
                                           QUANTITY_FIELDS, NOT_IN_UPSTREAM)
    stale = sorted({key for table in tables for key in table} - builder.used)
    if stale:
        raise ValueError(f"entries that match no field of the embedded schemas: {stale}")
    return job_template, pvc


class _Builder:
    """One walk over the definitions reachable from a root, recording which table entries it used."""

    def __init__(self) -> None:
        from fakekube.generated import builtin_definitions

        self.definitions = builtin_definitions()
        self.used: set[str] = set()
        self.stack: list[str] = []

    def embedded_meta(self) -> dict[str, Any]:
        meta = self.definitions[_OBJECT_META]["properties"]
        return {"properties": {name: _plain(meta[name]) for name in EMBEDDED_META_FIELDS}, "type": "object"}

    def definition(self, name: str) -> dict[str, Any]:
        if name == _OBJECT_META:
            return self.embedded_meta()
        if name in self.stack:
            raise ValueError(f"recursive definition {name} (via {' -> '.join(self.stack)})")
        self.stack.append(name)
        raw = self.definitions[name]
        go_type = name.rsplit(".", 1)[1]
        properties: dict[str, Any] = {}
        for field, prop in raw.get("properties", {}).items():
            key = f"{go_type}.{field}"
            if self._use(key, key in NOT_IN_UPSTREAM):
                continue
            properties[field] = self.field(key, prop)
        out: dict[str, Any] = {"properties": dict(sorted(properties.items()))}
        required = [r for r in raw.get("required", ()) if r in properties]
        if required:
            out["required"] = required
        out["type"] = "object"
        if self._use(go_type, go_type in ATOMIC_STRUCTS):
            out["x-kubernetes-map-type"] = "atomic"
        self.stack.pop()
        return out

    def field(self, key: str, prop: Mapping[str, Any]) -> dict[str, Any]:
        """The schema of one field (``key`` is ``Type.field``)."""
        if self._use(key, key in QUANTITY_FIELDS):
            if prop.get("type") == "object":
                out: dict[str, Any] = {"additionalProperties": dict(QUANTITY_SCHEMA), "type": "object"}
            else:
                out = dict(QUANTITY_SCHEMA)
        else:
            out = self.node(key, prop)
        if out.get("type") == "array":
            if self._use(key, key in LIST_MAPS):
                out["x-kubernetes-list-map-keys"] = list(LIST_MAPS[key])
                out["x-kubernetes-list-type"] = "map"
            elif self._use(key, key in LIST_SETS):
                out["x-kubernetes-list-type"] = "set"
            else:
                out["x-kubernetes-list-type"] = "atomic"
        if self._use(key, key in MAP_TYPES):
            out["x-kubernetes-map-type"] = MAP_TYPES[key]
        if self._use(key, key in DEFAULTS):
            out["default"] = DEFAULTS[key]
        return dict(sorted(out.items()))

    def node(self, key: str, raw: Mapping[str, Any]) -> dict[str, Any]:
        """A schema node below field ``key`` (the field itself, or its items or map values)."""
        ref = definition_ref(raw)
        if ref is not None:
            return self.definition(ref)
        unknown = set(raw) - _DROPPED - set(_KEPT) - {"items", "additionalProperties"}
        if unknown:
            raise ValueError(f"{key}: unexpected schema keywords {sorted(unknown)}")
        out = {k: raw[k] for k in _KEPT if k in raw}
        if "items" in raw:
            out["items"] = self.node(key, raw["items"])
        if isinstance(raw.get("additionalProperties"), Mapping):
            out["additionalProperties"] = self.node(key, raw["additionalProperties"])
        if out.get("type") == "integer" and "format" not in out:
            out["format"] = "int64" if self._use(key, key in INT64_FIELDS) else "int32"
        return dict(sorted(out.items()))

    def _use(self, key: str, hit: bool) -> bool:
        if hit:
            self.used.add(key)
        return hit


def definition_ref(raw: Mapping[str, Any]) -> str | None:
    """The definition a node refers to (``$ref`` or a single ``allOf``), or None."""
    ref = raw.get("$ref")
    if ref is None and len(raw.get("allOf", ())) == 1:
        ref = raw["allOf"][0].get("$ref")
    return None if ref is None else str(ref).rsplit("/", 1)[1]


def _plain(raw: Any) -> Any:
    """``raw`` without descriptions and strategic-merge-patch markers (recursively)."""
    if isinstance(raw, Mapping):
        return {k: _plain(v) for k, v in sorted(raw.items()) if k not in _DROPPED}
    if isinstance(raw, list):
        return [_plain(v) for v in raw]
    return raw
