"""Kueue's webhooks for the core kinds (``pkg/webhooks``), as admission plugins.

============================ ========== ==========================================
name                         kind       what it checks
============================ ========== ==========================================
mworkload.kb.io              mutating   drops ``minCount`` when PartialAdmission is off
vworkload.kb.io              validating ``minCount`` on one pod set at most; ``pods`` is
                                        reserved in ``status.admission`` usage; the pod
                                        sets and ``queueName`` are immutable while the
                                        workload holds quota
vclusterqueue.kb.io          validating resource groups (duplicates, names matching
                                        coveredResources, no negative quotas, limits need
                                        a cohort, lendingLimit <= nominalQuota)
vcohort.kb.io                validating the same for a Cohort's resource groups
============================ ========== ==========================================

Denials read ``admission webhook "<name>" denied the request: <Kind>.kueue.x-k8s.io "<name>"
is invalid: ...`` as through a real API server.
"""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.admission import AdmissionChain, AdmissionRequest
from fakekube.errors import FieldError, Invalid, ResourceName

from . import constants as c
from . import workload as wlutil
from .config import KueueConfig
from .resources import resource_value

__all__ = ["register_webhooks"]


def _deny(webhook: str, kind: str, plural: str, name: str, errors: list[FieldError]) -> Invalid:
    return Invalid.for_object(ResourceName(plural, c.GROUP, kind), name, errors,
                              prefix=f'admission webhook "{webhook}" denied the request: ')


def _quantity_text(value: Any) -> str:
    return str(value)


def validate_resource_groups(groups: list[dict[str, Any]], path: str, *, has_parent: bool, is_cohort: bool) -> list[FieldError]:
    """``validateResourceGroups``."""
    errors: list[FieldError] = []
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    for i, rg in enumerate(groups or []):
        rg_path = f"{path}[{i}]"
        covered = list(rg.get("coveredResources") or [])
        for j, name in enumerate(covered):
            if name in seen_resources:
                errors.append(FieldError.duplicate(f"{rg_path}.coveredResources[{j}]", name))
            seen_resources.add(name)
        for j, fq in enumerate(rg.get("flavors") or []):
            f_path = f"{rg_path}.flavors[{j}]"
            for k, rq in enumerate(fq.get("resources") or []):
                if k >= len(covered):
                    break
                q_path = f"{f_path}.resources[{k}]"
                if rq.get("name") != covered[k]:
                    errors.append(FieldError.invalid(f"{q_path}.name", rq.get("name"),
                                                     "must match the name in coveredResources"))
                name = rq.get("name") or ""
                nominal = rq.get("nominalQuota", 0)
                if resource_value(name, nominal) < 0:
                    errors.append(FieldError.invalid(f"{q_path}.nominalQuota", _quantity_text(nominal),
                                                     "must be greater than or equal to 0"))
                for limit_name in ("borrowingLimit", "lendingLimit"):
                    limit = rq.get(limit_name)
                    if limit is None:
                        continue
                    l_path = f"{q_path}.{limit_name}"
                    checks = []
                    if not has_parent:
                        checks.append(FieldError.invalid(
                            l_path, _quantity_text(limit), f"must be nil when {'parent' if is_cohort else 'cohort'} is empty"))
                    if resource_value(name, limit) < 0:
                        checks.append(FieldError.invalid(l_path, _quantity_text(limit),
                                                         "must be greater than or equal to 0"))
                    if limit_name == "lendingLimit":
                        checks.reverse()
                        if resource_value(name, limit) > resource_value(name, nominal):
                            checks.append(FieldError.invalid(l_path, _quantity_text(limit),
                                                             "must be less than or equal to the nominalQuota"))
                    errors.extend(checks)
            if fq.get("name") in seen_flavors:
                errors.append(FieldError.duplicate(f"{f_path}.name", fq.get("name")))
            seen_flavors.add(fq.get("name"))
    return errors


