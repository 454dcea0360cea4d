"""Tests for jobset_ref.api.validation — ports of upstream pkg/webhooks/jobset_webhook_test.go
(TestValidateCreate, TestValidateUpdate, TestGetJobSetNameForValidation) plus spec §11 edge cases.

Expected messages are written out literally (not imported from the implementation) so that a
typo in either place fails the test.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fakekube.errors import ErrorType, FieldError, InternalError, NotFound
from jobset_ref.api.defaulting import apply_schema_defaults, default_jobset
from jobset_ref.api.models import JobSet
from jobset_ref.api.validation import (
    invalid_error,
    is_dns1035_label,
    is_dns1123_subdomain,
    is_valid_label_value,
    name_for_validation,
    semantic_equal,
    validate_create,
    validate_update,
)

DNS1035_ERR = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
)
DNS1123_ERR = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
JOB_TOO_LONG = "JobSet name is too long, job names generated for this JobSet will exceed 63 characters"
POD_TOO_LONG = "JobSet name is too long, pod names generated for this JobSet will exceed 63 characters"
RULE_NAME_REGEX_ERR = (
    "a failure policy rule name must start with an alphabetic character, optionally followed by a string of "
    "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'"
)
RESTART_JOB_GATE_ERR = (
    "<nil>: Internal error: RestartJob and RestartJobAndIgnoreMaxRestarts failure policy actions are not "
    "allowed when RestartJob feature gate is disabled"
)
IN_PLACE_GATE_ERR = (
    "<nil>: Internal error: InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate "
    "is disabled"
)
ALL_GATES = {"RestartJob": True, "InPlaceRestart": True, "ElasticJobSet": True}

# --------------------------------------------------------------------------- builders


def pod_template(*, mounts: list[str] | None = None, init_mounts: list[str] | None = None,
                 volumes: list[str] | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "test", "image": "bash:latest"}
    if mounts:
        container["volumeMounts"] = [{"name": m, "mountPath": f"/mnt/{m}"} for m in mounts]
    spec: dict[str, Any] = {"containers": [container]}
    if init_mounts:
        spec["initContainers"] = [{"name": "init", "image": "bash:latest",
                                   "volumeMounts": [{"name": m, "mountPath": f"/mnt/{m}"} for m in init_mounts]}]
    if volumes:
        spec["volumes"] = [{"name": v, "emptyDir": {}} for v in volumes]
    return {"spec": spec}


def rjob(name: str = "rj", *, replicas: int = 1, group: str = "default", depends_on: Any = None,
         pod: dict[str, Any] | None = None, **job_spec: Any) -> dict[str, Any]:
    spec: dict[str, Any] = dict(job_spec)
    spec["template"] = pod if pod is not None else pod_template()
    out: dict[str, Any] = {"name": name, "groupName": group, "replicas": replicas, "template": {"spec": spec}}
    if depends_on is not None:
        out["depends" + "On"] = depends_on
    return out


def indexed(name: str = "rj", *, completions: int = 1, parallelism: int = 1, **kw: Any) -> dict[str, Any]:
    return rjob(name, completionMode="Indexed", completions=completions, parallelism=parallelism, **kw)


def jobset(*rjobs: dict[str, Any], name: str | None = "js", generate_name: str | None = None,
           **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"namespace": "default"}
    if name is not None:
        meta["name"] = name
    if generate_name is not None:
        meta["generateName"] = generate_name
    full_spec: dict[str, Any] = {"replicatedJobs": list(rjobs), "successPolicy": {"operator": "All"}}
    full_spec.update(spec)
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": meta, "spec": full_spec}


def rendered(errs: list[FieldError]) -> list[str]:
    return [str(e) for e in errs]


def internal(text: str) -> str:
    return f"<nil>: Internal error: {text}"


def rule(name: str | None, action: str = "FailJobSet", **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"action": action, **kw}
    if name is not None:
        out["name"] = name
    return out


def vcp(*names: str, retention: str | None = None, spec: dict[str, Any] | None = None) -> dict[str, Any]:
    templates = [{"metadata": {"name": n}, "spec": spec or {"accessModes": ["ReadWriteOnce"]}} for n in names]
    out: dict[str, Any] = {"templates": templates}
    if retention is not None:
        out["retentionPolicy"] = {"whenDeleted": retention}
    return out


# --------------------------------------------------------------------------- ValidateCreate table

N49 = "a" * 49 + "-"

CREATE_CASES: list[tuple[str, dict[str, Any], dict[str, bool], list[str]]] = [
    ("generateName that produces overlong child job names is rejected",
     jobset(rjob("worker"), name=None, generate_name=N49), {},
     [f'spec.replicatedJobs[0].name: Invalid value: "{N49}bcdfg-worker-0": {JOB_TOO_LONG}']),
    ("generateName that produces overlong PVC names is rejected",
     jobset(rjob("worker", pod=pod_template(mounts=["datasets"])), name=None, generate_name=N49,
            volumeClaimPolicies=[vcp("datasets")]), {},
     [f'spec.replicatedJobs[0].name: Invalid value: "{N49}bcdfg-worker-0": {JOB_TOO_LONG}',
      'spec.volumeClaimPolicies[0].template[0].name: Invalid value: "datasets": '
      "VolumeClaimPolicies template name is too long"]),
    ("generateName within budget is accepted",
     jobset(rjob("worker"), name=None, generate_name="a" * 47 + "-"), {}, []),
    ("number of pods exceeds the limit",
     jobset(rjob("test-jobset-replicated-job-0", replicas=2147483647, parallelism=2147483647),
            rjob("test-jobset-replicated-job-1", replicas=-2147483648, parallelism=-2147483648)), {},
     [internal("the product of replicas and parallelism must not exceed 2147483647 for replicatedJob "
               "'test-jobset-replicated-job-0'"),
      internal("the product of replicas and parallelism must not exceed 2147483647 for replicatedJob "
               "'test-jobset-replicated-job-1'")]),
    ("number of pods within the limit", jobset(rjob("test-jobset-replicated-job-0")), {}, []),
    ("negative times positive product never triggers",
     jobset(rjob("a", replicas=-2147483648, parallelism=2)), {}, []),
    ("success policy has non matching replicated job",
     jobset(rjob(), successPolicy={"operator": "All", "targetReplicatedJobs": ["does not exist"]}), {},
     [internal("invalid replicatedJob name 'does not exist' does not appear in .spec.ReplicatedJobs")]),
    ("success policy with explicitly empty targets is accepted",
     jobset(rjob(), successPolicy={"operator": "All", "targetReplicatedJobs": []}), {}, []),
    ("network has invalid dns name (64 chars)",
     jobset(rjob(), network={"enableDNSHostnames": True, "subdomain": "a" * 64}), {},
     [f'spec.network.subdomain: Invalid value: "{"a" * 64}": .spec.network.subdomain is too long, '
      "must be less than 63 characters"]),
    ("subdomain with a dot fails only DNS-1035",
     jobset(rjob(), network={"subdomain": "my.sub"}), {},
     [f'spec.network.subdomain: Invalid value: "my.sub": {DNS1035_ERR}']),
    ("uppercase subdomain fails both formats",
     jobset(rjob(), network={"subdomain": "Sub"}), {},
     [f'spec.network.subdomain: Invalid value: "Sub": {DNS1123_ERR}',
      f'spec.network.subdomain: Invalid value: "Sub": {DNS1035_ERR}']),
    ("254-char subdomain fails DNS-1123 length and DNS-1035 length",
     jobset(rjob(), network={"subdomain": "a" * 254}), {},
     [f'spec.network.subdomain: Invalid value: "{"a" * 254}": must be no more than 253 characters',
      f'spec.network.subdomain: Invalid value: "{"a" * 254}": .spec.network.subdomain is too long, '
      "must be less than 63 characters"]),
    ("63-char subdomain is accepted", jobset(rjob(), network={"subdomain": "a" * 63}), {}, []),
    ("jobset name with invalid character",
     jobset(rjob("username.llama65b")), {},
     [f'spec.replicatedJobs[0].name: Invalid value: "js-username.llama65b-0": {DNS1035_ERR}']),
    ("jobset name starting with a digit", jobset(rjob(), name="1js"), {},
     [f'spec.replicatedJobs[0].name: Invalid value: "1js-rj-0": {DNS1035_ERR}']),
    ("jobset name starting with a digit but no replicated jobs", jobset(name="1js"), {}, []),
    ("no name and no generateName", jobset(rjob(), name=None), {},
     [f'spec.replicatedJobs[0].name: Invalid value: "-rj-0": {DNS1035_ERR}']),
    ("group name is not DNS 1035 compliant (too long)",
     jobset(rjob(group="a" * 64)), {},
     [f'spec.replicatedJobs[0].groupName: Invalid value: "{"a" * 64}": '
      ".spec.replicatedJob[].groupName is too long, must be less than 63 characters"]),
    ("empty group name fails DNS-1035 format", jobset(rjob(group="")), {},
     [f'spec.replicatedJobs[0].groupName: Invalid value: "": {DNS1035_ERR}']),
    ("jobset name will result in job name being too long",
     jobset(rjob(replicas=101), name="a" * 62), {},
     [f'spec.replicatedJobs[0].name: Invalid value: "{"a" * 62}-rj-100": {JOB_TOO_LONG}']),
    ("jobset name will result in a pod name being too long",
     jobset(indexed(), name="a" * 56), {},
     [f'spec.replicatedJobs[0].name: Invalid value: "{"a" * 56}-rj-0": {POD_TOO_LONG}']),
    ("pod name check skipped without completionMode",
     jobset(rjob(completions=1), name="a" * 56), {}, []),
    ("pod name at exactly 63 characters is accepted",
     jobset(indexed(), name="a" * 50), {}, []),
    ("replicas 0 yields job index -1 and is accepted", jobset(indexed(completions=0, replicas=0)), {}, []),
    ("jobset controller name is not a domain-prefixed path",
     jobset(indexed(), managedBy="notDomainPrefixedPathControllerName"), {},
     ['spec.managedBy: Invalid value: "notDomainPrefixedPathControllerName": must be a domain-prefixed path '
      '(such as "acme.io/foo")']),
    ("jobset controller name is too long",
     jobset(indexed(), managedBy="foo.bar/" + "a" * 63), {},
     ["spec.managedBy: Too long: may not be more than 63 bytes"]),
    ("jobset controller name is set and valid",
     jobset(indexed(), managedBy="jobset.sigs.k8s.io/jobset-controller"), {}, []),
    ("jobset controller name is unset", jobset(indexed()), {}, []),
    ("managedBy empty is required", jobset(indexed(), managedBy=""), {}, ["spec.managedBy: Required value"]),
    ("managedBy with an invalid path",
     jobset(indexed(), managedBy="foo/bar baz"), {},
     ["spec.managedBy: Invalid value: \"bar baz\": Invalid path (regex used for validation is "
      "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')"]),
    ("managedBy with an uppercase host",
     jobset(indexed(), managedBy="Foo.com/x"), {},
     [f'spec.managedBy: Invalid value: "Foo.com": {DNS1123_ERR}']),
    ("managedBy with bad host, bad path and too long",
     jobset(indexed(), managedBy="A/" + " " * 62), {},
     [f'spec.managedBy: Invalid value: "A": {DNS1123_ERR}',
      f'spec.managedBy: Invalid value: "{" " * 62}": Invalid path (regex used for validation is '
      "'[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+')",
      "spec.managedBy: Too long: may not be more than 63 bytes"]),
    ("failure policy rule name is valid",
     jobset(rjob(), failurePolicy={"rules": [rule("superAwesomeFailurePolicyRule")]}), {}, []),
    ("jobset failure policy has an invalid on job failure reason",
     jobset(rjob(), failurePolicy={"rules": [rule("r", onJobFailureReasons=["fakeReason", "PodFailurePolicy"])]}),
     {}, [internal("invalid job failure reason 'fakeReason' in failure policy is not a recognized job failure reason")]),
    ("all five job failure reasons are valid, duplicates accepted",
     jobset(rjob(), failurePolicy={"rules": [rule("r", onJobFailureReasons=[
         "BackoffLimitExceeded", "DeadlineExceeded", "FailedIndexes", "MaxFailedIndexesExceeded",
         "PodFailurePolicy", "PodFailurePolicy"], onJobFailureMessagePatterns=["(", "("])]}), {}, []),
    ("jobset failure policy has an invalid replicated job",
     jobset(rjob(), failurePolicy={"rules": [rule("r", targetReplicatedJobs=["fakeReplicatedJob"])]}), {},
     [internal("invalid replicatedJob name 'fakeReplicatedJob' in failure policy does not appear in "
               ".spec.ReplicatedJobs")]),
    ("jobset failure policy rule name is 0 characters long a.k.a unset",
     jobset(rjob(), failurePolicy={"rules": [rule("")]}), {},
     [internal("invalid failure policy rule name of length 0, the rule name must be at least 1 characters long "
               "and at most 128 characters long"),
      internal(f"invalid failure policy rule name '', {RULE_NAME_REGEX_ERR}")]),
    ("jobset failure policy rule name is greater than 128 characters long",
     jobset(rjob(), failurePolicy={"rules": [rule("a" * 129)]}), {},
     [internal("invalid failure policy rule name of length 129, the rule name must be at least 1 characters "
               "long and at most 128 characters long")]),
    ("there are two failure policy rules with the same name",
     jobset(rjob(), failurePolicy={"rules": [rule("repeatedRuleName"), rule("repeatedRuleName")]}), {},
     [internal("rule names are not unique, rules with indices [0 1] all have the same name 'repeatedRuleName'")]),
    ("two duplicated names reported in first-appearance order",
     jobset(rjob(), failurePolicy={"rules": [rule("b"), rule("a"), rule("b"), rule("a"), rule("b")]}), {},
     [internal("rule names are not unique, rules with indices [0 2 4] all have the same name 'b'"),
      internal("rule names are not unique, rules with indices [1 3] all have the same name 'a'")]),
    ("failure policy rule name does not start with an alphabetic character",
     jobset(rjob(), failurePolicy={"rules": [rule("1ruleToRuleThemAll")]}), {},
     [internal(f"invalid failure policy rule name '1ruleToRuleThemAll', {RULE_NAME_REGEX_ERR}")]),
    ("failure policy rule name does not end with an alphanumeric nor '_'",
     jobset(rjob(), failurePolicy={"rules": [rule("ruleToRuleThemAll,")]}), {},
     [internal(f"invalid failure policy rule name 'ruleToRuleThemAll,', {RULE_NAME_REGEX_ERR}")]),
    ("rule name with a trailing newline is rejected (Go $ semantics)",
     jobset(rjob(), failurePolicy={"rules": [rule("abc\n")]}), {},
     [internal(f"invalid failure policy rule name 'abc\n', {RULE_NAME_REGEX_ERR}")]),
    ("coordinator replicated job does not exist",
     jobset(indexed("replicatedjob-a", replicas=2), coordinator={"replicatedJob": "fake-rjob"}), {},
     [internal("coordinator replicatedJob fake-rjob does not exist")]),
    ("coordinator replicated job missing completions",
     jobset(rjob("replicatedjob-a", replicas=2, completionMode="Indexed"),
            coordinator={"replicatedJob": "replicatedjob-a"}), {},
     [internal("job for coordinator pod must be indexed completion mode, and completions number must be set")]),
    ("coordinator on a NonIndexed replicated job",
     jobset(rjob("replicatedjob-a", replicas=2, completionMode="NonIndexed", completions=2),
            coordinator={"replicatedJob": "replicatedjob-a"}), {},
     [internal("job for coordinator pod must be indexed completion mode, and completions number must be set")]),
    ("coordinator job index invalid",
     jobset(indexed("replicatedjob-a", replicas=2, completions=2),
            coordinator={"replicatedJob": "replicatedjob-a", "jobIndex": 2}), {},
     [internal("coordinator job index 2 is invalid for replicatedJob replicatedjob-a")]),
    ("coordinator job index negative",
     jobset(indexed("replicatedjob-a", replicas=2, completions=2),
            coordinator={"replicatedJob": "replicatedjob-a", "jobIndex": -1}), {},
     [internal("coordinator job index -1 is invalid for replicatedJob replicatedjob-a")]),
    ("coordinator pod index invalid",
     jobset(indexed("replicatedjob-a", replicas=2, completions=2),
            coordinator={"replicatedJob": "replicatedjob-a", "podIndex": 2}), {},
     [internal("coordinator pod index 2 is invalid for replicatedJob replicatedjob-a job index 0")]),
    ("coordinator valid", jobset(indexed("replicatedjob-a", replicas=2, completions=2),
                                 coordinator={"replicatedJob": "replicatedjob-a", "jobIndex": 1, "podIndex": 1}),
     {}, []),
    ("coordinator label value is too long due to long SubDomain",
     jobset(indexed("replicatedjob-a"), network={"subdomain": "a" * 60},
            coordinator={"replicatedJob": "replicatedjob-a"}), {},
     [internal(f'spec will lead to invalid label value "js-replicatedjob-a-0-0.{"a" * 60}" for coordinator label '
               '"jobset.sigs.k8s.io/coordinator" (long JobSet / ReplicatedJob / SubDomain name?): '
               "must be no more than 63 bytes")]),
    ("coordinator label value too long and structurally invalid: both reported",
     jobset(rjob("r"), network={"subdomain": "a" * 60}, coordinator={"replicatedJob": "r"}), {},
     [internal("job for coordinator pod must be indexed completion mode, and completions number must be set"),
      internal(f'spec will lead to invalid label value "js-r-0-0.{"a" * 60}" for coordinator label '
               '"jobset.sigs.k8s.io/coordinator" (long JobSet / ReplicatedJob / SubDomain name?): '
               "must be no more than 63 bytes")]),
    ("RestartJob action and replicas > 1024 (two offenders, one error)",
     jobset(rjob("a", replicas=1025), rjob("b", replicas=2000),
            failurePolicy={"rules": [rule("r", "RestartJob")]}), {"RestartJob": True},
     [internal("JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts "
               "action and a replicated job with replicas > 1024")]),
    ("RestartJobAndIgnoreMaxRestarts action and replicas > 1024",
     jobset(rjob(replicas=1025), failurePolicy={"rules": [rule("r", "RestartJobAndIgnoreMaxRestarts")]}),
     {"RestartJob": True},
     [internal("JobSet cannot have a failure policy rule with RestartJob or RestartJobAndIgnoreMaxRestarts "
               "action and a replicated job with replicas > 1024")]),
    ("RestartJob action with gate enabled and 1024 replicas",
     jobset(rjob(replicas=1024), failurePolicy={"rules": [rule("r", "RestartJob")]}), {"RestartJob": True}, []),
    ("RestartJob action and RestartJob feature gate is disabled",
     jobset(rjob(), failurePolicy={"rules": [rule("r", "RestartJob")]}), {}, [RESTART_JOB_GATE_ERR]),
    ("RestartJobAndIgnoreMaxRestarts action and gate disabled hides other rule errors",
     jobset(rjob(), failurePolicy={"rules": [rule("1bad", "RestartJobAndIgnoreMaxRestarts",
                                                  targetReplicatedJobs=["nope"], onJobFailureReasons=["x"])]}),
     {}, [RESTART_JOB_GATE_ERR]),
    ("DependsOn is valid since job-2 depends on job-1 and job-3 depends on job-1",
     jobset(rjob("job-1"), rjob("job-2", depends_on=[{"name": "job-1", "status": "Ready"}]),
            rjob("job-3", depends_on=[{"name": "job-1", "status": "Complete"}])), {}, []),
    ("DependsOn is valid since job-3 depends on job-1 and job-2",
     jobset(rjob("job-1"), rjob("job-2"),
            rjob("job-3", depends_on=[{"name": "job-1", "status": "Ready"}, {"name": "job-2", "status": "Ready"}])),
     {}, []),
    ("DependsOn is invalid since job-2 depends on job-3",
     jobset(rjob("job-1"), rjob("job-2", depends_on=[{"name": "job-3", "status": "Ready"}]), rjob("job-3")), {},
     [internal("replicatedJob: job-2 cannot depend on replicatedJob: job-3")]),
    ("DependsOn is invalid since job-2 depends on job-3 and job-1",
     jobset(rjob("job-1"), rjob("job-2", depends_on=[{"name": "job-3", "status": "Ready"},
                                                     {"name": "job-1", "status": "Ready"}]), rjob("job-3")), {},
     [internal("replicatedJob: job-2 cannot depend on replicatedJob: job-3")]),
    ("job-2 depends on invalid ReplicatedJob",
     jobset(rjob("job-1"), rjob("job-2", depends_on=[{"name": "invalid", "status": "Ready"}])), {},
     [internal("replicatedJob: job-2 cannot depend on replicatedJob: invalid")]),
    ("dependsOn should not fail if there are no replicated jobs", jobset(), {}, []),
    ("dependsOn cannot be set for first replicated job",
     jobset(rjob("job-1", depends_on=[{"name": "job-1", "status": "Ready"}]), rjob("job-2")), {},
     [internal("DependsOn can't be set for the first ReplicatedJob")]),
    ("explicitly empty dependsOn on the first replicated job is rejected",
     jobset(rjob("job-1", depends_on=[])), {}, [internal("DependsOn can't be set for the first ReplicatedJob")]),
    ("a non-first replicated job may depend on itself",
     jobset(rjob("job-1"), rjob("job-2", depends_on=[{"name": "job-2", "status": "Ready"}])), {}, []),
    ("volumeClaimPolicy is valid since volume exists in the container",
     jobset(rjob(pod=pod_template(mounts=["pvc"])), volumeClaimPolicies=[vcp("pvc")]), {}, []),
    ("volumeClaimPolicy is valid since volume exists in the initContainer",
     jobset(rjob("a"), rjob("b", pod=pod_template(init_mounts=["pvc"])), volumeClaimPolicies=[vcp("pvc")]), {}, []),
    ("volumeClaimPolicy is invalid since template names are not unique",
     jobset(rjob(pod=pod_template(mounts=["pvc"])), volumeClaimPolicies=[vcp("pvc"), vcp("pvc")]), {},
     ['spec.volumeClaimPolicies[1].template[0].name: Invalid value: "pvc": '
      "names must be unique for VolumeClaimPolicies template"]),
    ("volumeClaimPolicy is invalid since template name has uppercase letters",
     jobset(rjob(pod=pod_template(mounts=["Pvc"])), volumeClaimPolicies=[vcp("Pvc")]), {},
     [f'spec.volumeClaimPolicies[0].template[0].name: Invalid value: "Pvc": {DNS1123_ERR}']),
    ("volumeClaimPolicy is invalid since template name is too long",
     jobset(rjob(pod=pod_template(mounts=["a" * 64])), volumeClaimPolicies=[vcp("a" * 64)]), {},
     [f'spec.volumeClaimPolicies[0].template[0].name: Invalid value: "{"a" * 64}": '
      "VolumeClaimPolicies template name is too long"]),
    ("volumeClaimPolicy is invalid since volume name conflicts with existing volume",
     jobset(rjob(pod=pod_template(mounts=["pvc"], volumes=["other", "pvc"])), volumeClaimPolicies=[vcp("pvc")]), {},
     ['spec.replicatedJobs[0].template.spec.template.spec.volumes[1].name: Invalid value: "pvc": '
      "volume name conflicts with VolumeClaimPolicy template name: pvc"]),
    ("ephemeral containers do not count as mounts",
     jobset({"name": "r", "groupName": "default", "replicas": 1, "template": {"spec": {"template": {"spec": {
         "containers": [{"name": "c"}],
         "ephemeralContainers": [{"name": "e", "volumeMounts": [{"name": "pvc", "mountPath": "/x"}]}]}}}}},
         volumeClaimPolicies=[vcp("pvc")]), {},
     ['spec.replicatedJobs: Invalid value: [{"name":"r","groupName":"default","template":{"spec":{"template":'
      '{"spec":{"containers":[{"name":"c"}],"ephemeralContainers":[{"name":"e","volumeMounts":[{"name":"pvc",'
      '"mountPath":"/x"}]}]}}}},"replicas":1}]: replicatedJob containers don\'t have a matching volumeMount: '
      "pvc from VolumeClaimPolicies"]),
    ("InPlaceRestart restart strategy cannot be set when InPlaceRestart feature gate is disabled",
     jobset(indexed(backoffLimit=2147483647, podReplacementPolicy="Failed"),
            failurePolicy={"restartStrategy": "InPlaceRestart"}), {}, [IN_PLACE_GATE_ERR]),
    ("InPlaceRestart restart strategy can be set when InPlaceRestart feature gate is enabled",
     jobset(indexed(backoffLimit=2147483647, podReplacementPolicy="Failed"),
            failurePolicy={"restartStrategy": "InPlaceRestart"}), {"InPlaceRestart": True}, []),
    ("InPlaceRestart enabled: backoffLimit is not MaxInt32",
     jobset(indexed("job-1", backoffLimit=6, podReplacementPolicy="Failed"),
            failurePolicy={"restartStrategy": "InPlaceRestart"}), {"InPlaceRestart": True},
     ["spec.replicatedJobs[0].template.spec.backoffLimit: Invalid value: 6: replicatedJob job-1: must be set to "
      "2147483647 (MaxInt32) when in-place restart is enabled"]),
    ("InPlaceRestart enabled: all three constraints unset",
     jobset(rjob("job-1"), failurePolicy={"restartStrategy": "InPlaceRestart"}), {"InPlaceRestart": True},
     ["spec.replicatedJobs[0].template.spec.backoffLimit: Invalid value: null: replicatedJob job-1: must be set "
      "to 2147483647 (MaxInt32) when in-place restart is enabled",
      "spec.replicatedJobs[0].template.spec.podReplacementPolicy: Invalid value: null: replicatedJob job-1: "
      "must be set to Failed when in-place restart is enabled",
      "spec.replicatedJobs[0].template.spec.completions: Invalid value: null: replicatedJob job-1: completions "
      "and parallelism must be set and equal to each other when in-place restart is enabled"]),
    ("InPlaceRestart enabled: podReplacementPolicy is not Failed",
     jobset(indexed("job-1", backoffLimit=2147483647, podReplacementPolicy="TerminatingOrFailed"),
            failurePolicy={"restartStrategy": "InPlaceRestart"}), {"InPlaceRestart": True},
     ['spec.replicatedJobs[0].template.spec.podReplacementPolicy: Invalid value: "TerminatingOrFailed": '
      "replicatedJob job-1: must be set to Failed when in-place restart is enabled"]),
    ("InPlaceRestart enabled: completions != parallelism",
     jobset(indexed("job-1", completions=2, parallelism=1, backoffLimit=2147483647, podReplacementPolicy="Failed"),
            failurePolicy={"restartStrategy": "InPlaceRestart"}), {"InPlaceRestart": True},
     ["spec.replicatedJobs[0].template.spec.completions: Invalid value: 2: replicatedJob job-1: completions and "
      "parallelism must be set and equal to each other when in-place restart is enabled"]),
    ("InPlaceRestart enabled: parallelism is nil",
     jobset(rjob("job-1", completions=2, backoffLimit=2147483647, podReplacementPolicy="Failed"),
            failurePolicy={"restartStrategy": "InPlaceRestart"}), {"InPlaceRestart": True},
     ["spec.replicatedJobs[0].template.spec.completions: Invalid value: 2: replicatedJob job-1: completions and "
      "parallelism must be set and equal to each other when in-place restart is enabled"]),
    ("Recreate strategy ignores in-place constraints",
     jobset(rjob(), failurePolicy={"restartStrategy": "Recreate", "maxRestarts": -3}), {"InPlaceRestart": True}, []),
    ("errors from several steps come out in step order",
     jobset(rjob("a", depends_on=[]), rjob("b", depends_on=[{"name": "zz", "status": "Ready"}]),
            managedBy="", network={"subdomain": "x.y"},
            successPolicy={"operator": "Any", "targetReplicatedJobs": ["q"]},
            failurePolicy={"restartStrategy": "InPlaceRestart", "rules": [rule("ok", targetReplicatedJobs=["t"])]},
            coordinator={"replicatedJob": "nope"}), {},
     [IN_PLACE_GATE_ERR,
      internal("DependsOn can't be set for the first ReplicatedJob"),
      f'spec.network.subdomain: Invalid value: "x.y": {DNS1035_ERR}',
      "spec.managedBy: Required value",
      internal("replicatedJob: b cannot depend on replicatedJob: zz"),
      internal("invalid replicatedJob name 'q' does not appear in .spec.ReplicatedJobs"),
      internal("invalid replicatedJob name 't' in failure policy does not appear in .spec.ReplicatedJobs"),
      internal("coordinator replicatedJob nope does not exist")]),
]


@pytest.mark.parametrize(("js", "gates", "want"), [c[1:] for c in CREATE_CASES], ids=[c[0] for c in CREATE_CASES])
def test_validate_create(js: dict[str, Any], gates: dict[str, bool], want: list[str]) -> None:
    before = copy.deepcopy(js)
    got = validate_create(js, feature_gates=gates, generate_name_suffix="bcdfg")
    assert rendered(got) == want
    assert js == before  # pure


def test_validate_create_accepts_model_and_dict_alike() -> None:
    js = jobset(rjob("username.llama65b"))
    assert validate_create(JobSet.from_wire(js)) == validate_create(js)


def test_plain_errors_are_internal_with_nil_path() -> None:
    (err,) = validate_create(jobset(rjob("job-1", depends_on=[])))
    assert err.type is ErrorType.INTERNAL
    assert err.field == "<nil>"
    assert err.cause() == {"reason": "InternalError", "field": "<nil>",
                           "message": "Internal error: DependsOn can't be set for the first ReplicatedJob"}


# --------------------------------------------------------------------------- existing PVCs (step 9.5)

PVC_SPEC = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}


def _pvc_js(retention: str | None) -> dict[str, Any]:
    return jobset(rjob(pod=pod_template(mounts=["pvc"])), volumeClaimPolicies=[vcp("pvc", retention=retention,
                                                                                    spec=PVC_SPEC)])


def test_existing_pvc_matching_spec_with_retain_is_valid() -> None:
    calls: list[tuple[str, str]] = []

    def lookup(ns: str, name: str) -> dict[str, Any] | None:
        calls.append((ns, name))
        return {"metadata": {"name": name}, "spec": copy.deepcopy(PVC_SPEC)}

    assert validate_create(_pvc_js("Retain"), pvc_lookup=lookup) == []
    assert calls == [("default", "pvc-js")]


def test_existing_pvc_retention_policy_must_be_retain() -> None:
    def lookup(ns: str, name: str) -> dict[str, Any] | None:
        return {"spec": copy.deepcopy(PVC_SPEC)}

    assert rendered(validate_create(_pvc_js("Delete"), pvc_lookup=lookup)) == [
        'spec.volumeClaimPolicies[0].retentionPolicy.whenDeleted: Invalid value: "Delete": '
        "retentionPolicy must be retain when PVC exists"]


def test_existing_pvc_spec_mismatch() -> None:
    def lookup(ns: str, name: str) -> dict[str, Any] | None:
        return {"spec": {**PVC_SPEC, "volumeName": "pv-1"}}

    assert rendered(validate_create(_pvc_js("Retain"), pvc_lookup=lookup)) == [
        'spec.volumeClaimPolicies[0].template[0].spec: Invalid value: {"accessModes":["ReadWriteOnce"],'
        '"resources":{"requests":{"storage":"1Gi"}}}: spec does not match existing PVC pvc-js in namespace default']


def test_pvc_not_found_and_lookup_errors() -> None:
    def not_found(ns: str, name: str) -> dict[str, Any] | None:
        raise NotFound(f'persistentvolumeclaims "{name}" not found')

    def boom(ns: str, name: str) -> dict[str, Any] | None:
        raise InternalError("etcd is down")

    assert validate_create(_pvc_js(None), pvc_lookup=not_found) == []
    assert rendered(validate_create(_pvc_js(None), pvc_lookup=boom)) == [
        "spec.volumeClaimPolicies[0].template[0]: Internal error: failed to check for existing PVC pvc-js: "
        "etcd is down"]


# --------------------------------------------------------------------------- name for validation


def test_name_for_validation() -> None:
    assert name_for_validation(jobset(name="jobset-name")) == "jobset-name"
    got = name_for_validation(jobset(name=None, generate_name="a" * 60))
    assert len(got) == 63 and got.startswith("a" * 58)
    assert all(ch in "bcdfghjklmnpqrstvwxz2456789" for ch in got[58:])
    assert name_for_validation(jobset(name=None)) == ""
    assert name_for_validation(jobset(name=None, generate_name="x-"), suffix="zzzzz") == "x-zzzzz"
    # deterministic
    assert got == name_for_validation(jobset(name=None, generate_name="a" * 60))


# --------------------------------------------------------------------------- library validators


@pytest.mark.parametrize(("fn", "value", "want"), [
    (is_dns1035_label, "abc-123", []),
    (is_dns1035_label, "1abc", [DNS1035_ERR]),
    (is_dns1035_label, "a" * 64, ["must be no more than 63 characters"]),
    (is_dns1035_label, "A" * 64, ["must be no more than 63 characters", DNS1035_ERR]),
    (is_dns1123_subdomain, "example.com", []),
    (is_dns1123_subdomain, "-x", [DNS1123_ERR]),
    (is_valid_label_value, "", []),
    (is_valid_label_value, "My_value.1", []),
    (is_valid_label_value, "a" * 64, ["must be no more than 63 bytes"]),
    (is_valid_label_value, "-", [
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used "
        "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"]),
], ids=lambda v: v.__name__ if callable(v) else None)
def test_library_validators(fn: Any, value: str, want: list[str]) -> None:
    assert fn(value) == want


# --------------------------------------------------------------------------- invalid_error (§2.2)


def test_invalid_error_shape() -> None:
    errs = validate_create(jobset(rjob("job-1"), rjob("job-2", depends_on=[{"name": "job-3", "status": "Ready"}]),
                                  network={"subdomain": "Sub"}))
    err = invalid_error("js", errs)
    assert err.code == 422 and err.reason == "Invalid"
    assert err.message == (
        'admission webhook "vjobset.kb.io" denied the request: JobSet.jobset.x-k8s.io "js" is invalid: ['
        f'spec.network.subdomain: Invalid value: "Sub": {DNS1123_ERR}, '
        f'spec.network.subdomain: Invalid value: "Sub": {DNS1035_ERR}, '
        "<nil>: Internal error: replicatedJob: job-2 cannot depend on replicatedJob: job-3]")
    assert err.details["group"] == "jobset.x-k8s.io" and err.details["kind"] == "JobSet"
    assert err.details["name"] == "js"
    assert [c["field"] for c in err.causes] == ["spec.network.subdomain", "spec.network.subdomain", "<nil>"]
    single = invalid_error("js", errs[2:], via_apiserver=False)
    assert single.message == ('JobSet.jobset.x-k8s.io "js" is invalid: <nil>: Internal error: '
                              "replicatedJob: job-2 cannot depend on replicatedJob: job-3")


# --------------------------------------------------------------------------- ValidateUpdate table


def urjob(name: str, *, replicas: int = 1, parallelism: int | None = 1, completions: int | None = None,
          mode: str | None = None, pod: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"template": pod if pod is not None else pod_template()}
    if parallelism is not None:
        spec["parallelism"] = parallelism
    if completions is not None:
        spec["completions"] = completions
    if mode is not None:
        spec["completionMode"] = mode
    return {"name": name, "replicas": replicas, "template": {"spec": spec}}


def ujs(*rjobs: dict[str, Any], suspend: bool | None = None, managed_by: str | None = None,
        labels: dict[str, str] | None = None, conditions: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"replicatedJobs": list(rjobs)}
    if suspend is not None:
        spec["suspend"] = suspend
    if managed_by is not None:
        spec["managedBy"] = managed_by
    meta: dict[str, Any] = {"name": "js"}
    if labels:
        meta["labels"] = labels
    out: dict[str, Any] = {"metadata": meta, "spec": spec}
    if conditions is not None:
        out["status"] = {"conditions": conditions}
    return out


VALID = (urjob("test-jobset-replicated-job-0"), urjob("test-jobset-replicated-job-1"))
POD_A = pod_template()
POD_B: dict[str, Any] = {"metadata": {"labels": {"x": "y"}, "annotations": {"a": "b"}},
                         "spec": {**pod_template()["spec"], "nodeSelector": {"n": "1"},
                                  "tolerations": [{"key": "k", "operator": "Exists"}]}}
POD_GATES: dict[str, Any] = {"spec": {**pod_template()["spec"], "schedulingGates": [{"name": "g"}]}}
POD_IMAGE: dict[str, Any] = {"spec": {"containers": [{"name": "test", "image": "other"}]}}


def cond(type_: str, status: str = "True") -> dict[str, Any]:
    return {"type": type_, "status": status, "reason": "R", "message": "m",
            "lastTransitionTime": "2024-01-01T00:00:00Z"}


def idx(name: str = "rj", p: int | None = 2, c: int | None = 2, **kw: Any) -> dict[str, Any]:
    return urjob(name, parallelism=p, completions=c, mode="Indexed", **kw)


IMMUTABLE = ("spec.replicatedJobs", "field is immutable")

UPDATE_CASES: list[tuple[str, dict[str, Any], dict[str, Any], dict[str, bool], list[Any]]] = [
    ("update suspend", ujs(*VALID, suspend=True), ujs(*VALID), {}, []),
    ("update labels", ujs(*VALID, suspend=True), ujs(*VALID, labels={"hello": "world"}), {}, []),
    ("managedBy is immutable", ujs(*VALID, managed_by="example.com/old"), ujs(*VALID, managed_by="example.com/new"),
     {}, ['spec.managedBy: Invalid value: "example.com/new": field is immutable']),
    ("managedBy cannot be removed", ujs(*VALID, managed_by="example.com/old"), ujs(*VALID), {},
     ["spec.managedBy: Invalid value: null: field is immutable"]),
    ("replicated job pod template can be updated for suspended jobset",
     ujs(urjob("a", replicas=2, pod=POD_A), suspend=True), ujs(urjob("a", replicas=2, pod=POD_B), suspend=True),
     {}, []),
    ("replicated job pod template can be updated for jobset getting suspended",
     ujs(urjob("a", replicas=2, pod=POD_A)), ujs(urjob("a", replicas=2, pod=POD_B), suspend=True), {}, []),
    ("pod template update and resume in one request",
     ujs(urjob("a", pod=POD_A), suspend=True), ujs(urjob("a", pod=POD_B), suspend=False), {}, []),
    ("pod template mutable fields can be removed while suspended",
     ujs(urjob("a", pod=POD_B), suspend=True), ujs(urjob("a", pod=POD_A), suspend=True), {}, []),
    ("replicated job pod template cannot be updated for running jobset",
     ujs(urjob("a", replicas=2, pod=POD_A)), ujs(urjob("a", replicas=2, pod=POD_B)), {}, [IMMUTABLE]),
    ("container image cannot change even while suspended",
     ujs(urjob("a", pod=POD_A), suspend=True), ujs(urjob("a", pod=POD_IMAGE), suspend=True), {}, [IMMUTABLE]),
    ("schedulingGates for pod template can be updated for suspended JobSet",
     ujs(urjob("a", pod=POD_A), suspend=True), ujs(urjob("a", pod=POD_GATES), suspend=True), {}, []),
    ("schedulingGates for pod template cannot be updated for unsuspended JobSet",
     ujs(urjob("a", pod=POD_A)), ujs(urjob("a", pod=POD_GATES)), {}, [IMMUTABLE]),
    ("replicated job name cannot be updated", ujs(urjob("a")), ujs(urjob("b")), {}, [IMMUTABLE]),
    ("replicas cannot be updated", ujs(urjob("a")), ujs(urjob("a", replicas=3)), {}, [IMMUTABLE]),
    ("valid scaling of parallelism and completions", ujs(idx()), ujs(idx(p=3, c=3)), {"ElasticJobSet": True}, []),
    ("invalid scaling of parallelism to < 1", ujs(idx()), ujs(idx(p=0, c=2)), {"ElasticJobSet": True},
     ["spec.replicatedJobs[0].template.spec.parallelism: Invalid value: 0: parallelism must be >= 1",
      "spec.replicatedJobs[0].template.spec.completions: Invalid value: 2: completions must be equal to "
      "parallelism for Elastic Indexed Jobs"]),
    ("invalid scaling of completions to < 1", ujs(idx()), ujs(idx(p=2, c=0)), {"ElasticJobSet": True},
     ["spec.replicatedJobs[0].template.spec.completions: Invalid value: 0: completions must be >= 1",
      "spec.replicatedJobs[0].template.spec.completions: Invalid value: 0: completions must be equal to "
      "parallelism for Elastic Indexed Jobs"]),
    ("cannot scale parallelism if JobSet is Completed", ujs(idx(), conditions=[cond("Completed")]),
     ujs(idx(p=3, c=3)), {"ElasticJobSet": True},
     ["spec.replicatedJobs[0].template.spec: Forbidden: Cannot mutate parallelism or completions when JobSet is "
      "in a terminal state (Completed or Failed)"]),
    ("cannot scale completions if JobSet is Failed", ujs(idx(), conditions=[cond("Suspended"), cond("Failed")]),
     ujs(idx(p=2, c=4)), {"ElasticJobSet": True},
     ["spec.replicatedJobs[0].template.spec: Forbidden: Cannot mutate parallelism or completions when JobSet is "
      "in a terminal state (Completed or Failed)"]),
    ("a False Completed condition is not terminal", ujs(idx(), conditions=[cond("Completed", "False")]),
     ujs(idx(p=3, c=3)), {"ElasticJobSet": True}, []),
    ("immutability still enforced for other fields during valid scale", ujs(idx(replicas=1)),
     ujs(idx(p=3, c=3, replicas=2)), {"ElasticJobSet": True}, [IMMUTABLE]),
    ("invalid scaling of parallelism and completions when feature gate is disabled", ujs(idx()),
     ujs(idx(p=3, c=3)), {}, [IMMUTABLE]),
    ("invalid scaling: parallelism and completions must be equal", ujs(idx()), ujs(idx(p=3, c=5)),
     {"ElasticJobSet": True},
     ["spec.replicatedJobs[0].template.spec.completions: Invalid value: 5: completions must be equal to "
      "parallelism for Elastic Indexed Jobs"]),
    ("adding a new ReplicatedJob while suspended is rejected", ujs(urjob("a"), suspend=True),
     ujs(urjob("a"), urjob("b"), suspend=True), {"ElasticJobSet": True}, [IMMUTABLE]),
    ("reordering ReplicatedJobs evaluates ElasticJobSet scaling correctly by name",
     ujs(idx("a"), idx("b")), ujs(idx("b", p=3, c=3), idx("a")), {"ElasticJobSet": True}, [IMMUTABLE]),
    ("immutability enforced for NonIndexed jobs even when ElasticJobSet is enabled",
     ujs(urjob("a", parallelism=1, mode="NonIndexed")), ujs(urjob("a", parallelism=2, mode="NonIndexed")),
     {"ElasticJobSet": True}, [IMMUTABLE]),
    ("nil completionMode counts as non-Indexed", ujs(urjob("a", parallelism=1)), ujs(urjob("a", parallelism=2)),
     {"ElasticJobSet": True}, [IMMUTABLE]),
    ("coordinator, ttl and failurePolicy changes are not the webhook's business",
     ujs(urjob("a")), {**ujs(urjob("a")), "spec": {**ujs(urjob("a"))["spec"], "coordinator": {"replicatedJob": "x"},
                                                   "ttlSecondsAfterFinished": 5, "failurePolicy": {"maxRestarts": 1}}},
     {}, []),
    ("nil and empty lists and maps are semantically equal",
     ujs(urjob("a", pod={"metadata": {"labels": {}}, "spec": {"containers": [{"name": "c", "args": []}]}})),
     ujs(urjob("a", pod={"spec": {"containers": [{"name": "c"}]}})), {}, []),
    ("resource quantities compare by value",
     ujs(urjob("a", pod={"spec": {"containers": [{"name": "c", "resources": {"limits": {"memory": "1Gi"}}}]}})),
     ujs(urjob("a", pod={"spec": {"containers": [{"name": "c", "resources": {"limits": {"memory": "1024Mi"}}}]}})),
     {}, []),
]


@pytest.mark.parametrize(("old", "new", "gates", "want"), [c[1:] for c in UPDATE_CASES],
                         ids=[c[0] for c in UPDATE_CASES])
def test_validate_update(old: dict[str, Any], new: dict[str, Any], gates: dict[str, bool], want: list[Any]) -> None:
    before = copy.deepcopy((old, new))
    got = validate_update(old, new, feature_gates=gates)
    assert len(got) == len(want), rendered(got)
    for err, expected in zip(got, want, strict=True):
        if isinstance(expected, tuple):
            assert (err.type, err.field, err.detail) == (ErrorType.INVALID, *expected)
        else:
            assert str(err) == expected
    assert (old, new) == before


def test_immutable_error_renders_munged_list() -> None:
    old = ujs(urjob("a", pod=POD_A), suspend=True)
    new = ujs(urjob("a", pod={"metadata": {"labels": {"x": "y"}}, "spec": {"containers": [{"name": "z"}]}}),
              suspend=True)
    (err,) = validate_update(old, new)
    # labels were masked back to old (absent); the container change remains.
    assert str(err) == ('spec.replicatedJobs: Invalid value: [{"name":"a","template":{"spec":{"template":'
                        '{"spec":{"containers":[{"name":"z"}]}},"parallelism":1}},"replicas":1}]: '
                        "field is immutable")


def test_semantic_equal() -> None:
    assert semantic_equal({"a": None}, {})
    assert semantic_equal({"requests": {"cpu": "1000m"}}, {"requests": {"cpu": "1"}})
    assert not semantic_equal({"requests": {"cpu": "1001m"}}, {"requests": {"cpu": "1"}})
    assert not semantic_equal({"affinity": {}}, {})  # pointer to empty struct is not nil
    assert not semantic_equal({"x": 0}, {})


# --------------------------------------------------------------------------- examples and properties


@given(st.data())
@settings(max_examples=60, deadline=None)
def test_validate_answers_with_field_errors(data: st.DataObject) -> None:
    names = st.text(alphabet="ab-.1A", max_size=8)
    ints = st.integers(min_value=-2147483648, max_value=2147483647)
    rjobs = data.draw(st.lists(st.fixed_dictionaries({
        "name": names, "groupName": names, "replicas": ints,
        "template": st.fixed_dictionaries({"spec": st.fixed_dictionaries({}, optional={
            "completions": ints, "parallelism": ints, "completionMode": st.sampled_from(["Indexed", "NonIndexed"]),
            "backoffLimit": ints})}),
    }, optional={"dependsOn": st.lists(st.fixed_dictionaries({"name": names, "status": st.just("Ready")}),
                                       max_size=2)}), max_size=3))
    spec: dict[str, Any] = {"replicatedJobs": rjobs}
    spec.update(data.draw(st.fixed_dictionaries({}, optional={
        "managedBy": names, "network": st.fixed_dictionaries({"subdomain": names}),
        "coordinator": st.fixed_dictionaries({"replicatedJob": names, "jobIndex": ints, "podIndex": ints}),
        "failurePolicy": st.fixed_dictionaries({"restartStrategy": st.sampled_from(["Recreate", "InPlaceRestart"]),
                                                "rules": st.lists(st.fixed_dictionaries({
                                                    "name": names,
                                                    "action": st.sampled_from(["FailJobSet", "RestartJob"]),
                                                    "onJobFailureReasons": st.lists(names, max_size=2)}),
                                                    max_size=3)}),
        "successPolicy": st.fixed_dictionaries({"operator": st.just("All"),
                                                "targetReplicatedJobs": st.lists(names, max_size=2)}),
    })))
    js = {"metadata": {"name": data.draw(names)}, "spec": spec}
    gates = data.draw(st.dictionaries(st.sampled_from(sorted(ALL_GATES)), st.booleans()))
    created = validate_create(js, feature_gates=gates)  # never raises: the simulation's budget is not admission's
    for err in created:
        assert isinstance(err, FieldError)
        assert str(err)
    for err in validate_update(js, default_jobset(js), feature_gates=gates):
        assert isinstance(err, FieldError)


def test_examples_admitted_after_defaulting(example_jobsets: list[tuple[str, dict[str, Any]]]) -> None:
    gated = {"failure-policy/restartjob-action.yaml": RESTART_JOB_GATE_ERR,
             "failure-policy/restartjobandignoremaxrestarts-action.yaml": RESTART_JOB_GATE_ERR,
             "in-place-restart/jobset-main-container-mode.yaml": IN_PLACE_GATE_ERR,
             "in-place-restart/jobset-sidecar-container-mode.yaml": IN_PLACE_GATE_ERR}
    for rel, obj in example_jobsets:
        admitted = apply_schema_defaults(default_jobset(apply_schema_defaults(obj)))
        want = [gated[rel]] if rel in gated else []
        assert rendered(validate_create(admitted)) == want, rel
        assert validate_create(admitted, feature_gates=ALL_GATES) == [], rel
        # An update that changes nothing is always admitted.
        assert validate_update(admitted, copy.deepcopy(admitted), feature_gates=ALL_GATES) == [], rel


@pytest.fixture(scope="module")
def example_jobsets() -> list[tuple[str, dict[str, Any]]]:
    import yaml

    from jobset_ref.conformance.scenario import MANIFESTS_DIR

    root = MANIFESTS_DIR  # the project's own manifests, of the upstream examples' shapes
    out = []
    for path in sorted(root.rglob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == "JobSet":
                out.append((path.relative_to(root).as_posix(), doc))
    assert len(out) >= 30
    return out
