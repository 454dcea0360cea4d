"""Roles, RoleBindings, ClusterRoles and ClusterRoleBindings (``rbac.authorization.k8s.io/v1``).

Served for what a manifest can observe: CRUD, the defaults of ``pkg/apis/rbac/v1`` (a binding's
``roleRef.apiGroup`` and a ``User``/``Group`` subject's ``apiGroup`` become
``rbac.authorization.k8s.io``) and ``pkg/apis/rbac/validation``: names are *path segment* names
(anything but ``.``/``..`` and without ``/`` or ``%``), every rule needs verbs, resource rules need
apiGroups and resources, namespaced rules cannot name non-resource URLs, a binding's ``roleRef``
names a Role or ClusterRole of this group and never changes, subjects are ServiceAccounts (with
a valid name; a namespace for cluster bindings), Users or Groups.

Not modelled: authorization itself (every client of the fake acts as cluster-admin, so nothing is
ever denied by RBAC), the escalation check on writes of roles and bindings, and the aggregation
controller that fills the ``rules`` of an aggregated ClusterRole.
"""

from __future__ import annotations

from typing import Any

from fakekube.apiserver.resources import ResourceType
from fakekube.apiserver.server import ApiServer
from fakekube.apiserver.strategy import Strategy
from fakekube.errors import FieldError
from fakekube.machinery import validation as v
from fakekube.machinery.objects import dict_field, list_field

__all__ = ["GROUP", "install", "path_segment_name"]

GROUP = "rbac.authorization.k8s.io"
_NAME_MAY_NOT_BE = (".", "..")
_NAME_MAY_NOT_CONTAIN = ("/", "%")
_SUBJECT_KINDS = ["ServiceAccount", "User", "Group"]


def path_segment_name(name: str, prefix: bool) -> list[str]:
    """``path.ValidatePathSegmentName`` (``ValidateRBACName``); a prefix only may not contain ``/`` or ``%``."""
    if not prefix and name in _NAME_MAY_NOT_BE:
        return [f"may not be '{name}'"]
    return [f"may not contain '{bad}'" for bad in _NAME_MAY_NOT_CONTAIN if bad in name]


