"""JobSet defaulting: CRD schema defaults (layer A) and the mutating webhook ``Default()`` (layer B).

Mirrors upstream ``pkg/webhooks/jobset_webhook.go`` (``jobSetWebhook.Default``) and the
``+kubebuilder:default`` markers of ``api/jobset/v1alpha2/jobset_types.go`` as rendered in
``config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml`` (kubernetes-sigs/jobset @ 08dfbdf).

Both functions are pure: they never mutate their argument and return a new object of the same
kind (wire dict in → wire dict out; :class:`~jobset_ref.api.models.JobSet` in → ``JobSet`` out).
Working on the wire dict keeps every unknown field of the embedded templates intact.

Fidelity notes (see ``docs/fidelity.md``):

* :func:`default_jobset` sets exactly the fields the Go defaulter sets. It does not add the
  artefacts of re-marshalling a Go struct (``resources: {}``, ``creationTimestamp: null``) that
  the real JSON patch would carry.
* :func:`apply_schema_defaults` applies every ``default`` of the served CRD
  (:func:`jobset_ref.api.crd.jobset_crd`): the JobSet-level ones and those of the embedded Job
  and PVC templates (``ports[].protocol: TCP``, ``configMapKeyRef.name: ""``, azureDisk, iscsi,
  rbd, scaleIO …), as the API server's structural defaulting applies them; the defaults
  themselves live in one place, the models and :mod:`jobset_ref.api.embedded_schemas`.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, overload

from jobset_ref.api import constants as c
from jobset_ref.api.crd import jobset_crd
from jobset_ref.api.models import JobSet

__all__ = ["apply_schema_defaults", "default_jobset"]

@overload
def default_jobset(js: JobSet, *, feature_gates: Mapping[str, bool] | None = None) -> JobSet: ...
@overload
def default_jobset(js: dict[str, Any], *, feature_gates: Mapping[str, bool] | None = None) -> dict[str, Any]: ...
def default_jobset(js: JobSet | dict[str, Any], *, feature_gates: Mapping[str, bool] | None = None,
                   ) -> JobSet | dict[str, Any]:
    """Layer B: the mutating webhook's ``Default()`` (CREATE only), in upstream order (§5.2).

    ``feature_gates`` is accepted for symmetry with validation; upstream defaulting reads none.
    Never fails. Idempotent.
    """
    del feature_gates  # upstream Default() consults no feature gate
    if isinstance(js, JobSet):
        return JobSet.from_wire(default_jobset(js.to_wire()))
    obj = copy.deepcopy(js)
    spec = _child(obj, "spec")

    # 1. successPolicy defaults to {operator: All} (a present policy is never touched).
    if spec.get("successPolicy") is None:
        spec["successPolicy"] = {"operator": "All"}
    # 2. startupPolicy defaults to {startupPolicyOrder: AnyOrder}.
    if spec.get("startupPolicy") is None:
        spec["startupPolicy"] = {"startupPolicyOrder": "AnyOrder"}
    # 3. Per ReplicatedJob: completionMode Indexed, pod restartPolicy OnFailure.
    for rjob in spec.get("replicatedJobs") or []:
        job_spec = _child(_child(rjob, "template"), "spec")
        if job_spec.get("completionMode") is None:
            job_spec["completionMode"] = c.INDEXED_COMPLETION
        pod_spec = _child(_child(job_spec, "template"), "spec")
        if not pod_spec.get("restartPolicy"):
            pod_spec["restartPolicy"] = c.RESTART_POLICY_ON_FAILURE
    # 4. network: created when nil; enableDNSHostnames and publishNotReadyAddresses default true.
    network = _child(spec, "network")
    if network.get("enableDNSHostnames") is None:
        network["enableDNSHostnames"] = True
    if network.get("publishNotReadyAddresses") is None:
        network["publishNotReadyAddresses"] = True
    # 5. Unnamed failure-policy rules get failurePolicyRule<index among all rules>.
    failure_policy = spec.get("failurePolicy")
    if failure_policy is not None:
        for index, rule in enumerate(failure_policy.get("rules") or []):
            if not rule.get("name"):
                rule["name"] = c.DEFAULT_RULE_NAME_FMT % index
    # 6. volumeClaimPolicies[].retentionPolicy defaults to {whenDeleted: Delete}.
    for policy in spec.get("volumeClaimPolicies") or []:
        if policy.get("retentionPolicy") is None:
            policy["retentionPolicy"] = {"whenDeleted": "Delete"}
    # 7. Default() never fails.
    return obj


@overload
def apply_schema_defaults(js: JobSet) -> JobSet: ...
@overload
def apply_schema_defaults(js: dict[str, Any]) -> dict[str, Any]: ...
def apply_schema_defaults(js: JobSet | dict[str, Any]) -> JobSet | dict[str, Any]:
    """Layer A: the CRD ``default:`` values (§5.1), applied only where the field is absent or null.

    Defaults inside an object apply only when that object itself is present (structural
    defaulting: ``x-kubernetes-preserve-unknown-fields`` subtrees and values of the wrong type
    are left alone).
    """
    if isinstance(js, JobSet):
        return JobSet.from_wire(apply_schema_defaults(js.to_wire()))
    obj = copy.deepcopy(js)
    _default(obj, _defaults_tree())
    return obj


@dataclass(frozen=True, slots=True)
class _Defaulted:
    """The part of the CRD schema that leads to a ``default``: a node, its default (if any) and
    the children (properties, items, map values) below which some default sits."""

    default: Any = None
    has_default: bool = False
    properties: Mapping[str, _Defaulted] = field(default_factory=dict)
    items: _Defaulted | None = None
    values: _Defaulted | None = None


@functools.cache
def _defaults_tree() -> _Defaulted:
    tree = _prune(jobset_crd()["spec"]["versions"][0]["schema"]["openAPIV3Schema"])
    return tree or _Defaulted()


def _prune(node: Mapping[str, Any]) -> _Defaulted | None:
    """The defaults below ``node`` (None when there is none)."""
    properties = {name: sub for name, child in (node.get("properties") or {}).items()
                  if (sub := _prune(child)) is not None}
    items = _prune(node["items"]) if isinstance(node.get("items"), Mapping) else None
    addl = node.get("additionalProperties")
    values = _prune(addl) if isinstance(addl, Mapping) else None
    if "default" not in node and not properties and items is None and values is None:
        return None
    return _Defaulted(copy.deepcopy(node.get("default")), "default" in node, properties, items, values)


def _default(value: Any, node: _Defaulted) -> None:
    """``defaulting.Default`` in place: absent or null fields take their default, recursively."""
    if isinstance(value, dict):
        for name, child in node.properties.items():
            if child.has_default and value.get(name) is None:
                value[name] = copy.deepcopy(child.default)
            if name in value:
                _default(value[name], child)
        if node.values is not None:
            for name, item in value.items():
                if name not in node.properties:
                    _default(item, node.values)
    elif isinstance(value, list) and node.items is not None:
        for index, item in enumerate(value):
            if item is None and node.items.has_default:
                value[index] = copy.deepcopy(node.items.default)
            _default(value[index], node.items)


def _child(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]``, created as ``{}`` when absent or null (Go's zero-valued struct)."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = {}
        parent[key] = value
    return value
