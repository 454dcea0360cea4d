"""batch/v1 Job on the API server: defaults, validation, immutability and the strict 1.32+
status validation (spec/kubernetes.md §2.1, §2.2, §2.10, §2.13)."""

from __future__ import annotations

from typing import Any

import pytest

from fakekube.apiserver.kinds.job_indexes import IndexSet, validate_indexes_format
from fakekube.cluster import FakeCluster
from fakekube.errors import Invalid
from fakekube.testing import make_job

T0 = "2030-01-01T00:00:00Z"
T5 = "2030-01-01T00:00:05Z"


job = make_job


@pytest.fixture
def cluster() -> FakeCluster:
    return FakeCluster(seed=0, simulate=False)


def invalid(fn: Any, *args: Any) -> str:
    with pytest.raises(Invalid) as info:
        fn(*args)
    return info.value.message


def cond(ctype: str, reason: str = "R", message: str = "m", status: str = "True") -> dict[str, Any]:
    return {"type": ctype, "status": status, "reason": reason, "message": message,
            "lastProbeTime": T5, "lastTransitionTime": T5}


# --------------------------------------------------------------------------- defaults


def test_defaults_and_generated_selector(cluster: FakeCluster) -> None:
    created = cluster.create(job())
    spec, uid = created["spec"], created["metadata"]["uid"]
    assert (spec["completions"], spec["parallelism"], spec["backoffLimit"]) == (1, 1, 6)
    assert spec["completionMode"] == "NonIndexed"
    assert spec["suspend"] is False
    assert spec["podReplacementPolicy"] == "TerminatingOrFailed"
    assert spec["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert spec["template"]["metadata"]["labels"] == {
        "job-name": "pi", "batch.kubernetes.io/job-name": "pi",
        "controller-uid": uid, "batch.kubernetes.io/controller-uid": uid}
    assert created["metadata"]["generation"] == 1
    assert created["status"] == {}
    assert "labels" not in created["metadata"]  # the template had no labels at decode time


def test_defaults_parallelism_only_and_per_index() -> None:
    c = FakeCluster(seed=0, simulate=False)
    work_queue = c.create(job("wq", parallelism=3))
    assert "completions" not in work_queue["spec"]
    per_index = c.create(job("pi", completionMode="Indexed", completions=3, backoffLimitPerIndex=1,
                             podFailurePolicy={"rules": [{"action": "Ignore",
                                                          "onPodConditions": [{"type": "DisruptionTarget"}]}]}))
    assert per_index["spec"]["backoffLimit"] == 2147483647
    assert per_index["spec"]["podReplacementPolicy"] == "Failed"
    assert per_index["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"][0]["status"] == "True"


def test_job_labels_default_from_template(cluster: FakeCluster) -> None:
    body = job()
    body["spec"]["template"]["metadata"] = {"labels": {"app": "pi"}}
    assert cluster.create(body)["metadata"]["labels"] == {"app": "pi"}


# --------------------------------------------------------------------------- create validation


def test_restart_policy_always_is_required_error(cluster: FakeCluster) -> None:
    body = job()
    del body["spec"]["template"]["spec"]["restartPolicy"]
    assert invalid(cluster.create, body) == (
        'Job.batch "pi" is invalid: spec.template.spec.restartPolicy: Required value: '
        'valid values: "OnFailure", "Never"')


def test_on_failure_with_pod_failure_policy(cluster: FakeCluster) -> None:
    body = job(podFailurePolicy={"rules": [{"action": "FailJob",
                                            "onExitCodes": {"operator": "In", "values": [1]}}]})
    body["spec"]["template"]["spec"]["restartPolicy"] = "OnFailure"
    assert invalid(cluster.create, body) == (
        'Job.batch "pi" is invalid: spec.template.spec.restartPolicy: Invalid value: "OnFailure": '
        'only "Never" is supported when podFailurePolicy is specified')


def test_indexed_requires_completions(cluster: FakeCluster) -> None:
    msg = invalid(cluster.create, job(completionMode="Indexed", parallelism=2))
    assert msg == 'Job.batch "pi" is invalid: spec.completions: Required value: when completion mode is Indexed'


def test_negative_counts_and_per_index_rules(cluster: FakeCluster) -> None:
    msg = invalid(cluster.create, job(parallelism=-1, backoffLimitPerIndex=1))
    assert "spec.parallelism: Invalid value: -1: must be greater than or equal to 0" in msg
    assert "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode" in msg


