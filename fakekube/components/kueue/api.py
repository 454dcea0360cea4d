"""The six Kueue CustomResourceDefinitions as v0.19.2 serves them (``kueue.x-k8s.io/v1beta2``).

Names, scopes, short names, status subresources and printer columns are upstream's
(``config/components/crd/bases``). The schemas are written here from ``apis/kueue/v1beta2``:
every field the simulation reads, with the CRD defaults (``queueingStrategy: BestEffortFIFO``,
``stopPolicy: None``, the preemption and flavorFungibility defaults, ``podSets[].name: main``,
``count: 1``, ``active: true``) and the CEL rules users meet, with upstream's messages. Pod
templates, selectors, tolerations and taints are kept as given
(``x-kubernetes-preserve-unknown-fields``): their own schemas are the core API's, validated by
the pods the integrations create. Only v1beta2 is served (see docs/fidelity.md).
"""

from __future__ import annotations

from typing import Any

from . import constants as c

__all__ = ["crds"]

Schema = dict[str, Any]

_DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"


def _obj(properties: dict[str, Schema], *, required: list[str] | None = None, default: Any = None,
         rules: list[tuple[str, str]] | None = None) -> Schema:
    schema: Schema = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if default is not None:
        schema["default"] = default
    if rules:
        schema["x-kubernetes-validations"] = [{"rule": rule, "message": message} for rule, message in rules]
    return schema


def _str(*, enum: list[str] | None = None, default: str | None = None, max_length: int | None = None,
         pattern: str | None = None) -> Schema:
    schema: Schema = {"type": "string"}
    if enum:
        schema["enum"] = enum
    if default is not None:
        schema["default"] = default
    if max_length is not None:
        schema["maxLength"] = max_length
    if pattern is not None:
        schema["pattern"] = pattern
    return schema


def _int(*, default: int | None = None, minimum: int | None = None, fmt: str = "int32") -> Schema:
    schema: Schema = {"type": "integer", "format": fmt}
    if default is not None:
        schema["default"] = default
    if minimum is not None:
        schema["minimum"] = minimum
    return schema


def _list(items: Schema, *, max_items: int | None = None, min_items: int | None = None,
          map_keys: list[str] | None = None, list_type: str | None = None,
          rules: list[tuple[str, str]] | None = None) -> Schema:
    schema: Schema = {"type": "array", "items": items}
    if max_items is not None:
        schema["maxItems"] = max_items
    if min_items is not None:
        schema["minItems"] = min_items
    if map_keys:
        schema["x-kubernetes-list-type"] = "map"
        schema["x-kubernetes-list-map-keys"] = map_keys
    elif list_type:
        schema["x-kubernetes-list-type"] = list_type
    if rules:
        schema["x-kubernetes-validations"] = [{"rule": rule, "message": message} for rule, message in rules]
    return schema


def _free() -> Schema:
    """An embedded object kept as given (a pod template, a selector, a toleration)."""
    return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


_QUANTITY: Schema = {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True}
_STRING_MAP: Schema = {"type": "object", "additionalProperties": {"type": "string"}}
_QUANTITY_MAP: Schema = {"type": "object", "additionalProperties": _QUANTITY}
_TIME: Schema = {"type": "string", "format": "date-time"}


def _conditions() -> Schema:
    return _list(_obj({
        "type": _str(max_length=316), "status": _str(enum=["True", "False", "Unknown"]),
        "observedGeneration": _int(fmt="int64", minimum=0), "lastTransitionTime": _TIME,
        "reason": _str(max_length=1024), "message": _str(max_length=32768),
    }, required=["lastTransitionTime", "message", "reason", "status", "type"]), max_items=16, map_keys=["type"])


def _tolerations() -> Schema:
    return _list(_free(), max_items=8, rules=[
        ("self.all(x, !has(x.key) ? x.operator == 'Exists' : true)",
         "operator must be Exists when 'key' is empty, which means 'match all values and all keys'"),
        ("self.all(x, has(x.tolerationSeconds) ? x.effect == 'NoExecute' : true)",
         "effect must be 'NoExecute' when 'tolerationSeconds' is set"),
        ("self.all(x, !has(x.operator) || x.operator in ['Equal', 'Exists'])",
         "supported toleration values: 'Equal'(default), 'Exists'"),
        ("self.all(x, has(x.operator) && x.operator == 'Exists' ? !has(x.value) : true)",
         "a value must be empty when 'operator' is 'Exists'"),
        ("self.all(x, !has(x.effect) || x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
         "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'"),
    ])


