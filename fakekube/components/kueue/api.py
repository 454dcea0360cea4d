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

__all__ = ["WORKLOAD_RULES", "WORKLOAD_STATUS_RULES", "crds"]

Schema = dict[str, Any]

_DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_DNS_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
_CONDITION_REASON = r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"
_CONDITION_TYPE = (r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
                   r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$")
_QUANTITY_PATTERN = (r"^(\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|"
                     r"([eE](\+|-)?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$")


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
         min_length: int | None = None, pattern: str | None = None) -> Schema:
    schema: Schema = {"type": "string"}
    if enum:
        schema["enum"] = enum
    if default is not None:
        schema["default"] = default
    if max_length is not None:
        schema["maxLength"] = max_length
    if min_length is not None:
        schema["minLength"] = min_length
    if pattern is not None:
        schema["pattern"] = pattern
    return schema


def _name(max_length: int = 253) -> Schema:
    """A reference to another object by name (a DNS subdomain)."""
    return _str(max_length=max_length, pattern=_DNS_SUBDOMAIN)


def _pod_set_name() -> Schema:
    """``PodSetReference``: a DNS label."""
    return _str(max_length=63, pattern=_DNS_LABEL)


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
    """An embedded object kept as given (a pod spec, a topology assignment)."""
    return {"type": "object", "x-kubernetes-preserve-unknown-fields": True}


_QUANTITY: Schema = {"anyOf": [{"type": "integer"}, {"type": "string"}], "pattern": _QUANTITY_PATTERN,
                     "x-kubernetes-int-or-string": True}
_STRING_MAP: Schema = {"type": "object", "additionalProperties": {"type": "string"}}
_BOOL: Schema = {"type": "boolean"}
_QUANTITY_MAP: Schema = {"type": "object", "additionalProperties": _QUANTITY}
_TIME: Schema = {"type": "string", "format": "date-time"}


def _conditions() -> Schema:
    return _list(_obj({
        "type": _str(max_length=316, pattern=_CONDITION_TYPE), "status": _str(enum=["True", "False", "Unknown"]),
        "observedGeneration": _int(fmt="int64", minimum=0), "lastTransitionTime": _TIME,
        "reason": _str(max_length=1024, min_length=1, pattern=_CONDITION_REASON), "message": _str(max_length=32768),
    }, required=["lastTransitionTime", "message", "reason", "status", "type"]), max_items=16, map_keys=["type"])


def _label_selector() -> Schema:
    """``metav1.LabelSelector`` as controller-gen renders it (an atomic map)."""
    requirement = _obj({"key": _str(), "operator": _str(),
                        "values": _list(_str(), list_type="atomic")}, required=["key", "operator"])
    schema = _obj({"matchExpressions": _list(requirement, list_type="atomic"), "matchLabels": _STRING_MAP})
    schema["x-kubernetes-map-type"] = "atomic"
    return schema


def _toleration() -> Schema:
    return _obj({"effect": _str(), "key": _str(), "operator": _str(), "tolerationSeconds": _int(fmt="int64"),
                 "value": _str()})


def _taint() -> Schema:
    return _obj({"effect": _str(), "key": _str(), "timeAdded": _TIME, "value": _str()}, required=["effect", "key"])


def _fair_sharing() -> Schema:
    return _obj({"weight": {**_QUANTITY, "default": 1}})


