"""ValidatingAdmissionPolicies and their bindings (``admissionregistration.k8s.io/v1``), stored only.

Served so that a manifest carrying them (upstream's ``in-place-restart`` example) applies as on a
real cluster: defaults (``failurePolicy: Fail``; ``matchPolicy: Equivalent`` and empty namespace
and object selectors in ``matchConstraints``/``matchResources``), generation 1 and an empty
``status`` on create, and the structural part of ``ValidateValidatingAdmissionPolicy`` /
``...Binding`` (match constraints and resource rules present, at least one validation or audit
annotation each with an expression, a policy name, validation actions among Audit, Deny and Warn
without both Deny and Warn).

DEVIATION(upstream): the policies are never enforced and their CEL is not compiled or
type-checked. Nothing in the fake authenticates requests, so a policy matching on
``request.userInfo`` (as the example's does) would not match anyway.
"""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Context, Strategy
from fakekube.errors import FieldError
from fakekube.machinery.objects import list_field

__all__ = ["install"]

GROUP = "admissionregistration.k8s.io"
_FAILURE_POLICIES = ["Fail", "Ignore"]
_ACTIONS = ["Audit", "Deny", "Warn"]
_DENY_AND_WARN = ("must not contain both Deny and Warn (repeating the same validation failure information in the "
                  "API response and headers serves no purpose)")


def _spec(obj: dict[str, Any]) -> dict[str, Any]:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        spec = obj["spec"] = {}
    return spec


def _default_match(match: Any) -> None:
    if isinstance(match, dict):
        match.setdefault("matchPolicy", "Equivalent")
        match.setdefault("namespaceSelector", {})
        match.setdefault("objectSelector", {})


class PolicyStrategy(Strategy):
    """``validatingAdmissionPolicyStrategy``."""

    def default(self, obj: dict[str, Any]) -> None:
        spec = _spec(obj)
        spec.setdefault("failurePolicy", "Fail")
        _default_match(spec.get("matchConstraints"))

    def prepare_for_create(self, obj: dict[str, Any], ctx: Context) -> None:
        obj["status"] = {}

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = _spec(obj)
        errors: list[FieldError] = []
        if spec.get("failurePolicy") not in _FAILURE_POLICIES:
            errors.append(FieldError.not_supported("spec.failurePolicy", spec.get("failurePolicy"), _FAILURE_POLICIES))
        match = spec.get("matchConstraints")
        if not isinstance(match, dict):
            errors.append(FieldError.required("spec.matchConstraints"))
        elif not match.get("resourceRules"):
            errors.append(FieldError.required("spec.matchConstraints.resourceRules"))
        validations = list_field(spec, "validations")
        if not validations and not spec.get("auditAnnotations"):
            errors.append(FieldError.required("spec.validations",
                                              "validations or auditAnnotations must contain at least one item"))
        for i, validation in enumerate(validations):
            if not isinstance(validation, dict) or not str(validation.get("expression") or "").strip():
                errors.append(FieldError.required(f"spec.validations[{i}].expression", "expression is not specified"))
        return errors


class BindingStrategy(Strategy):
    """``validatingAdmissionPolicyBindingStrategy``."""

    def default(self, obj: dict[str, Any]) -> None:
        _default_match(_spec(obj).get("matchResources"))

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        spec = _spec(obj)
        errors: list[FieldError] = []
        if not spec.get("policyName"):
            errors.append(FieldError.required("spec.policyName"))
        actions = list_field(spec, "validationActions")
        if not actions:
            errors.append(FieldError.required("spec.validationActions", "at least one validation action is required"))
        seen: list[Any] = []
        for i, action in enumerate(actions):
            if action in seen:
                errors.append(FieldError.duplicate(f"spec.validationActions[{i}]", action))
            elif action not in _ACTIONS:
                errors.append(FieldError.not_supported(f"spec.validationActions[{i}]", action, _ACTIONS))
            seen.append(action)
        if "Deny" in actions and "Warn" in actions:
            errors.append(FieldError.invalid("spec.validationActions", actions, _DENY_AND_WARN))
        return errors


def install(server: ApiServer) -> None:
    add = server.registry.add
    add(ResourceType(GROUP, "v1", "ValidatingAdmissionPolicy", "validatingadmissionpolicies", namespaced=False,
                     strategy=PolicyStrategy(), subresources=frozenset({"status"}), categories=("api-extensions",)))
    add(ResourceType(GROUP, "v1", "ValidatingAdmissionPolicyBinding", "validatingadmissionpolicybindings",
                     namespaced=False, strategy=BindingStrategy(), categories=("api-extensions",)))