def _resource_groups() -> Schema:
    quota = _obj({"name": _str(), "nominalQuota": _QUANTITY, "borrowingLimit": _QUANTITY, "lendingLimit": _QUANTITY},
                 required=["name", "nominalQuota"])
    flavor = _obj({"name": _str(max_length=253, pattern=_DNS_SUBDOMAIN),
                   "resources": _list(quota, min_items=1, max_items=64, map_keys=["name"])},
                  required=["name", "resources"])
    group = _obj({"coveredResources": _list(_str(), min_items=1, max_items=64),
                  "flavors": _list(flavor, min_items=1, max_items=64, map_keys=["name"])},
                 required=["coveredResources", "flavors"],
                 rules=[("self.flavors.all(x, size(x.resources) == size(self.coveredResources))",
                         "flavors must have the same number of resources as the coveredResources")])
    return _list(group, max_items=16, list_type="atomic")


def _flavor_usage(with_borrowed: bool) -> Schema:
    usage: dict[str, Schema] = {"name": _str(), "total": _QUANTITY}
    if with_borrowed:
        usage["borrowed"] = _QUANTITY
    return _list(_obj({"name": _str(), "resources": _list(_obj(usage, required=["name"]), max_items=64,
                                                          map_keys=["name"])}, required=["name"]),
                 max_items=64, map_keys=["name"])


def _cluster_queue_schema() -> Schema:
    preemption = _obj({
        "reclaimWithinCohort": _str(enum=["Never", "LowerPriority", "Any"], default="Never"),
        "borrowWithinCohort": _obj({"policy": _str(enum=["Never", "LowerPriority"], default="Never"),
                                    "maxPriorityThreshold": _int()}),
        "withinClusterQueue": _str(enum=["Never", "LowerPriority", "LowerOrNewerEqualPriority"], default="Never"),
    }, default={}, rules=[("!(self.reclaimWithinCohort == 'Never' && has(self.borrowWithinCohort) &&  "
                           "self.borrowWithinCohort.policy != 'Never')",
                           "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never")])
    fungibility = _obj({
        "whenCanBorrow": _str(enum=["MayStopSearch", "TryNextFlavor"], default="MayStopSearch"),
        "whenCanPreempt": _str(enum=["MayStopSearch", "TryNextFlavor"], default="TryNextFlavor"),
        "preference": _str(enum=["BorrowingOverPreemption", "PreemptionOverBorrowing"]),
    }, default={}, rules=[("!has(self.preference) || (self.whenCanBorrow == 'TryNextFlavor' && "
                           "self.whenCanPreempt == 'TryNextFlavor')",
                           "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor")])
    spec = _obj({
        "resourceGroups": _resource_groups(),
        "cohortName": _str(max_length=253, pattern=_DNS_SUBDOMAIN),
        "queueingStrategy": _str(enum=["StrictFIFO", "BestEffortFIFO"], default="BestEffortFIFO"),
        "namespaceSelector": _free(),
        "flavorFungibility": fungibility,
        "preemption": preemption,
        "admissionChecksStrategy": _free(),
        "stopPolicy": _str(enum=["None", "Hold", "HoldAndDrain"], default="None"),
        "fairSharing": _free(),
        "admissionScope": _free(),
    }, rules=[("!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, "
               "rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true",
               "borrowingLimit must be nil when cohort is empty")])
    status = _obj({
        "conditions": _conditions(),
        "flavorsReservation": _flavor_usage(True),
        "flavorsUsage": _flavor_usage(True),
        "pendingWorkloads": _int(), "reservingWorkloads": _int(), "admittedWorkloads": _int(),
        "fairSharing": _free(),
    })
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "spec": spec,
                 "status": status})


def _local_queue_schema() -> Schema:
    spec = _obj({
        "clusterQueue": {**_str(max_length=253, pattern=_DNS_SUBDOMAIN),
                         "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "field is immutable"}]},
        "stopPolicy": _str(enum=["None", "Hold", "HoldAndDrain"], default="None"),
        "fairSharing": _free(),
    })
    status = _obj({
        "conditions": _conditions(),
        "pendingWorkloads": _int(), "reservingWorkloads": _int(), "admittedWorkloads": _int(),
        "flavorsReservation": _flavor_usage(False), "flavorsUsage": _flavor_usage(False),
        "fairSharing": _free(),
    })
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "spec": spec,
                 "status": status})


