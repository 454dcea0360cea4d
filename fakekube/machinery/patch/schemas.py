"""The strategic-merge schemas of built-in resources (their ``patchStrategy``/``patchMergeKey`` tags).

Merge keys of the ready-made schemas (k8s.io/api v0.34 struct tags):
ObjectMeta ``ownerReferences``/uid, ``finalizers`` (primitive merge); PodSpec ``containers``,
``initContainers``, ``ephemeralContainers``, ``imagePullSecrets``, ``schedulingGates``,
``resourceClaims`` and ``volumes`` by name, ``hostAliases``/ip, ``topologySpreadConstraints``/
topologyKey; Container ``env``/name, ``ports``/containerPort, ``volumeMounts``/mountPath,
``volumeDevices``/devicePath; PodStatus ``conditions``/type, ``podIPs`` and ``hostIPs``/ip,
``resourceClaimStatuses``/name; JobStatus, NodeStatus, ServiceStatus, NamespaceStatus, PVC, PDB and
apps ``conditions``/type; NodeStatus ``addresses``/type; NodeSpec ``podCIDRs`` (primitive merge);
ServiceSpec ``ports``/port; ServiceAccount ``secrets``/name. Everything else (``tolerations``,
``args``, affinity terms, ``containerStatuses``, ...) has no strategy and is replaced whole.
"""

from __future__ import annotations

from typing import Final

from .strategic import FieldMeta, MergeSchema

__all__ = [
    "CRONJOB_SCHEMA",
    "GENERIC_METADATA_SCHEMA",
    "JOB_SCHEMA",
    "NODE_SCHEMA",
    "POD_SCHEMA",
    "POD_TEMPLATE_SPEC_SCHEMA",
    "SERVICE_SCHEMA",
    "schema_for",
]


def _keyed(merge_key: str, item: str | MergeSchema, *, retain_keys: bool = False) -> FieldMeta:
    schema = item if isinstance(item, MergeSchema) else MergeSchema(item)
    return FieldMeta("merge", merge_key, retain_keys, schema)


def _struct(schema: MergeSchema, strategy: str = "", *, retain_keys: bool = False) -> FieldMeta:
    return FieldMeta(strategy, "", retain_keys, schema)


_SET: Final = FieldMeta("merge", "", False, MergeSchema("string"))

_OBJECT_META: Final = MergeSchema("ObjectMeta", {
    "ownerReferences": _keyed("uid", "OwnerReference"),
    "finalizers": _SET,
})


def _container(name: str) -> MergeSchema:
    return MergeSchema(name, {
        "ports": _keyed("containerPort", "ContainerPort"),
        "env": _keyed("name", "EnvVar"),
        "volumeMounts": _keyed("mountPath", "VolumeMount"),
        "volumeDevices": _keyed("devicePath", "VolumeDevice"),
    })


_CONTAINER: Final = _container("Container")

_POD_SPEC: Final = MergeSchema("PodSpec", {
    "volumes": _keyed("name", "Volume", retain_keys=True),
    "initContainers": _keyed("name", _CONTAINER),
    "containers": _keyed("name", _CONTAINER),
    "ephemeralContainers": _keyed("name", _container("EphemeralContainer")),
    "imagePullSecrets": _keyed("name", "LocalObjectReference"),
    "hostAliases": _keyed("ip", "HostAlias"),
    "topologySpreadConstraints": _keyed("topologyKey", "TopologySpreadConstraint"),
    "schedulingGates": _keyed("name", "PodSchedulingGate"),
    "resourceClaims": _keyed("name", "PodResourceClaim", retain_keys=True),
})

_POD_STATUS: Final = MergeSchema("PodStatus", {
    "conditions": _keyed("type", "PodCondition"),
    "hostIPs": _keyed("ip", "HostIP"),
    "podIPs": _keyed("ip", "PodIP"),
    "resourceClaimStatuses": _keyed("name", "PodResourceClaimStatus", retain_keys=True),
})


def _object(name: str, spec: MergeSchema | None = None, status: MergeSchema | None = None,
            **extra: FieldMeta) -> MergeSchema:
    fields: dict[str, FieldMeta] = {"metadata": _struct(_OBJECT_META)}
    if spec is not None:
        fields["spec"] = _struct(spec)
    if status is not None:
        fields["status"] = _struct(status)
    fields.update(extra)
    return MergeSchema(name, fields)


def _conditions(status_name: str, condition_name: str) -> MergeSchema:
    return MergeSchema(status_name, {"conditions": _keyed("type", condition_name)})


POD_TEMPLATE_SPEC_SCHEMA: Final = MergeSchema("PodTemplateSpec", {
    "metadata": _struct(_OBJECT_META), "spec": _struct(_POD_SPEC)})
POD_SCHEMA: Final = _object("Pod", _POD_SPEC, _POD_STATUS)
_JOB_SPEC: Final = MergeSchema("JobSpec", {"template": _struct(POD_TEMPLATE_SPEC_SCHEMA)})
JOB_SCHEMA: Final = _object("Job", _JOB_SPEC, _conditions("JobStatus", "JobCondition"))
CRONJOB_SCHEMA: Final = _object("CronJob", MergeSchema("CronJobSpec", {
    "jobTemplate": _struct(MergeSchema("JobTemplateSpec", {
        "metadata": _struct(_OBJECT_META), "spec": _struct(_JOB_SPEC)}))}))
