"""Python equivalents of the Workload CRD's hot CEL rules (``fakekube.machinery.openapi.cel``).

The Workload's root rules (podSetAssignments against podSets; priorityClassRef, queueName and
maximumExecutionTimeSeconds immutable while quota is reserved) and its status rules (clusterName)
run on every Workload write, status writes included, and the CEL interpreter converts the whole
object for each: most of the CPU of a queue of Workloads. These functions give the same outcome
on the plain values; where CEL would raise (a field its rule reads unguarded is absent) they
answer ``None`` and the interpreter decides. ``tests/kueue/test_core_native_rules.py`` checks them
against the interpreter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from fakekube.machinery.openapi.cel import register_native_rule

from .api import WORKLOAD_RULES, WORKLOAD_STATUS_RULES

__all__ = ["NATIVE", "register"]

Outcome = bool | None


def _condition_true(obj: Any, type_: str) -> bool:
    """``has(x.status) && has(x.status.conditions) && x.status.conditions.exists(c, c.type == T && c.status == 'True')``."""
    status = obj.get("status") if isinstance(obj, Mapping) else None
    if not isinstance(status, Mapping):
        return False
    return any(isinstance(c, Mapping) and c.get("type") == type_ and c.get("status") == "True"
               for c in status.get("conditions") or ())


def _spec(obj: Any) -> Mapping[str, Any] | None:
    spec = obj.get("spec") if isinstance(obj, Mapping) else None
    return spec if isinstance(spec, Mapping) else None


def pod_set_assignments_match(new: Any, old: Any) -> Outcome:
    if not _condition_true(new, "QuotaReserved") or "admission" not in new["status"]:
        return True
    spec, admission = _spec(new), new["status"]["admission"]
    if spec is None or "podSets" not in spec or not isinstance(admission, Mapping) \
            or "podSetAssignments" not in admission:
        return None
    return len(spec["podSets"]) == len(admission["podSetAssignments"])


def _refs(new: Any, old: Any) -> tuple[Mapping[str, Any], Mapping[str, Any]] | None:
    new_spec, old_spec = _spec(new), _spec(old)
    if new_spec is None or old_spec is None:
        return None
    return new_spec, old_spec


def priority_class_ref_kept(new: Any, old: Any) -> Outcome:
    if not _condition_true(old, "QuotaReserved"):
        return True
    specs = _refs(new, old)
    if specs is None:
        return None
    return ("priorityClassRef" in specs[0]) == ("priorityClassRef" in specs[1])


def _both_refs(new: Any, old: Any) -> tuple[Mapping[str, Any], Mapping[str, Any]] | bool | None:
    """The two priorityClassRefs when quota was reserved and both are set; True when the rule holds
    vacuously; None when CEL would raise."""
    if not _condition_true(old, "QuotaReserved"):
        return True
    specs = _refs(new, old)
    if specs is None:
        return None
    if "priorityClassRef" not in specs[1] or "priorityClassRef" not in specs[0]:
        return True
    return specs[0]["priorityClassRef"], specs[1]["priorityClassRef"]


def _ref_field_kept(field: str) -> Callable[[Any, Any], Outcome]:
    def check(new: Any, old: Any) -> Outcome:
        refs = _both_refs(new, old)
        if not isinstance(refs, tuple):
            return refs
        if field not in refs[0] or field not in refs[1]:
            return None
        return bool(refs[1][field] == refs[0][field])
    return check


def priority_class_name_kept(new: Any, old: Any) -> Outcome:
    refs = _both_refs(new, old)
    if not isinstance(refs, tuple):
        return refs
    new_ref, old_ref = refs
    if any(k not in new_ref for k in ("group", "kind")):
        return None
    if new_ref["group"] != "scheduling.k8s.io" or new_ref["kind"] != "PriorityClass":
        return True
    if "name" not in new_ref or "name" not in old_ref:
        return None
    return bool(old_ref["name"] == new_ref["name"])


def queue_name_kept(new: Any, old: Any) -> Outcome:
    if not (_condition_true(old, "QuotaReserved") and _condition_true(new, "QuotaReserved")):
        return True
    specs = _refs(new, old)
    if specs is None:
        return None
    new_spec, old_spec = specs
    if ("queueName" in old_spec) != ("queueName" in new_spec):
        return False
    return "queueName" not in old_spec or bool(old_spec["queueName"] == new_spec["queueName"])


def max_execution_time_kept(new: Any, old: Any) -> Outcome:
    if not (_condition_true(old, "Admitted") and _condition_true(new, "Admitted")):
        return True
    specs = _refs(new, old)
    if specs is None:
        return None
    return bool(specs[1].get("maximumExecutionTimeSeconds", 0) == specs[0].get("maximumExecutionTimeSeconds", 0))


def cluster_name_kept(new: Any, old: Any) -> Outcome:
    if not isinstance(new, Mapping) or not isinstance(old, Mapping):
        return None
    if "clusterName" not in old or "clusterName" not in new:
        return True
    return bool(old["clusterName"] == new["clusterName"])


def cluster_name_exclusive(new: Any, old: Any) -> Outcome:
    if not isinstance(new, Mapping):
        return None
    if "clusterName" not in new or "nominatedClusterNames" not in new:
        return True
    names = new["nominatedClusterNames"]
    return len(names) == 0 if isinstance(names, list) else None


#: Rule text -> its Python equivalent, in the order of the CRD's lists.
NATIVE: dict[str, Callable[[Any, Any], Outcome]] = dict(zip(
    [rule for rule, _ in WORKLOAD_RULES] + [rule for rule, _ in WORKLOAD_STATUS_RULES],
    [pod_set_assignments_match, priority_class_ref_kept, _ref_field_kept("group"), _ref_field_kept("kind"),
     priority_class_name_kept, queue_name_kept, max_execution_time_kept,
     cluster_name_kept, cluster_name_exclusive], strict=True))


def register() -> None:
    """Hand the rules to the CEL pass (idempotent)."""
    for rule, fn in NATIVE.items():
        register_native_rule(rule, fn)

