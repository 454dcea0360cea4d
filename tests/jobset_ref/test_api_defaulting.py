"""Tests for jobset_ref.api.defaulting — ports of upstream TestJobSetDefaulting
(pkg/webhooks/jobset_webhook_test.go) plus the CRD schema defaults of spec §5.1."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from jobset_ref.api.defaulting import apply_schema_defaults, default_jobset
from jobset_ref.api.models import JobSet

POD = {"spec": {"containers": [{"name": "test", "image": "bash:latest"}]}}
DEFAULT_SUCCESS = {"operator": "All"}
DEFAULT_STARTUP = {"startupPolicyOrder": "AnyOrder"}
DEFAULT_NETWORK = {"enableDNSHostnames": True, "publishNotReadyAddresses": True}


def rj(job_spec: dict[str, Any] | None = None, pod_spec_extra: dict[str, Any] | None = None) -> dict[str, Any]:
    pod = copy.deepcopy(POD)
    pod["spec"].update(pod_spec_extra or {})
    spec = {"template": pod, **(job_spec or {})}
    return {"name": "rj", "template": {"spec": spec}}


def defaulted_rj(completion_mode: str = "Indexed", restart_policy: str = "OnFailure", **job_spec: Any) -> dict[str, Any]:
    out = rj({**job_spec, "completionMode": completion_mode})
    out["template"]["spec"]["template"]["spec"]["restartPolicy"] = restart_policy
    return out


def js(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "js"}, "spec": spec}


def full(**spec: Any) -> dict[str, Any]:
    """A JobSet whose three always-defaulted policies are already present (as upstream's fixtures)."""
    base = {"successPolicy": DEFAULT_SUCCESS, "startupPolicy": DEFAULT_STARTUP, "network": DEFAULT_NETWORK}
    base.update(spec)
    return js(**base)


CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("job completion mode is unset",
     full(replicatedJobs=[rj()], managedBy="jobset.sigs.k8s.io/jobset-controller"),
     full(replicatedJobs=[defaulted_rj()], managedBy="jobset.sigs.k8s.io/jobset-controller")),
    ("job completion mode is set to non-indexed",
     full(replicatedJobs=[rj({"completionMode": "NonIndexed"})]),
     full(replicatedJobs=[defaulted_rj("NonIndexed")])),
    ("enableDNSHostnames is unset",
     js(successPolicy=DEFAULT_SUCCESS, startupPolicy=DEFAULT_STARTUP, replicatedJobs=[defaulted_rj()]),
     full(replicatedJobs=[defaulted_rj()])),
    ("enableDNSHostnames is false",
     full(network={"enableDNSHostnames": False}, replicatedJobs=[defaulted_rj()]),
     full(network={"enableDNSHostnames": False, "publishNotReadyAddresses": True}, replicatedJobs=[defaulted_rj()])),
    ("PublishNotReadyNetworkAddresess is false",
     full(network={"publishNotReadyAddresses": False}, replicatedJobs=[defaulted_rj()]),
     full(network={"publishNotReadyAddresses": False, "enableDNSHostnames": True}, replicatedJobs=[defaulted_rj()])),
    ("PublishNotReadyNetworkAddresess is true",
     full(network={"enableDNSHostnames": True, "publishNotReadyAddresses": True}, replicatedJobs=[defaulted_rj()]),
     full(replicatedJobs=[defaulted_rj()])),
    ("subdomain is not defaulted",
     full(network={"subdomain": "s"}, replicatedJobs=[]),
     full(network={"subdomain": "s", **DEFAULT_NETWORK}, replicatedJobs=[])),
    ("pod restart policy unset", full(replicatedJobs=[rj({"completionMode": "Indexed"})]),
     full(replicatedJobs=[defaulted_rj()])),
    ("pod restart policy empty string", full(replicatedJobs=[rj({"completionMode": "Indexed"}, {"restartPolicy": ""})]),
     full(replicatedJobs=[defaulted_rj()])),
    ("pod restart policy set", full(replicatedJobs=[rj({"completionMode": "Indexed"}, {"restartPolicy": "Never"})]),
     full(replicatedJobs=[defaulted_rj(restart_policy="Never")])),
    ("pod restart policy Always is preserved",
     full(replicatedJobs=[rj({"completionMode": "Indexed"}, {"restartPolicy": "Always"})]),
     full(replicatedJobs=[defaulted_rj(restart_policy="Always")])),
    ("success policy unset", js(startupPolicy=DEFAULT_STARTUP, network=DEFAULT_NETWORK, replicatedJobs=[]),
     full(replicatedJobs=[])),
    ("success policy operator set, replicatedJobNames unset",
     full(successPolicy={"operator": "Any"}, replicatedJobs=[]),
     full(successPolicy={"operator": "Any"}, replicatedJobs=[])),
    ("success policy with targets is untouched",
     full(successPolicy={"operator": "All", "targetReplicatedJobs": ["a"]}),
     full(successPolicy={"operator": "All", "targetReplicatedJobs": ["a"]})),
    ("startup policy order InOrder set",
     full(startupPolicy={"startupPolicyOrder": "InOrder"}),
     full(startupPolicy={"startupPolicyOrder": "InOrder"})),
    ("managedBy field is left nil", full(), full()),
    ("when provided, managedBy field is preserved", full(managedBy="other-controller"),
     full(managedBy="other-controller")),
    ("failure policy rule name is defaulted when: there is one rule and it does not have a name",
     full(failurePolicy={"rules": [{"action": "FailJobSet"}]}),
     full(failurePolicy={"rules": [{"action": "FailJobSet", "name": "failurePolicyRule0"}]})),
    ("failure policy rule name is defaulted when: the first rule has a name, the second does not",
     full(failurePolicy={"rules": [{"name": "ruleA", "action": "FailJobSet"}, {"name": "", "action": "RestartJobSet"}]}),
     full(failurePolicy={"rules": [{"name": "ruleA", "action": "FailJobSet"},
                                   {"name": "failurePolicyRule1", "action": "RestartJobSet"}]})),
    ("failure policy restartStrategy and maxRestarts are not defaulted by the webhook",
     full(failurePolicy={}), full(failurePolicy={})),
    ("volumeClaimPolicy retentionPolicy is defaulted to Delete when nil",
     full(volumeClaimPolicies=[{"templates": [{"metadata": {"name": "test-volume"}}]},
                               {"templates": [], "retentionPolicy": {"whenDeleted": "Retain"}},
                               {"retentionPolicy": {}}]),
     full(volumeClaimPolicies=[{"templates": [{"metadata": {"name": "test-volume"}}],
                                "retentionPolicy": {"whenDeleted": "Delete"}},
                               {"templates": [], "retentionPolicy": {"whenDeleted": "Retain"}},
                               {"retentionPolicy": {}}])),
    ("empty object gets spec with the three policies", {"metadata": {"name": "x"}},
     {"metadata": {"name": "x"}, "spec": {"successPolicy": DEFAULT_SUCCESS, "startupPolicy": DEFAULT_STARTUP,
                                          "network": DEFAULT_NETWORK}}),
    ("null policies are treated as nil", js(successPolicy=None, startupPolicy=None, network=None), full()),
    ("groupName, replicas, suspend, ttl, coordinator are not defaulted by the webhook",
     full(replicatedJobs=[{"name": "a", "template": {"spec": {"template": {"spec": {}}}}}]),
     full(replicatedJobs=[{"name": "a", "template": {"spec": {"template": {"spec": {"restartPolicy": "OnFailure"}},
                                                             "completionMode": "Indexed"}}}])),
]