def _tolerations() -> Schema:
    return _list(_toleration(), max_items=8, list_type="atomic", rules=[
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
    flavor = _obj({"name": _name(),
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
    return _list(_obj({"name": _name(), "resources": _list(_obj(usage, required=["name"]), max_items=64,
                                                           map_keys=["name"])}, required=["name", "resources"]),
                 max_items=64, map_keys=["name"])


def _cluster_queue_schema() -> Schema:
    preemption = _obj({
        "reclaimWithinCohort": _str(enum=["Never", "LowerPriority", "Any"], default="Never"),
        "borrowWithinCohort": _obj({"policy": _str(enum=["Never", "LowerPriority"], default="Never"),
                                    "maxPriorityThreshold": _int()}, default={}),
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
    checks = _obj({"admissionChecks": _list(_obj({
        "name": _str(max_length=316, min_length=1),
        "onFlavors": _list(_name(), max_items=64, list_type="set"),
    }, required=["name"]), min_items=1, max_items=64, map_keys=["name"])}, required=["admissionChecks"])
    concurrent = _obj({"migration": _obj({
        "mode": _str(enum=["TryPreferredFlavors", "RetainFirstAdmission"], max_length=253),
        "constraints": _obj({"lastAcceptableFlavorName": _name()}),
    }, required=["mode"])}, required=["migration"])
    spec = _obj({
        "admissionChecksStrategy": checks,
        "admissionScope": _obj({"admissionMode": _str(enum=["UsageBasedAdmissionFairSharing",
                                                            "NoAdmissionFairSharing"])},
                               required=["admissionMode"]),
        "cohortName": _name(),
        "concurrentAdmissionPolicy": concurrent,
        "fairSharing": _fair_sharing(),
        "flavorFungibility": fungibility,
        "namespaceSelector": _label_selector(),
        "preemption": preemption,
        "queueingStrategy": _str(enum=["StrictFIFO", "BestEffortFIFO"], default="BestEffortFIFO"),
        "resourceGroups": _resource_groups(),
        "stopPolicy": _str(enum=["None", "Hold", "HoldAndDrain"], default="None"),
    }, rules=[("!has(self.cohortName) && has(self.resourceGroups) ? self.resourceGroups.all(rg, "
               "rg.flavors.all(f, f.resources.all(r, !has(r.borrowingLimit)))) : true",
               "borrowingLimit must be nil when cohort is empty")])
    status = _obj({
        "conditions": _conditions(),
        "flavorsReservation": _flavor_usage(True),
        "flavorsUsage": _flavor_usage(True),
        "pendingWorkloads": _int(), "reservingWorkloads": _int(), "admittedWorkloads": _int(),
        "fairSharing": _obj({"weightedShare": _int(fmt="int64")}, required=["weightedShare"]),
    })
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "spec": spec,
                 "status": status})


def _local_queue_schema() -> Schema:
    spec = _obj({
        "clusterQueue": {**_name(),
                         "x-kubernetes-validations": [{"rule": "self == oldSelf", "message": "field is immutable"}]},
        "stopPolicy": _str(enum=["None", "Hold", "HoldAndDrain"], default="None"),
        "fairSharing": _fair_sharing(),
    })
    status = _obj({
        "conditions": _conditions(),
        "pendingWorkloads": _int(), "reservingWorkloads": _int(), "admittedWorkloads": _int(),
        "flavorsReservation": _flavor_usage(False), "flavorsUsage": _flavor_usage(False),
        "fairSharing": _obj({"weightedShare": _int(fmt="int64"), "admissionFairSharingStatus": _obj({
            "consumedResources": _QUANTITY_MAP, "lastUpdate": _TIME}, required=["consumedResources", "lastUpdate"])},
            required=["weightedShare"]),
    })
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "spec": spec,
                 "status": status})


def _resource_flavor_schema() -> Schema:
    spec = _obj({
        "nodeLabels": {**_STRING_MAP, "maxProperties": 8, "x-kubernetes-map-type": "atomic"},
        "nodeTaints": _list(_taint(), max_items=8, list_type="atomic", rules=[
            ("self.all(x, x.effect in ['NoSchedule', 'PreferNoSchedule', 'NoExecute'])",
             "supported taint effect values: 'NoSchedule', 'PreferNoSchedule', 'NoExecute'")]),
        "tolerations": _tolerations(),
        "topologyName": _name(),
    }, rules=[
        ("!has(self.topologyName) || self.nodeLabels.size() >= 1",
         "at least one nodeLabel is required when topology is set"),
        ("!has(oldSelf.topologyName) || (has(self.nodeLabels) == has(oldSelf.nodeLabels) && "
         "(!has(self.nodeLabels) || self.nodeLabels == oldSelf.nodeLabels))",
         "nodeLabels are immutable when topologyName is set"),
        ("!has(oldSelf.topologyName) || (has(self.tolerations) == has(oldSelf.tolerations) && "
         "(!has(self.tolerations) || self.tolerations == oldSelf.tolerations))",
         "tolerations are immutable when topologyName is set"),
        ("!has(oldSelf.topologyName) || (has(self.topologyName) && self.topologyName == oldSelf.topologyName)",
         "topologyName is immutable when topologyName is set"),
    ])
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "spec": spec})


