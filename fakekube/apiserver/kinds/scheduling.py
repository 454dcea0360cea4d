"""PriorityClasses (``scheduling.k8s.io/v1``) and the two system classes every cluster has.

Rules of ``pkg/registry/scheduling/priorityclass`` and ``pkg/apis/scheduling/validation``:
``preemptionPolicy`` defaults to ``PreemptLowerPriority``; names are DNS-1123 subdomains; a name
starting with ``system-`` must be one of the system classes with its exact value and
``globalDefault: false``; any other class has a value of at most 1,000,000,000; ``value`` and
``preemptionPolicy`` never change. That at most one class is the global default is the Priority
admission plugin's check (:class:`fakekube.apiserver.admission.PriorityAdmission`), as upstream.

DEVIATION(upstream): kube-apiserver creates ``system-node-critical`` and ``system-cluster-critical``
at start; the fake does not store them (creating them would shift every resourceVersion and uid
of existing traces), but pods naming them resolve to their values, and creating them with their
exact values is allowed (any other ``system-`` class is refused as upstream).
"""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.admission import CREATE, PRIORITY_CLASSES, UPDATE, PriorityAdmission
from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Strategy
from fakekube.errors import FieldError
from fakekube.machinery import validation as v

__all__ = [
    "HIGHEST_USER_DEFINABLE_PRIORITY",
    "PREEMPTION_POLICIES",
    "SYSTEM_PRIORITY_CLASSES",
    "install",
    "system_priority_class",
]

GROUP = "scheduling.k8s.io"
HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000
SYSTEM_CRITICAL_PRIORITY = 2 * HIGHEST_USER_DEFINABLE_PRIORITY
SYSTEM_PREFIX = "system-"
PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER = "PreemptLowerPriority", "Never"
PREEMPTION_POLICIES = [PREEMPT_LOWER_PRIORITY, PREEMPT_NEVER]

#: name -> (value, description) of the classes kube-apiserver creates at start.
SYSTEM_PRIORITY_CLASSES: dict[str, tuple[int, str]] = {
    "system-node-critical": (SYSTEM_CRITICAL_PRIORITY + 1000,
                             "Used for system critical pods that must not be moved from their current node."),
    "system-cluster-critical": (SYSTEM_CRITICAL_PRIORITY,
                                "Used for system critical pods that must run in the cluster, but can be moved to "
                                "another node if necessary."),
}


def system_priority_class(name: str) -> dict[str, Any]:
    """The wire form of system class ``name`` as created at cluster start."""
    value, description = SYSTEM_PRIORITY_CLASSES[name]
    return {"apiVersion": f"{GROUP}/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "description": description}


def _known_system_class_error(name: str, value: Any, global_default: bool) -> str | None:
    """``IsKnownSystemPriorityClass``: why ``name`` is not a system class as it must be (None: it is)."""
    known = SYSTEM_PRIORITY_CLASSES.get(name)
    if known is None:
        return f"{name} is not a known system priority class"
    if value != known[0]:
        return f"value of {name} PriorityClass must be {known[0]}"
    if global_default:
        return f"globalDefault of {name} PriorityClass must be false"
    return None


class PriorityClassStrategy(Strategy):
    """``priorityClassStrategy``: generation 1 on create, ``ValidatePriorityClass`` on create and
    only ``ValidatePriorityClassUpdate`` (the immutable fields) on update."""

    def default(self, obj: dict[str, Any]) -> None:
        """``SetDefaults_PriorityClass``."""
        if not obj.get("preemptionPolicy"):
            obj["preemptionPolicy"] = PREEMPT_LOWER_PRIORITY

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        name = obj["metadata"].get("name") or ""
        value = obj.get("value", 0)
        if not isinstance(value, int) or isinstance(value, bool):
            return [FieldError.invalid("value", value, "must be an integer")]
        if name.startswith(SYSTEM_PREFIX):
            why = _known_system_class_error(name, value, bool(obj.get("globalDefault")))
            if why is not None:
                errors.append(FieldError.forbidden("metadata.name", f"priority class names with '{SYSTEM_PREFIX}' "
                                                                    f"prefix are reserved for system use only. "
                                                                    f"error: {why}"))
        elif value > HIGHEST_USER_DEFINABLE_PRIORITY:
            errors.append(FieldError.forbidden("value", "maximum allowed value of a user defined priority is "
                                                        f"{HIGHEST_USER_DEFINABLE_PRIORITY}"))
        policy = obj.get("preemptionPolicy")
        if policy not in PREEMPTION_POLICIES:
            errors.append(FieldError.not_supported("preemptionPolicy", policy, PREEMPTION_POLICIES))
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors: list[FieldError] = []
        if new.get("value", 0) != old.get("value", 0):
            errors.append(FieldError.forbidden("value", "may not be changed in an update."))
        if new.get("preemptionPolicy") != old.get("preemptionPolicy"):
            errors.append(FieldError.invalid("preemptionPolicy", new.get("preemptionPolicy"), v.FIELD_IMMUTABLE))
        return errors


def install(server: ApiServer) -> None:
    """Serve PriorityClasses and put the ``Priority`` admission plugin first in the chain (before
    any webhook, as kube-apiserver runs its built-in plugins before the webhooks)."""
    server.registry.add(ResourceType(GROUP, "v1", "PriorityClass", "priorityclasses", namespaced=False,
                                     strategy=PriorityClassStrategy(), short_names=("pc",)))
    plugin = PriorityAdmission(server.store, {name: value for name, (value, _) in SYSTEM_PRIORITY_CLASSES.items()})
    server.admission.register(plugin, resources=["pods"], operations=[CREATE], mutating=True)
    server.admission.register(plugin, resources=[PRIORITY_CLASSES], operations=[CREATE, UPDATE], validating=True)