def test_pod_failure_policy_rules_validated(cluster: FakeCluster) -> None:
    msg = invalid(cluster.create, job(podFailurePolicy={"rules": [
        {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [0, 3, 2]}},
        {"action": "FailIndex", "onPodConditions": [{"type": "DisruptionTarget"}]},
        {"action": "Count"}]}))
    assert "spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator" in msg
    assert "spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [0,3,2]: must be ordered" in msg
    assert ('spec.podFailurePolicy.rules[1].action: Invalid value: "FailIndex": '
            "requires the backoffLimitPerIndex to be set") in msg
    assert "spec.podFailurePolicy.rules[2]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required" in msg


def test_success_policy_requires_indexed_and_valid_indexes(cluster: FakeCluster) -> None:
    msg = invalid(cluster.create, job(completionMode="Indexed", completions=3, successPolicy={"rules": [
        {"succeededIndexes": "1-5"}, {"succeededIndexes": "0,1", "succeededCount": 3}]}))
    assert ('spec.successPolicy.rules[0].succeededIndexes: Invalid value: "1-5": '
            'error parsing succeededIndexes: too large index: "5"') in msg
    assert ("spec.successPolicy.rules[1].succeededCount: Invalid value: 3: must be less than or equal to 2 "
            "(the number of indexes in the specified succeededIndexes field)") in msg


def test_indexed_hostname_must_be_a_dns_label(cluster: FakeCluster) -> None:
    name = "a" * 62
    msg = invalid(cluster.create, job(name, completionMode="Indexed", completions=10))
    assert f'metadata.name: Invalid value: "{name}": will not able to create pod with invalid DNS label: {name}-9' in msg


def test_managed_by_must_be_domain_prefixed(cluster: FakeCluster) -> None:
    msg = invalid(cluster.create, job(managedBy="kueue"))
    assert 'spec.managedBy: Invalid value: "kueue": must be a domain-prefixed path (such as "acme.io/foo")' in msg


# --------------------------------------------------------------------------- update validation


def test_template_is_immutable_once_started(cluster: FakeCluster) -> None:
    created = cluster.create(job())
    created["spec"]["template"]["spec"]["nodeSelector"] = {"zone": "a"}
    msg = invalid(cluster.update, created)
    assert msg.startswith('Job.batch "pi" is invalid: spec.template: Invalid value: ')
    assert msg.endswith(": field is immutable")