def _workload_priority_class_schema() -> Schema:
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "value": _int(),
                 "description": _str(max_length=2048)}, required=["value"])


def _cohort_schema() -> Schema:
    spec = _obj({"fairSharing": _fair_sharing(), "parentName": _name(), "resourceGroups": _resource_groups()})
    status = _obj({"fairSharing": _obj({"weightedShare": _int(fmt="int64")}, required=["weightedShare"])})
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "spec": spec,
                 "status": status})


_QUOTA_RESERVED_OLD = ("has(oldSelf.status) && has(oldSelf.status.conditions) && "
                       "oldSelf.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')")
_QUOTA_RESERVED_NEW = ("has(self.status) && has(self.status.conditions) && "
                       "self.status.conditions.exists(c, c.type == 'QuotaReserved' && c.status == 'True')")
_ADMITTED_OLD = ("has(oldSelf.status) && has(oldSelf.status.conditions) && "
                 "oldSelf.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')")
_ADMITTED_NEW = ("has(self.status) && has(self.status.conditions) && "
                 "self.status.conditions.exists(c, c.type == 'Admitted' && c.status == 'True')")
_BOTH_REFS = "has(oldSelf.spec.priorityClassRef) && has(self.spec.priorityClassRef)"

#: The Workload's root rules (``workload_types.go``'s ``+kubebuilder:validation:XValidation``).
WORKLOAD_RULES: list[tuple[str, str]] = [
    (f"{_QUOTA_RESERVED_NEW} && has(self.status.admission) ? "
     "size(self.spec.podSets) == size(self.status.admission.podSetAssignments) : true",
     "podSetAssignments must have the same number of podSets as the spec"),
    (f"({_QUOTA_RESERVED_OLD}) ? (!has(oldSelf.spec.priorityClassRef) && !has(self.spec.priorityClassRef)) || "
     f"({_BOTH_REFS}) : true",
     "priorityClassRef is immutable while workload quota reserved"),
    (f"({_QUOTA_RESERVED_OLD} && {_BOTH_REFS}) ? "
     "oldSelf.spec.priorityClassRef.group == self.spec.priorityClassRef.group : true",
     "priorityClassRef.group is immutable while workload quota reserved"),
    (f"({_QUOTA_RESERVED_OLD} && {_BOTH_REFS}) ? "
     "oldSelf.spec.priorityClassRef.kind == self.spec.priorityClassRef.kind : true",
     "priorityClassRef.kind is immutable while workload quota reserved"),
    (f"({_QUOTA_RESERVED_OLD} && {_BOTH_REFS} && self.spec.priorityClassRef.group == 'scheduling.k8s.io' && "
     "self.spec.priorityClassRef.kind == 'PriorityClass') ? "
     "oldSelf.spec.priorityClassRef.name == self.spec.priorityClassRef.name : true",
     "priorityClassRef.name is immutable for scheduling.k8s.io/priorityclass while workload quota reserved"),
    (f"(({_QUOTA_RESERVED_OLD}) && ({_QUOTA_RESERVED_NEW})) ? "
     "((has(oldSelf.spec.queueName) == has(self.spec.queueName)) && "
     "(!has(oldSelf.spec.queueName) || oldSelf.spec.queueName == self.spec.queueName)) : true",
     "queueName is immutable while workload quota reserved"),
    (f"(({_ADMITTED_OLD}) && ({_ADMITTED_NEW}))?"
     "((has(oldSelf.spec.maximumExecutionTimeSeconds)?oldSelf.spec.maximumExecutionTimeSeconds:0) ==  "
     "(has(self.spec.maximumExecutionTimeSeconds)?self.spec.maximumExecutionTimeSeconds:0)):true",
     "maximumExecutionTimeSeconds is immutable while workload quota reserved"),
]


