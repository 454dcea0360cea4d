"""Secrets, RBAC kinds and PriorityClasses: defaults, validation and the Priority admission plugin."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.cluster import FakeCluster
from fakekube.errors import ApiError
from fakekube.http import tables

RBAC = "rbac.authorization.k8s.io/v1"


def obj(api_version: str, kind: str, name: str, namespace: str | None = "default", **fields: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": api_version, "kind": kind, "metadata": meta, **fields}


def pc(name: str, value: int, **fields: Any) -> dict[str, Any]:
    return obj("scheduling.k8s.io/v1", "PriorityClass", name, None, value=value, **fields)


def pod(name: str, **spec: Any) -> dict[str, Any]:
    return obj("v1", "Pod", name, spec={"containers": [{"name": "c", "image": "busybox"}], **spec})


def error(cluster: FakeCluster, body: dict[str, Any]) -> tuple[int, str]:
    with pytest.raises(ApiError) as info:
        cluster.create(body)
    return info.value.status["code"], info.value.message


@pytest.fixture
def cluster() -> FakeCluster:
    return FakeCluster(seed=0, simulate=False)


def test_secret_decodes_merges_string_data_and_defaults_type(cluster: FakeCluster) -> None:
    secret = cluster.create(obj("v1", "Secret", "s", data={"a": "YWJj"}, stringData={"b": "x"}))
    assert (secret["type"], secret["data"], "stringData" in secret) == ("Opaque", {"a": "YWJj", "b": "eA=="}, False)
    assert error(cluster, obj("v1", "Secret", "bad", data={"a": "Y*Jj"})) == (
        400, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 1')
    code, message = error(cluster, obj("v1", "Secret", "tls", type="kubernetes.io/tls", data={"a b": "YWJj"}))
    assert code == 422
    assert message.startswith('Secret "tls" is invalid: [data[a b]: Invalid value: "a b": a valid config key must')
    assert message.endswith("data[tls.crt]: Required value, data[tls.key]: Required value]")
    immutable = cluster.create(obj("v1", "Secret", "frozen", immutable=True, data={"a": "YWJj"}))
    immutable["data"] = {"a": "eA=="}
    with pytest.raises(ApiError, match=r"data: Forbidden: field is immutable when `immutable` is set"):
        cluster.update(immutable)


def test_rbac_names_rules_and_bindings(cluster: FakeCluster) -> None:
    rule = {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]}
    assert cluster.create(obj(RBAC, "Role", "system:r", rules=[rule]))["metadata"]["name"] == "system:r"
    assert error(cluster, obj(RBAC, "Role", "a/b", rules=[{"resources": ["pods"]},
                                                           {"nonResourceURLs": ["/m"], "verbs": ["get"]}])) == (
        422, 'Role.rbac.authorization.k8s.io "a/b" is invalid: [metadata.name: Invalid value: "a/b": may not '
             "contain '/', rules[0].verbs: Required value: verbs must contain at least one value, rules[0].apiGroups: "
             "Required value: resource rules must supply at least one api group, rules[1].nonResourceURLs: Invalid "
             'value: ["/m"]: namespaced rules cannot apply to non-resource URLs]')
    binding = cluster.create(obj(RBAC, "RoleBinding", "rb", roleRef={"kind": "Role", "name": "system:r"},
                                 subjects=[{"kind": "User", "name": "u"},
                                           {"kind": "ServiceAccount", "name": "sa", "namespace": "default"}]))
    assert binding["roleRef"]["apiGroup"] == "rbac.authorization.k8s.io"
    assert [s.get("apiGroup") for s in binding["subjects"]] == ["rbac.authorization.k8s.io", None]
    binding["roleRef"]["name"] = "other"
    with pytest.raises(ApiError, match="cannot change roleRef"):
        cluster.update(binding)
    assert error(cluster, obj(RBAC, "ClusterRoleBinding", "crb", None, roleRef={"kind": "Role", "name": "r"},
                              subjects=[{"kind": "ServiceAccount", "name": "sa"}, {"kind": "Bot", "name": "x"}])) == (
        422, 'ClusterRoleBinding.rbac.authorization.k8s.io "crb" is invalid: [roleRef.kind: Unsupported value: '
             '"Role": supported values: "ClusterRole", subjects[0].namespace: Required value, subjects[1].kind: '
             'Unsupported value: "Bot": supported values: "ServiceAccount", "User", "Group"]')


def test_priority_class_defaults_limits_and_immutable_value(cluster: FakeCluster) -> None:
    high = cluster.create(pc("high", 100000))
    assert (high["preemptionPolicy"], high["metadata"]["generation"]) == ("PreemptLowerPriority", 1)
    assert error(cluster, pc("huge", 1_000_000_001)) == (
        422, 'PriorityClass.scheduling.k8s.io "huge" is invalid: value: Forbidden: maximum allowed value of a user '
             "defined priority is 1000000000")
    assert error(cluster, pc("system-x", 1))[1].endswith(
        "priority class names with 'system-' prefix are reserved for system use only. error: system-x is not a "
        "known system priority class")
    high["value"] = 5
    with pytest.raises(ApiError, match=r"value: Forbidden: may not be changed in an update\."):
        cluster.update(high)
    cluster.create(pc("default", 7, globalDefault=True))
    assert error(cluster, pc("second", 8, globalDefault=True)) == (
        403, 'priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass default is already marked as '
             "default. Only one default can exist")


def test_priority_admission_resolves_classes(cluster: FakeCluster) -> None:
    plain = cluster.create(pod("plain"))["spec"]
    assert (plain["priority"], plain["preemptionPolicy"], "priorityClassName" in plain) == (
        0, "PreemptLowerPriority", False)
    assert error(cluster, pod("ghost", priorityClassName="ghost")) == (
        403, 'pods "ghost" is forbidden: no PriorityClass with name ghost was found')
    assert error(cluster, pod("direct", priority=5)) == (
        403, 'pods "direct" is forbidden: the integer value of priority (5) must not be provided in pod spec; '
             "priority admission controller computed 0 from the given PriorityClass name")
    cluster.create(pc("polite", 50, preemptionPolicy="Never"))
    polite = cluster.create(pod("p", priorityClassName="polite"))["spec"]
    assert (polite["priority"], polite["preemptionPolicy"]) == (50, "Never")
    cluster.create(pc("fallback", 3, globalDefault=True))
    defaulted = cluster.create(pod("d"))["spec"]
    assert (defaulted["priority"], defaulted["priorityClassName"]) == (3, "fallback")


def test_tables_of_the_new_kinds(cluster: FakeCluster) -> None:
    cluster.create(pc("high", 100000))
    cluster.create(obj(RBAC, "ClusterRoleBinding", "crb", None, roleRef={"kind": "ClusterRole", "name": "view"},
                       subjects=[{"kind": "ServiceAccount", "name": "sa", "namespace": "ns"},
                                 {"kind": "Group", "name": "g"}]))
    api = cluster.api
    doc = tables.table(api.resource("priorityclasses"), [cluster.get("priorityclasses", "high", None)], now=api.now)
    assert [c["name"] for c in doc["columnDefinitions"]] == ["Name", "Value", "Global-Default", "Age",
                                                             "PreemptionPolicy"]
    assert doc["rows"][0]["cells"] == ["high", 100000, False, "0s", "PreemptLowerPriority"]
    doc = tables.table(api.resource("clusterrolebindings"), [cluster.get("clusterrolebindings", "crb", None)],
                       now=api.now)
    assert [(c["name"], c["priority"]) for c in doc["columnDefinitions"]] == [
        ("Name", 0), ("Role", 0), ("Age", 0), ("Users", 1), ("Groups", 1), ("ServiceAccounts", 1)]
    assert doc["rows"][0]["cells"] == ["crb", "ClusterRole/view", "0s", "", "g", "ns/sa"]


def test_system_priority_classes_resolve(cluster: FakeCluster) -> None:
    spec = cluster.create(pod("critical", priorityClassName="system-node-critical"))["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (2000001000, "PreemptLowerPriority")


def test_validating_admission_policies_are_stored_with_defaults_and_checked(cluster: FakeCluster) -> None:
    api_version = "admissionregistration.k8s.io/v1"
    policy = cluster.create(obj(api_version, "ValidatingAdmissionPolicy", "only-annotations", None, spec={
        "matchConstraints": {"resourceRules": [{"apiGroups": [""], "apiVersions": ["v1"], "operations": ["UPDATE"],
                                                "resources": ["pods"]}]},
        "validations": [{"expression": "object.spec == oldObject.spec"}]}))
    assert policy["spec"]["failurePolicy"] == "Fail"
    assert policy["spec"]["matchConstraints"]["matchPolicy"] == "Equivalent"
    assert policy["metadata"]["generation"] == 1
    binding = cluster.create(obj(api_version, "ValidatingAdmissionPolicyBinding", "b", None,
                                 spec={"policyName": "only-annotations", "validationActions": ["Deny"]}))
    assert binding["spec"]["validationActions"] == ["Deny"]
    assert error(cluster, obj(api_version, "ValidatingAdmissionPolicy", "empty", None, spec={})) == (
        422, 'ValidatingAdmissionPolicy.admissionregistration.k8s.io "empty" is invalid: [spec.matchConstraints: '
             "Required value, spec.validations: Required value: validations or auditAnnotations must contain at "
             "least one item]")
    code, message = error(cluster, obj(api_version, "ValidatingAdmissionPolicyBinding", "bad", None,
                                       spec={"validationActions": ["Deny", "Warn"]}))
    assert code == 422 and "spec.policyName: Required value" in message and "must not contain both Deny and Warn" in message


def test_secret_and_role_tables(cluster: FakeCluster) -> None:
    cluster.create(obj("v1", "Secret", "s", type="kubernetes.io/basic-auth", data={"username": "dQ==", "password": ""}))
    cluster.create(obj(RBAC, "Role", "r", rules=[]))
    api = cluster.api
    doc = tables.table(api.resource("secrets"), [cluster.get("secrets", "s")], now=api.now)
    assert [c["name"] for c in doc["columnDefinitions"]] == ["Name", "Type", "Data", "Age"]
    assert doc["rows"][0]["cells"] == ["s", "kubernetes.io/basic-auth", 2, "0s"]
    doc = tables.table(api.resource("roles"), [cluster.get("roles", "r")], now=api.now)
    assert [(c["name"], c["type"]) for c in doc["columnDefinitions"]] == [("Name", "string"), ("Created At", "date")]
    assert doc["rows"][0]["cells"] == ["r", "2030-01-01T00:00:00Z"]
