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
* :func:`apply_schema_defaults` applies the four JobSet-level CRD defaults plus container
  ``ports[].protocol: TCP``; the other embedded Kubernetes defaults of the CRD (azureDisk,
  iscsi, rbd, scaleIO, ``configMapKeyRef.name`` …) are left to the API server's generic
  structural defaulting, which can walk :func:`jobset_ref.api.crd.jobset_crd`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, overload

from jobset_ref.api import constants as c
from jobset_ref.api.models import JobSet

__all__ = ["apply_schema_defaults", "default_jobset"]

_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


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

    Defaults inside an object apply only when that object itself is present.
    """
    if isinstance(js, JobSet):
        return JobSet.from_wire(apply_schema_defaults(js.to_wire()))
    obj = copy.deepcopy(js)
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return obj
    for rjob in spec.get("replicatedJobs") or []:
        if not isinstance(rjob, dict):
            continue
        if rjob.get("groupName") is None:
            rjob["groupName"] = "default"
        if rjob.get("replicas") is None:
            rjob["replicas"] = 1
        _default_container_ports(rjob)
    failure_policy = spec.get("failurePolicy")
    if isinstance(failure_policy, dict) and failure_policy.get("restartStrategy") is None:
        failure_policy["restartStrategy"] = "Recreate"
    for policy in spec.get("volumeClaimPolicies") or []:
        retention = policy.get("retentionPolicy") if isinstance(policy, dict) else None
        if isinstance(retention, dict) and retention.get("whenDeleted") is None:
            retention["whenDeleted"] = "Delete"
    return obj


def _default_container_ports(rjob: dict[str, Any]) -> None:
    pod_spec = (((rjob.get("template") or {}).get("spec") or {}).get("template") or {}).get("spec")
    if not isinstance(pod_spec, dict):
        return
    for kind in _CONTAINER_LISTS:
        for container in pod_spec.get(kind) or []:
            for port in (container.get("ports") or []) if isinstance(container, dict) else []:
                if isinstance(port, dict) and port.get("protocol") is None:
                    port["protocol"] = "TCP"


def _child(parent: dict[str, Any], key: str) -> dict[str, Any]:
    """``parent[key]``, created as ``{}`` when absent or null (Go's zero-valued struct)."""
    value = parent.get(key)
    if not isinstance(value, dict):
        value = {}
        parent[key] = value
    return value