@pytest.mark.parametrize(("given_obj", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_default_jobset(given_obj: dict[str, Any], want: dict[str, Any]) -> None:
    before = copy.deepcopy(given_obj)
    got = default_jobset(given_obj)
    assert got == want
    assert given_obj == before  # pure
    assert default_jobset(got) == got  # idempotent
    model = default_jobset(JobSet.from_wire(given_obj))
    assert isinstance(model, JobSet)
    assert model.to_wire() == JobSet.from_wire(want).to_wire()


def test_unknown_template_fields_survive() -> None:
    obj = full(replicatedJobs=[rj({"x-unknown": {"deep": [1, None]}}, {"futureField": True})])
    got = default_jobset(obj)
    job_spec = got["spec"]["replicatedJobs"][0]["template"]["spec"]
    assert job_spec["x-unknown"] == {"deep": [1, None]}
    assert job_spec["template"]["spec"]["futureField"] is True


SCHEMA_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("groupName and replicas default when absent",
     js(replicatedJobs=[{"name": "a", "template": {}}]),
     js(replicatedJobs=[{"name": "a", "template": {}, "groupName": "default", "replicas": 1}])),
    ("explicit zero replicas and empty groupName are kept",
     js(replicatedJobs=[{"name": "a", "template": {}, "groupName": "", "replicas": 0}]),
     js(replicatedJobs=[{"name": "a", "template": {}, "groupName": "", "replicas": 0}])),
    ("restartStrategy defaults only inside a present failurePolicy",
     js(failurePolicy={"maxRestarts": 2}), js(failurePolicy={"maxRestarts": 2, "restartStrategy": "Recreate"})),
    ("no failurePolicy, no restartStrategy", js(), js()),
    ("whenDeleted defaults only inside a present retentionPolicy",
     js(volumeClaimPolicies=[{"retentionPolicy": {}}, {}]),
     js(volumeClaimPolicies=[{"retentionPolicy": {"whenDeleted": "Delete"}}, {}])),
    ("container port protocol TCP",
     js(replicatedJobs=[{"name": "a", "groupName": "g", "replicas": 2, "template": {"spec": {"template": {"spec": {
         "containers": [{"name": "c", "ports": [{"containerPort": 1}, {"containerPort": 2, "protocol": "UDP"}]}],
         "initContainers": [{"name": "i", "ports": [{"containerPort": 3}]}]}}}}}]),
     js(replicatedJobs=[{"name": "a", "groupName": "g", "replicas": 2, "template": {"spec": {"template": {"spec": {
         "containers": [{"name": "c", "ports": [{"containerPort": 1, "protocol": "TCP"},
                                                {"containerPort": 2, "protocol": "UDP"}]}],
         "initContainers": [{"name": "i", "ports": [{"containerPort": 3, "protocol": "TCP"}]}]}}}}}])),
    ("every default of the embedded pod template, only inside present objects",
     js(replicatedJobs=[{"name": "a", "groupName": "g", "replicas": 2, "template": {"spec": {"template": {"spec": {
         "containers": [{"name": "c", "env": [{"name": "E", "valueFrom": {"secretKeyRef": {"key": "k"}}}],
                         "livenessProbe": {"grpc": {"port": 1}}}],
         "volumes": [{"name": "v", "scaleIO": {"gateway": "g", "system": "s", "secretRef": None}},
                     {"name": "w", "configMap": {}}]}}}}}]),
     js(replicatedJobs=[{"name": "a", "groupName": "g", "replicas": 2, "template": {"spec": {"template": {"spec": {
         "containers": [{"name": "c", "env": [{"name": "E", "valueFrom": {"secretKeyRef": {"key": "k", "name": ""}}}],
                         "livenessProbe": {"grpc": {"port": 1, "service": ""}}}],
         "volumes": [{"name": "v", "scaleIO": {"gateway": "g", "system": "s", "secretRef": None, "fsType": "xfs",
                                               "storageMode": "ThinProvisioned"}},
                     {"name": "w", "configMap": {"name": ""}}]}}}}}])),
]


@pytest.mark.parametrize(("given_obj", "want"), [c[1:] for c in SCHEMA_CASES], ids=[c[0] for c in SCHEMA_CASES])
def test_apply_schema_defaults(given_obj: dict[str, Any], want: dict[str, Any]) -> None:
    before = copy.deepcopy(given_obj)
    assert apply_schema_defaults(given_obj) == want
    assert given_obj == before
    assert apply_schema_defaults(want) == want


_names = st.text(alphabet="ab", max_size=3)
_rjob = st.fixed_dictionaries({"name": _names, "template": st.fixed_dictionaries({}, optional={
    "spec": st.fixed_dictionaries({}, optional={
        "completionMode": st.sampled_from(["Indexed", "NonIndexed"]),
        "template": st.fixed_dictionaries({}, optional={"spec": st.fixed_dictionaries({}, optional={
            "restartPolicy": st.sampled_from(["", "Never", "OnFailure", "Always"])})})})})},
    optional={"replicas": st.integers(0, 5), "groupName": _names})
_spec = st.fixed_dictionaries({}, optional={
    "replicatedJobs": st.lists(_rjob, max_size=3),
    "successPolicy": st.fixed_dictionaries({"operator": st.sampled_from(["All", "Any"])}),
    "startupPolicy": st.fixed_dictionaries({"startupPolicyOrder": st.sampled_from(["AnyOrder", "InOrder"])}),
    "network": st.fixed_dictionaries({}, optional={"enableDNSHostnames": st.booleans(), "subdomain": _names,
                                                   "publishNotReadyAddresses": st.booleans()}),
    "failurePolicy": st.fixed_dictionaries({}, optional={
        "rules": st.lists(st.fixed_dictionaries({"action": st.just("FailJobSet")}, optional={"name": _names}),
                          max_size=3),
        "restartStrategy": st.sampled_from(["Recreate", "BlockingRecreate"])}),
    "volumeClaimPolicies": st.lists(st.fixed_dictionaries({}, optional={
        "retentionPolicy": st.fixed_dictionaries({}, optional={"whenDeleted": st.sampled_from(["Delete", "Retain"])})}),
        max_size=2),
})


@given(_spec)
@settings(max_examples=80, deadline=None)
def test_defaulting_is_idempotent_and_pure(spec: dict[str, Any]) -> None:
    obj = {"metadata": {"name": "js"}, "spec": spec}
    before = copy.deepcopy(obj)
    once = default_jobset(obj)
    assert default_jobset(once) == once
    assert obj == before
    full_pipeline = apply_schema_defaults(default_jobset(apply_schema_defaults(obj)))
    assert apply_schema_defaults(default_jobset(full_pipeline)) == full_pipeline
    # Never removes or changes a value that was already set.
    assert JobSet.from_wire(once).spec.success_policy is not None
    for i, rule in enumerate((once["spec"].get("failurePolicy") or {}).get("rules") or []):
        original = spec["failurePolicy"]["rules"][i].get("name")
        assert rule["name"] == (original or f"failurePolicyRule{i}")