def test_suspended_never_started_template_carve_out(cluster: FakeCluster) -> None:
    """JobSet's resume: scheduling directives and metadata may change while suspended, startTime nil."""
    created = cluster.create(job(suspend=True))
    created["spec"]["suspend"] = False
    tmpl = created["spec"]["template"]
    tmpl["metadata"]["labels"]["extra"] = "x"
    tmpl["metadata"]["annotations"] = {"a": "b"}
    tmpl["spec"]["nodeSelector"] = {"zone": "a"}
    tmpl["spec"]["tolerations"] = [{"key": "k", "operator": "Exists"}]
    tmpl["spec"]["schedulingGates"] = [{"name": "g"}]
    tmpl["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}}
    updated = cluster.update(created)
    assert updated["spec"]["template"]["spec"]["nodeSelector"] == {"zone": "a"}
    assert updated["metadata"]["generation"] == 2
    # Other template fields stay immutable even then.
    again = cluster.get("Job", "pi")
    again["spec"]["suspend"] = True
    again = cluster.update(again)
    again["spec"]["template"]["spec"]["containers"][0]["image"] = "other"
    msg = invalid(cluster.update, again)
    assert msg.startswith('Job.batch "pi" is invalid: spec.template: Invalid value: ')
    assert msg.endswith(": field is immutable")


def test_carve_out_closed_once_start_time_set(cluster: FakeCluster) -> None:
    created = cluster.create(job(suspend=True))
    created["status"] = {"startTime": T0}
    with_start = cluster.update_status(created)
    with_start["spec"]["template"]["spec"]["nodeSelector"] = {"zone": "a"}
    assert "spec.template: Invalid value" in invalid(cluster.update, with_start)


def test_completions_only_in_tandem_for_indexed(cluster: FakeCluster) -> None:
    created = cluster.create(job(completionMode="Indexed", completions=4, parallelism=4))
    created["spec"]["completions"] = 2
    assert invalid(cluster.update, created) == (
        'Job.batch "pi" is invalid: spec.completions: Invalid value: 2: '
        "can only be modified in tandem with spec.parallelism")
    created["spec"]["parallelism"] = 2
    assert cluster.update(created)["spec"]["completions"] == 2
    nonindexed = cluster.create(job("ni", completions=3, parallelism=3))
    nonindexed["spec"]["completions"] = 2
    nonindexed["spec"]["parallelism"] = 2
    assert "spec.completions: Invalid value: 2: field is immutable" in invalid(cluster.update, nonindexed)


def test_immutable_spec_fields(cluster: FakeCluster) -> None:
    created = cluster.create(job(completionMode="Indexed", completions=2))
    created["spec"]["completionMode"] = "NonIndexed"
    assert 'spec.completionMode: Invalid value: "NonIndexed": field is immutable' in invalid(cluster.update, created)
    mutable = cluster.get("Job", "pi")
    mutable["spec"].update(parallelism=1, backoffLimit=1, activeDeadlineSeconds=5, suspend=True)
    assert cluster.update(mutable)["spec"]["backoffLimit"] == 1


# --------------------------------------------------------------------------- status validation


def _status(cluster: FakeCluster, name: str = "pi", **status: Any) -> dict[str, Any]:
    current = cluster.get("Job", name)
    current["status"] = {**current.get("status", {}), **status}
    return current


def test_status_complete_requires_success_criteria_met(cluster: FakeCluster) -> None:
    cluster.create(job())
    body = _status(cluster, startTime=T0, completionTime=T5, conditions=[cond("Complete")])
    assert invalid(cluster.update_status, body) == (
        'Job.batch "pi" is invalid: status.conditions: Invalid value: '
        "cannot set Complete=True condition without the SuccessCriteriaMet=true condition")


def test_status_complete_requires_completion_time(cluster: FakeCluster) -> None:
    cluster.create(job())
    body = _status(cluster, startTime=T0, conditions=[cond("SuccessCriteriaMet"), cond("Complete")])
    assert invalid(cluster.update_status, body) == (
        'Job.batch "pi" is invalid: status.completionTime: Required value: '
        "completionTime is required for Complete jobs")


def test_status_failed_requires_failure_target_and_start_time(cluster: FakeCluster) -> None:
    cluster.create(job())
    msg = invalid(cluster.update_status, _status(cluster, conditions=[cond("Failed")]))
    assert msg == ('Job.batch "pi" is invalid: [status.conditions: Invalid value: cannot set Failed=True condition '
                   "without the FailureTarget=true condition, status.startTime: Required value: "
                   "startTime is required for finished job]")


def test_status_ready_more_than_active(cluster: FakeCluster) -> None:
    cluster.create(job())
    assert invalid(cluster.update_status, _status(cluster, active=1, ready=2)) == (
        'Job.batch "pi" is invalid: status.ready: Invalid value: 2: cannot set more ready pods than active')


def test_status_two_step_finish_accepted_then_conditions_cannot_be_removed(cluster: FakeCluster) -> None:
    cluster.create(job())
    cluster.update_status(_status(cluster, startTime=T0, active=1, ready=1))
    cluster.update_status(_status(cluster, conditions=[cond("SuccessCriteriaMet")]))
    done = cluster.update_status(_status(cluster, active=0, ready=0, succeeded=1, completionTime=T5,
                                         conditions=[cond("SuccessCriteriaMet"), cond("Complete")]))
    assert [c["type"] for c in done["status"]["conditions"]] == ["SuccessCriteriaMet", "Complete"]
    msg = invalid(cluster.update_status, _status(cluster, conditions=[cond("SuccessCriteriaMet")]))
    assert "status.conditions: Invalid value: cannot disable the terminal Complete=True condition" in msg
    assert "status.completionTime: Invalid value: " in msg  # completionTime without Complete
    msg = invalid(cluster.update_status, _status(cluster, completionTime="2030-01-01T00:00:09Z"))
    assert msg.endswith('status.completionTime: Invalid value: "2030-01-01T00:00:09Z": completionTime cannot be mutated')
    assert invalid(cluster.update_status, _status(cluster, succeeded=0)).endswith(
        "status.succeeded: Invalid value: 0: cannot decrease the succeeded counter")


def test_status_finished_with_active_pods(cluster: FakeCluster) -> None:
    cluster.create(job())
    body = _status(cluster, startTime=T0, active=2,
                   conditions=[cond("FailureTarget"), cond("Failed")])
    assert invalid(cluster.update_status, body) == (
        'Job.batch "pi" is invalid: status.active: Invalid value: 2: active>0 is invalid for finished job')


def test_status_start_time_only_removable_while_suspended(cluster: FakeCluster) -> None:
    cluster.create(job())
    cluster.update_status(_status(cluster, startTime=T0))
    body = cluster.get("Job", "pi")
    del body["status"]["startTime"]
    assert invalid(cluster.update_status, body) == (
        'Job.batch "pi" is invalid: status.startTime: Required value: startTime cannot be removed for unsuspended job')
    live = cluster.get("Job", "pi")
    live["spec"]["suspend"] = True
    cluster.update(live)
    body = cluster.get("Job", "pi")
    del body["status"]["startTime"]
    assert "startTime" not in cluster.update_status(body)["status"]


def test_status_index_fields(cluster: FakeCluster) -> None:
    cluster.create(job())
    assert invalid(cluster.update_status, _status(cluster, completedIndexes="0")) == (
        'Job.batch "pi" is invalid: status.completedIndexes: Invalid value: "0": '
        "cannot set non-empty completedIndexes when non-indexed completion mode")
    cluster.create(job("ix", completionMode="Indexed", completions=4, parallelism=4, backoffLimitPerIndex=0))
    assert invalid(cluster.update_status, _status(cluster, "ix", completedIndexes="1,0")) == (
        'Job.batch "ix" is invalid: status.completedIndexes: Invalid value: "1,0": '
        "error parsing completedIndexes: non-increasing order, previous: 1, current: 0")
    assert invalid(cluster.update_status, _status(cluster, "ix", completedIndexes="0-2", failedIndexes="2,3")) == (
        'Job.batch "ix" is invalid: status.failedIndexes: Invalid value: "2,3": '
        "failedIndexes and completedIndexes overlap at index: 2")


def test_status_uncounted_uids(cluster: FakeCluster) -> None:
    cluster.create(job())
    body = _status(cluster, uncountedTerminatedPods={"succeeded": ["a", ""], "failed": ["a"]})
    msg = invalid(cluster.update_status, body)
    assert 'status.uncountedTerminatedPods.succeeded[1]: Invalid value: "": must not be empty' in msg
    assert 'status.uncountedTerminatedPods.failed[0]: Duplicate value: "a"' in msg


def test_status_update_ignores_spec_and_main_update_ignores_status(cluster: FakeCluster) -> None:
    cluster.create(job())
    body = _status(cluster, active=1)
    body["spec"]["parallelism"] = 5
    written = cluster.update_status(body)
    assert written["spec"]["parallelism"] == 1 and written["status"]["active"] == 1
    written["status"]["active"] = 3
    written["spec"]["parallelism"] = 2
    updated = cluster.update(written)
    assert updated["status"]["active"] == 1 and updated["spec"]["parallelism"] == 2


# --------------------------------------------------------------------------- index sets


@pytest.mark.parametrize(("indexes", "text"), [
    ([1, 3, 4, 5, 7], "1,3-5,7"), ([0, 1], "0,1"), ([0, 1, 2], "0-2"), ([3, 4], "3,4"), ([], ""),
])
def test_index_set_format(indexes: list[int], text: str) -> None:
    assert str(IndexSet.of(indexes)) == text
    assert list(IndexSet.parse(text, 100)) == sorted(indexes)


def test_index_set_parse_truncates_and_merges() -> None:
    assert str(IndexSet.parse("1-3,8-12", 10)) == "1-3,8,9"
    merged = IndexSet.parse("0,2", 10).with_indexes([1, 5])
    assert str(merged) == "0-2,5" and merged.total() == 4 and merged.has(5) and not merged.has(3)


@pytest.mark.parametrize(("text", "error"), [
    ("1-2-3", "the fragment \"1-2-3\" violates the requirement that an index interval can have at most two "
              "parts separated by '-'"),
    ("x", 'cannot convert string to integer for index: "x"'),
    ("12", 'too large index: "12"'),
    ("3,1", "non-increasing order, previous: 3, current: 1"),
    ("4-4", "non-increasing order, previous: 4, current: 4"),
])
def test_validate_indexes_format_errors(text: str, error: str) -> None:
    with pytest.raises(ValueError) as info:
        validate_indexes_format(text, 10)
    assert str(info.value) == error


def test_status_start_time_reset_allowed_on_controller_resume(cluster: FakeCluster) -> None:
    """kubernetes#134521 (fixed in 1.32-1.34 patch releases): Suspended True -> False may reset startTime."""
    cluster.create(job())
    cluster.update_status(_status(cluster, startTime=T0,
                                  conditions=[cond("Suspended", "JobSuspended", "Job suspended")]))
    resumed = cluster.update_status(_status(cluster, startTime=T5, conditions=[
        cond("Suspended", "JobResumed", "Job resumed", status="False")]))
    assert resumed["status"]["startTime"] == T5
