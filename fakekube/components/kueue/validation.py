"""Kueue's webhook validation of its core kinds (``pkg/webhooks`` at v0.19.2), as pure functions.

Each function takes the object (a wire dict, as the API server stores it after its CRD defaulting
and schema checks) and returns the ``field.ErrorList`` upstream's would, in the same order:

========================================= =========================================================
:func:`validate_cluster_queue`            ``ValidateClusterQueue``: resource groups (resource and
                                          flavor names, quotas, limits), namespaceSelector,
                                          preemption, flavorFungibility, fairSharing, the totals,
                                          admission-check ``onFlavors``, concurrent admission
:func:`validate_cluster_queue_update`     ``ValidateClusterQueueUpdate``
:func:`validate_cohort`                   ``validateCohort``
:func:`validate_resource_flavor`          ``ValidateResourceFlavor``: node labels, taints,
                                          tolerations
:func:`validate_workload`                 ``ValidateWorkload``: pod sets (reserved ``pods`` key,
                                          negative amounts, template metadata, slice sizes),
                                          ``minCount``, the admission, conditions, reclaimable
                                          pods, admission-check pod-set updates, the
                                          admission-gated-by and priority-boost annotations
:func:`validate_workload_update`          ``ValidateWorkloadUpdate``
:func:`workload_warnings`                 ``warningsForWorkload``
========================================= =========================================================

Where Go iterates a map (resource lists, label maps, sets), the keys are taken in sorted order so
that the errors come out deterministically. Gates come from the resolved feature-gate map.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from fakekube.apiserver.kinds.jobs import _is_domain_prefixed_path as is_domain_prefixed_path
from fakekube.errors import ErrorType, FieldError
from fakekube.machinery.quantity import parse_quantity
from fakekube.machinery.selectors import validate_label_selector
from fakekube.machinery.validation import (
    is_qualified_name,
    is_valid_label_value,
    regex_error,
    validate_annotations,
    validate_label_name,
    validate_labels,
)

from . import workload as wlutil
from .resources import resource_value

__all__ = [
    "ADMISSION_GATED_BY_ANNOTATION",
    "ELASTIC_JOB_ANNOTATION",
    "PRIORITY_BOOST_ANNOTATION",
    "validate_cluster_queue",
    "validate_cluster_queue_update",
    "validate_cohort",
    "validate_resource_flavor",
    "validate_workload",
    "validate_workload_update",
    "workload_warnings",
]

Obj = dict[str, Any]
Gates = Mapping[str, bool]

ADMISSION_GATED_BY_ANNOTATION = "kueue.x-k8s.io/admission-gated-by"
PRIORITY_BOOST_ANNOTATION = "kueue.x-k8s.io/priority-boost"
ELASTIC_JOB_ANNOTATION = "kueue.x-k8s.io/elastic-job"
SLICE_REPLACEMENT_FOR_ANNOTATION = "kueue.x-k8s.io/workload-slice-replacement-for"

IS_NEGATIVE = "must be greater than or equal to 0"
FIELD_IMMUTABLE = "field is immutable"
MAX_GATE_NAME_LENGTH = 63


def _spec(obj: Obj) -> Obj:
    return obj.get("spec") or {}


def _status(obj: Obj) -> Obj:
    return obj.get("status") or {}


def _annotations(obj: Obj) -> dict[str, str]:
    return (obj.get("metadata") or {}).get("annotations") or {}


def _negative(value: Any) -> bool:
    """``value.Cmp(resource.Quantity{}) < 0`` (an unparsable text is the schema's to refuse)."""
    try:
        return parse_quantity(str(value)) < 0
    except (ValueError, ArithmeticError):
        return False


def _resource_quantity(value: Any, path: str) -> list[FieldError]:
    """``validateResourceQuantity``: the quantity's text as the bad value."""
    return [FieldError.invalid(path, str(value), IS_NEGATIVE)] if _negative(value) else []


# =========================================================================== common.go


def _resource_name(name: str, path: str) -> list[FieldError]:
    """``validateResourceName`` (``content.IsLabelKey``)."""
    return [FieldError.invalid(path, name, msg) for msg in is_qualified_name(name)]


def _fair_sharing(fs: Obj | None, path: str) -> list[FieldError]:
    """``validateFairSharing``: the weight is non-negative and, when positive, above 1n."""
    if not fs or fs.get("weight") is None:
        return []
    weight = fs["weight"]
    try:
        value = parse_quantity(str(weight))
    except (ValueError, ArithmeticError):
        return []
    errs: list[FieldError] = []
    if value < 0:
        errs.append(FieldError.invalid(path, str(weight), IS_NEGATIVE))
    if 0 < value <= parse_quantity("1n"):
        errs.append(FieldError.invalid(path, str(weight), "When not 0, weight must be > 10e-9"))
    return errs


def _resource_groups(groups: list[Obj], path: str, *, has_parent: bool, nominal_over_lending: bool,
                     is_cohort: bool) -> list[FieldError]:
    """``validateResourceGroups`` / ``validateFlavorQuotas``."""
    errs: list[FieldError] = []
    seen_resources: set[str] = set()
    seen_flavors: set[str] = set()
    for i, rg in enumerate(groups):
        rg_path = f"{path}[{i}]"
        covered = list(rg.get("coveredResources") or [])
        for j, name in enumerate(covered):
            r_path = f"{rg_path}.coveredResources[{j}]"
            errs.extend(_resource_name(name, r_path))
            if name in seen_resources:
                errs.append(FieldError.duplicate(r_path, name))
            else:
                seen_resources.add(name)
        for j, fq in enumerate(rg.get("flavors") or []):
            f_path = f"{rg_path}.flavors[{j}]"
            errs.extend(_flavor_quotas(fq, covered, f_path, has_parent=has_parent,
                                       nominal_over_lending=nominal_over_lending, is_cohort=is_cohort))
            name = fq.get("name") or ""
            if name in seen_flavors:
                errs.append(FieldError.duplicate(f"{f_path}.name", name))
            else:
                seen_flavors.add(name)
    return errs


def _flavor_quotas(fq: Obj, covered: list[str], path: str, *, has_parent: bool, nominal_over_lending: bool,
                   is_cohort: bool) -> list[FieldError]:
    errs: list[FieldError] = []
    for k, rq in enumerate(fq.get("resources") or []):
        if k >= len(covered):
            break
        q_path = f"{path}.resources[{k}]"
        name = rq.get("name") or ""
        if name != covered[k]:
            errs.append(FieldError.invalid(f"{q_path}.name", name, "must match the name in coveredResources"))
        nominal = rq.get("nominalQuota", 0)
        errs.extend(_resource_quantity(nominal, f"{q_path}.nominalQuota"))
        if rq.get("borrowingLimit") is not None:
            limit = rq["borrowingLimit"]
            l_path = f"{q_path}.borrowingLimit"
            errs.extend(_limit(limit, l_path, has_parent=has_parent, is_cohort=is_cohort))
            errs.extend(_resource_quantity(limit, l_path))
        if rq.get("lendingLimit") is not None:
            limit = rq["lendingLimit"]
            l_path = f"{q_path}.lendingLimit"
            errs.extend(_resource_quantity(limit, l_path))
            errs.extend(_limit(limit, l_path, has_parent=has_parent, is_cohort=is_cohort))
            if nominal_over_lending and resource_value(name, limit) > resource_value(name, nominal):
                errs.append(FieldError.invalid(l_path, str(limit), "must be less than or equal to the nominalQuota"))
    return errs


def _limit(limit: Any, path: str, *, has_parent: bool, is_cohort: bool) -> list[FieldError]:
    """``validateLimit``: a borrowing or lending limit needs a cohort (a parent, for a Cohort)."""
    if has_parent:
        return []
    return [FieldError.invalid(path, str(limit), f"must be nil when {'parent' if is_cohort else 'cohort'} is empty")]


# =========================================================================== ClusterQueue


def _all_flavors(groups: list[Obj]) -> list[str]:
    return sorted({fq.get("name") or "" for rg in groups for fq in rg.get("flavors") or []})


def validate_cluster_queue(cq: Obj, gates: Gates) -> list[FieldError]:
    """``ValidateClusterQueue``."""
    return _cluster_queue_spec(cq, gates) + _admission_check_on_flavors(cq, None)


def validate_cluster_queue_update(old: Obj, new: Obj, gates: Gates) -> list[FieldError]:
    """``ValidateClusterQueueUpdate``: the spec checks, ``onFlavors`` (an unchanged legacy rule
    passes while RejectUpdatesToCQWithInvalidOnFlavors is off), concurrentAdmissionPolicy immutable."""
    old_on_flavors: dict[str, set[str]] = {}
    if not gates.get("RejectUpdatesToCQWithInvalidOnFlavors", False):
        old_strategy = _spec(old).get("admissionChecksStrategy")
        if old_strategy is not None and \
                _all_flavors(_spec(old).get("resourceGroups") or []) == _all_flavors(_spec(new).get("resourceGroups") or []):
            old_on_flavors = {check.get("name") or "": set(check.get("onFlavors") or [])
                              for check in old_strategy.get("admissionChecks") or []}
    errs = _cluster_queue_spec(new, gates) + _admission_check_on_flavors(new, old_on_flavors)
    new_policy, old_policy = _spec(new).get("concurrentAdmissionPolicy"), _spec(old).get("concurrentAdmissionPolicy")
    if new_policy != old_policy:
        errs.append(FieldError.invalid("spec.concurrentAdmissionPolicy", new_policy, FIELD_IMMUTABLE))
    return errs


def _cluster_queue_spec(cq: Obj, gates: Gates) -> list[FieldError]:
    """``validateClusterQueueSpec``."""
    spec = _spec(cq)
    groups = spec.get("resourceGroups") or []
    errs = _resource_groups(groups, "spec.resourceGroups", has_parent=bool(spec.get("cohortName")),
                            nominal_over_lending=True, is_cohort=False)
    errs.extend(validate_label_selector(spec.get("namespaceSelector"), "spec.namespaceSelector"))
    preemption = spec.get("preemption")
    if preemption is not None:
        borrow = preemption.get("borrowWithinCohort")
        if preemption.get("reclaimWithinCohort") == "Never" and borrow is not None \
                and borrow.get("policy", "Never") != "Never":
            errs.append(FieldError.invalid("spec.preemption", preemption,
                                           "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"))
    fungibility = spec.get("flavorFungibility")
    if fungibility is not None and fungibility.get("preference") is not None:
        if fungibility.get("whenCanBorrow") != "TryNextFlavor" or fungibility.get("whenCanPreempt") != "TryNextFlavor":
            pref = fungibility["preference"]
            errs.append(FieldError.invalid(
                "spec.flavorFungibility.preference", pref,
                f'preference "{pref}" requires both whenCanBorrow and whenCanPreempt to be TryNextFlavor'))
    errs.extend(_fair_sharing(spec.get("fairSharing"), "spec.fairSharing"))
    total_flavors = sum(len(rg.get("flavors") or []) for rg in groups)
    if total_flavors > 256:
        errs.append(FieldError.invalid(
            "spec.resourceGroups", total_flavors,
            f"total number of flavors across all resourceGroups must be ≤ 256, got {total_flavors}"))
    total_covered = sum(len(rg.get("coveredResources") or []) for rg in groups)
    if total_covered > 256:
        errs.append(FieldError.invalid(
            "spec.resourceGroups", total_covered,
            f"total number of covered resources across all resourceGroups must be ≤ 256, got {total_covered}"))
    for i, rg in enumerate(groups):
        combos = sum(len(fq.get("resources") or []) for fq in rg.get("flavors") or [])
        if combos > 512:
            errs.append(FieldError.invalid(
                f"spec.resourceGroups[{i}]", combos,
                f"number of flavor-resource combinations in a resourceGroup must be ≤ 512, got {combos}"))
    errs.extend(_concurrent_admission_policy(spec, gates))
    return errs


def _admission_check_on_flavors(cq: Obj, old_on_flavors: dict[str, set[str]] | None) -> list[FieldError]:
    """``validateAdmissionCheckOnFlavorsWithOld``: every ``onFlavors`` entry is a flavor of the queue."""
    strategy = _spec(cq).get("admissionChecksStrategy")
    if strategy is None:
        return []
    valid = _all_flavors(_spec(cq).get("resourceGroups") or [])
    errs: list[FieldError] = []
    for i, check in enumerate(strategy.get("admissionChecks") or []):
        on_flavors = list(check.get("onFlavors") or [])
        if old_on_flavors and old_on_flavors.get(check.get("name") or "") == set(on_flavors):
            continue
        for j, flavor in enumerate(on_flavors):
            if flavor not in valid:
                errs.append(FieldError.not_supported(
                    f"spec.admissionChecksStrategy.admissionChecks[{i}].onFlavors[{j}]", flavor, valid))
    return errs


def _concurrent_admission_policy(spec: Obj, gates: Gates) -> list[FieldError]:
    """``validateConcurrentAdmissionPolicy`` (ConcurrentAdmission gate)."""
    policy = spec.get("concurrentAdmissionPolicy")
    if not gates.get("ConcurrentAdmission", False) or policy is None:
        return []
    errs: list[FieldError] = []
    groups = spec.get("resourceGroups") or []
    if len(groups) != 1:
        errs.append(FieldError.invalid("spec.resourceGroups", len(groups),
                                       "must have exactly one ResourceGroup when ConcurrentAdmissionPolicy is defined"))
    if len(groups) == 1 and len(groups[0].get("flavors") or []) > 16:
        errs.append(FieldError.invalid(
            "spec.resourceGroups[0].flavors", len(groups[0]["flavors"]),
            "cannot have more than 16 resource flavors in the ResourceGroup when ConcurrentAdmissionPolicy is defined"))
    migration = policy.get("migration") or {}
    constraints = migration.get("constraints")
    if constraints is not None:
        mode = migration.get("mode") or ""
        c_path = "spec.concurrentAdmissionPolicy.migration.constraints"
        if mode and mode != "TryPreferredFlavors":
            errs.append(FieldError.forbidden(
                c_path, f'may only be set when migration.mode is "TryPreferredFlavors" (got "{mode}")'))
        elif constraints.get("lastAcceptableFlavorName") is not None:
            last = constraints["lastAcceptableFlavorName"]
            valid = _all_flavors(groups)
            if last not in valid:
                errs.append(FieldError.invalid(
                    f"{c_path}.lastAcceptableFlavorName", last,
                    f"must be one of the flavors defined in the ClusterQueue: [{' '.join(valid)}]"))
    if spec.get("queueingStrategy") == "StrictFIFO":
        errs.append(FieldError.invalid("spec.queueingStrategy", "StrictFIFO",
                                       "StrictFIFO queueing strategy cannot be used when ConcurrentAdmissionPolicy "
                                       "is defined"))
    return errs


# =========================================================================== Cohort


def validate_cohort(cohort: Obj) -> list[FieldError]:
    """``validateCohort``: fair sharing, then the resource groups (lendingLimit may exceed nominal)."""
    spec = _spec(cohort)
    errs = _fair_sharing(spec.get("fairSharing"), "spec.fairSharing")
    errs.extend(_resource_groups(spec.get("resourceGroups") or [], "spec.resourceGroups",
                                 has_parent=bool(spec.get("parentName")), nominal_over_lending=False, is_cohort=True))
    return errs


# =========================================================================== ResourceFlavor


def _tolerations(tolerations: list[Obj] | None, path: str) -> list[FieldError]:
    """``validateTolerations`` (upstream's trimmed copy: the key is a label name)."""
    errs: list[FieldError] = []
    for i, toleration in enumerate(tolerations or []):
        key = toleration.get("key") or ""
        if key:
            errs.extend(validate_label_name(key, f"{path}[{i}].key"))
    return errs


def validate_resource_flavor(rf: Obj) -> list[FieldError]:
    """``ValidateResourceFlavor``."""
    spec = _spec(rf)
    errs = validate_labels(spec.get("nodeLabels"), "spec.nodeLabels")
    seen: dict[str, set[str]] = {}
    for i, taint in enumerate(spec.get("nodeTaints") or []):
        t_path = f"spec.nodeTaints[{i}]"
        key, value, effect = taint.get("key") or "", taint.get("value") or "", taint.get("effect") or ""
        errs.extend(validate_label_name(key, f"{t_path}.key"))
        msgs = is_valid_label_value(value)
        if msgs:
            errs.append(FieldError.invalid(f"{t_path}.value", value, ";".join(msgs)))
        if key in seen.get(effect, set()):
            errs.append(FieldError(ErrorType.DUPLICATE, t_path, taint, "taints must be unique by key and effect pair"))
            continue
        seen.setdefault(effect, set()).add(key)
    errs.extend(_tolerations(spec.get("tolerations"), "spec.tolerations"))
    return errs


# =========================================================================== Workload


def _elastic(wl: Obj, gates: Gates) -> bool:
    """``workloadslicing.Enabled``."""
    return gates.get("ElasticJobsViaWorkloadSlices", False) and _annotations(wl).get(ELASTIC_JOB_ANNOTATION) == "true"


def _resource_list(resources: Mapping[str, Any] | None, path: str, gates: Gates) -> list[FieldError]:
    """``validateResourceList``: the reserved ``pods`` key; negative amounts (gate on)."""
    errs: list[FieldError] = []
    resources = resources or {}
    for name in sorted(resources):
        key_path = f"{path}[{name}]"
        if name == "pods":
            errs.append(FieldError.invalid(key_path, "pods", "the key is reserved for internal kueue use"))
        if gates.get("WorkloadValidateResourcesAreNonNegative", True):
            errs.extend(_resource_quantity(resources[name], key_path))
    return errs


def _container(container: Obj, path: str, gates: Gates) -> list[FieldError]:
    res = container.get("resources") or {}
    return (_resource_list(res.get("requests"), f"{path}.resources.requests", gates)
            + _resource_list(res.get("limits"), f"{path}.resources.limits", gates))


def _slice_size(tr: Obj | None, path: str) -> list[FieldError]:
    """``validateTASSliceSize``."""
    if not tr:
        return []
    errs: list[FieldError] = []
    size = tr.get("podSetSliceSize")
    if tr.get("podSetSliceRequiredTopology") is not None:
        if size is None:
            errs.append(FieldError.required(f"{path}.podSetSliceSize",
                                            "must be set when podSetSliceRequiredTopology is specified"))
        elif size <= 0:
            errs.append(FieldError.invalid(f"{path}.podSetSliceSize", size, "must be greater than 0"))
    elif size is not None:
        errs.append(FieldError.forbidden(f"{path}.podSetSliceSize",
                                         "may not be set when podSetSliceRequiredTopology is not specified"))
    for i, constraint in enumerate(tr.get("podsetSliceRequiredTopologyConstraints") or []):
        if (constraint.get("size") or 0) <= 0:
            errs.append(FieldError.invalid(f"{path}.podsetSliceRequiredTopologyConstraints[{i}].size",
                                           constraint.get("size") or 0, "must be greater than 0"))
    return errs


def _pod_set(ps: Obj, path: str, gates: Gates) -> list[FieldError]:
    """``validatePodSet``."""
    errs: list[FieldError] = []
    template = ps.get("template") or {}
    if gates.get("WorkloadValidationForPodSetMetadata", True):
        meta = template.get("metadata") or {}
        errs.extend(validate_labels(meta.get("labels"), f"{path}.template.metadata.labels"))
        errs.extend(validate_annotations(meta.get("annotations"), f"{path}.template.metadata.annotations"))
    pod = template.get("spec") or {}
    for kind in ("initContainers", "containers"):
        for i, container in enumerate(pod.get(kind) or []):
            errs.extend(_container(container, f"{path}.template.spec.{kind}[{i}]", gates))
    pod_resources = pod.get("resources")
    if pod_resources is not None:
        r_path = f"{path}.template.spec.resources"
        errs.extend(_resource_list(pod_resources.get("requests"), f"{r_path}.requests", gates))
        errs.extend(_resource_list(pod_resources.get("limits"), f"{r_path}.limits", gates))
    if gates.get("TASValidateWorkloadSliceSize", True):
        errs.extend(_slice_size(ps.get("topologyRequest"), f"{path}.topologyRequest"))
    return errs


_CONDITION_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_CONDITION_REASON_RE = re.compile(f"^{_CONDITION_REASON_FMT}$")
_CONDITION_REASON_ERR = ("a condition reason must start with alphabetic character, optionally followed by a string of "
                         "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'")


def _conditions(conditions: list[Obj] | None, path: str) -> list[FieldError]:
    """``metav1validation.ValidateConditions``."""
    errs: list[FieldError] = []
    seen: set[str] = set()
    for i, cond in enumerate(conditions or []):
        c_path = f"{path}[{i}]"
        type_ = cond.get("type") or ""
        if type_ in seen:
            errs.append(FieldError.duplicate(f"{c_path}.type", type_))
        seen.add(type_)
        errs.extend(validate_label_name(type_, f"{c_path}.type"))
        status = cond.get("status") or ""
        if status not in ("True", "False", "Unknown"):
            errs.append(FieldError.not_supported(f"{c_path}.status", status, ["False", "True", "Unknown"]))
        if (cond.get("observedGeneration") or 0) < 0:
            errs.append(FieldError.invalid(f"{c_path}.observedGeneration", cond["observedGeneration"],
                                           "must be greater than or equal to zero"))
        if not cond.get("lastTransitionTime"):
            errs.append(FieldError.required(f"{c_path}.lastTransitionTime", "must be set"))
        reason = cond.get("reason") or ""
        if not reason:
            errs.append(FieldError.required(f"{c_path}.reason", "must be set"))
        else:
            if not _CONDITION_REASON_RE.match(reason):
                errs.append(FieldError.invalid(f"{c_path}.reason", reason, regex_error(
                    _CONDITION_REASON_ERR, _CONDITION_REASON_FMT, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB",
                    "ReasonA:ReasonB")))
            if len(reason) > 1024:
                errs.append(FieldError.too_long(f"{c_path}.reason", reason, 1024))
        if len(cond.get("message") or "") > 32 * 1024:
            errs.append(FieldError.too_long(f"{c_path}.message", cond.get("message"), 32 * 1024))
    return errs


def _reserves_quota_without_admission(wl: Obj | None) -> bool:
    return wl is not None and wlutil.has_quota_reservation(wl) and _status(wl).get("admission") is None


def _admission(wl: Obj, old: Obj | None) -> list[FieldError]:
    """``validateAdmission`` (reached on QuotaReserved=True)."""
    path = "status.admission"
    admission = _status(wl).get("admission")
    if admission is None:
        if _reserves_quota_without_admission(old):
            return []
        return [FieldError.required(path, "must be set while the QuotaReserved condition is true")]
    names = {ps.get("name") for ps in _spec(wl).get("podSets") or []}
    errs: list[FieldError] = []
    for i, psa in enumerate(admission.get("podSetAssignments") or []):
        psa_path = f"{path}.podSetAssignments[{i}]"
        if psa.get("name") not in names:
            errs.append(FieldError.not_found(f"{psa_path}.name", psa.get("name")))
        count = psa.get("count") or 0
        if count > 0:
            usage = psa.get("resourceUsage") or {}
            for name in sorted(usage):
                if resource_value(name, usage[name]) % count != 0:
                    errs.append(FieldError.invalid(f"{psa_path}.resourceUsage[{name}]", str(usage[name]),
                                                   f"is not a multiple of {count}"))
    return errs


def _reclaimable_pods(wl: Obj, old: Obj | None, gates: Gates) -> list[FieldError]:
    """``validateReclaimablePods``: a known pod set, a count within its size (an elastic workload's
    unchanged count may stay above it after a scale down)."""
    reclaimable = _status(wl).get("reclaimablePods") or []
    if not reclaimable:
        return []
    pod_sets = {ps.get("name"): ps for ps in _spec(wl).get("podSets") or []}
    names = [ps.get("name") or "" for ps in _spec(wl).get("podSets") or []]
    old_entries = {(rp.get("name"), rp.get("count")) for rp in _status(old).get("reclaimablePods") or []} \
        if old is not None and _elastic(wl, gates) else set()
    errs: list[FieldError] = []
    for rp in reclaimable:
        rp_path = f"status.reclaimablePods[{rp.get('name')}]"
        ps = pod_sets.get(rp.get("name"))
        if ps is None:
            errs.append(FieldError.not_supported(f"{rp_path}.name", rp.get("name"), names))
        elif rp.get("count", 0) > ps.get("count", 1) and (rp.get("name"), rp.get("count")) not in old_entries:
            errs.append(FieldError.invalid(f"{rp_path}.count", rp.get("count"),
                                           f"should be less or equal to {ps.get('count', 1)}"))
    return errs


def _pod_set_updates(wl: Obj) -> list[FieldError]:
    """``validateAdmissionChecks`` / ``validatePodSetUpdates``."""
    known = sorted({ps.get("name") or "" for ps in _spec(wl).get("podSets") or []})
    errs: list[FieldError] = []
    for i, check in enumerate(_status(wl).get("admissionChecks") or []):
        for j, psu in enumerate(check.get("podSetUpdates") or []):
            p = f"status.admissionChecks[{i}].podSetUpdates[{j}]"
            if psu.get("name") not in known:
                errs.append(FieldError.not_supported(f"{p}.name", psu.get("name"), known))
            errs.extend(_tolerations(psu.get("tolerations"), f"{p}.tolerations"))
            errs.extend(validate_annotations(psu.get("annotations"), f"{p}.annotations"))
            errs.extend(validate_labels(psu.get("nodeSelector"), f"{p}.nodeSelector"))
            errs.extend(validate_labels(psu.get("labels"), f"{p}.labels"))
    return errs


_GATED_BY_PATH = f"metadata.annotations[{ADMISSION_GATED_BY_ANNOTATION}]"


def _csv(value: str) -> list[str]:
    """``csv.Parse``."""
    if not value.strip():
        return []
    return [part.strip() for part in value.split(",")]


def _gated_by_format(value: str) -> list[FieldError]:
    """``validateAdmissionGatedByAnnotationFormat``."""
    errs: list[FieldError] = []
    if not value:
        return errs
    seen: set[str] = set()
    for gate in _csv(value):
        if not gate:
            errs.append(FieldError.invalid(_GATED_BY_PATH, value, "cannot contain empty gate names"))
            continue
        if gate in seen:
            errs.append(FieldError.invalid(_GATED_BY_PATH, value, f"duplicate gate name: {gate}"))
            continue
        seen.add(gate)
        errs.extend(is_domain_prefixed_path(_GATED_BY_PATH, gate))
        if len(gate) > MAX_GATE_NAME_LENGTH:
            errs.append(FieldError.too_long(_GATED_BY_PATH, "", MAX_GATE_NAME_LENGTH))
    return errs


def _gated_by_update(old: Obj, new: Obj) -> list[FieldError]:
    """``ValidateAdmissionGatedByAnnotationOnUpdate``: gates may only be removed."""
    old_value = _annotations(old).get(ADMISSION_GATED_BY_ANNOTATION) or ""
    new_value = _annotations(new).get(ADMISSION_GATED_BY_ANNOTATION) or ""
    errs: list[FieldError] = []
    if not old_value and new_value:
        errs.append(FieldError.forbidden(_GATED_BY_PATH, "cannot add admission gate after creation"))
    if old_value and new_value:
        old_gates = _csv(old_value)
        if any(gate not in old_gates for gate in _csv(new_value)):
            errs.append(FieldError.forbidden(_GATED_BY_PATH, "can only remove gates, not add new ones"))
    errs.extend(_gated_by_format(new_value))
    return errs


_INT32 = (-(1 << 31), (1 << 31) - 1)
_DECIMAL_INT = re.compile(r"^[+-]?[0-9]+$")


def _priority_boost(wl: Obj) -> list[FieldError]:
    """KEP-7990: the priority-boost annotation is a signed 32-bit integer (``strconv.ParseInt(v, 10, 32)``)."""
    annotations = _annotations(wl)
    if PRIORITY_BOOST_ANNOTATION not in annotations:
        return []
    value = annotations[PRIORITY_BOOST_ANNOTATION]
    path = f"metadata.annotations[{PRIORITY_BOOST_ANNOTATION}]"
    if value == "":
        return [FieldError.invalid(path, value,
                                   'must be a valid signed integer; use "0" explicitly, empty string is not allowed')]
    if not _DECIMAL_INT.match(value) or not _INT32[0] <= int(value) <= _INT32[1]:
        return [FieldError.invalid(path, value, "must be a valid signed integer")]
    return []


def validate_workload(wl: Obj, old: Obj | None, gates: Gates) -> list[FieldError]:
    """``ValidateWorkload``; ``old`` is the stored version on an update, None on create."""
    errs: list[FieldError] = []
    variable = 0
    for i, ps in enumerate(_spec(wl).get("podSets") or []):
        errs.extend(_pod_set(ps, f"spec.podSets[{i}]", gates))
        if ps.get("minCount") is not None:
            variable += 1
    if variable > 1:
        errs.append(FieldError.invalid("spec.podSets", variable, "at most one podSet can use minCount"))
    if variable > 0 and _elastic(wl, gates):
        errs.append(FieldError.invalid("spec.podSets", variable,
                                       "partial admission and elastic job cannot be used together"))
    if wlutil.has_quota_reservation(wl):
        errs.extend(_admission(wl, old))
    errs.extend(_conditions(_status(wl).get("conditions"), "status.conditions"))
    errs.extend(_reclaimable_pods(wl, old, gates))
    errs.extend(_pod_set_updates(wl))
    if gates.get("AdmissionGatedBy", False):
        errs.extend(_gated_by_format(_annotations(wl).get(ADMISSION_GATED_BY_ANNOTATION) or ""))
    if gates.get("PriorityBoost", False):
        errs.extend(_priority_boost(wl))
    return errs


def _without(ps: Obj, key: str) -> Obj:
    return {k: v for k, v in ps.items() if k != key}


def _immutable_pod_sets(new: list[Obj], old: list[Obj], gates: Gates) -> list[FieldError]:
    """``validateImmutablePodSets``: all but a scale down of ``count`` (elastic jobs) is immutable.
    Upstream names the pod set ``spec.podSets.<i>`` (``Child(strconv.Itoa(i))``)."""
    if len(new) != len(old):
        return [FieldError.invalid("spec.podSets", new, FIELD_IMMUTABLE)]
    errs: list[FieldError] = []
    for i, (n, o) in enumerate(zip(new, old, strict=True)):
        if gates.get("ElasticJobsViaWorkloadSlices", False) and n.get("count", 1) < o.get("count", 1):
            same = _without(n, "count") == _without(o, "count")
        else:
            same = n == o
        if not same:
            errs.append(FieldError.invalid(f"spec.podSets.{i}", n, FIELD_IMMUTABLE))
    return errs


def _scaled_down(wl: Obj, gates: Gates) -> set[str]:
    """``scaledDownPodSetNames``: elastic pod sets now smaller than their admitted count."""
    admission = _status(wl).get("admission")
    if not _elastic(wl, gates) or admission is None:
        return set()
    sizes = {ps.get("name"): ps.get("count", 1) for ps in _spec(wl).get("podSets") or []}
    return {psa.get("name") for psa in admission.get("podSetAssignments") or []
            if psa.get("count") is not None and psa["count"] > sizes.get(psa.get("name"), 0)}


def _reclaimable_pods_update(new: Obj, old: Obj, gates: Gates) -> list[FieldError]:
    """``validateReclaimablePodsUpdate``: while quota is held, counts may not go down nor go away."""
    new_rps = _status(new).get("reclaimablePods") or []
    old_rps = _status(old).get("reclaimablePods") or []
    if {(rp.get("name"), rp.get("count")) for rp in new_rps} == {(rp.get("name"), rp.get("count")) for rp in old_rps} \
            and len(new_rps) == len(old_rps):
        return []
    if not old_rps:
        return []
    known = {rp.get("name"): rp for rp in old_rps}
    scaled = _scaled_down(new, gates)
    reserved = wlutil.has_quota_reservation(new)
    errs: list[FieldError] = []
    new_names: set[str] = set()
    for rp in new_rps:
        name = rp.get("name") or ""
        new_names.add(name)
        if not reserved and rp.get("count", 0) == 0:
            continue
        before = known.get(name)
        if before is not None and rp.get("count", 0) < before.get("count", 0) and name not in scaled:
            errs.append(FieldError.invalid(f"status.reclaimablePods[{name}].count", rp.get("count", 0),
                                           f"cannot be less than {before.get('count', 0)}"))
    for name in sorted(known):  # Go ranges over a map
        if reserved and name not in new_names and name not in scaled:
            errs.append(FieldError.required(f"status.reclaimablePods[{name}]", "cannot be removed"))
    return errs


def _admission_update(new: Obj | None, old: Obj | None, gates: Gates) -> list[FieldError]:
    """``validateAdmissionUpdate``: an admission may be set or unset, not changed (with TAS on, the
    topology assignments excepted)."""
    if new is None or old is None:
        return []
    if gates.get("TopologyAwareScheduling", True):
        new_psas, old_psas = new.get("podSetAssignments") or [], old.get("podSetAssignments") or []
        if len(new_psas) != len(old_psas):
            return [FieldError.invalid("status.admission", new, FIELD_IMMUTABLE)]
        loose = ("topologyAssignment", "delayedTopologyRequest")
        old = {**old, "podSetAssignments": [
            {**{k: v for k, v in o.items() if k not in loose}, **{k: n[k] for k in loose if k in n}}
            for o, n in zip(old_psas, new_psas, strict=True)]}
    if new != old:
        return [FieldError.invalid("status.admission", new, FIELD_IMMUTABLE)]
    return []


def _immutable_pod_set_updates(new: Obj, old: Obj) -> list[FieldError]:
    """``validateImmutablePodSetUpdates``: a Ready check's podSetUpdates are frozen."""
    new_checks = {check.get("name"): check for check in _status(new).get("admissionChecks") or []}
    errs: list[FieldError] = []
    for i, before in enumerate(_status(old).get("admissionChecks") or []):
        after = new_checks.get(before.get("name"))
        if after is None:
            continue
        if before.get("state") == "Ready" and after.get("state") == "Ready" and \
                (after.get("podSetUpdates") or []) != (before.get("podSetUpdates") or []):
            errs.append(FieldError.invalid(f"status.admissionChecks[{i}].podSetUpdates",
                                           after.get("podSetUpdates"), FIELD_IMMUTABLE))
    return errs


def _cluster_name_update(new: Obj, old: Obj, gates: Gates) -> list[FieldError]:
    """``validateClusterNameUpdate``: a clusterName set now is one of the nominated ones."""
    if gates.get("ElasticJobsViaWorkloadSlices", False) and SLICE_REPLACEMENT_FOR_ANNOTATION in _annotations(new):
        return []
    name = _status(new).get("clusterName")
    if _status(old).get("clusterName") is None and name is not None \
            and name not in (_status(old).get("nominatedClusterNames") or []):
        return [FieldError.invalid("status.clusterName", name,
                                   "when setting clusterName it must be one of the nominatedClusterNames")]
    return []


def validate_workload_update(new: Obj, old: Obj, gates: Gates) -> list[FieldError]:
    """``ValidateWorkloadUpdate``."""
    errs = validate_workload(new, old, gates)
    if wlutil.has_quota_reservation(old):
        errs.extend(_immutable_pod_sets(_spec(new).get("podSets") or [], _spec(old).get("podSets") or [], gates))
    if wlutil.has_quota_reservation(new) and wlutil.has_quota_reservation(old):
        errs.extend(_reclaimable_pods_update(new, old, gates))
    errs.extend(_admission_update(_status(new).get("admission"), _status(old).get("admission"), gates))
    errs.extend(_immutable_pod_set_updates(new, old))
    errs.extend(_cluster_name_update(new, old, gates))
    if gates.get("AdmissionGatedBy", False):
        errs.extend(_gated_by_update(old, new))
    return errs


def workload_warnings(wl: Obj) -> list[str]:
    """``warningsForWorkload``: a negative ``subGroupCount`` is deprecated."""
    out: list[str] = []
    for i, ps in enumerate(_spec(wl).get("podSets") or []):
        count = (ps.get("topologyRequest") or {}).get("subGroupCount")
        if count is not None and count < 0:
            out.append(f"spec.podSets[{i}].topologyRequest.subGroupCount: negative value {count} is deprecated "
                       "and will be rejected in a future release")
    return out