NODE_SCHEMA: Final = _object(
    "Node", MergeSchema("NodeSpec", {"podCIDRs": _SET}),
    MergeSchema("NodeStatus", {"conditions": _keyed("type", "NodeCondition"),
                               "addresses": _keyed("type", "NodeAddress")}))
SERVICE_SCHEMA: Final = _object(
    "Service", MergeSchema("ServiceSpec", {"ports": _keyed("port", "ServicePort")}),
    _conditions("ServiceStatus", "Condition"))
GENERIC_METADATA_SCHEMA: Final = MergeSchema("Object", {"metadata": _struct(_OBJECT_META)})

_TEMPLATED_SPEC: Final = MergeSchema("Spec", {"template": _struct(POD_TEMPLATE_SPEC_SCHEMA)})


def _workload(kind: str, *, retain_strategy: bool = False) -> MergeSchema:
    spec_fields = dict(_TEMPLATED_SPEC.fields)
    if retain_strategy:
        spec_fields["strategy"] = _struct(MergeSchema("DeploymentStrategy"), retain_keys=True)
    return _object(kind, MergeSchema(f"{kind}Spec", spec_fields),
                   _conditions(f"{kind}Status", f"{kind}Condition"))


_BUILTIN_SCHEMAS: Final[dict[tuple[str, str], MergeSchema]] = {
    ("pods", ""): POD_SCHEMA,
    ("jobs", "batch"): JOB_SCHEMA,
    ("cronjobs", "batch"): CRONJOB_SCHEMA,
    ("nodes", ""): NODE_SCHEMA,
    ("services", ""): SERVICE_SCHEMA,
    ("podtemplates", ""): _object("PodTemplate", template=_struct(POD_TEMPLATE_SPEC_SCHEMA)),
    ("replicationcontrollers", ""): _object(
        "ReplicationController", _TEMPLATED_SPEC,
        _conditions("ReplicationControllerStatus", "ReplicationControllerCondition")),
    ("namespaces", ""): _object("Namespace", status=_conditions("NamespaceStatus", "NamespaceCondition")),
    ("serviceaccounts", ""): _object("ServiceAccount", secrets=_keyed("name", "ObjectReference")),
    ("persistentvolumeclaims", ""): _object(
        "PersistentVolumeClaim", status=_conditions("PersistentVolumeClaimStatus",
                                                    "PersistentVolumeClaimCondition")),
    ("poddisruptionbudgets", "policy"): _object(
        "PodDisruptionBudget",
        MergeSchema("PodDisruptionBudgetSpec", {"selector": _struct(MergeSchema("LabelSelector"), "replace")}),
        _conditions("PodDisruptionBudgetStatus", "Condition")),
    ("deployments", "apps"): _workload("Deployment", retain_strategy=True),
    ("replicasets", "apps"): _workload("ReplicaSet"),
    ("statefulsets", "apps"): _workload("StatefulSet"),
    ("daemonsets", "apps"): _workload("DaemonSet"),
    ("mutatingwebhookconfigurations", "admissionregistration.k8s.io"): MergeSchema(
        "MutatingWebhookConfiguration", {"metadata": _struct(_OBJECT_META),
                                         "webhooks": _keyed("name", "MutatingWebhook")}),
    ("validatingwebhookconfigurations", "admissionregistration.k8s.io"): MergeSchema(
        "ValidatingWebhookConfiguration", {"metadata": _struct(_OBJECT_META),
                                           "webhooks": _keyed("name", "ValidatingWebhook")}),
}
for _plural, _group in (
    ("configmaps", ""), ("secrets", ""), ("endpoints", ""), ("events", ""), ("limitranges", ""),
    ("resourcequotas", ""), ("persistentvolumes", ""), ("events", "events.k8s.io"),
    ("endpointslices", "discovery.k8s.io"), ("leases", "coordination.k8s.io"),
    ("priorityclasses", "scheduling.k8s.io"), ("customresourcedefinitions", "apiextensions.k8s.io"),
    ("storageclasses", "storage.k8s.io"), ("ingresses", "networking.k8s.io"),
    ("networkpolicies", "networking.k8s.io"), ("roles", "rbac.authorization.k8s.io"),
    ("rolebindings", "rbac.authorization.k8s.io"), ("clusterroles", "rbac.authorization.k8s.io"),
    ("clusterrolebindings", "rbac.authorization.k8s.io"),
    ("validatingadmissionpolicies", "admissionregistration.k8s.io"),
    ("validatingadmissionpolicybindings", "admissionregistration.k8s.io"),
):
    _BUILTIN_SCHEMAS[(_plural, _group)] = GENERIC_METADATA_SCHEMA
_BUILTIN_GROUPS: Final[dict[str, list[str]]] = {}
for _plural, _group in _BUILTIN_SCHEMAS:
    _BUILTIN_GROUPS.setdefault(_plural, []).append(_group)
del _plural, _group


def schema_for(resource_plural: str) -> MergeSchema | None:
    """The strategic-merge schema of a built-in resource, or None (custom resource → 415).

    Accepts ``pods``, ``jobs.batch``, ``pods/status``, ``deployments.apps/scale``; ``/scale``
    subresources patch an ``autoscaling/v1`` Scale (metadata only).
    """
    resource, _, subresource = resource_plural.partition("/")
    plural, _, group = resource.partition(".")
    groups = _BUILTIN_GROUPS.get(plural, [])
    if group:
        if group not in groups:
            return None
    elif not groups:
        return None
    else:
        group = groups[0]
    if subresource == "scale":
        return GENERIC_METADATA_SCHEMA
    return _BUILTIN_SCHEMAS[(plural, group)]