def _resource_flavor_schema() -> Schema:
    spec = _obj({
        "nodeLabels": {**_STRING_MAP, "maxProperties": 8},
        "nodeTaints": _list(_free(), max_items=8, rules=[
            ("self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
             "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'")]),
        "tolerations": _tolerations(),
        "topologyName": _str(max_length=253, pattern=_DNS_SUBDOMAIN),
    }, rules=[("!has(self.topologyName) || self.nodeLabels.size() >= 1",
               "at least one nodeLabel is required when topology is set")])
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "spec": spec})


def _workload_priority_class_schema() -> Schema:
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "value": _int(),
                 "description": _str(max_length=2048)}, required=["value"])


def _cohort_schema() -> Schema:
    spec = _obj({"parentName": _str(max_length=253, pattern=_DNS_SUBDOMAIN), "resourceGroups": _resource_groups(),
                 "fairSharing": _free()})
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "spec": spec,
                 "status": _obj({"fairSharing": _free()})})


def _workload_schema() -> Schema:
    pod_set = _obj({
        "name": _str(default="main", max_length=63),
        "template": _free(),
        "count": _int(default=1, minimum=0),
        "minCount": _int(minimum=1),
        "topologyRequest": _free(),
    }, required=["count", "template"], rules=[("has(self.minCount) ? self.minCount <= self.count : true",
                                               "minCount should be positive and less or equal to count")])
    spec = _obj({
        "podSets": _list(pod_set, min_items=1, max_items=8, map_keys=["name"]),
        "queueName": _str(max_length=253, pattern=_DNS_SUBDOMAIN),
        "priorityClassRef": _obj({
            "group": _str(enum=["kueue.x-k8s.io", "scheduling.k8s.io"]),
            "kind": _str(enum=["WorkloadPriorityClass", "PriorityClass"]),
            "name": _str(max_length=253, pattern=_DNS_SUBDOMAIN),
        }, required=["group", "kind", "name"], rules=[
            ("(self.group == 'scheduling.k8s.io') ? self.kind == 'PriorityClass' : true",
             "only the PriorityClass kind is allowed for the scheduling.k8s.io group"),
            ("(self.group == 'kueue.x-k8s.io') ? self.kind == 'WorkloadPriorityClass' : true",
             "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group")]),
        "priority": _int(),
        "active": {"type": "boolean", "default": True},
        "maximumExecutionTimeSeconds": _int(minimum=1),
        "preemptionGates": _list(_obj({"name": _str()}, required=["name"]), max_items=8, map_keys=["name"]),
    }, required=["podSets"], rules=[("!has(self.priorityClassRef) || has(self.priority)",
                                     "priority should not be nil when priorityClassRef is set")])
    assignment = _obj({
        "name": _str(default="main", max_length=63),
        "flavors": _STRING_MAP,
        "resourceUsage": _QUANTITY_MAP,
        "count": _int(minimum=0),
        "topologyAssignment": _free(),
        "delayedTopologyRequest": _str(enum=["Pending", "Ready"]),
    }, required=["name"])
    status = _obj({
        "conditions": _conditions(),
        "admission": _obj({"clusterQueue": _str(max_length=253, pattern=_DNS_SUBDOMAIN),
                           "podSetAssignments": _list(assignment, min_items=1, max_items=8, map_keys=["name"])},
                          required=["clusterQueue", "podSetAssignments"]),
        "requeueState": _obj({"count": _int(minimum=0), "requeueAt": _TIME}),
        "reclaimablePods": _list(_obj({"name": _str(), "count": _int(minimum=0)}, required=["count", "name"]),
                                 max_items=8, map_keys=["name"]),
        "admissionChecks": _list(_free(), max_items=8),
        "resourceRequests": _list(_obj({"name": _str(), "resources": _QUANTITY_MAP}, required=["name"]),
                                  max_items=8, map_keys=["name"]),
        "accumulatedPastExecutionTimeSeconds": _int(),
        "schedulingStats": _obj({"evictions": _list(_obj({
            "reason": _str(), "underlyingCause": _str(), "count": _int(minimum=0)},
            required=["count", "reason", "underlyingCause"]), map_keys=["reason", "underlyingCause"])}),
        "nominatedClusterNames": _list(_str(), max_items=10),
        "clusterName": _str(),
        "unhealthyNodes": _list(_obj({"name": _str()}, required=["name"]), map_keys=["name"]),
        "preemptionGates": _list(_free()),
    })
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "spec": spec,
                 "status": status})


