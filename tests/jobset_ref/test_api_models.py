"""Tests for jobset_ref.api.models (api/jobset/v1alpha2/jobset_types.go) and constants."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from jobset_ref.api import constants as c
from jobset_ref.api.models import (
    Condition,
    DependsOnStatus,
    FailurePolicyAction,
    JobSet,
    JobSetRestartStrategy,
    JobSetStatus,
    Operator,
    ReplicatedJob,
    ReplicatedJobStatus,
    RetentionPolicyType,
    StartupPolicyOptions,
)
from jobset_ref.conformance.scenario import MANIFESTS_DIR

#: The project's own manifests, written with the shapes of upstream's examples (``examples/<path>``).
EXAMPLES = MANIFESTS_DIR


def _example_jobsets() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted(EXAMPLES.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == "JobSet":
                out.append((path.relative_to(EXAMPLES).as_posix(), doc))
    return out


_EXAMPLES = _example_jobsets()


@pytest.mark.parametrize("obj", [o for _, o in _EXAMPLES], ids=[r for r, _ in _EXAMPLES])
def test_examples_round_trip(obj: dict[str, Any]) -> None:
    js = JobSet.from_wire(obj)
    assert js.to_wire() == obj
    assert JobSet.from_wire(js.to_wire()) == js


def test_enum_wire_values() -> None:
    assert [e.value for e in Operator] == ["All", "Any"]
    assert [e.value for e in FailurePolicyAction] == [
        "FailJobSet", "RestartJobSet", "RestartJobSetAndIgnoreMaxRestarts", "RestartJob",
        "RestartJobAndIgnoreMaxRestarts"]
    assert [e.value for e in JobSetRestartStrategy] == ["Recreate", "BlockingRecreate", "InPlaceRestart"]
    assert [e.value for e in StartupPolicyOptions] == ["AnyOrder", "InOrder"]
    assert [e.value for e in DependsOnStatus] == ["Ready", "Complete"]
    assert [e.value for e in RetentionPolicyType] == ["Delete", "Retain"]


def test_aliases_and_population_by_name() -> None:
    js = JobSet.from_wire({"metadata": {"name": "a"}, "spec": {
        "network": {"enableDNSHostnames": False, "publishNotReadyAddresses": True},
        "ttlSecondsAfterFinished": 5, "managedBy": "x/y",
        "failurePolicy": {"maxRestarts": 3, "rules": [{"name": "r", "action": "RestartJob",
                                                      "onJobFailureReasons": ["PodFailurePolicy"]}]}}})
    assert js.spec.network is not None and js.spec.network.enable_dns_hostnames is False
    assert js.spec.ttl_seconds_after_finished == 5
    assert js.spec.failure_policy is not None and js.spec.failure_policy.rules is not None
    assert js.spec.failure_policy.rules[0].action is FailurePolicyAction.RESTART_JOB
    built = JobSet(metadata={"name": "a"}, spec={"managed_by": "x/y"})
    assert built.to_wire() == {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                               "metadata": {"name": "a"}, "spec": {"managedBy": "x/y"}}


@pytest.mark.parametrize("bad", [
    {"spec": {"unknownField": 1}},
    {"spec": {"successPolicy": {"operator": "Some"}}},
    {"spec": {"replicatedJobs": [{"name": "a", "template": {}, "replicas": 2147483648}]}},
    {"spec": {"replicatedJobs": [{"template": {}}]}},
    {"spec": {"replicatedJobs": [{"name": "a"}]}},
    {"spec": {"failurePolicy": {"rules": [{"name": "r"}]}}},
    {"spec": {"network": {"enableDnsHostnames": True}}},
], ids=["unknown field", "bad enum", "int32 overflow", "rjob name required", "template required",
        "rule action required", "wrong alias casing"])
def test_strict_decoding(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        JobSet.from_wire(bad)


def test_crd_only_constraints_are_not_enforced_when_decoding() -> None:
    # minimum: 0 on replicas/ttl is the API server's job (layer C); the webhook tests need negatives.
    js = JobSet.from_wire({"spec": {"ttlSecondsAfterFinished": -1,
                                    "replicatedJobs": [{"name": "a", "template": {}, "replicas": -2}]}})
    assert js.replicated_jobs[0].replicas == -2


def test_go_zero_values_and_explicit_values_round_trip() -> None:
    obj = {"apiVersion": c.API_VERSION, "kind": "JobSet", "metadata": {},
           "spec": {"replicatedJobs": [{"name": "a", "template": {}, "replicas": 0, "groupName": ""}],
                    "failurePolicy": {"maxRestarts": 0}, "suspend": False}}
    js = JobSet.from_wire(obj)
    assert js.to_wire() == obj
    bare = JobSet.from_wire({"spec": {"replicatedJobs": [{"name": "a", "template": {}}]}})
    assert bare.replicated_jobs[0].replicas == 0 and bare.replicated_jobs[0].group_name == ""
    assert bare.to_wire()["spec"] == {"replicatedJobs": [{"name": "a", "template": {}}]}


def test_status_always_emits_non_omitempty_fields() -> None:
    assert JobSetStatus().to_wire() == {"restarts": 0}
    status = JobSetStatus.from_wire({"replicatedJobsStatus": [
        {"name": "a", "ready": 0, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0}]})
    assert status.to_wire()["replicatedJobsStatus"][0] == {
        "name": "a", "ready": 0, "succeeded": 0, "failed": 0, "active": 1, "suspended": 0}
    rjs = ReplicatedJobStatus(name="b", ready=0, succeeded=0, failed=0, active=0, suspended=0)
    assert list(rjs.to_wire()) == ["name", "ready", "succeeded", "failed", "active", "suspended"]


def test_conditions() -> None:
    status = JobSetStatus.from_wire({"conditions": [
        {"type": "Completed", "status": "True", "reason": "AllJobsCompleted", "message": "",
         "lastTransitionTime": "2024-01-01T00:00:00Z"},
        {"type": "Failed", "status": "False", "reason": "x", "message": "m",
         "lastTransitionTime": "2024-01-01T00:00:00Z", "observedGeneration": 2}]})
    assert status.is_condition_true("Completed")
    assert not status.is_condition_true("Failed")
    assert not status.is_condition_true("Suspended")
    cond = status.condition("Completed")
    assert isinstance(cond, Condition)
    assert cond.to_wire()["message"] == ""


def test_replicated_job_accessors() -> None:
    rj = ReplicatedJob.from_wire({"name": "w", "template": {"spec": {
        "completionMode": "Indexed", "completions": 4, "parallelism": 2, "backoffLimit": 0,
        "podReplacementPolicy": "Failed",
        "template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c"}],
                              "initContainers": [{"name": "i"}], "volumes": [{"name": "v"}]}}}}})
    assert (rj.completion_mode, rj.completions, rj.parallelism, rj.backoff_limit) == ("Indexed", 4, 2, 0)
    assert rj.pod_replacement_policy == "Failed" and rj.is_indexed and rj.restart_policy == "Never"
    assert [x["name"] for x in rj.containers()] == ["c"]
    assert [x["name"] for x in rj.containers("initContainers")] == ["i"]
    assert [x["name"] for x in rj.volumes()] == ["v"]
    empty = ReplicatedJob.from_wire({"name": "w", "template": {}})
    assert (empty.completion_mode, empty.completions, empty.parallelism, empty.backoff_limit) == (None,) * 4
    assert not empty.is_indexed and empty.restart_policy == "" and empty.pod_spec == {}


def test_jobset_metadata_accessors() -> None:
    js = JobSet.from_wire({"metadata": {"name": "n", "namespace": "ns", "generateName": "g-",
                                        "labels": {"a": "b"}, "annotations": {c.EXCLUSIVE_KEY: "zone"}}})
    assert (js.name, js.namespace, js.generate_name) == ("n", "ns", "g-")
    assert js.labels == {"a": "b"} and js.annotations == {c.EXCLUSIVE_KEY: "zone"}
    assert js.replicated_jobs == []


def test_constants_spot_checks() -> None:
    assert c.JOBSET_NAME_KEY == "jobset.sigs.k8s.io/jobset-name"
    assert c.EXCLUSIVE_KEY == "alpha.jobset.sigs.k8s.io/exclusive-topology"
    assert c.PRIORITY_KEY == "jobset.sigs.k8s.io/priority"
    assert c.JOBSET_RESTARTING == "RestartingJobSet"
    assert c.RESTARTING_JOBSET_REASON_FAILURE_POLICY_FORMAT % "r" == "FailurePolicy_r"
    assert c.DEFAULT_RULE_NAME_FMT % 3 == "failurePolicyRule3"
    assert dict(c.DEFAULT_FEATURE_GATES) == {"InPlaceRestart": False, "TLSOptions": True, "RestartJob": False,
                                             "ElasticJobSet": False}
    assert c.VALID_ON_JOB_FAILURE_REASONS == ("BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes",
                                              "MaxFailedIndexesExceeded", "PodFailurePolicy")


def test_the_api_package_re_exports_exactly_what_its_modules_define() -> None:
    import importlib

    import jobset_ref.api as api

    homes = [importlib.import_module(f"jobset_ref.api.{m}")
             for m in ("crd", "defaulting", "models", "pod_webhook", "validation")]
    for name in api.__all__:
        if name == "constants":
            assert api.constants is c
            continue
        defining = [m for m in homes if name in m.__all__]
        assert len(defining) == 1, (name, [m.__name__ for m in defining])
        assert getattr(api, name) is getattr(defining[0], name), name
    with pytest.raises(AttributeError, match=r"module 'jobset_ref\.api' has no attribute 'validate_jobset'"):
        api.validate_jobset  # noqa: B018