class ClusterQueueValidator:
    name = "vclusterqueue.kb.io"

    def validate(self, request: AdmissionRequest) -> None:
        if request.operation == "DELETE":
            return
        obj = request.obj
        spec = obj.get("spec") or {}
        errors = validate_resource_groups(spec.get("resourceGroups") or [], "spec.resourceGroups",
                                          has_parent=bool(spec.get("cohortName")), is_cohort=False)
        if errors:
            raise _deny(self.name, "ClusterQueue", "clusterqueues", obj["metadata"].get("name", ""), errors)


class CohortValidator:
    name = "vcohort.kb.io"

    def validate(self, request: AdmissionRequest) -> None:
        if request.operation == "DELETE":
            return
        obj = request.obj
        spec = obj.get("spec") or {}
        errors = validate_resource_groups(spec.get("resourceGroups") or [], "spec.resourceGroups",
                                          has_parent=bool(spec.get("parentName")), is_cohort=True)
        if errors:
            raise _deny(self.name, "Cohort", "cohorts", obj["metadata"].get("name", ""), errors)


class WorkloadDefaulter:
    name = "mworkload.kb.io"

    def __init__(self, settings: KueueConfig) -> None:
        self.partial_admission = settings.gate("PartialAdmission")

    def admit(self, request: AdmissionRequest) -> None:
        if request.operation != "CREATE" or self.partial_admission:
            return
        for ps in (request.obj.get("spec") or {}).get("podSets") or []:
            ps.pop("minCount", None)


class WorkloadValidator:
    name = "vworkload.kb.io"

    def validate(self, request: AdmissionRequest) -> None:
        if request.operation == "DELETE":
            return
        obj = request.obj
        errors = self._validate(obj)
        old = request.old_obj
        if old is not None and request.operation == "UPDATE":
            errors.extend(self._validate_update(obj, old))
        if errors:
            raise _deny(self.name, "Workload", "workloads", obj["metadata"].get("name", ""), errors)

    def _validate(self, wl: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        pod_sets = (wl.get("spec") or {}).get("podSets") or []
        variable = sum(1 for ps in pod_sets if ps.get("minCount") is not None)
        if variable > 1:
            errors.append(FieldError.invalid("spec.podSets", variable, "at most one podSet can use minCount"))
        admission = (wl.get("status") or {}).get("admission")
        if admission is not None:
            for i, psa in enumerate(admission.get("podSetAssignments") or []):
                if "pods" in (psa.get("resourceUsage") or {}):
                    errors.append(FieldError.invalid(
                        f"status.admission.podSetAssignments[{i}].resourceUsage[pods]", "pods",
                        "the key is reserved for internal kueue use"))
        return errors

    def _validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        if wlutil.has_quota_reservation(old) and wlutil.has_quota_reservation(new):
            old_sets = (old.get("spec") or {}).get("podSets")
            new_sets = (new.get("spec") or {}).get("podSets")
            if old_sets != new_sets and not _only_counts_shrunk(old_sets or [], new_sets or []):
                errors.append(FieldError.invalid("spec.podSets", "", "field is immutable"))
        return errors


def _only_counts_shrunk(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> bool:
    if len(old) != len(new):
        return False
    for a, b in zip(old, new, strict=True):
        if {k: v for k, v in a.items() if k != "count"} != {k: v for k, v in b.items() if k != "count"}:
            return False
    return True


def register_webhooks(chain: AdmissionChain, settings: KueueConfig) -> list[Any]:
    plugins: list[Any] = []
    workload_defaulter = WorkloadDefaulter(settings)
    chain.register(workload_defaulter, resources=[c.WORKLOADS], operations=["CREATE"], mutating=True)
    workload_validator = WorkloadValidator()
    chain.register(workload_validator, resources=[c.WORKLOADS], operations=["CREATE", "UPDATE"], validating=True,
                   subresources=(None, "status"))
    cq_validator = ClusterQueueValidator()
    chain.register(cq_validator, resources=[c.CLUSTER_QUEUES], operations=["CREATE", "UPDATE"], validating=True)
    cohort_validator = CohortValidator()
    chain.register(cohort_validator, resources=[c.COHORTS], operations=["CREATE", "UPDATE"], validating=True)
    plugins.extend([workload_defaulter, workload_validator, cq_validator, cohort_validator])
    return plugins