_QUEUE_COLUMNS = {
    "pending": {"description": "Number of pending workloads", "jsonPath": ".status.pendingWorkloads",
                "name": "Pending Workloads", "type": "integer"},
}


def _crd(kind: str, plural: str, singular: str, short_names: list[str], scope: str, schema: Schema, *,
         status: bool, columns: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    version: dict[str, Any] = {"name": c.VERSION, "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": schema}}
    if status:
        version["subresources"] = {"status": {}}
    if columns:
        version["additionalPrinterColumns"] = columns
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{c.GROUP}"},
        "spec": {"group": c.GROUP, "scope": scope,
                 "names": {"kind": kind, "listKind": f"{kind}List", "plural": plural, "singular": singular,
                           "shortNames": short_names},
                 "versions": [version]},
    }


def crds() -> list[dict[str, Any]]:
    """The CRDs in the order upstream's kustomization lists them (fresh dicts on every call)."""
    return [
        _crd("ClusterQueue", "clusterqueues", "clusterqueue", ["cq"], "Cluster", _cluster_queue_schema(),
             status=True, columns=[
                 {"description": "Cohort that this ClusterQueue belongs to", "jsonPath": ".spec.cohortName",
                  "name": "Cohort", "type": "string"},
                 {"description": "The queueing strategy used to prioritize workloads",
                  "jsonPath": ".spec.queueingStrategy", "name": "Strategy", "priority": 1, "type": "string"},
                 dict(_QUEUE_COLUMNS["pending"]),
                 {"description": "Number of admitted workloads that haven't finished yet",
                  "jsonPath": ".status.admittedWorkloads", "name": "Admitted Workloads", "priority": 1,
                  "type": "integer"}]),
        _crd("Cohort", "cohorts", "cohort", ["co"], "Cluster", _cohort_schema(), status=True),
        _crd("LocalQueue", "localqueues", "localqueue", ["queue", "queues", "lq"], "Namespaced",
             _local_queue_schema(), status=True, columns=[
                 {"description": "Backing ClusterQueue", "jsonPath": ".spec.clusterQueue", "name": "ClusterQueue",
                  "type": "string"},
                 dict(_QUEUE_COLUMNS["pending"]),
                 {"description": "Number of admitted workloads that haven't finished yet.",
                  "jsonPath": ".status.admittedWorkloads", "name": "Admitted Workloads", "type": "integer"}]),
        _crd("ResourceFlavor", "resourceflavors", "resourceflavor", ["flavor", "flavors", "rf"], "Cluster",
             _resource_flavor_schema(), status=False),
        _crd("WorkloadPriorityClass", "workloadpriorityclasses", "workloadpriorityclass", ["wpc"], "Cluster",
             _workload_priority_class_schema(), status=False, columns=[
                 {"description": "Value of workloadPriorityClass's Priority", "jsonPath": ".value", "name": "Value",
                  "type": "integer"}]),
        _crd("Workload", "workloads", "workload", ["kwl", "kueueworkload", "kueueworkloads"], "Namespaced",
             _workload_schema(), status=True, columns=[
                 {"description": "Name of the queue this workload was submitted to", "jsonPath": ".spec.queueName",
                  "name": "Queue", "type": "string"},
                 {"description": "Name of the ClusterQueue where the workload is reserving quota",
                  "jsonPath": ".status.admission.clusterQueue", "name": "Reserved in", "type": "string"},
                 {"description": "Admission status",
                  "jsonPath": ".status.conditions[?(@.type=='Admitted')].status", "name": "Admitted",
                  "type": "string"},
                 {"description": "Workload finished", "jsonPath": ".status.conditions[?(@.type=='Finished')].status",
                  "name": "Finished", "type": "string"},
                 {"description": "Time this workload was created", "jsonPath": ".metadata.creationTimestamp",
                  "name": "Age", "type": "date"}]),
    ]