#: The Workload status's rules.
WORKLOAD_STATUS_RULES: list[tuple[str, str]] = [
    ("!has(oldSelf.clusterName) || !has(self.clusterName) || oldSelf.clusterName == self.clusterName",
     "clusterName is immutable once set"),
    ("!has(self.clusterName) || (!has(self.nominatedClusterNames) || (has(self.nominatedClusterNames) && "
     "size(self.nominatedClusterNames) == 0))",
     "clusterName and nominatedClusterNames are mutually exclusive"),
]


def _pod_template() -> Schema:
    """``corev1.PodTemplateSpec``: the embedded metadata as controller-gen keeps it; the pod spec
    is kept as given but must name its containers."""
    meta = _obj({"annotations": _STRING_MAP, "finalizers": _list(_str()), "labels": _STRING_MAP,
                 "name": _str(), "namespace": _str()})
    spec = {**_free(), "required": ["containers"]}
    return _obj({"metadata": meta, "spec": spec})


def _topology_request() -> Schema:
    return _obj({
        "podIndexLabel": _str(max_length=317),
        "podSetGroupName": _str(max_length=256),
        "podSetSliceRequiredTopology": _str(max_length=63),
        "podSetSliceSize": _int(),
        "podsetSliceRequiredTopologyConstraints": _list(_obj({
            "size": _int(minimum=1), "topology": _str(max_length=63, min_length=1)},
            required=["size", "topology"]), max_items=3, list_type="atomic"),
        "preferred": _str(max_length=63),
        "required": _str(max_length=63),
        "subGroupCount": _int(),
        "subGroupIndexLabel": _str(max_length=317),
        "unconstrained": _BOOL,
    })


def _topology_assignment() -> Schema:
    universal_or_individual = "exactly one of the fields in [universal individual] must be set"
    values = _obj({
        "individual": _obj({"prefix": _str(max_length=63),
                            "roots": _list(_str(max_length=63), min_items=1, max_items=100000, list_type="atomic"),
                            "suffix": _str(max_length=63)}, required=["roots"]),
        "universal": _str(max_length=63),
    }, rules=[("has(self.universal) != has(self.individual)", universal_or_individual)])
    counts = _obj({
        "individual": _list(_int(minimum=1), min_items=1, max_items=100000, list_type="atomic"),
        "universal": _int(minimum=1),
    }, rules=[("[has(self.universal),has(self.individual)].filter(x,x==true).size() == 1", universal_or_individual)])
    slice_ = _obj({"domainCount": _int(minimum=1), "podCounts": counts,
                   "valuesPerLevel": _list(values, min_items=1, max_items=16, list_type="atomic")},
                  required=["domainCount", "podCounts", "valuesPerLevel"], rules=[
        ("!has(self.podCounts.individual) || size(self.podCounts.individual) == self.domainCount",
         "podCounts.individual must have length equal to domainCount"),
        ("self.valuesPerLevel.all(x, !has(x.individual) || size(x.individual.roots) == self.domainCount)",
         "valuesPerLevel.individual, if set, must have roots of length equal to domainCount of this "
         "TopologyAssignmentSlice")])
    return _obj({"levels": _list(_str(max_length=317), min_items=1, max_items=16, list_type="atomic"),
                 "slices": _list(slice_, max_items=1000, list_type="atomic")},
                required=["levels", "slices"],
                rules=[("self.slices.all(x, size(x.valuesPerLevel) == size(self.levels))",
                        "valuesPerLevel must have the same length as the number of levels in this TopologyAssignment")])


def _admission_check_states() -> Schema:
    update = _obj({
        "annotations": _STRING_MAP, "labels": _STRING_MAP, "name": _pod_set_name(), "nodeSelector": _STRING_MAP,
        "tolerations": _tolerations(),
    }, required=["name"])
    state = _obj({
        "lastTransitionTime": _TIME, "message": _str(max_length=32768), "name": _str(max_length=316, min_length=1),
        "podSetUpdates": _list(update, max_items=18, list_type="atomic"),
        "requeueAfterSeconds": _int(minimum=0), "retryCount": _int(minimum=0),
        "state": _str(enum=["Pending", "Ready", "Retry", "Rejected"]),
    }, required=["lastTransitionTime", "message", "name", "state"])
    return _list(state, max_items=8, map_keys=["name"])