def _rule_errors(rule: Any, namespaced: bool, path: str) -> list[FieldError]:
    """``ValidatePolicyRule``."""
    if not isinstance(rule, dict):
        return [FieldError.invalid(path, rule, "must be an object")]
    errors: list[FieldError] = []
    if not list_field(rule, "verbs"):
        errors.append(FieldError.required(f"{path}.verbs", "verbs must contain at least one value"))
    urls = list_field(rule, "nonResourceURLs")
    if urls:
        if namespaced:
            errors.append(FieldError.invalid(f"{path}.nonResourceURLs", urls,
                                             "namespaced rules cannot apply to non-resource URLs"))
        if list_field(rule, "apiGroups") or list_field(rule, "resources") or list_field(rule, "resourceNames"):
            errors.append(FieldError.invalid(f"{path}.nonResourceURLs", urls,
                                             "rules cannot apply to both regular resources and non-resource URLs"))
        return errors
    if not list_field(rule, "apiGroups"):
        errors.append(FieldError.required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
    if not list_field(rule, "resources"):
        errors.append(FieldError.required(f"{path}.resources", "resource rules must supply at least one resource"))
    return errors


def _subject_errors(subject: Any, namespaced: bool, path: str) -> list[FieldError]:
    """``ValidateRoleBindingSubject``."""
    if not isinstance(subject, dict):
        return [FieldError.invalid(path, subject, "must be an object")]
    errors: list[FieldError] = []
    name = subject.get("name") or ""
    if not name:
        errors.append(FieldError.required(f"{path}.name"))
    kind, api_group = subject.get("kind") or "", subject.get("apiGroup") or ""
    if kind == "ServiceAccount":
        if name:
            errors += [FieldError.invalid(f"{path}.name", name, msg) for msg in v.name_is_dns_subdomain(name, False)]
        if api_group:
            errors.append(FieldError.not_supported(f"{path}.apiGroup", api_group, [""]))
        if not namespaced and not subject.get("namespace"):
            errors.append(FieldError.required(f"{path}.namespace"))
    elif kind in ("User", "Group"):
        if api_group != GROUP:
            errors.append(FieldError.not_supported(f"{path}.apiGroup", api_group, [GROUP]))
    else:
        errors.append(FieldError.not_supported(f"{path}.kind", kind, _SUBJECT_KINDS))
    return errors


class _RbacStrategy(Strategy):
    name_rule = staticmethod(path_segment_name)
    tracks_generation = False


class RoleStrategy(_RbacStrategy):
    """Roles (``namespaced=True``) and ClusterRoles: ``ValidateRole`` / ``ValidateClusterRole``."""

    def __init__(self, *, namespaced: bool) -> None:
        self.namespaced = namespaced

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        errors = [e for i, rule in enumerate(list_field(obj, "rules"))
                  for e in _rule_errors(rule, self.namespaced, f"rules[{i}]")]
        aggregation = obj.get("aggregationRule")
        if not self.namespaced and aggregation is not None:
            selectors = aggregation.get("clusterRoleSelectors") if isinstance(aggregation, dict) else None
            if not selectors:
                errors.append(FieldError.required("aggregationRule.clusterRoleSelectors",
                                                  "at least one clusterRoleSelector required if aggregationRule "
                                                  "is non-nil"))
        return errors


class BindingStrategy(_RbacStrategy):
    """RoleBindings (``namespaced=True``) and ClusterRoleBindings: ``ValidateRoleBinding`` /
    ``ValidateClusterRoleBinding``, and ``roleRef`` is immutable."""

    def __init__(self, *, namespaced: bool) -> None:
        self.namespaced = namespaced
        self.role_kinds = ["Role", "ClusterRole"] if namespaced else ["ClusterRole"]

    def default(self, obj: dict[str, Any]) -> None:
        """``SetDefaults_RoleBinding`` / ``SetDefaults_ClusterRoleBinding`` / ``SetDefaults_Subject``."""
        ref = obj.get("roleRef")
        if isinstance(ref, dict) and not ref.get("apiGroup"):
            ref["apiGroup"] = GROUP
        for subject in list_field(obj, "subjects"):
            if isinstance(subject, dict) and not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
                subject["apiGroup"] = GROUP

    def validate(self, obj: dict[str, Any]) -> list[FieldError]:
        ref = dict_field(obj, "roleRef")
        errors: list[FieldError] = []
        if ref.get("apiGroup") != GROUP:
            errors.append(FieldError.not_supported("roleRef.apiGroup", ref.get("apiGroup") or "", [GROUP]))
        if ref.get("kind") not in self.role_kinds:
            errors.append(FieldError.not_supported("roleRef.kind", ref.get("kind") or "", self.role_kinds))
        name = ref.get("name") or ""
        if not name:
            errors.append(FieldError.required("roleRef.name"))
        else:
            errors += [FieldError.invalid("roleRef.name", name, msg) for msg in path_segment_name(name, False)]
        errors += [e for i, subject in enumerate(list_field(obj, "subjects"))
                   for e in _subject_errors(subject, self.namespaced, f"subjects[{i}]")]
        return errors

    def validate_update(self, new: dict[str, Any], old: dict[str, Any]) -> list[FieldError]:
        errors = self.validate(new)
        if new.get("roleRef") != old.get("roleRef"):
            errors.append(FieldError.invalid("roleRef", new.get("roleRef"), "cannot change roleRef"))
        return errors


def install(server: ApiServer) -> None:
    add = server.registry.add
    add(ResourceType(GROUP, "v1", "Role", "roles", namespaced=True, strategy=RoleStrategy(namespaced=True)))
    add(ResourceType(GROUP, "v1", "RoleBinding", "rolebindings", namespaced=True,
                     strategy=BindingStrategy(namespaced=True)))
    add(ResourceType(GROUP, "v1", "ClusterRole", "clusterroles", namespaced=False,
                     strategy=RoleStrategy(namespaced=False)))
    add(ResourceType(GROUP, "v1", "ClusterRoleBinding", "clusterrolebindings", namespaced=False,
                     strategy=BindingStrategy(namespaced=False)))