def _workload_schema() -> Schema:
    pod_set = _obj({
        "count": _int(default=1, minimum=0),
        "minCount": _int(minimum=1),
        "name": {**_pod_set_name(), "default": "main"},
        "template": _pod_template(),
        "topologyRequest": _topology_request(),
    }, required=["template"], rules=[("has(self.minCount) ? self.minCount <= self.count : true",
                                      "minCount should be positive and less or equal to count")])
    spec = _obj({
        "active": {"type": "boolean", "default": True},
        "maximumExecutionTimeSeconds": _int(minimum=1),
        "podSets": _list(pod_set, min_items=1, max_items=18, map_keys=["name"]),
        "preemptionGates": _list(_obj({"name": _str(max_length=63, min_length=1)}, required=["name"]),
                                 max_items=8, map_keys=["name"]),
        "priority": _int(),
        "priorityClassRef": _obj({
            "group": _str(enum=["kueue.x-k8s.io", "scheduling.k8s.io"]),
            "kind": _str(enum=["WorkloadPriorityClass", "PriorityClass"]),
            "name": _str(max_length=253, min_length=1, pattern=_DNS_SUBDOMAIN),
        }, required=["group", "kind", "name"], rules=[
            ("(self.group == 'scheduling.k8s.io') ? self.kind == 'PriorityClass' : true",
             "only the PriorityClass kind is allowed for the scheduling.k8s.io group"),
            ("(self.group == 'kueue.x-k8s.io') ? self.kind == 'WorkloadPriorityClass' : true",
             "only the WorkloadPriorityClass kind is allowed for the kueue.x-k8s.io group")]),
        "queueName": _name(),
    }, rules=[("!has(self.priorityClassRef) || has(self.priority)",
               "priority should not be nil when priorityClassRef is set")])
    assignment = _obj({
        "count": _int(minimum=0),
        "delayedTopologyRequest": _str(enum=["Pending", "Ready"], max_length=7),
        "flavors": {"type": "object", "additionalProperties": _name()},
        "name": {**_pod_set_name(), "default": "main"},
        "resourceUsage": _QUANTITY_MAP,
        "topologyAssignment": _topology_assignment(),
    })
    status = _obj({
        "accumulatedPastExecutionTimeSeconds": _int(),
        "admission": _obj({"clusterQueue": _name(),
                           "podSetAssignments": _list(assignment, max_items=18, map_keys=["name"])}),
        "admissionChecks": _admission_check_states(),
        "clusterName": _str(max_length=256),
        "conditions": _conditions(),
        "nominatedClusterNames": _list(_str(max_length=256), max_items=20, list_type="atomic"),
        "preemptionGates": _list(_obj({"lastTransitionTime": _TIME, "name": _str(max_length=63, min_length=1),
                                       "position": _str(enum=["Closed", "Open"])},
                                      required=["lastTransitionTime", "name", "position"]),
                                 max_items=8, map_keys=["name"]),
        "reclaimablePods": _list(_obj({"count": _int(minimum=0), "name": _pod_set_name()},
                                      required=["count", "name"]), max_items=18, map_keys=["name"]),
        "requeueState": _obj({"count": _int(minimum=0), "requeueAt": _TIME}),
        "resourceRequests": _list(_obj({"name": _pod_set_name(), "resources": _QUANTITY_MAP}, required=["name"]),
                                  max_items=18, map_keys=["name"]),
        "schedulingStats": _obj({"evictions": _list(_obj({
            "count": _int(minimum=0), "reason": _str(max_length=316), "underlyingCause": _str(max_length=316)},
            required=["count", "reason", "underlyingCause"]), max_items=256, map_keys=["reason", "underlyingCause"])}),
        "unhealthyNodes": _list(_obj({"name": _str(max_length=63)}, required=["name"]), max_items=8,
                                map_keys=["name"]),
    }, rules=WORKLOAD_STATUS_RULES)
    return _obj({"apiVersion": _str(), "kind": _str(), "metadata": {"type": "object"}, "spec": spec,
                 "status": status}, rules=WORKLOAD_RULES)


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
